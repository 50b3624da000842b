//===- Passes.td - Passes of the model dialect -------------*- tablegen -*-===//

#ifndef SLUICE_MODEL_PASSES
#define SLUICE_MODEL_PASSES

include "mlir/Pass/PassBase.td"

def ModelCost : Pass<"model-cost", "::mlir::ModuleOp"> {
  let summary = "Attach parameter, memory and FLOP costs to model ops";
  let description = [{
    Walks the blocks of every `model.transformer` and attaches, to each
    block, its parameter count (`params`), its forward FLOPs for one
    sequence of `seq` tokens (`fwd_flops`) and, inside `model.layers`, the
    activation bytes it stores for the backward pass for `micro-batch`
    sequences (`act_bytes`, and `act_bytes_selective` with selective
    recomputation; Korthikanti et al. 2022). `model.layers` gets the totals
    of its layers (`params`, `fwd_flops`, `act_bytes`,
    `act_bytes_selective`, `act_bytes_full`: full recomputation keeps only
    each layer's 2*s*b*h input). `model.transformer` gets the model totals:
    `params`; `param_bytes`, `grad_bytes`, `optimizer_bytes` (weights and
    gradients in `dtype`, 12 bytes per parameter of fp32 master weights,
    momentum and variance); `fwd_flops`; `train_flops_per_token` and
    `train_flops_per_token_recompute` (backward is twice forward, full
    recomputation adds the layers' forward again); the three activation
    totals; `kv_cache_bytes_per_token`.

    When the model is uniform (one `model.layers` of norm, attention,
    norm, mlp with one norm kind and a final norm: what SluiceModelCost's
    TransformerConfig describes), the totals are cross-checked against
    SluiceModelCost (parameters exactly, FLOPs and activations to 1e-12
    relative); a disagreement is an error at the transformer, and a
    checked model gets `cross_checked`.

    Every `model.job` gets what the offload planners read, for one
    sequence of the job's `seq` (else the model's) tokens, recorded as
    `cost_seq`: `layer_costs` (per `model.layers`: `count`, one layer's
    `params`, `fwd_flops`, `act_bytes`, `act_bytes_selective`, and the
    shapes `hidden`, `heads`, `kv_dim`, `ffn`, `gated`), `other_params`
    and `head_fwd_flops` (the blocks outside the layers), `params`,
    `param_bytes`, `grad_bytes`, `optimizer_bytes` (8 bytes per parameter
    for `optimizer = "sgd"`, else 12) and `kv_cache_bytes_per_token`.
  }];
  let options = [
    Option<"microBatch", "micro-batch", "int64_t", /*default=*/"1",
           "Sequences per micro-batch for the activation bytes">
  ];
}

def ModelPlanParallel : Pass<"model-plan-parallel", "::mlir::ModuleOp"> {
  let summary = "Plan 3D-parallel training (tp, pp, dp, placement) of train jobs";
  let description = [{
    Needs the flat topology of the module (`topo-flatten`). Every
    `model.job` with action `train` on that topology gets a
    `plan.parallel @<job>_parallel` (appended to the module): the
    configuration (tensor, pipeline and data parallel ways, micro-batch,
    interleaved virtual stages, recomputation, sequence parallelism, ZeRO
    stage) with the shortest predicted iteration time among those whose
    most loaded GPU fits in memory, and the GPU of every rank, searched over
    host and GPU permutations when the links differ (exactly when there are
    at most 5040 placements, else by simulated annealing with `seed`). The
    cluster is every gpu of the topology, grouped into hosts by its
    top-level instance; pair bandwidths are the measured matrix where the
    topology gives one, else widest paths. The model is the job's
    `model.transformer` (one layer group) at the job's `seq`.
    compiler/Analysis/Parallel holds the model and the search;
    docs/parallel.md the formulas.

    Errors, at the job: a job on another topology than the flat one, a
    topology the planner cannot use (hosts with different gpu counts,
    different gpus, a gpu without `memory` or `compute`), a model with
    several layer groups, and a job that fits nowhere, naming the binding
    constraint with numbers (`GPU memory: the configuration needing the
    least (...) needs 95.1 GiB per gpu ..., have 78 GiB`). With `remarks`, a
    remark per job lists the configurations searched and rejected and the
    runners-up.

    Before:

    ```mlir
    model.job @pretrain train @gpt on @box batch 64
    ```

    After (abridged):

    ```mlir
    plan.parallel @pretrain_parallel for @pretrain on @box tp 2 pp 2 dp 1 micro_batch 1 x 64 virtual 1 recompute selective zero 0 placement "exact" time(12.5) attributes {...} {
      plan.stage 0 layers [0] x 20 gpus ["gpu[0]", "gpu[1]"]
      plan.stage 1 layers [20] x 20 gpus ["gpu[2]", "gpu[3]"]
    }
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the simulated annealing over placements">,
    Option<"annealIterations", "anneal-iterations", "int64_t",
           /*default=*/"3000",
           "Placements the annealing proposes per candidate configuration">,
    Option<"searchPlacement", "placement", "bool", /*default=*/"true",
           "Search the GPU of every rank (false: Megatron-LM's default "
           "order)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Print a remark per job with the search's counts and runners-up">,
    Option<"jobName", "job", "std::string", /*default=*/"\"\"",
           "Plan only the train job of this name (empty: every one)">,
  ];
  let dependentDialects = ["::sluice::plan::PlanDialect"];
}

def ModelPlanDistill : Pass<"model-plan-distill", "::mlir::ModuleOp"> {
  let summary = "Plan Pipe-BD blockwise distillation of distill jobs";
  let description = [{
    Needs the flat topology of the module (`topo-flatten`). Every
    `model.job` with action `distill` on that topology gets a
    `plan.distill @<job>_distill` (appended to the module): the teacher's
    and the student's layers split into the `model.distill`'s blocks, the
    blocks split into contiguous pipeline stages on consecutive GPUs, each
    stage data parallel over its GPUs (Pipe-BD's hybrid parallelism), with
    the shortest predicted time per batch among the splits whose stages fit
    in GPU memory (exact dynamic programming,
    compiler/Analysis/Parallel/PipeBD.h), and the block-by-block
    data-parallel baseline's time and memory for the same work. Block costs
    come from the models' blocks at the job's `seq` (ModelCostWalk): the
    teacher's forward, the student's forward and backward (3x forward), the
    student's weights, gradients and the job's optimizer states, its stored
    activations per sample, and a projection on each student block's input
    and output when the widths differ. docs/parallel.md has the formulas.

    Errors, at the job: a job on another topology than the flat one, a
    topology the planner cannot use, teacher and student of different
    sequence lengths without a job `seq`, and a job no split fits (the
    block that needs the most, with numbers). With `remarks`, a remark per
    job gives the stages, the time and the baseline's.

    Before:

    ```mlir
    model.distill @pair teacher @big student @small blocks 4
    model.job @kd distill @pair on @box batch 64
    ```

    After (abridged):

    ```mlir
    plan.distill @kd_distill for @kd on @box batch 64 time(0.0106) baseline(0.0237) attributes {...} {
      plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]", "gpu[1]"] attributes {...}
      plan.distill_stage 1 blocks 2 x 2 gpus ["gpu[2]", "gpu[3]"] attributes {...}
    }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Print a remark per job with its stages and the baseline">,
    Option<"jobName", "job", "std::string", /*default=*/"\"\"",
           "Plan only the distill job of this name (empty: every one)">,
  ];
  let dependentDialects = ["::sluice::plan::PlanDialect"];
}

def ModelPlanDisdp : Pass<"model-plan-disdp", "::mlir::ModuleOp"> {
  let summary = "Plan DisDP's disaggregated ZeRO-3 for train jobs with a parameter server";
  let description = [{
    Needs the flat topology of the module (`topo-flatten`). Every `train`
    `model.job` with a `parameter_server` gets a `plan.disdp @<job>_disdp`
    (appended to the module): DisDP (shared/papers/00-disdp.txt), ZeRO-3
    data parallelism over every GPU with the all-gathers and reduce-
    scatters in the network (the switches with `reduce: true`,
    planInNetworkCollective) and the optimizer states on the parameter
    server (a `cpu` device), against conventional ZeRO-3 with ring
    collectives, the states sharded on the GPUs (or offloaded to the hosts'
    CPUs), everything one after the other. Both iterations are simulated
    (compiler/Analysis/Parallel/DisDP.h) from durations derived from the
    topology (DisDPCosts.h); docs/parallel.md ("DisDP") has the formulas.
    model-plan-parallel leaves these jobs alone.

    Errors, at the job: no reducing switch, a parameter server that is not
    a cpu with memory and memory_bandwidth or has no path to the reducers,
    model states over its memory, a batch not divisible by gpus x
    micro-batch, and a model that fits neither layout (with numbers). With
    `remarks`, a remark per job gives both iterations, the speedup and what
    binds DisDP's iteration.

    Before:

    ```mlir
    model.job @t train @gpt3 on @rack batch 8 attributes {parameter_server = "ps"}
    ```

    After (abridged):

    ```mlir
    plan.disdp @t_disdp for @t on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {...}
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Print a remark per job with both iterations and the speedup">,
    Option<"jobName", "job", "std::string", /*default=*/"\"\"",
           "Plan only the train job of this name (empty: every one)">,
  ];
  let dependentDialects = ["::sluice::plan::PlanDialect"];
}

#endif // SLUICE_MODEL_PASSES
