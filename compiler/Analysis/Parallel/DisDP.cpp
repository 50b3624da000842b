//===- DisDP.cpp - Disaggregated model-sharded data parallelism -----------===//
//
// See DisDP.h: the serialised ZeRO-3 iteration and DisDP's four lanes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/DisDP.h"

#include <algorithm>
#include <cmath>

using namespace sluice;
using namespace sluice::parallel;

std::string DisdpProblem::validate() const {
  if (gpus < 1)
    return "need at least one gpu, got " + std::to_string(gpus);
  if (layers < 1)
    return "need at least one layer, got " + std::to_string(layers);
  if (microBatches < 1)
    return "need at least one micro-batch, got " + std::to_string(microBatches);
  const double all[] = {forward,           backward,         ringAllGather,
                        ringReduceScatter, paramFetch,       baselineOptimizer,
                        netAllGather,      netReduceScatter, psUpdate};
  for (double v : all)
    if (!std::isfinite(v) || v < 0)
      return "durations must be finite and non-negative";
  return "";
}

namespace {

using Lane = DisdpSpan::Lane;

/// The name of the op of sequence index `k` within a micro-batch (forward
/// layers 0..L-1, then backward layers L-1..0), and its layer.
int64_t layerOf(int64_t k, int64_t L) { return k < L ? k : 2 * L - 1 - k; }

struct Recorder {
  DisdpTimeline &t;
  void add(Lane lane, const char *what, int64_t layer, int64_t mb, double start,
           double end) {
    if (end <= start)
      return;
    t.spans.push_back({lane, std::string(what) + " " + std::to_string(layer),
                       mb, start, end});
    double &busy = lane == Lane::Compute ? t.compute
                   : lane == Lane::Down  ? t.down
                   : lane == Lane::Up    ? t.up
                                         : t.optimizer;
    busy += end - start;
    t.iteration = std::max(t.iteration, end);
  }
};

} // namespace

DisdpTimeline parallel::simulateZero3(const DisdpProblem &p) {
  DisdpTimeline t;
  Recorder r{t};
  const int64_t L = p.layers;
  double now = 0;
  auto run = [&](Lane lane, const char *what, int64_t layer, int64_t mb,
                 double d) {
    r.add(lane, what, layer, mb, now, now + d);
    now += d;
  };
  for (int64_t mb = 0; mb < p.microBatches; ++mb)
    for (int64_t k = 0; k < 2 * L; ++k) {
      const int64_t l = layerOf(k, L);
      const bool fwd = k < L;
      run(Lane::Down, "fetch", l, mb, p.paramFetch);
      run(Lane::Down, "AG", l, mb, p.ringAllGather);
      run(Lane::Compute, fwd ? "F" : "B", l, mb, fwd ? p.forward : p.backward);
      if (!fwd)
        run(Lane::Up, "RS", l, mb, p.ringReduceScatter);
    }
  for (int64_t l = L - 1; l >= 0; --l)
    run(Lane::Optimizer, "step", l, p.microBatches - 1, p.baselineOptimizer);
  t.iteration = now;
  return t;
}

DisdpTimeline parallel::simulateDisdp(const DisdpProblem &p) {
  DisdpTimeline t;
  Recorder r{t};
  const int64_t L = p.layers, n = 2 * L * p.microBatches;
  std::vector<double> computeEnd(static_cast<size_t>(n), 0);
  double downFree = 0, computeFree = 0, upFree = 0, psFree = 0;
  for (int64_t q = 0; q < n; ++q) {
    const int64_t mb = q / (2 * L), k = q % (2 * L), l = layerOf(k, L);
    const bool fwd = k < L;
    // Two parameter buffers: the gather of op q reuses op q-2's buffer.
    double gatherStart = downFree;
    if (q >= 2)
      gatherStart =
          std::max(gatherStart, computeEnd[static_cast<size_t>(q - 2)]);
    const double gatherEnd = gatherStart + p.netAllGather;
    r.add(Lane::Down, "AG", l, mb, gatherStart, gatherEnd);
    downFree = gatherEnd;
    const double start = std::max(computeFree, gatherEnd);
    const double end = start + (fwd ? p.forward : p.backward);
    r.add(Lane::Compute, fwd ? "F" : "B", l, mb, start, end);
    computeFree = end;
    computeEnd[static_cast<size_t>(q)] = end;
    if (fwd)
      continue;
    const double rsStart = std::max(upFree, end);
    const double rsEnd = rsStart + p.netReduceScatter;
    r.add(Lane::Up, "RS", l, mb, rsStart, rsEnd);
    upFree = rsEnd;
    if (mb != p.microBatches - 1)
      continue;
    const double stepStart = std::max(psFree, rsEnd);
    psFree = stepStart + p.psUpdate;
    r.add(Lane::Optimizer, "step", l, mb, stepStart, psFree);
  }
  t.iteration = std::max({downFree, computeFree, upFree, psFree});
  return t;
}

DisdpResult parallel::planDisdp(const DisdpProblem &p) {
  return {simulateZero3(p), simulateDisdp(p)};
}
