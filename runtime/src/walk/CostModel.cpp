//===- CostModel.cpp - Start-up calibration of FlexiWalker's cost ratio ---===//
//
// r = c_rej / c_res: the cost of one rejection trial (a uniform index, a
// uniform double, one weight evaluation at a random position) over the cost
// of one reservoir edge (one weight evaluation in sequence, one subtraction,
// and the amortised O(log d) random words). Both are measured on the same
// synthetic vertex with the same weight functor; docs/sampling.md.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/Sampling.h"

#include <algorithm>
#include <chrono>
#include <new>

using namespace sluice::walk;

namespace {

constexpr double kMinRatio = 1.0 / 16, kMaxRatio = 256;
constexpr uint32_t kDegree = 512;   // edges of the synthetic vertex
constexpr int kRounds = 3;          // best of three for each sampler
constexpr uint32_t kCalls = 256;    // samples per round

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double measure() {
  // Weights in [0.5, 1.5): a "node2vec-like" spread with rejection's
  // acceptance near 2/3, so that trials, not fallbacks, are timed.
  std::vector<float> weights(kDegree);
  WalkRng init(0x5eed, 0, 0);
  float wMax = 0;
  for (float &w : weights) {
    w = static_cast<float>(0.5 + init.nextDouble());
    wMax = std::max(wMax, w);
  }
  const float *w = weights.data();
  auto weight = [w](uint64_t i) { return double(w[i]); };
  double bestRes = 1e300, bestRej = 1e300;
  volatile uint64_t sink = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t acc = 0;
    for (uint32_t c = 0; c < kCalls; ++c) {
      WalkRng rng(1, c, static_cast<uint32_t>(round));
      acc += sampleReservoir(kDegree, weight, rng);
    }
    auto t1 = std::chrono::steady_clock::now();
    SamplerStats stats;
    // Many more calls: a rejection call is a few trials, not d edges.
    for (uint32_t c = 0; c < kCalls * 64; ++c) {
      WalkRng rng(2, c, static_cast<uint32_t>(round));
      acc += sampleRejection(kDegree, weight, wMax, rng, &stats);
    }
    auto t2 = std::chrono::steady_clock::now();
    sink = sink + acc;
    double perEdge = seconds(t1 - t0) / (double(kCalls) * kDegree);
    double perTrial =
        seconds(t2 - t1) / double(std::max<uint64_t>(stats.rejectionTrials, 1));
    bestRes = std::min(bestRes, perEdge);
    bestRej = std::min(bestRej, perTrial);
  }
  (void)sink;
  if (!(bestRes > 0) || !(bestRej > 0))
    return CostModel::kDefaultRatio;
  return std::clamp(bestRej / bestRes, kMinRatio, kMaxRatio);
}

} // namespace

double sluice::walk::calibrateCostRatio() {
  try {
    return measure();
  } catch (const std::bad_alloc &) {
    return CostModel::kDefaultRatio;
  }
}

extern "C" SLUICE_API double sluice_sampler_calibrate_cost_ratio(void) {
  return calibrateCostRatio();
}
