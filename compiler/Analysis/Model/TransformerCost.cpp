//===- TransformerCost.cpp - Transformer cost analyses --------------------===//
//
// Implements the closed-form estimates declared in TransformerCost.h. The
// formulas follow shared/reference/planning-models.md (Korthikanti et al.
// 2022 for activations, Narayanan et al. 2021 for FLOPs, ZeRO for model
// states); docs/models.md lists them with the checks in the unit tests.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Model/TransformerCost.h"

#include "support/Units.h"

#include <cassert>
#include <cstdio>
#include <tuple>

namespace sluice::model {

TransformerConfig TransformerConfig::gpt(int64_t layers, int64_t hidden,
                                         int64_t heads, int64_t seq,
                                         int64_t vocab) {
  TransformerConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.seq = seq;
  c.vocab = vocab;
  return c;
}

TransformerConfig TransformerConfig::llama(int64_t layers, int64_t hidden,
                                           int64_t heads, int64_t kvHeads,
                                           int64_t ffn, int64_t seq,
                                           int64_t vocab) {
  TransformerConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.kvHeads = kvHeads;
  c.ffn = ffn;
  c.seq = seq;
  c.vocab = vocab;
  c.tiedEmbeddings = false;
  c.linearBiases = false;
  c.mlp = MlpKind::Gated;
  c.norm = NormKind::RMSNorm;
  c.positions = PositionKind::Rotary;
  return c;
}

std::string TransformerConfig::validate() const {
  auto positive = [](const char *what, int64_t v) -> std::string {
    if (v > 0)
      return "";
    return std::string("expected positive ") + what + ", got " +
           std::to_string(v);
  };
  for (auto [what, v] : {std::pair<const char *, int64_t>{"layers", layers},
                         {"hidden", hidden},
                         {"heads", heads},
                         {"seq", seq},
                         {"vocab", vocab},
                         {"dtype bytes", dtypeBytes}})
    if (std::string err = positive(what, v); !err.empty())
      return err;
  if (kvHeads < 0)
    return "expected non-negative kv heads, got " + std::to_string(kvHeads);
  if (ffn < 0)
    return "expected non-negative ffn, got " + std::to_string(ffn);
  // Far above any published model, and low enough that every count and
  // per-layer table the cost models build stays within int64 and memory.
  for (auto [what, v, max] :
       {std::tuple<const char *, int64_t, int64_t>{"layers", layers,
                                                   kMaxLayers},
        {"hidden", hidden, kMaxWidth},
        {"heads", heads, kMaxHeads},
        {"kv heads", kvHeads, kMaxHeads},
        {"ffn", ffn, 4 * kMaxWidth},
        {"seq", seq, kMaxSeq},
        {"vocab", vocab, kMaxVocab},
        {"dtype bytes", dtypeBytes, 8}})
    if (v > max)
      return std::string(what) + " must be at most " + std::to_string(max) +
             ", got " + std::to_string(v);
  if (experts != 0) {
    if (experts < 2 || experts > kMaxExperts)
      return "experts must be 0 (a dense MLP) or between 2 and " +
             std::to_string(kMaxExperts) + ", got " + std::to_string(experts);
    if (topK < 1 || topK > experts)
      return "top_k must be between 1 and experts (" + std::to_string(experts) +
             "), got " + std::to_string(topK);
    if (!(capacityFactor > 0) || capacityFactor > kMaxCapacityFactor)
      return "capacity factor must be in (0, " +
             std::to_string(static_cast<int>(kMaxCapacityFactor)) + "], got " +
             std::to_string(capacityFactor);
  }
  if (hidden % heads != 0)
    return "hidden " + std::to_string(hidden) + " is not a multiple of heads " +
           std::to_string(heads);
  if (heads % effectiveKvHeads() != 0)
    return "heads " + std::to_string(heads) +
           " is not a multiple of kv heads " +
           std::to_string(effectiveKvHeads());
  return "";
}

double TransformerConfig::routedPerToken() const {
  return model::routedPerToken(experts, topK, capacityFactor);
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

static int64_t normParams(const TransformerConfig &cfg) {
  return cfg.norm == NormKind::LayerNorm ? 2 * cfg.hidden : cfg.hidden;
}

ParameterBreakdown countParameters(const TransformerConfig &cfg) {
  assert(cfg.validate().empty() && "invalid transformer config");
  const int64_t h = cfg.hidden;
  const int64_t kvDim = cfg.effectiveKvHeads() * cfg.headDim();
  const int64_t f = cfg.effectiveFfn();
  const bool bias = cfg.linearBiases;

  LayerParams layer;
  const int64_t qkvWeights = h * h + 2 * h * kvDim;
  const int64_t outWeights = h * h;
  const int64_t mlpMatrices = cfg.mlp == MlpKind::Gated ? 3 : 2;
  const int64_t mlpWeights = mlpMatrices * h * f;
  layer.qkv = qkvWeights + (bias ? h + 2 * kvDim : 0);
  layer.attnOut = outWeights + (bias ? h : 0);
  // Biases: one per output feature of each matrix (f for each up/gate
  // projection, h for the down projection).
  const int64_t expertParams =
      mlpWeights + (bias ? (mlpMatrices - 1) * f + h : 0);
  const int64_t copies = cfg.moe() ? cfg.experts : 1;
  layer.mlp = expertParams * copies;
  layer.router = cfg.moe() ? h * cfg.experts : 0;
  layer.norms = 2 * normParams(cfg);
  layer.matmulWeights =
      qkvWeights + outWeights + mlpWeights * copies + layer.router;
  layer.flopWeights =
      static_cast<double>(qkvWeights + outWeights + layer.router) +
      cfg.routedPerToken() * static_cast<double>(mlpWeights);
  layer.active = layer.qkv + layer.attnOut + layer.norms + layer.router +
                 expertParams * (cfg.moe() ? cfg.topK : 1);

  ParameterBreakdown p;
  p.embedding = cfg.vocab * h;
  p.positional = cfg.positions == PositionKind::Learned ? cfg.seq * h : 0;
  p.perLayer = layer;
  p.layers = layer.total() * cfg.layers;
  p.layerCount = cfg.layers;
  p.finalNorm = normParams(cfg);
  p.head = cfg.tiedEmbeddings ? 0 : cfg.vocab * h;
  return p;
}

double approxParameters(const TransformerConfig &cfg) {
  const double h = static_cast<double>(cfg.hidden);
  return 12.0 * static_cast<double>(cfg.layers) * h * h +
         static_cast<double>(cfg.vocab) * h;
}

//===----------------------------------------------------------------------===//
// Model states
//===----------------------------------------------------------------------===//

ModelStateBytes modelStateBytes(double numParams, StatePrecision prec,
                                ZeroStage zero, int64_t dp) {
  assert(dp > 0 && "data-parallel degree must be positive");
  const double d = static_cast<double>(dp);
  ModelStateBytes b;
  b.params = prec.paramBytes * numParams;
  b.grads = prec.gradBytes * numParams;
  b.optimizer = prec.optimizerBytes * numParams;
  if (zero >= ZeroStage::Optimizer)
    b.optimizer /= d;
  if (zero >= ZeroStage::Gradients)
    b.grads /= d;
  if (zero >= ZeroStage::Parameters)
    b.params /= d;
  return b;
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

double activationBytesPerLayer(const TransformerConfig &cfg, int64_t microBatch,
                               Recompute recompute, ActivationParallelism par) {
  assert(cfg.validate().empty() && "invalid transformer config");
  assert(microBatch > 0 && par.tensor > 0);
  const double s = static_cast<double>(cfg.seq);
  const double b = static_cast<double>(microBatch);
  const double h = static_cast<double>(cfg.hidden);
  const double a = static_cast<double>(cfg.heads);
  const double t = static_cast<double>(par.tensor);
  const double sbh = s * b * h;
  const bool sp = par.sequenceParallel;
  // A mixture of experts keeps the MLP's 19sbh for each of the
  // routedPerToken() copies of a token, plus the router's input (2sbh) and
  // its fp32 probabilities (4sbE), split as the MLP's are.
  const double moe =
      cfg.moe() ? (19.0 * (cfg.routedPerToken() - 1.0) * sbh + 2.0 * sbh +
                   4.0 * s * b * static_cast<double>(cfg.experts)) /
                      t
                : 0.0;
  switch (recompute) {
  case Recompute::None:
    return moe + (sp ? (sbh / t) * (34.0 + 5.0 * a * s / h)
                     : sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t)));
  case Recompute::Selective:
    return moe + (sp ? 34.0 * sbh / t : sbh * (10.0 + 24.0 / t));
  case Recompute::Full:
    return sp ? 2.0 * sbh / t : 2.0 * sbh;
  }
  return 0;
}

double activationBytesFirstStage(const TransformerConfig &cfg,
                                 int64_t microBatch, Recompute recompute,
                                 ActivationParallelism par, int64_t stages,
                                 int64_t virtualStages) {
  assert(stages > 0 && virtualStages > 0);
  const double p = static_cast<double>(stages);
  const double v = static_cast<double>(virtualStages);
  const double layersPerStage = static_cast<double>(cfg.layers) / p;
  // 1F1B: the first stage holds p micro-batches in flight.
  double bytes = activationBytesPerLayer(cfg, microBatch, recompute, par) *
                 layersPerStage * p;
  if (virtualStages > 1)
    bytes *= 1.0 + (p - 1.0) / (p * v);
  return bytes;
}

//===----------------------------------------------------------------------===//
// FLOPs
//===----------------------------------------------------------------------===//

TrainingFlops trainingFlops(const TransformerConfig &cfg, int64_t batch,
                            bool fullRecompute) {
  const ParameterBreakdown p = countParameters(cfg);
  const double B = static_cast<double>(batch);
  const double s = static_cast<double>(cfg.seq);
  const double h = static_cast<double>(cfg.hidden);
  const double L = static_cast<double>(cfg.layers);
  const double V = static_cast<double>(cfg.vocab);
  const double w = p.perLayer.flopWeights;
  TrainingFlops f;
  // Per layer: 2 FLOPs per weight per token, plus Q*K^T and scores*V
  // (2*b*s^2*h each).
  f.forwardLayers = L * (2.0 * B * s * w + 4.0 * B * s * s * h);
  f.forwardLogits = 2.0 * B * s * h * V;
  f.backward = 2.0 * f.forward();
  f.recompute = fullRecompute ? f.forwardLayers : 0.0;
  return f;
}

double trainingFlopsPerToken(const TransformerConfig &cfg, bool fullRecompute) {
  return trainingFlops(cfg, 1, fullRecompute).total() /
         static_cast<double>(cfg.seq);
}

double ruleOfThumbFlopsPerToken(double numParams, bool fullRecompute) {
  return (fullRecompute ? 8.0 : 6.0) * numParams;
}

double decodeFlopsPerToken(const TransformerConfig &cfg, int64_t context) {
  const double n = static_cast<double>(countParameters(cfg).active());
  return 2.0 * n + 4.0 * static_cast<double>(cfg.layers) *
                       static_cast<double>(cfg.hidden) *
                       static_cast<double>(context);
}

//===----------------------------------------------------------------------===//
// Inference
//===----------------------------------------------------------------------===//

double kvCacheBytesPerToken(const TransformerConfig &cfg) {
  assert(cfg.validate().empty() && "invalid transformer config");
  return 2.0 * static_cast<double>(cfg.layers) *
         static_cast<double>(cfg.effectiveKvHeads() * cfg.headDim()) *
         static_cast<double>(cfg.dtypeBytes);
}

double kvCacheBytes(const TransformerConfig &cfg, int64_t batch, int64_t prompt,
                    int64_t generated) {
  return kvCacheBytesPerToken(cfg) * static_cast<double>(prompt + generated) *
         static_cast<double>(batch);
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

static std::string formatCount(double n) {
  char buf[64];
  if (n >= 1e9)
    std::snprintf(buf, sizeof(buf), "%.2fB", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(buf, sizeof(buf), "%.2fM", n / 1e6);
  else
    std::snprintf(buf, sizeof(buf), "%.0f", n);
  return buf;
}

std::string summarize(const TransformerConfig &cfg, int64_t microBatch) {
  if (std::string err = cfg.validate(); !err.empty())
    return "invalid transformer config: " + err + "\n";
  const ParameterBreakdown p = countParameters(cfg);
  const double n = static_cast<double>(p.total());
  const ModelStateBytes states = modelStateBytes(n);
  const Dim bytes = Dim::bytes();
  std::string out;
  if (cfg.moe())
    out += "experts: " + std::to_string(cfg.experts) + ", top " +
           std::to_string(cfg.topK) + " per token; active parameters " +
           formatCount(static_cast<double>(p.active())) + "\n";
  out += "parameters: " + formatCount(n) + " (per layer " +
         formatCount(static_cast<double>(p.perLayer.total())) + ", embedding " +
         formatCount(static_cast<double>(p.embedding)) + ", head " +
         formatCount(static_cast<double>(p.head)) + ")\n";
  out += "model states (mixed-precision Adam): " +
         formatQuantity(states.total(), bytes) + " (params " +
         formatQuantity(states.params, bytes) + ", grads " +
         formatQuantity(states.grads, bytes) + ", optimizer " +
         formatQuantity(states.optimizer, bytes) + ")\n";
  out += "activations per layer, micro-batch " + std::to_string(microBatch) +
         ": " +
         formatQuantity(
             activationBytesPerLayer(cfg, microBatch, Recompute::None), bytes) +
         " (selective " +
         formatQuantity(
             activationBytesPerLayer(cfg, microBatch, Recompute::Selective),
             bytes) +
         ", full recompute " +
         formatQuantity(
             activationBytesPerLayer(cfg, microBatch, Recompute::Full), bytes) +
         ")\n";
  out += "training FLOPs per token: " +
         formatQuantity(trainingFlopsPerToken(cfg), Dim::flops()) +
         " (full recompute " +
         formatQuantity(trainingFlopsPerToken(cfg, true), Dim::flops()) + ")\n";
  out += "KV cache per token: " +
         formatQuantity(kvCacheBytesPerToken(cfg), bytes) + "\n";
  return out;
}

} // namespace sluice::model

std::optional<sluice::model::Optimizer>
sluice::model::parseOptimizer(const std::string &name) {
  if (name == "adam")
    return Optimizer::Adam;
  if (name == "adamw")
    return Optimizer::AdamW;
  if (name == "sgd")
    return Optimizer::Sgd;
  if (name == "lion")
    return Optimizer::Lion;
  if (name == "adafactor")
    return Optimizer::Adafactor;
  return std::nullopt;
}

const char *sluice::model::optimizerName(Optimizer o) {
  switch (o) {
  case Optimizer::Adam:
    return "adam";
  case Optimizer::AdamW:
    return "adamw";
  case Optimizer::Sgd:
    return "sgd";
  case Optimizer::Lion:
    return "lion";
  case Optimizer::Adafactor:
    return "adafactor";
  }
  return "?";
}

sluice::model::OptimizerCost sluice::model::optimizerCost(Optimizer o,
                                          double factoredBytesPerParam) {
  switch (o) {
  case Optimizer::Adam:
    return {12, 28, "Adam", true};
  case Optimizer::AdamW:
    return {12, 28, "AdamW", true};
  case Optimizer::Sgd:
    return {8, 20, "SGD", false};
  case Optimizer::Lion:
    return {8, 20, "Lion", true};
  case Optimizer::Adafactor:
    return {4 + factoredBytesPerParam, 14, "Adafactor", false};
  }
  return {};
}
