//===- FinetuneGeometry.cpp - Sizes and FLOPs the planner schedules -------===//
#include "compiler/Analysis/Offload/FinetuneGeometry.h"

#include <algorithm>
#include <numeric>

using namespace sluice;
using namespace sluice::offload;

namespace sluice::offload::detail {

Geometry geometry(const ModelCosts &c, const FinetuneJob::Lora &lora, int64_t b,
                  const FinetuneOptions &opts, const Machine &m) {
  const model::GemmDevice dev = m.gemmDevice();
  Geometry g;
  const double B = static_cast<double>(b), s = static_cast<double>(c.seq),
               V = static_cast<double>(c.vocab),
               e = static_cast<double>(c.dtypeBytes);
  g.layers = c.layers();
  g.N = c.params();
  g.headParams = c.otherParams;
  g.headFwdFlops = B * c.headFwdFlops;
  // LoRA freezes the head and the embeddings: the logits' backward is the
  // input gradient only.
  g.headBwdFlops = (lora.rank > 0 ? 1.0 : 2.0) * g.headFwdFlops;
  g.headRate = headRates(c, B, dev);
  for (size_t gi = 0; gi < c.groups.size(); ++gi) {
    const LayerGroup &lg = c.groups[gi];
    const double h = static_cast<double>(lg.hidden),
                 f = static_cast<double>(lg.ffn),
                 kv = static_cast<double>(lg.kvDim);
    const double gated = lg.gated ? 2.0 : 1.0;
    LayerGeometry l;
    l.params = lg.params;
    l.fwdFlops = B * lg.fwdFlops;
    l.bwdFlops = 2.0 * l.fwdFlops;
    if (lora.rank > 0) {
      // An adapter (r x in, out x r) on each of Q (h -> h), K and V
      // (h -> kv), the output projection (h -> h), the MLP's up (and gate)
      // projections (h -> f) and down (f -> h): PEFT's target modules
      // q, k, v, o, gate, up, down.
      const double r = static_cast<double>(lora.rank);
      l.adapterParams =
          r * ((h + h) + 2 * (h + kv) + (h + h) + gated * (h + f) + (f + h));
      // The frozen GEMMs need input gradients only (1x forward); attention
      // scores and context (4 s^2 h per sequence, no weights) both; the
      // adapters forward, and both gradients in backward.
      const double linear = 2.0 * B * s * lg.params;
      const double core = std::max(0.0, l.fwdFlops - linear);
      const double adapter = 2.0 * B * s * l.adapterParams;
      l.fwdFlops += adapter;
      l.bwdFlops = linear + 2.0 * core + 2.0 * adapter;
      if (lora.nf4 && dev.memoryBandwidth > 0)
        l.dequantTime =
            lg.params * kNf4DequantBytesPerParam / dev.memoryBandwidth;
      g.adapterParams += l.adapterParams * static_cast<double>(lg.count);
    }
    l.rate = layerRates(c, lg, B, dev);
    l.ckptBytes = B * s * h * e;
    // Ratel's matmul inputs and the FLOPs of the op that produces each.
    const double widths[kNumSwappable] = {h + 2 * kv, h, f, h};
    l.swapRecompute = {2.0 * B * s * h * (h + 2 * kv), 4.0 * B * s * s * h,
                       2.0 * B * s * h * f * gated, 2.0 * B * s * h * h};
    for (unsigned i = 0; i < kNumSwappable; ++i)
      l.swapBytes[i] = B * s * widths[i] * e;
    std::iota(l.rank.begin(), l.rank.end(), 0u);
    std::stable_sort(l.rank.begin(), l.rank.end(), [&](unsigned x, unsigned y) {
      return l.swapRecompute[x] / l.swapBytes[x] >
             l.swapRecompute[y] / l.swapBytes[y];
    });
    const double stored =
        B * (opts.flashAttention ? lg.actBytesSelective : lg.actBytes);
    l.work = opts.activationWorkFactor * stored;
    g.maxLayerParams = std::max(g.maxLayerParams, l.params);
    g.groups.push_back(l);
    for (int64_t k = 0; k < lg.count; ++k)
      g.groupOf.push_back(gi);
  }
  g.logitsWork = B * s * V * (e + 4.0); // fp16 logits + fp32 softmax
  return g;
}

/// Forward + backward (twice forward) FLOPs of one iteration; with LoRA,
/// the forward with the adapters and the backward the geometry computes
/// (input gradients of the frozen layers, the adapters' gradients).
double modelFlops(const FinetuneJob &job, const Machine &m,
                  const FinetuneOptions &o) {
  if (job.lora.rank > 0) {
    Geometry one = geometry(job.costs ? *job.costs : uniformCosts(job.model),
                            job.lora, 1, o, m);
    double total = one.headFwdFlops + one.headBwdFlops;
    for (int64_t l = 0; l < one.layers; ++l)
      total += one.layer(l).fwdFlops + one.layer(l).bwdFlops;
    return static_cast<double>(job.batch) * total;
  }
  if (!job.costs)
    return model::trainingFlops(job.model, job.batch).model();
  const double fwd = static_cast<double>(job.batch) * job.costs->fwdFlops();
  return fwd + 2.0 * fwd;
}

model::StatePrecision statePrecision(const FinetuneJob &job,
                                     const Geometry &g) {
  model::StatePrecision p = job.precision;
  if (job.lora.rank <= 0 || !(g.N > 0))
    return p;
  const double f = g.adapterParams / g.N;
  const double update =
      p.updateBytes > 0 ? p.updateBytes : kAdamHostBytesPerParam;
  p.paramBytes =
      (job.lora.nf4 ? kNf4BytesPerParam : p.paramBytes) + p.paramBytes * f;
  p.gradBytes *= f;
  p.optimizerBytes *= f;
  p.updateBytes = update * f;
  return p;
}

} // namespace sluice::offload::detail
