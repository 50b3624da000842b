//===- PlanOps.td - Operations of the plan dialect ---------*- tablegen -*-===//
//
// plan.demands / plan.demand (what must move) and plan.schedule with
// plan.transfer / plan.compute (how and when it moves). No op has operands
// or results: a plan is a declaration, and devices are named by their path
// in the flat topology.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_PLAN_OPS
#define SLUICE_PLAN_OPS

include "dialects/Plan/IR/PlanAttrs.td"
include "dialects/Plan/IR/PlanDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// plan.demands
//===----------------------------------------------------------------------===//

def Plan_DemandsOp : Plan_Op<"demands", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "The transfer demands of one `demand` declaration";
  let description = [{
    A named set of `plan.demand` ops on topology `topology` (the name of the
    topology the devices belong to; `plan-schedule-flows` resolves them
    against the flat topology of that name). `chunk_bytes` is the chunk
    size of the timeline the schedule will carry (0: one chunk per path).
    The body must hold at least one `plan.demand`.

    Example:

    ```mlir
    plan.demands @copy on @dgx_a100 {
      plan.demand transfer 8.0e+09 from ["cpu[0]"] to ["gpu[*]"]
      plan.demand allreduce 2.0e+09 from ["gpu[0..4]"] to ["gpu[0..4]"]
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$topology,
                       DefaultValuedAttr<F64Attr, "0.0">:$chunk_bytes);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "$sym_name `on` $topology attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.demand
//===----------------------------------------------------------------------===//

def Plan_DemandOp : Plan_Op<"demand", [HasParent<"DemandsOp">]> {
  let summary = "One set of transfers";
  let description = [{
    `kind` (a `DemandKind`, PlanEnums.td) says how `bytes` turns into
    point-to-point demands between the
    devices matched by the `sources` and `destinations` patterns (a pattern
    is a device path whose indices may be `[*]` or `[a..b]`, half-open):

    - `transfer`: `bytes` from every source to every destination (pairs of
      a device with itself are local and skipped);
    - `gather`: every destination reads `bytes` in total, striped evenly
      over the sources (a destination that is itself a source reads its
      share locally);
    - `alltoall`: every member sends `bytes / n` to each other member;
    - `allgather`, `reducescatter`, `allreduce`: the collective of `bytes`
      over the group, which `plan-schedule-flows` plans by algorithm
      (ring, tree, in-network, hierarchical; see `plan.collective`);

    A `gather` with a `job` dictionary is a gather job (docs/flows.md,
    "Gather jobs"): `items` (i64) items of `item_bytes` (f64) each, read
    with per-destination access counts from `access_file` (a path) or
    derived from the graph file `graph` (`graph_format`, `graph_undirected`,
    and `graph_duplicates` / `graph_self_loops`: the words of `load(...)`,
    `merge` and `drop` when absent) with the sampling `fanout` (array of
    i64); optional `classes` (i64) and
    `capacity` (array of f64, bytes per device, one per tier). The counts
    of a sampled job are computed from its graph before
    `plan-schedule-flows` and attached as `access_counts`, a
    `tensor<items x destinations x f64>` (sluicec does it; the pass reads
    no graph). Each source
    pattern is one tier, in priority order, and `bytes` is the data set's
    size (items x item_bytes).

    A `blockio` demand (SmartDS, docs/flows.md "Storage middle tier
    (SmartDS)") is block I/O of `bytes`-byte blocks between the compute
    devices `sources` and the storage devices `destinations`, served by the
    middle-tier servers whose host CPUs its `job` lists: `middle_tier`
    (array of patterns), `rate` (f64, requests per second in total, > 0),
    `compressibility` (f64 in [0, 1)), `header_cost` (f64, host CPU
    seconds per request, >= 0) and optionally `read_fraction` (f64 in
    [0, 1], the share of reads; absent: 0) and `codec` (a `#plan<codec>`,
    the host codec; absent: zstd). `plan-middle-tier` plans it
    and removes it.

    where `n` is the group size. For the collectives `sources` and
    `destinations` are the same group. `bytes` is finite and positive,
    patterns are non-empty.
  }];
  let arguments = (ins Plan_DemandKindAttr:$kind, F64Attr:$bytes,
                       StrArrayAttr:$sources, StrArrayAttr:$destinations,
                       OptionalAttr<DictionaryAttr>:$job);
  let assemblyFormat =
      "`` $kind $bytes `from` $sources `to` $destinations attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True for the kinds over one group (alltoall and the collectives).
    bool isOverOneGroup() { return ::sluice::plan::isOverOneGroup(getKind()); }
    /// The job of a `blockio` demand (called by verify()).
    ::mlir::LogicalResult verifyBlockIO();
  }];
}

//===----------------------------------------------------------------------===//
// plan.schedule
//===----------------------------------------------------------------------===//

def Plan_ScheduleOp : Plan_Op<"schedule", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A timed plan of transfers and compute";
  let description = [{
    Holds `plan.transfer` and `plan.compute` ops on topology `topology`.
    `makespan` (s) is when the last of them ends; every op must end by then
    (relative slack 1e-9). `method` (a `ScheduleMethod`, PlanEnums.td, the
    `method` of the exported JSON) names how it was found, e.g.
    `"single-commodity-parametric"`, `"multi-commodity-lp"`, `"collective"`;
    a schedule written by hand may have none.
    Optional: `lower_bound`, a proven lower bound on any schedule's
    makespan (at most the makespan); `direct_makespan` and
    `moment_makespan`, the makespans of the baselines for the same demands;
    `chunk_bytes`, the chunk size the transfers' chunk counts use.
    Offload plans (`method "offload-finetune"`, docs/offload.md) also
    carry `tflops` (the predicted model TFLOP/s), `peak_bytes` (tier name
    to the bytes the plan needs at its peak) and `link_bytes` (link class
    to the bytes it moves per iteration); the verifier checks finite,
    non-negative numbers (floats in the dictionaries). `data_parallel`
    (at least 1): the GPUs that run the schedule in lockstep, each on its
    share of the batch; the ops are those of the first GPU.

    Example:

    ```mlir
    plan.schedule @copy on @dgx_a100 makespan(0.32) method "multi-commodity-lp" {
      plan.transfer "cpu[0]" -> "gpu[0]" bytes(8.0e+09) via ["cpu[0]", "pcie[0]", "gpu[0]"] rate(2.5e+10) window(0.0, 0.32) chunks(1) {demand = 0 : i64}
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$topology,
                       F64Attr:$makespan,
                       OptionalAttr<Plan_ScheduleMethodAttr>:$method,
                       OptionalAttr<F64Attr>:$lower_bound,
                       OptionalAttr<F64Attr>:$direct_makespan,
                       OptionalAttr<F64Attr>:$moment_makespan,
                       DefaultValuedAttr<F64Attr, "0.0">:$chunk_bytes,
                       OptionalAttr<F64Attr>:$tflops,
                       OptionalAttr<DictionaryAttr>:$peak_bytes,
                       OptionalAttr<DictionaryAttr>:$link_bytes,
                       OptionalAttr<I64Attr>:$data_parallel);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `on` $topology `makespan` `(` $makespan `)`
    (`method` `` $method^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.transfer
//===----------------------------------------------------------------------===//

def Plan_TransferOp : Plan_Op<"transfer", [HasParent<"ScheduleOp">]> {
  let summary = "Bytes moving along one path at a constant rate";
  let description = [{
    Moves `bytes` from device `source` to device `destination` along `path`
    (the devices crossed, from `source` to `destination`, each once; each
    consecutive pair is a link) at `rate` B/s during `[start, end]`, cut
    into `chunks` chunks. `demand` is the index of the point-to-point demand
    it serves (transfers of one demand share it), `stream` an optional
    name of the queue that issues it (executors and other planners use it),
    `tensor` an optional name of what moves (offload plans: `params`,
    `grads`, `activations`, `adam`) and `label` an optional name of the
    action (e.g. `params prefetch L3`).
    The verifier checks positive finite bytes and rate, 0 <= start <= end,
    `rate * (end - start)` equal to `bytes` (relative 1e-6), 1 to 10^6
    chunks, and the path.
  }];
  let arguments = (ins StrAttr:$source, StrAttr:$destination, F64Attr:$bytes,
                       StrArrayAttr:$path, F64Attr:$rate, F64Attr:$start,
                       F64Attr:$end, I64Attr:$chunks,
                       DefaultValuedAttr<I64Attr, "0">:$demand,
                       OptionalAttr<StrAttr>:$stream,
                       OptionalAttr<StrAttr>:$tensor,
                       OptionalAttr<StrAttr>:$label);
  let assemblyFormat = [{
    $source `->` $destination `bytes` `(` $bytes `)` `via` $path
    `rate` `(` $rate `)` `window` `(` $start `,` $end `)`
    `chunks` `(` $chunks `)` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.collective
//===----------------------------------------------------------------------===//

def Plan_CollectiveOp : Plan_Op<"collective", [HasParent<"ScheduleOp">]> {
  let summary = "A collective run by one algorithm, with the alternatives' times";
  let description = [{
    Records how a collective demand (`kind`, a `CollectiveKind`:
    `"all-reduce"`, `"all-gather"` or `"reduce-scatter"`, of `bytes` over
    the devices `group`) is executed:
    `algorithm` (`ring`, `double-binary-tree`, `in-network`,
    `hierarchical`, `hierarchical-in-network`) is the one whose routed time
    was shortest; it runs during `[start, end]`. Its steps are the
    `plan.transfer` ops whose `stream` starts with `label` + "/" (one
    stream per phase; a phase repeated r times is one transfer per path
    with r times the bytes of one step, over r times its window).
    `times` maps every algorithm that applied to its routed time (s);
    `alpha_beta` to its alpha-beta prediction; `endpoint_bound` is the
    bound no algorithm that reduces only on the members can beat. The
    verifier checks the window, that `algorithm` is a key of `times`, that
    `end - start` equals its time (relative 1e-6), and non-negative finite
    times.

    ```mlir
    plan.collective "grads.0" "all-reduce" "in-network" bytes(1.0e+09) over ["host[0]", "host[1]"] window(0.0, 0.08) times {"in-network" = 0.08 : f64, ring = 0.14 : f64}
    ```
  }];
  let arguments = (ins StrAttr:$label, Plan_CollectiveKindAttr:$kind,
                       StrAttr:$algorithm,
                       F64Attr:$bytes, StrArrayAttr:$group, F64Attr:$start,
                       F64Attr:$end, DictionaryAttr:$times,
                       OptionalAttr<DictionaryAttr>:$alpha_beta,
                       OptionalAttr<F64Attr>:$endpoint_bound);
  let assemblyFormat = [{
    $label `` $kind $algorithm `bytes` `(` $bytes `)` `over` $group
    `window` `(` $start `,` $end `)` `times` $times attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.compute
//===----------------------------------------------------------------------===//

def Plan_PlacementOp : Plan_Op<"placement", [HasParent<"ScheduleOp">]> {
  let summary = "Where a gather job's items are stored";
  let description = [{
    The data placement `plan-schedule-flows` chose for gather job `label`:
    `items` items of `item_bytes` bytes over the tiers `tiers` (source
    patterns, priority order), `tier_items[t]` whole items on tier t
    (striped over its devices), `tier_capacity[t]` the bytes tier t can
    hold, `device_bytes` the bytes stored per device. `method` is the
    placement used (`integral-mip` or `greedy-whole`), `makespans` maps
    `greedy` (Moment's density greedy), `integral` (the joint MIP) and
    `relaxation` (the LP bound: no placement is faster) to seconds. The
    transfers of the schedule read the items from where this op says.
  }];
  let arguments = (ins StrAttr:$label, StrAttr:$method, I64Attr:$items,
                       F64Attr:$item_bytes, StrArrayAttr:$tiers,
                       ArrayAttr:$tier_items, ArrayAttr:$tier_capacity,
                       DictionaryAttr:$device_bytes, DictionaryAttr:$makespans);
  let assemblyFormat = [{
    $label $method `items` `(` $items `x` $item_bytes `)` `tiers` $tiers
    `counts` $tier_items `capacity` $tier_capacity `stored` $device_bytes
    `makespans` $makespans attr-dict
  }];
  let hasVerifier = 1;
}

def Plan_ComputeOp : Plan_Op<"compute", [HasParent<"ScheduleOp">]> {
  let summary = "Work on a stream during a time window";
  let description = [{
    A named piece of work (`label`) on device `device` and stream `stream`
    during `[start, end]` (0 <= start <= end, finite). Flow schedules do not
    create it; it lets other planners (offload, swapping) put compute next
    to their transfers in one schedule. Optional `flops` (the FLOPs it
    performs) and `bytes` (the bytes it streams, e.g. an optimizer update)
    are finite and non-negative.

    ```mlir
    plan.compute "layer3.fwd" on "gpu[0]" stream "compute" window(0.1, 0.2)
    ```
  }];
  let arguments = (ins StrAttr:$label, StrAttr:$device, StrAttr:$stream,
                       F64Attr:$start, F64Attr:$end,
                       OptionalAttr<F64Attr>:$flops,
                       OptionalAttr<F64Attr>:$bytes);
  let assemblyFormat = [{
    $label `on` $device `stream` $stream `window` `(` $start `,` $end `)`
    attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.parallel
//===----------------------------------------------------------------------===//

def Plan_ParallelOp : Plan_Op<"parallel", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A 3D-parallel training plan: ways, stages on GPUs, timeline";
  let description = [{
    What `model-plan-parallel` chose for `model.job` `job` (a `train` job)
    on the flat topology `topology`: `tp` x `pp` x `dp` ranks (tensor,
    pipeline, data parallel ways), micro-batches of `micro_batch` sequences,
    `micro_batches` of them per pipeline and iteration, `virtual` interleaved
    stages per pipeline stage, recomputation `recompute` (a `Recompute`,
    PlanEnums.td), sequence parallelism and ZeRO stage `zero` (1 is
    Megatron-LM's distributed optimizer; 2 and 3 only with `pp` 1). The
    body holds one `plan.stage` per pipeline stage in order; together they
    use `tp * pp * dp` distinct GPUs.

    Predictions (docs/parallel.md): `time` the iteration time (s) with this
    placement, `default_time` with Megatron-LM's default rank order,
    `forward` / `backward` the slowest stage's time for one micro-batch,
    `p2p` the pipeline sends of one round through all stages, `data_comm`
    the gradient reduction, `tflops` the model TFLOP/s per GPU, `mfu`, and
    `memory` the bytes the most loaded GPU needs (calibrated) out of
    `memory_available`. `placement` (a `PlacementMethod`) says how the ranks
    were put on GPUs.

    Optimus-CC compression (only when the job allowed it and it pays):
    `compress_rank` the rank r of the low-rank compression;
    `compressed_micro_batches` N: the backward sends of the last N
    micro-batches (the cool-down, 1 <= N <= min(micro_batches, pp - 1)) are
    compressed at every stage boundary (epilogue-only); `compressed_dp_stages`
    the pipeline stages (increasing, in [0, pp)) whose data-parallel
    gradients are compressed (needs dp > 1); `uncompressed_time` the
    predicted iteration without compression (at least `time`);
    `compressed_p2p` (with `compressed_micro_batches`) the backward sends of
    one round compressed, s (what the trace draws for them). The three
    need `compress_rank` and it needs them: `uncompressed_time` and at least
    one of the other two.

    Optimizer offload (ZeRO-Offload; Megatron-LM's `--optimizer-cpu-offload`):
    `offload_time` the optimizer step's seconds (each GPU's gradient shard
    to its host, the host CPUs' update, the parameters back) and
    `host_memory` the bytes of offloaded optimizer states a host holds; both
    or neither, and only with `zero` >= 1.

    Mixtures of experts (docs/parallel.md, "Mixtures of experts"): `ep` the
    expert-parallel ways (each layer's experts sharded over `ep` ranks of
    every data-parallel group; `ep` divides `dp`) and `expert_comm` the
    expert all-to-alls (dispatch and combine) of one micro-batch in the
    slowest stage, forward and backward, s (part of `forward` and
    `backward`); both or neither.

    Adversarial training (the job's `adversarial`, docs/adversarial.md):
    `adversarial_epoch` the predicted epoch (the job's `steps` iterations)
    with the technique, `plain_epoch` the same epoch trained plainly (no
    larger), `attack_time` the epoch's PGD steps and, for PeerAiD,
    `peer_time` the peer's passes, s. The first two come together; the
    others need them.

    ```mlir
    plan.parallel @pretrain_parallel for @pretrain on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute selective zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
      plan.stage 0 layers [0] x 20 gpus ["gpu[0]", "gpu[1]"]
      plan.stage 1 layers [20] x 20 gpus ["gpu[2]", "gpu[3]"]
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$job,
                       FlatSymbolRefAttr:$topology, I64Attr:$tp, I64Attr:$pp,
                       I64Attr:$dp, I64Attr:$micro_batch,
                       I64Attr:$micro_batches, I64Attr:$virtual_stages,
                       Plan_RecomputeAttr:$recompute,
                       UnitAttr:$sequence_parallel, I64Attr:$zero,
                       Plan_PlacementMethodAttr:$placement, F64Attr:$time,
                       F64Attr:$default_time, F64Attr:$forward,
                       F64Attr:$backward, F64Attr:$p2p, F64Attr:$data_comm,
                       F64Attr:$tflops, F64Attr:$mfu, F64Attr:$memory,
                       F64Attr:$memory_available,
                       OptionalAttr<I64Attr>:$compress_rank,
                       OptionalAttr<I64Attr>:$compressed_micro_batches,
                       OptionalAttr<DenseI64ArrayAttr>:$compressed_dp_stages,
                       OptionalAttr<F64Attr>:$uncompressed_time,
                       OptionalAttr<F64Attr>:$compressed_p2p,
                       OptionalAttr<F64Attr>:$offload_time,
                       OptionalAttr<F64Attr>:$host_memory,
                       OptionalAttr<F64Attr>:$adversarial_epoch,
                       OptionalAttr<F64Attr>:$plain_epoch,
                       OptionalAttr<F64Attr>:$attack_time,
                       OptionalAttr<F64Attr>:$peer_time,
                       OptionalAttr<I64Attr>:$ep,
                       OptionalAttr<F64Attr>:$expert_comm);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `for` $job `on` $topology `tp` $tp `pp` $pp `dp` $dp
    `micro_batch` $micro_batch `x` $micro_batches `virtual` $virtual_stages
    `recompute` `` $recompute (`sequence_parallel` $sequence_parallel^)?
    `zero` $zero `placement` `` $placement `time` `(` $time `)`
    attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.stage
//===----------------------------------------------------------------------===//

def Plan_StageOp : Plan_Op<"stage", [HasParent<"ParallelOp">]> {
  let summary = "One pipeline stage of a plan.parallel: its layers and GPUs";
  let description = [{
    Pipeline stage `index` runs, for each of its virtual chunks, the
    `chunk_layers` layers starting at each entry of `layers` (one entry per
    virtual stage). `gpus` lists its `tp * dp` GPUs in Megatron-LM's rank
    order (tensor-parallel rank fastest, then data-parallel rank): global
    rank `index * tp * dp + i` runs on `gpus[i]`.

    ```mlir
    plan.stage 1 layers [12, 36] x 12 gpus ["server[1].gpu[0]", "server[1].gpu[1]"]
    ```
  }];
  let arguments = (ins I64Attr:$index, DenseI64ArrayAttr:$layers,
                       I64Attr:$chunk_layers, StrArrayAttr:$gpus);
  let assemblyFormat = [{
    $index `layers` $layers `x` $chunk_layers `gpus` $gpus attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// plan.distill
//===----------------------------------------------------------------------===//

def Plan_DistillOp : Plan_Op<"distill", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A Pipe-BD plan: blocks split into stages on GPUs";
  let description = [{
    What `model-plan-distill` chose for `model.job` `job` (a `distill` job)
    on the flat topology `topology`: the body holds one `plan.distill_stage`
    per pipeline stage in order; together they cover the model.distill's
    blocks once, in order, on distinct GPUs. `time` is the predicted time of
    one batch of `batch` samples (s, the slowest stage),
    `baseline_time` the block-by-block data-parallel baseline's for the
    same work, `memory_available` the bytes per GPU a stage may use and
    `baseline_memory` the baseline's largest need per GPU (calibrated;
    the baseline does not fit when it exceeds `memory_available`).

    ```mlir
    plan.distill @kd_distill for @kd on @box batch 64 time(0.0106) baseline(0.0237) attributes {memory_available = 7.7e10 : f64, baseline_memory = 1.2e10 : f64} {
      plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] attributes {compute = 0.01 : f64, all_reduce = 0.0 : f64, p2p = 0.0006 : f64, memory = 6.0e9 : f64}
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$job,
                       FlatSymbolRefAttr:$topology, I64Attr:$batch,
                       F64Attr:$time, F64Attr:$baseline_time,
                       F64Attr:$memory_available, F64Attr:$baseline_memory);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `for` $job `on` $topology `batch` $batch `time` `(` $time `)`
    `baseline` `(` $baseline_time `)` attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def Plan_DistillStageOp : Plan_Op<"distill_stage", [HasParent<"DistillOp">]> {
  let summary = "One stage of a plan.distill: its blocks and GPUs";
  let description = [{
    Stage `index` runs blocks `first_block` to `first_block + blocks - 1`
    (teacher and student) data parallel on `gpus`, and sends the last
    teacher block's output to the next stage. Per batch: `compute` (s) the
    teacher forward and student forward and backward of its share of the
    samples, `all_reduce` (s) its student gradients', `p2p` (s) the send to
    the next stage; `memory` the bytes per GPU (calibrated).
  }];
  let arguments = (ins I64Attr:$index, I64Attr:$first_block, I64Attr:$blocks,
                       StrArrayAttr:$gpus, F64Attr:$compute,
                       F64Attr:$all_reduce, F64Attr:$p2p, F64Attr:$memory);
  let assemblyFormat = [{
    $index `blocks` $first_block `x` $blocks `gpus` $gpus attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// plan.middle_tier
//===----------------------------------------------------------------------===//

def Plan_MiddleTierOp : Plan_Op<"middle_tier"> {
  let summary = "Where a storage middle tier compresses, and what it serves";
  let description = [{
    The plan `plan-middle-tier` made for the `blockio` item `label`
    (SmartDS, docs/flows.md "Storage middle tier (SmartDS)"): blocks of
    `block_bytes` at `rate` requests per second with `compressibility`, a
    share `read_fraction` of them reads; the host codec (`codec`: zstd or
    lz4), its compression rate
    per core `cpu_rate` (input bytes per second), its decompression rate
    per core `cpu_decompress_rate` (output bytes per second) and its ratio
    `cpu_ratio`, and where they come from (`cpu_source`: "measured" on
    this machine, "given" as pass options, or "fallback", the documented
    defaults). `servers` holds one dictionary per middle-tier server, in
    declaration order: `name`, `site` (where it compresses: "host",
    "smartnic" or "split") with `compress_nic_share` (the share of writes
    compressed on the SmartNIC: 0, 1 or in between), `decompress_site`
    with `decompress_nic_share` (the same for reads), `requests` (requests
    per second), `ratio`, `bottleneck` (the bounds that bind, joined by
    " and "), `cores_busy` and `host_requests` (its throughput with both on
    the host). `planned`
    and `cpu_only` are the tier's totals with the chosen sites and with
    every server on the host: `requests`, `bytes_in`, `bytes_out` (f64,
    per second, into and out of the servers), `servers_needed` (i64: the
    fewest servers for `rate`) and `extrapolated` (bool). `speedup` is
    planned over CPU-only requests. The verifier checks `cpu_source`, that
    every server has a `name` and sites that agree with their shares, that `cpu_rate`, `cpu_decompress_rate`, `cpu_ratio`
    and `speedup` are positive, and `read_fraction` in [0, 1].

    Example:

    ```mlir
    plan.middle_tier "vols.0" block_bytes(4.096e+03) rate(4.0e+06) {...}
    ```
  }];
  let arguments = (ins StrAttr:$label, F64Attr:$block_bytes, F64Attr:$rate,
                       F64Attr:$compressibility, F64Attr:$header_cost,
                       F64Attr:$read_fraction, Plan_CodecAttr:$codec,
                       F64Attr:$cpu_rate,
                       F64Attr:$cpu_decompress_rate, F64Attr:$cpu_ratio,
                       StrAttr:$cpu_source, ArrayAttr:$servers,
                       DictionaryAttr:$planned, DictionaryAttr:$cpu_only,
                       F64Attr:$speedup);
  let assemblyFormat = [{
    $label `block_bytes` `(` $block_bytes `)` `rate` `(` $rate `)` attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.disdp
//===----------------------------------------------------------------------===//

def Plan_DisdpOp : Plan_Op<"disdp", [Symbol]> {
  let summary = "A DisDP plan: disaggregated ZeRO-3 against serialised ZeRO-3";
  let description = [{
    What `model-plan-disdp` predicts for `model.job` `job` (a `train` job
    with a `parameter_server`) on the flat topology `topology`: model-sharded
    data parallelism (ZeRO-3) over `gpus` GPUs, `micro_batches` micro-batches
    of `micro_batch` sequences each per GPU per iteration, with `recompute`.
    `time` is DisDP's iteration (s): all-gather and reduce-scatter in the
    network over the switches `reducers`, the optimizer on
    `parameter_server`, overlapped with the GPUs' compute; `baseline_time`
    conventional ZeRO-3's, where compute, ring collectives and the
    optimizer run one after the other (`baseline_offload_optimizer`: its
    optimizer on the hosts' CPUs; `baseline_offload_params`: its parameter
    shards in host memory). The per-layer durations (s; one micro-batch
    where they repeat) are what both timelines are simulated from
    (compiler/Analysis/Parallel/DisDP.h); the exporters re-simulate them.
    Memory: bytes per GPU of each layout (calibrated) against
    `memory_available`, and the parameter server's model states against its
    usable memory.

    ```mlir
    plan.disdp @t_disdp for @t on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {layers = 96 : i64, ...}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$job,
                       FlatSymbolRefAttr:$topology, StrAttr:$parameter_server,
                       StrArrayAttr:$reducers, I64Attr:$gpus,
                       I64Attr:$micro_batch, I64Attr:$micro_batches,
                       Plan_RecomputeAttr:$recompute, F64Attr:$time,
                       F64Attr:$baseline_time, I64Attr:$layers,
                       F64Attr:$parameters, F64Attr:$forward,
                       F64Attr:$backward, F64Attr:$ring_all_gather,
                       F64Attr:$ring_reduce_scatter, F64Attr:$param_fetch,
                       F64Attr:$baseline_optimizer, F64Attr:$net_all_gather,
                       F64Attr:$net_reduce_scatter, F64Attr:$ps_update,
                       UnitAttr:$baseline_offload_optimizer,
                       UnitAttr:$baseline_offload_params,
                       F64Attr:$memory, F64Attr:$baseline_memory,
                       F64Attr:$memory_available, F64Attr:$ps_memory,
                       F64Attr:$ps_memory_available);
  let assemblyFormat = [{
    $sym_name `for` $job `on` $topology `ps` $parameter_server `gpus` $gpus
    `micro_batch` $micro_batch `x` $micro_batches `recompute` $recompute
    `time` `(` $time `)` `baseline` `(` $baseline_time `)`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

#endif // SLUICE_PLAN_OPS
