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

#endif // SLUICE_MODEL_PASSES
