//===- ModelCosts.cpp - Per-layer costs the offload planners read ---------===//
#include "compiler/Analysis/Offload/ModelCosts.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace sluice;
using namespace sluice::offload;

int64_t ModelCosts::layers() const {
  int64_t n = 0;
  for (const LayerGroup &g : groups)
    n += g.count;
  return n;
}

double ModelCosts::params() const {
  double n = otherParams;
  for (const LayerGroup &g : groups)
    n += static_cast<double>(g.count) * g.params;
  return n;
}

double ModelCosts::fwdFlops() const {
  double f = headFwdFlops;
  for (const LayerGroup &g : groups)
    f += static_cast<double>(g.count) * g.fwdFlops;
  return f;
}

const LayerGroup &ModelCosts::groupOf(int64_t l) const {
  for (const LayerGroup &g : groups) {
    if (l < g.count)
      return g;
    l -= g.count;
  }
  assert(false && "layer index out of range");
  return groups.back();
}

std::string ModelCosts::validate() const {
  if (groups.empty())
    return "no layers";
  if (seq <= 0 || vocab <= 0 || dtypeBytes <= 0)
    return "seq, vocab and dtype bytes must be positive";
  for (size_t i = 0; i < groups.size(); ++i) {
    const LayerGroup &g = groups[i];
    std::string at = "layer group " + std::to_string(i) + ": ";
    if (g.count <= 0)
      return at + "count must be positive, got " + std::to_string(g.count);
    if (g.hidden <= 0 || g.heads <= 0 || g.kvDim <= 0 || g.ffn <= 0)
      return at + "hidden, heads, kv_dim and ffn must be positive";
    if (g.experts != 0 &&
        (g.experts < 2 || g.experts > model::kMaxExperts || g.topK < 1 ||
         g.topK > g.experts || !(g.capacity > 0) ||
         g.capacity > model::kMaxCapacityFactor))
      return at + "experts must be 2.." + std::to_string(model::kMaxExperts) +
             ", top_k 1..experts and the capacity factor in (0, " +
             std::to_string(static_cast<int>(model::kMaxCapacityFactor)) + "]";
    for (double v : {g.params, g.fwdFlops, g.actBytes, g.actBytesSelective})
      if (!(v > 0) || !std::isfinite(v))
        return at + "costs must be positive and finite";
  }
  if (!(otherParams >= 0) || !(headFwdFlops >= 0))
    return "head costs must be non-negative";
  return "";
}

double LayerGroup::routedPerToken() const {
  return model::routedPerToken(experts, topK, capacity);
}

ModelCosts offload::uniformCosts(const model::TransformerConfig &cfg) {
  assert(cfg.validate().empty() && "invalid transformer config");
  model::ParameterBreakdown p = model::countParameters(cfg);
  const double s = static_cast<double>(cfg.seq),
               h = static_cast<double>(cfg.hidden);
  ModelCosts c;
  c.seq = cfg.seq;
  c.vocab = cfg.vocab;
  c.dtypeBytes = cfg.dtypeBytes;
  LayerGroup g;
  g.count = cfg.layers;
  g.params = static_cast<double>(p.perLayer.total());
  // 2 FLOPs per matmul weight per token, plus Q K^T and scores x V.
  g.fwdFlops = 2.0 * s * p.perLayer.flopWeights + 4.0 * s * s * h;
  g.actBytes = model::activationBytesPerLayer(cfg, 1, model::Recompute::None);
  g.actBytesSelective =
      model::activationBytesPerLayer(cfg, 1, model::Recompute::Selective);
  g.hidden = cfg.hidden;
  g.heads = cfg.heads;
  g.kvDim = cfg.effectiveKvHeads() * cfg.headDim();
  g.ffn = cfg.effectiveFfn();
  g.gated = cfg.mlp == model::MlpKind::Gated;
  g.experts = cfg.experts;
  g.topK = cfg.topK;
  g.capacity = cfg.capacityFactor;
  c.groups.push_back(g);
  c.otherParams = static_cast<double>(p.total()) -
                  g.params * static_cast<double>(cfg.layers);
  c.headFwdFlops = 2.0 * s * h * static_cast<double>(cfg.vocab);
  return c;
}

std::vector<model::GemmShape>
offload::layerForwardGemms(const LayerGroup &g, double sequences, int64_t seq,
                           model::GemmDtype dtype) {
  const double s = static_cast<double>(seq), T = sequences * s;
  const double h = static_cast<double>(g.hidden),
               a = static_cast<double>(g.heads),
               kv = static_cast<double>(g.kvDim),
               f = static_cast<double>(g.ffn), d = h / a;
  const double e = model::gemmDtypeBytes(dtype);
  std::vector<model::GemmShape> out;
  out.push_back({T, h + 2 * kv, h, 1, dtype, {}});
  out.push_back({s, s, 2 * d, sequences * a, dtype, (2 * h + 2 * kv) * T * e});
  out.push_back({T, h, h, 1, dtype, {}});
  if (g.experts == 0) {
    out.push_back({T, f * (g.gated ? 2 : 1), h, 1, dtype, {}});
    out.push_back({T, h, f, 1, dtype, {}});
    return out;
  }
  // A mixture of experts: the router, then one GEMM per expert on its
  // capacity's worth of tokens (routedPerToken() copies of each token
  // spread over the experts, at most all of them).
  const double E = static_cast<double>(g.experts);
  const double C = std::min(std::ceil(g.routedPerToken() * T / E), T);
  out.push_back({T, E, h, 1, dtype, {}});
  out.push_back({C, f * (g.gated ? 2 : 1), h, E, dtype, {}});
  out.push_back({C, h, f, E, dtype, {}});
  return out;
}

std::vector<model::GemmShape>
offload::backwardGemms(const std::vector<model::GemmShape> &forward) {
  std::vector<model::GemmShape> out;
  for (const model::GemmShape &f : forward) {
    if (f.bytes) { // fused attention
      model::GemmShape b = f;
      b.k *= 2;
      b.bytes = 2 * *f.bytes;
      out.push_back(b);
      continue;
    }
    out.push_back({f.m, f.k, f.n, f.batch, f.dtype, {}}); // dX = dY W^T
    out.push_back({f.k, f.n, f.m, f.batch, f.dtype, {}}); // dW = X^T dY
  }
  return out;
}

static double attained(const std::vector<model::GemmShape> &gemms,
                       const model::GemmDevice &d) {
  double flops = 0, time = 0;
  for (const model::GemmShape &g : gemms) {
    flops += g.flops();
    time += model::gemmTime(g, d);
  }
  return time > 0 ? flops / time : d.peakFlops * d.efficiency;
}

ComputeRates offload::layerRates(const ModelCosts &c, const LayerGroup &g,
                                 double sequences, const model::GemmDevice &d) {
  std::vector<model::GemmShape> fwd = layerForwardGemms(
      g, sequences, c.seq, model::gemmDtypeOfBytes(c.dtypeBytes));
  return {attained(fwd, d), attained(backwardGemms(fwd), d)};
}

ComputeRates offload::headRates(const ModelCosts &c, double sequences,
                                const model::GemmDevice &d) {
  const double T = sequences * static_cast<double>(c.seq);
  const double h = static_cast<double>(c.groups.back().hidden),
               V = static_cast<double>(c.vocab);
  std::vector<model::GemmShape> fwd = {
      {T, V, h, 1, model::gemmDtypeOfBytes(c.dtypeBytes), {}}};
  return {attained(fwd, d), attained(backwardGemms(fwd), d)};
}
