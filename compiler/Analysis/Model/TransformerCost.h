//===- TransformerCost.h - Transformer cost analyses ------------*- C++ -*-===//
//
// IR-independent cost analyses for decoder-only transformers: parameter
// counts (total and per layer), bytes of parameters, gradients and optimizer
// states (with ZeRO sharding), activation bytes per layer with and without
// recomputation (Korthikanti et al. 2022), FLOPs per iteration and per token
// (Narayanan et al. 2021), and KV-cache bytes for inference. The formulas and
// the numbers the tests check are in docs/models.md.
//
// Everything here is a pure function of plain structs; the planners (offload,
// 3D placement, inference) consume these numbers.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_MODEL_TRANSFORMERCOST_H
#define SLUICE_COMPILER_ANALYSIS_MODEL_TRANSFORMERCOST_H

#include "dialects/Model/IR/ModelSchema.h"
#include <cstdint>
#include <optional>
#include <string>

namespace sluice::model {

/// The feed-forward block: GPT's two matrices h->f->h with GeLU, or the gated
/// (SwiGLU) block of Llama with three matrices (gate, up: h->f; down: f->h).
enum class MlpKind { Standard, Gated };

// NormKind (LayerNorm: a scale and a bias, 2h parameters; RMSNorm: only a
// scale, h) is the model dialect's enum (ModelSchema.h, ModelEnums.td).

/// Learned absolute position embeddings (GPT, s*h parameters) or rotary
/// embeddings (Llama, no parameters).
enum class PositionKind { Learned, Rotary };

/// The largest sizes validate() accepts: far above any published model, and
/// low enough that parameter counts, FLOPs and per-layer tables fit in int64
/// and in memory (a 10^8-layer request used to end in "LLVM ERROR: out of
/// memory").
constexpr int64_t kMaxLayers = 100000;
constexpr int64_t kMaxWidth = 1 << 20;   ///< hidden (ffn: 4x)
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxSeq = 1 << 24;     ///< tokens
constexpr int64_t kMaxVocab = 1 << 24;

/// A decoder-only transformer. Zero for `kvHeads` means `heads` (multi-head
/// attention); zero for `ffn` means 4*hidden. With `experts` > 0 every
/// layer's MLP is a mixture of experts (GShard, Switch, Mixtral): `experts`
/// copies of the MLP behind a linear router (hidden x experts), each token
/// sent to `topK` of them; an expert computes on at most `capacityFactor *
/// topK * tokens / experts` tokens (its capacity; compute is padded to it).
struct TransformerConfig {
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kvHeads = 0; ///< grouped-query attention; 0 = heads
  int64_t ffn = 0;     ///< MLP inner width; 0 = 4*hidden
  int64_t seq = 0;     ///< training sequence length (and position table)
  int64_t vocab = 0;
  int64_t dtypeBytes = 2;     ///< bytes per weight/activation element
  bool tiedEmbeddings = true; ///< the output head reuses the embedding
  bool linearBiases = true;   ///< biases on every linear layer (GPT)
  MlpKind mlp = MlpKind::Standard;
  NormKind norm = NormKind::LayerNorm;
  PositionKind positions = PositionKind::Learned;
  int64_t experts = 0;       ///< 0: a dense MLP; else >= 2
  int64_t topK = 0;          ///< experts per token (1..experts)
  double capacityFactor = 1; ///< > 0

  /// GPT-2/3 style: MHA, 4h GeLU MLP, biases, LayerNorm, learned positions,
  /// tied embeddings.
  static TransformerConfig gpt(int64_t layers, int64_t hidden, int64_t heads,
                               int64_t seq, int64_t vocab);
  /// Llama style: GQA, SwiGLU MLP of width `ffn`, no biases, RMSNorm, rotary
  /// positions, untied output head.
  static TransformerConfig llama(int64_t layers, int64_t hidden, int64_t heads,
                                 int64_t kvHeads, int64_t ffn, int64_t seq,
                                 int64_t vocab);

  int64_t effectiveKvHeads() const { return kvHeads > 0 ? kvHeads : heads; }
  int64_t effectiveFfn() const { return ffn > 0 ? ffn : 4 * hidden; }
  int64_t headDim() const { return heads > 0 ? hidden / heads : 0; }
  bool moe() const { return experts > 0; }
  /// Expert MLPs a token passes through, counting capacity padding:
  /// min(capacityFactor * topK, experts); 1 for a dense MLP.
  double routedPerToken() const;

  /// Empty when the configuration is usable, else what is wrong with it
  /// ("hidden 100 is not a multiple of heads 3").
  std::string validate() const;
};

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// Parameters of one transformer layer, by block.
struct LayerParams {
  int64_t qkv = 0;     ///< Q (h x h) and K, V (h x kv*d each), with biases
  int64_t attnOut = 0; ///< output projection h x h (+ bias)
  int64_t mlp = 0;     ///< 2 or 3 matrices (+ biases), times the experts
  int64_t router = 0;  ///< MoE: the hidden x experts router (no bias)
  int64_t norms = 0;   ///< the two pre-norms
  /// Weights of the matrix multiplies only (no biases, no norms), every
  /// expert's included.
  int64_t matmulWeights = 0;
  /// The weights one token multiplies (2 FLOPs each): matmulWeights for a
  /// dense layer; with experts the attention, the router and
  /// routedPerToken() experts' matrices.
  double flopWeights = 0;
  /// Parameters one token uses: all of a dense layer; with experts the
  /// attention, norms, router and topK experts (what MoE papers call
  /// active parameters).
  int64_t active = 0;
  int64_t attention() const { return qkv + attnOut; }
  int64_t total() const { return qkv + attnOut + mlp + router + norms; }
};

/// Parameters of the whole model.
struct ParameterBreakdown {
  int64_t embedding = 0;  ///< token embedding V x h
  int64_t positional = 0; ///< learned position table s x h (0 for rotary)
  LayerParams perLayer;   ///< every layer is the same
  int64_t layers = 0;     ///< perLayer.total() * L
  int64_t finalNorm = 0;
  int64_t head = 0; ///< output projection h x V (0 when tied)
  int64_t total() const {
    return embedding + positional + layers + finalNorm + head;
  }
  /// Everything but the embedding tables and the output head.
  int64_t nonEmbedding() const { return layers + finalNorm; }
  /// The parameters one token uses (all of them for a dense model).
  int64_t active() const {
    return total() - layers + perLayer.active * layerCount;
  }
  int64_t layerCount = 0; ///< L
};

/// Exact parameter count of `cfg`, block by block.
ParameterBreakdown countParameters(const TransformerConfig &cfg);

/// The reference's closed form N ~= 12*L*h^2 + V*h (GPT-style; ignores
/// biases, norms, positions, GQA and the MLP width).
double approxParameters(const TransformerConfig &cfg);

//===----------------------------------------------------------------------===//
// Model states (parameters, gradients, optimizer)
//===----------------------------------------------------------------------===//

/// Bytes per parameter of each model state. The default is mixed-precision
/// Adam, 16 B/param: 2 fp16 weights + 2 fp16 gradients + 12 fp32 master
/// weights, momentum and variance.
struct StatePrecision {
  double paramBytes = 2;
  double gradBytes = 2;
  double optimizerBytes = 12;
  /// Host-memory bytes one parameter's update moves (kOptimizerUpdateBytes:
  /// Adam's 28; the CPU optimizer is bandwidth-bound).
  double updateBytes = 28;
  double total() const { return paramBytes + gradBytes + optimizerBytes; }
  static StatePrecision mixedAdam() { return {}; }
  /// Megatron-LM keeps fp32 gradients: 18 B/param.
  static StatePrecision megatron() { return {2, 4, 12}; }
};

/// The optimizers a job may name (`optimizer:` in the language).
enum class Optimizer { Adam, AdamW, Sgd, Lion, Adafactor };
/// "adam", "adamw", "sgd", "lion", "adafactor"; nullopt for another name.
std::optional<Optimizer> parseOptimizer(const std::string &name);

/// What an optimizer keeps and moves per parameter (mixed precision: fp16
/// parameters and gradients on the GPU, fp32 master weights in the
/// optimizer's home). Bytes per parameter:
///   Adam, AdamW  states 12 (master, m, v)       update 28
///   SGD          states  8 (master, momentum)   update 20
///   Lion         states  8 (master, momentum)   update 20
///   Adafactor    states  4 + factored second moments, update 14
/// An update reads the fp16 gradient (2) and the states and writes the
/// states and the fp16 parameter (2); Adafactor (no first moment) reads
/// the gradient twice (row and column statistics, then the update).
/// Adafactor's factored moments keep rows + columns values per weight
/// matrix and one per value of a vector: `factoredBytesPerParam` (4 x
/// (sum of rows + cols over matrices + vector params) / params).
struct OptimizerCost {
  double stateBytes = 12;
  double updateBytes = 28;
  /// DeepSpeed's "optimizer.type", and whether DeepSpeed offloads its
  /// states to the CPU or NVMe (its CPU optimizers: Adam, AdamW, Lion).
  const char *deepspeedType = "Adam";
  bool deepspeedOffloads = true;
};
OptimizerCost optimizerCost(Optimizer o, double factoredBytesPerParam = 0);
const char *optimizerName(Optimizer o);

/// How the model states are sharded across `dp` data-parallel ranks.
/// ZeRO-1 shards the optimizer (4N + 12N/d), ZeRO-2 also the gradients
/// (2N + 14N/d), ZeRO-3 everything (16N/d). Megatron's distributed optimizer
/// is ZeRO-1 with StatePrecision::megatron() (6N + 12N/d).
enum class ZeroStage { None = 0, Optimizer = 1, Gradients = 2, Parameters = 3 };

/// Bytes of the model states held by one rank.
struct ModelStateBytes {
  double params = 0;
  double grads = 0;
  double optimizer = 0;
  double total() const { return params + grads + optimizer; }
};

/// Model-state bytes per rank for `numParams` parameters.
ModelStateBytes modelStateBytes(double numParams,
                                StatePrecision prec = StatePrecision(),
                                ZeroStage zero = ZeroStage::None,
                                int64_t dp = 1);

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

enum class Recompute { None, Selective, Full };

/// Tensor/sequence parallelism that splits a layer's activations.
struct ActivationParallelism {
  int64_t tensor = 1; ///< t
  bool sequenceParallel = false;
};

/// Activation bytes stored for the backward pass by one transformer layer
/// for one micro-batch of `microBatch` sequences of cfg.seq tokens
/// (Korthikanti et al. 2022; fp16 activations, 1-byte dropout masks, MHA and
/// a 4h MLP as in the paper):
///   none:                 s*b*h*(34 + 5*a*s/h)
///   TP t:                 s*b*h*(10 + 24/t + 5*a*s/(h*t))
///   TP + SP:              (s*b*h/t)*(34 + 5*a*s/h)
///   TP + selective:       s*b*h*(10 + 24/t)
///   TP + SP + selective:  34*s*b*h/t
///   full recompute:       2*s*b*h (the layer input; /t with SP)
double activationBytesPerLayer(const TransformerConfig &cfg, int64_t microBatch,
                               Recompute recompute,
                               ActivationParallelism par = {});

/// Peak activation bytes of the first pipeline stage (the most loaded one)
/// with `stages` stages over cfg.layers layers under 1F1B: p micro-batches
/// in flight of L/p layers each; with `virtualStages` > 1 (interleaved
/// schedule) times (1 + (p-1)/(p*v)).
double activationBytesFirstStage(const TransformerConfig &cfg,
                                 int64_t microBatch, Recompute recompute,
                                 ActivationParallelism par, int64_t stages,
                                 int64_t virtualStages = 1);

//===----------------------------------------------------------------------===//
// FLOPs
//===----------------------------------------------------------------------===//

/// FLOPs of one training iteration over `batch` sequences of cfg.seq tokens.
/// A layer's forward pass costs 2 FLOPs per matmul weight per token plus
/// 4*b*s^2*h for the attention scores and their product with V; the logit
/// layer 2*b*s*h*V. Backward is 2x forward; full recomputation adds the
/// layers' forward again (not the logits). For GPT configurations this is
/// exactly the reference's 72*B*s*L*h^2*(1 + s/(6h) + V/(12*L*h)) and, with
/// recomputation, 96*B*s*L*h^2*(1 + s/(6h) + V/(16*L*h)).
struct TrainingFlops {
  double forwardLayers = 0;
  double forwardLogits = 0;
  double backward = 0;
  double recompute = 0;
  double forward() const { return forwardLayers + forwardLogits; }
  /// Model FLOPs (what MFU counts): forward + backward.
  double model() const { return forward() + backward; }
  /// Hardware FLOPs (what HFU counts): model + recomputation.
  double total() const { return model() + recompute; }
};

TrainingFlops trainingFlops(const TransformerConfig &cfg, int64_t batch,
                            bool fullRecompute = false);

/// Training FLOPs per token: trainingFlops(cfg, 1, r).total() / cfg.seq.
double trainingFlopsPerToken(const TransformerConfig &cfg,
                             bool fullRecompute = false);

/// The reference's rule of thumb: 6N FLOPs per token (8N with recompute).
double ruleOfThumbFlopsPerToken(double numParams, bool fullRecompute = false);

/// Decode FLOPs per generated token at context length `context`:
/// 2N + 4*L*h*context (the reference's estimate; N = all parameters of a
/// dense model, the active ones with experts).
double decodeFlopsPerToken(const TransformerConfig &cfg, int64_t context);

//===----------------------------------------------------------------------===//
// Inference
//===----------------------------------------------------------------------===//

/// KV-cache bytes per token: 2 (K and V) * L * kvHeads * headDim * dtype,
/// i.e. the reference's 4*L*h bytes for fp16 MHA, times g/a with GQA.
double kvCacheBytesPerToken(const TransformerConfig &cfg);

/// KV-cache bytes for `batch` sequences of `prompt` + `generated` tokens:
/// the reference's 4*L*h*(s+n)*b (x g/a).
double kvCacheBytes(const TransformerConfig &cfg, int64_t batch, int64_t prompt,
                    int64_t generated);

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

/// A multi-line human-readable summary (parameters, model states, activation
/// bytes per layer, FLOPs per token, KV cache per token) for `microBatch`,
/// with quantities printed by formatQuantity ("324 GiB", "1.05 TFLOP").
std::string summarize(const TransformerConfig &cfg, int64_t microBatch = 1);

} // namespace sluice::model

#endif // SLUICE_COMPILER_ANALYSIS_MODEL_TRANSFORMERCOST_H
