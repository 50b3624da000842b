//===- Sampling.h - the samplers of the walk engine -------------*- C++ -*-===//
//
// The C++ side of sluice/sampling.h (docs/sampling.md): Philox streams,
// Vose alias tables, rejection against an upper bound, one-pass weighted
// reservoir sampling (A-ExpJ) and the cost model's choice, as templates
// over the caller's weight functor. Internal to libsluicert (and its
// tests).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_SAMPLING_H
#define SLUICE_RUNTIME_WALK_SAMPLING_H

#include "sluice/sampling.h"
#include "sluice/walk.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice {
namespace walk {

/// "No candidate": the vertex has no out-edge of positive weight.
constexpr uint64_t kNoCandidate = UINT64_MAX;

/// One Philox4x32-10 block (the same function as sluice_philox4x32_10).
inline void philox4x32_10(const uint32_t counter[4], const uint32_t key[2],
                          uint32_t out[4]) {
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/// The random stream of one walker at one step. Key = the 64-bit seed;
/// counter = (block, step, walker low, walker high), so the stream is a
/// pure function of (seed, walker, step): the same on any thread, in any
/// order. Each block gives four 32-bit words; a stream holds 2^32 blocks.
class WalkRng {
public:
  WalkRng(uint64_t seed, uint64_t walker, uint32_t step) {
    key_[0] = static_cast<uint32_t>(seed);
    key_[1] = static_cast<uint32_t>(seed >> 32);
    counter_[0] = 0;
    counter_[1] = step;
    counter_[2] = static_cast<uint32_t>(walker);
    counter_[3] = static_cast<uint32_t>(walker >> 32);
  }

  /// The same stream, with its first block already computed by the caller
  /// (block0 = Philox4x32-10 of counter (0, step, walker low, walker high)
  /// under the seed), so that an engine can compute the first blocks of
  /// many walkers in one vectorisable batch. The words drawn are those of
  /// WalkRng(seed, walker, step).
  WalkRng(uint64_t seed, uint64_t walker, uint32_t step,
          const uint32_t block0[4])
      : WalkRng(seed, walker, step) {
    for (int i = 0; i < 4; ++i)
      block_[i] = block0[i];
    counter_[0] = 1;
    used_ = 0;
  }

  /// The same stream positioned inside block `blockIndex` (whose words
  /// the caller computed: Philox4x32-10 of counter (blockIndex, step,
  /// walker low, walker high) under the seed), after its first `used`
  /// words (0..4): the next word drawn is block[used].
  WalkRng(uint64_t seed, uint64_t walker, uint32_t step,
          const uint32_t block[4], uint32_t blockIndex, unsigned used)
      : WalkRng(seed, walker, step) {
    for (int i = 0; i < 4; ++i)
      block_[i] = block[i];
    counter_[0] = blockIndex + 1;
    used_ = used;
    drawn_ = 4 * uint64_t(blockIndex) + used;
  }

  uint32_t nextU32() {
    if (used_ == 4) {
      philox4x32_10(counter_, key_, block_);
      ++counter_[0];
      used_ = 0;
    }
    ++drawn_;
    return block_[used_++];
  }
  uint64_t nextU64() {
    uint64_t hi = nextU32();
    return hi << 32 | nextU32();
  }
  /// Uniform in [0, 1), 53 random bits.
  double nextDouble() {
    return static_cast<double>(nextU64() >> 11) * 0x1.0p-53;
  }
  /// Uniform in (0, 1): never 0, never 1 (safe for log).
  double nextOpenDouble() {
    return (static_cast<double>(nextU64() >> 12) + 0.5) * 0x1.0p-52;
  }
  /// Exp(1).
  double nextExponential() { return -std::log(nextOpenDouble()); }
  /// Uniform in [0, n), unbiased (Lemire's multiply-and-reject); n > 0.
  uint64_t uniformIndex(uint64_t n) {
    if (n <= UINT32_MAX) {
      uint32_t n32 = static_cast<uint32_t>(n);
      uint64_t m = static_cast<uint64_t>(nextU32()) * n32;
      uint32_t low = static_cast<uint32_t>(m);
      if (low < n32) {
        uint32_t threshold = static_cast<uint32_t>(-n32) % n32;
        while (low < threshold) {
          m = static_cast<uint64_t>(nextU32()) * n32;
          low = static_cast<uint32_t>(m);
        }
      }
      return m >> 32;
    }
    unsigned __int128 m = static_cast<unsigned __int128>(nextU64()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(nextU64()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  /// 32-bit words drawn so far (the cost in random numbers).
  uint64_t drawn() const { return drawn_; }

private:
  uint32_t key_[2];
  uint32_t counter_[4];
  uint32_t block_[4] = {0, 0, 0, 0};
  unsigned used_ = 4;
  uint64_t drawn_ = 0;
};

/// What the samplers did (optional; accumulate over many calls).
struct SamplerStats {
  uint64_t rejectionTrials = 0;    ///< proposals drawn by rejection
  uint64_t rejectionFallbacks = 0; ///< calls that gave up and went exact
  uint64_t boundViolations = 0;    ///< proposals with weight > bound
  uint64_t preAccepted = 0;        ///< trials accepted by the lower bound
  uint64_t reservoirCalls = 0;     ///< calls served by reservoir
};

/// Weights are used when > 0 (zero, negative and NaN weights are never
/// chosen); they must be finite.
inline bool isPositiveWeight(double w) { return w > 0; }

/// Exact inverse-CDF sampling in two passes over the candidates: one
/// uniform. The reference the other samplers fall back on.
template <class WeightFn>
uint64_t sampleExact(uint64_t n, WeightFn &&weight, WalkRng &rng) {
  double total = 0;
  uint64_t last = kNoCandidate;
  for (uint64_t i = 0; i < n; ++i) {
    double w = weight(i);
    if (isPositiveWeight(w)) {
      total += w;
      last = i;
    }
  }
  if (last == kNoCandidate)
    return kNoCandidate;
  double target = rng.nextDouble() * total;
  double acc = 0;
  for (uint64_t i = 0; i < last; ++i) {
    double w = weight(i);
    if (!isPositiveWeight(w))
      continue;
    acc += w;
    if (target < acc)
      return i;
  }
  return last; // also absorbs rounding at the top end
}

/// Default give-up point of rejection sampling.
constexpr uint32_t kDefaultMaxRejectionTrials = SLUICE_WALK_REJECTION_MAX_TRIALS;

/// Rejection sampling: propose a candidate uniformly, accept it with
/// probability weight / bound. `bound` must be >= every weight (a larger
/// weight is accepted anyway and counted in boundViolations: the result is
/// then biased). After `maxTrials` rejections it falls back to sampleExact
/// (counted in rejectionFallbacks), so an all-zero vertex costs maxTrials
/// proposals and returns kNoCandidate.
template <class WeightFn>
uint64_t sampleRejection(uint64_t n, WeightFn &&weight, double bound,
                         WalkRng &rng, SamplerStats *stats = nullptr,
                         uint32_t maxTrials = kDefaultMaxRejectionTrials) {
  if (n == 0)
    return kNoCandidate;
  if (bound > 0 && std::isfinite(bound)) {
    for (uint32_t trial = 0; trial < maxTrials; ++trial) {
      uint64_t i = rng.uniformIndex(n);
      double w = weight(i);
      double y = rng.nextDouble() * bound;
      if (stats) {
        ++stats->rejectionTrials;
        if (w > bound)
          ++stats->boundViolations;
      }
      if (y < w)
        return i;
    }
  }
  if (stats)
    ++stats->rejectionFallbacks;
  return sampleExact(n, weight, rng);
}

/// Weighted reservoir sampling of one candidate in one pass: A-ExpJ
/// (Efraimidis and Spirakis) in log space. Each positive-weight candidate
/// gets the key E = Exp(1) / w (an Exp(w) variable) and the minimum wins,
/// so P(i) = w_i / sum(w). Instead of a key per candidate, an exponential
/// jump X = Exp(1) / E_min says how much weight to skip before the next
/// candidate that beats the current minimum; that candidate's key is drawn
/// conditioned on beating it. Expected random words: O(log n).
template <class WeightFn>
uint64_t sampleReservoir(uint64_t n, WeightFn &&weight, WalkRng &rng,
                         SamplerStats *stats = nullptr) {
  if (stats)
    ++stats->reservoirCalls;
  uint64_t chosen = kNoCandidate;
  double minKey = 0; // E of the chosen candidate
  double skip = 0;   // weight left to jump over
  for (uint64_t i = 0; i < n; ++i) {
    double w = weight(i);
    if (!isPositiveWeight(w))
      continue;
    if (chosen == kNoCandidate) {
      chosen = i;
      minKey = rng.nextExponential() / w;
      skip = rng.nextExponential() / minKey;
      continue;
    }
    skip -= w;
    if (skip > 0)
      continue;
    // Candidate i beats minKey: its key, conditioned on E_i < minKey, is
    // -log(1 - (1 - exp(-minKey*w)) * u) / w with u uniform in (0, 1).
    chosen = i;
    double u = rng.nextOpenDouble();
    minKey = -std::log1p(std::expm1(-minKey * w) * u) / w;
    skip = rng.nextExponential() / minKey; // +inf when minKey underflows
  }
  return chosen;
}

/// Vose's alias method over n weights: prob/alias arrays of n entries
/// each. Returns the total positive weight (0: nothing to sample). `small`
/// and `large` are scratch vectors, reused across calls.
template <class WeightFn>
double buildAlias(uint32_t n, WeightFn &&weight, float *prob, uint32_t *alias,
                  std::vector<double> &scaled, std::vector<uint32_t> &small,
                  std::vector<uint32_t> &large) {
  scaled.resize(n);
  double total = 0;
  uint32_t anyPositive = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double w = weight(i);
    scaled[i] = isPositiveWeight(w) ? w : 0;
    if (scaled[i] > 0) {
      total += scaled[i];
      anyPositive = i;
    }
  }
  if (!(total > 0)) {
    for (uint32_t i = 0; i < n; ++i) {
      prob[i] = 0;
      alias[i] = i;
    }
    return 0;
  }
  small.clear();
  large.clear();
  for (uint32_t i = 0; i < n; ++i) {
    scaled[i] = scaled[i] * n / total;
    (scaled[i] < 1 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    uint32_t s = small.back(), l = large.back();
    small.pop_back();
    prob[s] = static_cast<float>(scaled[s]);
    alias[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1;
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What is left has scaled weight 1 up to rounding; a zero weight can only
  // be left by rounding too, and must never be chosen.
  for (uint32_t i : large) {
    prob[i] = 1;
    alias[i] = i;
  }
  for (uint32_t i : small) {
    bool positive = scaled[i] > 0.5;
    prob[i] = positive ? 1.0f : 0.0f;
    alias[i] = positive ? i : anyPositive;
  }
  return total;
}

/// Draws from an alias table of n > 0 entries: one index, one uniform.
inline uint64_t sampleAlias(uint64_t n, const float *prob,
                            const uint32_t *alias, WalkRng &rng) {
  uint64_t i = rng.uniformIndex(n);
  return rng.nextDouble() < prob[i] ? i : alias[i];
}

/// An alias table over one candidate list (static weights).
class AliasTable {
public:
  AliasTable() = default;
  template <class WeightFn> AliasTable(uint32_t n, WeightFn &&weight) {
    prob_.resize(n);
    alias_.resize(n);
    std::vector<double> scaled;
    std::vector<uint32_t> small, large;
    total_ = buildAlias(n, weight, prob_.data(), alias_.data(), scaled, small,
                        large);
  }
  AliasTable(const float *weights, uint32_t n)
      : AliasTable(n, [weights](uint64_t i) { return double(weights[i]); }) {}

  uint64_t size() const { return prob_.size(); }
  double totalWeight() const { return total_; }
  /// A candidate index, or kNoCandidate when no weight is positive.
  uint64_t sample(WalkRng &rng) const {
    if (!(total_ > 0))
      return kNoCandidate;
    return sampleAlias(prob_.size(), prob_.data(), alias_.data(), rng);
  }

private:
  std::vector<float> prob_;
  std::vector<uint32_t> alias_;
  double total_ = 0;
};

/// Alias tables for every vertex of a graph over its CSR edge weights
/// (every edge weighs 1 when the graph is unweighted): 8 bytes per edge
/// (float probability, u32 local alias) plus one byte per vertex. The
/// graph must outlive the tables. Throws std::invalid_argument for a null
/// graph, std::length_error for a vertex of degree >= 2^32.
class GraphAliasTables {
public:
  explicit GraphAliasTables(const sluice_graph_t *graph);

  /// The local index (0 .. degree-1) of the sampled out-edge of `vertex`,
  /// or kNoCandidate (no out-edge of positive weight, or out of range).
  uint64_t sample(uint32_t vertex, WalkRng &rng) const {
    if (vertex >= numVertices_ || !hasMass_[vertex])
      return kNoCandidate;
    uint64_t begin = offsets_[vertex];
    return sampleAlias(offsets_[vertex + 1] - begin, prob_.data() + begin,
                       alias_.data() + begin, rng);
  }
  /// The sampled neighbour, or SLUICE_VERTEX_NONE.
  uint32_t sampleNeighbor(uint32_t vertex, WalkRng &rng) const {
    uint64_t i = sample(vertex, rng);
    return i == kNoCandidate ? SLUICE_VERTEX_NONE
                             : targets_[offsets_[vertex] + i];
  }
  uint64_t memoryBytes() const {
    return prob_.size() * sizeof(float) + alias_.size() * sizeof(uint32_t) +
           hasMass_.size();
  }

private:
  uint64_t numVertices_ = 0;
  const uint64_t *offsets_ = nullptr;
  const uint32_t *targets_ = nullptr;
  std::vector<float> prob_;
  std::vector<uint32_t> alias_;
  std::vector<uint8_t> hasMass_;
};

enum class SamplerKind { Rejection, Reservoir };

/// r * w_max > W_sum, or W_sum not positive: see sluice_sampler_prefers_reservoir.
inline bool prefersReservoir(double costRatio, double weightBound,
                             double weightSum) {
  return !(weightSum > 0) || costRatio * weightBound > weightSum;
}

/// Measures r = c_rej / c_res (sluice_sampler_calibrate_cost_ratio).
double calibrateCostRatio();

/// FlexiWalker's per-vertex choice between rejection and reservoir.
/// Expected costs: rejection c_rej * d * w_max / W_sum (trials until an
/// acceptance), reservoir c_res * d (one pass): reservoir iff
/// r * w_max > W_sum with r = c_rej / c_res.
class CostModel {
public:
  /// Ratio used when none is given and no calibration was run.
  static constexpr double kDefaultRatio = 4.0;
  explicit CostModel(double costRatio = kDefaultRatio) : ratio_(costRatio) {}
  /// A model with r measured on this machine.
  static CostModel calibrated() { return CostModel(calibrateCostRatio()); }

  double ratio() const { return ratio_; }
  SamplerKind choose(double weightBound, double weightSum) const {
    return prefersReservoir(ratio_, weightBound, weightSum)
               ? SamplerKind::Reservoir
               : SamplerKind::Rejection;
  }

private:
  double ratio_;
};

/// Samples with the sampler the cost model picks for (bound, weightSum).
/// weightSum may be an estimate (it only steers the choice); both samplers
/// are exact when bound holds.
template <class WeightFn>
uint64_t sampleAdaptive(uint64_t n, WeightFn &&weight, double bound,
                        double weightSum, const CostModel &model,
                        WalkRng &rng, SamplerStats *stats = nullptr) {
  if (model.choose(bound, weightSum) == SamplerKind::Reservoir)
    return sampleReservoir(n, weight, rng, stats);
  return sampleRejection(n, weight, bound, rng, stats);
}

} // namespace walk
} // namespace sluice


#endif // SLUICE_RUNTIME_WALK_SAMPLING_H
