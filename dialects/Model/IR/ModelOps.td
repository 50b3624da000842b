//===- ModelOps.td - Operations of the model dialect -------*- tablegen -*-===//
//
// A decoder-only transformer as a tree of declarative ops (no operands or
// results): model.transformer holds model.embedding, model.layers (count +
// one layer's body of model.norm / model.attention / model.mlp), model.norm
// and model.head. Sizes are element counts; `dtype` is the element type of
// the block's weights and activations.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_MODEL_OPS
#define SLUICE_MODEL_OPS

include "dialects/Model/IR/ModelDialect.td"
include "dialects/Model/IR/ModelAttrs.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// model.transformer
//===----------------------------------------------------------------------===//

def Model_TransformerOp : Model_Op<"transformer", [
    Symbol, IsolatedFromAbove, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "A decoder-only transformer";
  let description = [{
    The hyper-parameters of the model (`layers`, `hidden`, `heads`,
    `kv_heads`, `ffn`, `seq`, `vocab`, all positive) and its element type
    `dtype`, and in its body the blocks in order: one `model.embedding`
    first, one or more `model.layers`, an optional final `model.norm`, and
    one `model.head` last. The verifier checks that the blocks agree with
    the hyper-parameters: the `model.layers` counts sum to `layers`, every
    block has width `hidden`, every attention `heads` / `kv_heads`, the
    embedding and the head `vocab`, learned positions `seq`; `hidden` is a
    multiple of `heads`, `heads` of `kv_heads`. MLP widths may differ
    between `model.layers` groups: `ffn` is the widest (no MLP is wider,
    one is as wide).

    Example (GPT-3 175B):

    ```mlir
    model.transformer @gpt3 : f16 attributes {layers = 96 : i64, hidden = 12288 : i64, heads = 96 : i64, kv_heads = 96 : i64, ffn = 49152 : i64, seq = 2048 : i64, vocab = 50257 : i64} {
      model.embedding vocab 50257 hidden 12288 positions 2048 : f16
      model.layers 96 {
        model.norm layernorm hidden 12288 : f16
        model.attention hidden 12288 heads 96 kv_heads 96 bias : f16
        model.norm layernorm hidden 12288 : f16
        model.mlp hidden 12288 ffn 49152 bias : f16
      }
      model.norm layernorm hidden 12288 : f16
      model.head vocab 50257 hidden 12288 tied : f16
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttr:$dtype,
                       I64Attr:$layers, I64Attr:$hidden, I64Attr:$heads,
                       I64Attr:$kv_heads, I64Attr:$ffn, I64Attr:$seq,
                       I64Attr:$vocab);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `:` $dtype attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.embedding
//===----------------------------------------------------------------------===//

def Model_EmbeddingOp : Model_Op<"embedding", [HasParent<"TransformerOp">]> {
  let summary = "Token (and learned position) embedding";
  let description = [{
    A `vocab x hidden` token table and, with `positions`, a learned
    `positions x hidden` position table (without it, positions are rotary
    and have no parameters).
  }];
  let arguments = (ins I64Attr:$vocab, I64Attr:$hidden,
                       OptionalAttr<I64Attr>:$positions, TypeAttr:$dtype);
  let assemblyFormat = [{
    `vocab` $vocab `hidden` $hidden (`positions` $positions^)? attr-dict `:`
    $dtype
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.layers
//===----------------------------------------------------------------------===//

def Model_LayersOp : Model_Op<"layers", [
    HasParent<"TransformerOp">, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "`count` identical transformer layers";
  let description = [{
    The body is one layer: its blocks in order (`model.norm`,
    `model.attention`, `model.mlp`), at least one attention and one MLP.
    The layer is repeated `count` (> 0) times.
  }];
  let arguments = (ins I64Attr:$count);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$count attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.norm
//===----------------------------------------------------------------------===//

def Model_NormOp : Model_Op<"norm", [
    ParentOneOf<["TransformerOp", "LayersOp"]>]> {
  let summary = "LayerNorm or RMSNorm over `hidden` features";
  let description = [{
    `kind` (a `NormKind`, ModelEnums.td) is `layernorm` (scale and bias,
    2 * hidden parameters) or `rmsnorm` (scale only, hidden parameters).

    ```mlir
    model.norm rmsnorm hidden 4096 : bf16
    ```
  }];
  let arguments = (ins Model_NormKindAttr:$kind, I64Attr:$hidden,
                       TypeAttr:$dtype);
  let assemblyFormat = "`` $kind `hidden` $hidden attr-dict `:` $dtype";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.attention
//===----------------------------------------------------------------------===//

def Model_AttentionOp : Model_Op<"attention", [HasParent<"LayersOp">]> {
  let summary = "Causal self-attention with `heads` query heads";
  let description = [{
    Q is `hidden x hidden`; K and V are `hidden x kv_heads * head_dim` each
    (`head_dim = hidden / heads`; `kv_heads < heads` is grouped-query
    attention, `kv_heads` dividing `heads`); the output projection is
    `hidden x hidden`. With `bias`, every projection has a bias.
  }];
  let arguments = (ins I64Attr:$hidden, I64Attr:$heads, I64Attr:$kv_heads,
                       UnitAttr:$bias, TypeAttr:$dtype);
  let assemblyFormat = [{
    `hidden` $hidden `heads` $heads `kv_heads` $kv_heads (`bias` $bias^)?
    attr-dict `:` $dtype
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getHeadDim() { return getHiddenAttr().getInt() / getHeadsAttr().getInt(); }
  }];
}

//===----------------------------------------------------------------------===//
// model.mlp
//===----------------------------------------------------------------------===//

def Model_MlpOp : Model_Op<"mlp", [HasParent<"LayersOp">]> {
  let summary = "Feed-forward block of inner width `ffn`";
  let description = [{
    Two matrices `hidden -> ffn -> hidden` (GeLU), or with `gated` three
    (SwiGLU: gate and up `hidden -> ffn`, down `ffn -> hidden`). With
    `bias`, every matrix has a bias.

    With `experts` the block is a mixture of experts: `experts` (>= 2)
    copies of that MLP behind a `hidden x experts` router (no bias); each
    token goes to `top_k` (1..experts) of them, and an expert computes on at
    most `capacity * top_k * tokens / experts` tokens (`capacity` > 0; the
    three come together).

    ```mlir
    model.mlp hidden 4096 ffn 14336 gated experts 8 top_k 2 capacity 1.000000e+00 : bf16
    ```
  }];
  let arguments = (ins I64Attr:$hidden, I64Attr:$ffn, UnitAttr:$gated,
                       UnitAttr:$bias, OptionalAttr<I64Attr>:$experts,
                       OptionalAttr<I64Attr>:$top_k,
                       OptionalAttr<F64Attr>:$capacity, TypeAttr:$dtype);
  let assemblyFormat = [{
    `hidden` $hidden `ffn` $ffn (`gated` $gated^)? (`bias` $bias^)?
    (`experts` $experts^ `top_k` $top_k `capacity` $capacity)?
    attr-dict `:` $dtype
  }];
  let extraClassDeclaration = [{
    bool isMixture() { return getExpertsAttr() != nullptr; }
    /// Expert MLPs a token passes through, capacity padding included:
    /// min(capacity * top_k, experts); 1 for a dense MLP.
    double routedPerToken();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.head
//===----------------------------------------------------------------------===//

def Model_HeadOp : Model_Op<"head", [HasParent<"TransformerOp">]> {
  let summary = "Output projection to `vocab` logits";
  let description = [{
    A `hidden x vocab` projection; with `tied` it reuses the token
    embedding's table and has no parameters of its own.
  }];
  let arguments = (ins I64Attr:$vocab, I64Attr:$hidden, UnitAttr:$tied,
                       TypeAttr:$dtype);
  let assemblyFormat = [{
    `vocab` $vocab `hidden` $hidden (`tied` $tied^)? attr-dict `:` $dtype
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.job
//===----------------------------------------------------------------------===//

def Model_JobOp : Model_Op<"job", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A fine-tuning, training, inference or distillation job";
  let description = [{
    `action` is `finetune`, `train`, `infer` or `distill`; `model` names a
    `model.transformer` of the module (a `model.distill` for `distill`) and `topology` the machine it runs on (resolved against
    the flat topology by the planner). `batch` (> 0; required for
    `finetune` and `train`) is sequences per iteration, or for `infer` the sequences
    per block (without it the planner chooses); `micro_batch` must divide
    it; `seq` overrides the model's sequence length (the prompt
    length, for inference); `tokens` is the number of tokens to generate
    (`infer` only). `recompute` (absent: the planner chooses; `true`:
    recompute; `false`: do not), `steps`, `optimizer` and `lr` are the
    job's options as written. `param_home`, `grad_home` and
    `optimizer_home` (`finetune` only) pin where the fp16 parameters, the
    gradients and the optimizer states (with the fp32 master weights) live,
    from the job's schedule; `micro_batch` and `recompute` may come from it
    too. `lora_rank` (`finetune` only, 1 to 65536) fine-tunes LoRA
    adapters of that rank on a frozen base; `quantize` (needs `lora_rank`)
    stores the base quantized (`nf4`: QLoRA). Gradients live in `cpu`
    (updated there) or `csd` (updated on
    computational storage, which needs the optimizer states there);
    optimizer states are never planned on the `gpu`. `compress` (`train`
    only; absent or `false`: never) lets the 3D-parallel planner use
    Optimus-CC's lossy low-rank compression of rank `compress_rank`
    (positive; only with `compress`; the planner's default 64) where it
    shortens the iteration. `compress_tensors` (`infer` only: `weights`,
    `cache` or `all`) stores and moves those tensors in FlexGen's 4-bit
    group-wise compression. `parameter_server` (`train` only, a device path
    of the topology, not with `compress`) plans the job as DisDP's
    disaggregated ZeRO-3 (model-plan-disdp) instead of 3D parallelism.

    `adversarial` (`train` only: `pgd`, `dbac` or `peeraid`;
    docs/adversarial.md) trains on PGD adversarial examples of
    `pgd_steps` steps (positive, at most 1000; default 10) of `step_size`
    in the L-inf ball of radius `epsilon` on the fraction `attack_fraction`
    (in [0, 1]; default 1) of each batch. `dbac` grows the fraction
    linearly to `attack_fraction_end` (no smaller; default 1) over the
    job's `steps` (required) and attacks `pseudo_batches` batches together;
    `peeraid` trains the transformer `peer` beside the student. The
    3D-parallel planner reports the epoch's time with and without the
    technique.

    ```mlir
    model.job @tune finetune @gpt3 on @workstation batch 8 attributes {optimizer = "adam", steps = 1000 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Model_JobActionAttr:$action,
                       FlatSymbolRefAttr:$model, FlatSymbolRefAttr:$topology,
                       OptionalAttr<I64Attr>:$batch,
                       OptionalAttr<I64Attr>:$micro_batch,
                       OptionalAttr<I64Attr>:$seq,
                       OptionalAttr<I64Attr>:$tokens,
                       OptionalAttr<I64Attr>:$steps,
                       OptionalAttr<BoolAttr>:$recompute,
                       OptionalAttr<Model_TierAttr>:$param_home,
                       OptionalAttr<Model_TierAttr>:$grad_home,
                       OptionalAttr<Model_TierAttr>:$optimizer_home,
                       OptionalAttr<StrAttr>:$optimizer,
                       OptionalAttr<F64Attr>:$lr,
                       OptionalAttr<I64Attr>:$lora_rank,
                       OptionalAttr<Model_WeightQuantAttr>:$quantize,
                       OptionalAttr<BoolAttr>:$compress,
                       OptionalAttr<I64Attr>:$compress_rank,
                       OptionalAttr<Model_CompressedTensorsAttr>:$compress_tensors,
                       OptionalAttr<StrAttr>:$parameter_server,
                       OptionalAttr<StrAttr>:$adversarial,
                       OptionalAttr<I64Attr>:$pgd_steps,
                       OptionalAttr<F64Attr>:$epsilon,
                       OptionalAttr<F64Attr>:$step_size,
                       OptionalAttr<F64Attr>:$attack_fraction,
                       OptionalAttr<F64Attr>:$attack_fraction_end,
                       OptionalAttr<I64Attr>:$pseudo_batches,
                       OptionalAttr<FlatSymbolRefAttr>:$peer);
  let assemblyFormat = [{
    $sym_name `` $action $model `on` $topology (`batch` $batch^)?
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// model.distill
//===----------------------------------------------------------------------===//

def Model_DistillOp : Model_Op<"distill", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Blockwise distillation of a student transformer";
  let description = [{
    Blockwise knowledge distillation (Pipe-BD): the layers of `teacher` and
    of `student` (two different `model.transformer`s of the module) are
    split into `blocks` consecutive blocks each (as evenly as possible, the
    first blocks taking the extra layers), and student block j learns to
    reproduce teacher block j's output from teacher block j - 1's output.
    `blocks` is positive and at most the layers of either model. When the
    widths differ, each student block has a linear projection on its input
    and its output (TinyBERT's W_h), costed by the planner.

    ```mlir
    model.distill @pair teacher @bert student @tiny blocks 4
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$teacher,
                       FlatSymbolRefAttr:$student, I64Attr:$blocks);
  let assemblyFormat = [{
    $sym_name `teacher` $teacher `student` $student `blocks` $blocks attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// model.gnn and model.gnn_train
//===----------------------------------------------------------------------===//

def Model_GnnOp : Model_Op<"gnn", [Symbol]> {
  let summary =
      "A graph neural network of `layers` GraphSAGE, GCN or GAT layers";
  let description = [{
    `layers` message-passing layers of kind `kind` mapping `features` input
    values per vertex through `hidden`-wide layers to `classes` logits.
    `fanouts[h - 1]` is the number of neighbours sampled at hop h from the
    seeds during mini-batch training (one entry per layer, all positive).
    `heads` (GAT only, 1 to 64; absent: 1) is the number of attention heads
    of every layer: hidden layers concatenate heads of `hidden / heads`
    values (so `hidden` is a multiple of it), the output layer averages
    heads of `classes` values.

    ```mlir
    model.gnn @sage sage layers 2 fanouts [10, 5] features 128 hidden 256 classes 47
    model.gnn @gat gat heads 4 layers 2 fanouts [10, 5] features 128 hidden 256 classes 47
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Model_GnnKindAttr:$kind,
                       OptionalAttr<I64Attr>:$heads,
                       I64Attr:$layers, DenseI64ArrayAttr:$fanouts,
                       I64Attr:$features, I64Attr:$hidden, I64Attr:$classes);
  let assemblyFormat = [{
    $sym_name `` $kind (`heads` $heads^)? `layers` $layers `fanouts` $fanouts
    `features` $features `hidden` $hidden `classes` $classes attr-dict
  }];
  let hasVerifier = 1;
}

def Model_GnnTrainOp : Model_Op<"gnn_train", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Mini-batch training of a gnn model on a graph";
  let description = [{
    Trains `model` (a `model.gnn`) on the vertices of `graph` (a graph
    declaration of the module, whose vertex labels are the classes) on the
    machine `topology`: `epochs` epochs of `batch` seeds per mini-batch,
    Adam with step `lr` and L2 `weight_decay`, inverted dropout at rate
    `dropout` on the hidden layers' outputs. `features` is the file of the
    input features (absent: one-hot vertex ids) and `feature_cache` the
    host memory, in bytes, that caches the hottest rows while the rest are
    read from the file as needed (absent: the whole file is loaded);
    `tile` pins the feature columns per tile of the neighbour aggregation
    (absent: `tile: auto`, chosen at run time from the cache sizes and a
    probe; docs/gnn.md, "Tiled aggregation"); `seed`, `threads` and
    `output` (the JSON report) are the job's options as written.

    ```mlir
    model.gnn_train @fit @sage on @box graph @email batch 64 epochs 20 attributes {dropout = 5.000000e-01 : f64, lr = 1.000000e-02 : f64, seed = 1 : i64, weight_decay = 0.000000e+00 : f64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$model,
                       FlatSymbolRefAttr:$topology, FlatSymbolRefAttr:$graph,
                       I64Attr:$batch, I64Attr:$epochs, F64Attr:$lr,
                       F64Attr:$weight_decay, F64Attr:$dropout,
                       I64Attr:$seed,
                       OptionalAttr<StrAttr>:$features,
                       OptionalAttr<I64Attr>:$feature_cache,
                       OptionalAttr<I64Attr>:$threads,
                       OptionalAttr<StrAttr>:$output,
                       OptionalAttr<I64Attr>:$tile);
  let assemblyFormat = [{
    $sym_name $model `on` $topology `graph` $graph `batch` $batch `epochs`
    $epochs attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

#endif // SLUICE_MODEL_OPS
