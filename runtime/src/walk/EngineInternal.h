//===- EngineInternal.h - the walk engine's run, frames and step helpers ---===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("The walk engine"). Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_ENGINEINTERNAL_H
#define SLUICE_RUNTIME_WALK_ENGINEINTERNAL_H

#include "sluice/walk.h"

#include "runtime/src/walk/Sampling.h"
#include "sluice/walk_support.h"

#include "runtime/src/EdgeSets.h"
#include "runtime/src/Error.h"
#include "runtime/src/Progress.h"
#include "runtime/src/WalkWriterInternal.h"
#include "runtime/src/walk/PhiloxLanes.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#ifdef __linux__
#include <sys/mman.h>
#endif


namespace sluice::walkengine {

using namespace sluice::rt;
using namespace sluice::walk;
using sluice::walk::detail::philoxLaneCapacity;
using sluice::walk::detail::philoxLanes;


/// How the steps of a run are drawn.
enum class Mode {
  Uniform,   // CONSTANT weight: a uniform index (counted as alias steps)
  Alias,     // STATIC weight: per-vertex alias tables
  Rejection, // forced rejection
  Reservoir, // forced reservoir (or AUTO without a bound)
  Auto       // the cost model per vertex and step
};

constexpr uint32_t kDefaultWalkersPerThread = 64;
constexpr uint32_t kMaxWalkersPerThread = SLUICE_WALK_MAX_WALKERS_PER_THREAD;
constexpr uint64_t kMaxChunkWalkers = 4096;
/// Output entries (u32) per chunk buffer, at most.
constexpr uint64_t kChunkEntries = uint64_t(1) << 21;

/// One cell of a vertex's alias table: go to `target` (the target of the
/// cell's own edge) when a uniform 32-bit coin is below `threshold` (the
/// cell's probability times 2^32), else to `aliasTarget` (the target of its
/// alias edge). Both vertices are stored in the cell, so a step reads one
/// 12-byte cell (prefetched) besides the offsets. A cell of probability 1
/// has threshold 2^32 - 1 and aliasTarget == target; a vertex without
/// positive weight has threshold 0 and aliasTarget SLUICE_VERTEX_NONE in
/// every cell.
struct AliasEntry {
  uint32_t threshold;
  uint32_t target;
  uint32_t aliasTarget;
};

/// The alias cell of probability `prob` (a float of buildAlias, in [0, 1])
/// between `target` and `aliasTarget`. prob * 2^32 is exact for every
/// float above 2^-9 and rounds to the nearest integer below, so the coin
/// keeps the float's precision.
inline AliasEntry aliasCell(float prob, uint32_t target, uint32_t aliasTarget) {
  if (prob >= 1.0f)
    return AliasEntry{UINT32_MAX, target, target};
  double scaled = static_cast<double>(prob) * 4294967296.0;
  return AliasEntry{static_cast<uint32_t>(std::lround(scaled)), target,
                    aliasTarget};
}

/// The alias mode's stream: the index and coin words of step `step` of a
/// walker are words 2 * (step % 2) and 2 * (step % 2) + 1 of the Philox
/// block of counter (0, step / 2, walker low, walker high) under the seed
/// with these words flipped (so one 10-round block serves two steps, and
/// the stream never meets WalkRng's or random()'s). Any further draw of the
/// step (the stop probability, the rare retry of the unbiased index) comes
/// from WalkRng(seed, walker, step).
constexpr uint64_t kAliasKeyFlip = 0x3c6ef372a54ff53aull;

/// The uniform mode's quad stream: without a stop probability the index
/// word of step `step` of a walker is word step % 4 of the Philox block of
/// counter (0, step / 4, walker low, walker high) under the seed with these
/// words flipped (one 10-round block serves four steps; distinct from the
/// alias pairs', WalkRng's and random()'s streams). The rare retry of the
/// unbiased index, and a degree of 2^32 or more, draw from WalkRng(seed,
/// walker, step). With a stop probability the step's own stream has to be
/// computed for the coin anyway, and its word 2 is the index.
constexpr uint64_t kUniformKeyFlip = 0x510e527f9b05688cull;

/// INVALID_ARGUMENT with `message`.
inline sluice_status_t invalid(sluice_error_t *error,
                               const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
}

/// "walk 'NAME'", for messages.
inline std::string kernelName(const sluice_walk_kernel_t *kernel) {
  return std::string("walk '") + (kernel->name ? kernel->name : "?") + "'";
}

/// The read-only description of one run, shared by all threads.
/// Whether `k` has a function called besides its weight, or state: the
/// hooks the rejection loop takes as its policy (RejectionWalker.h) and
/// the uniform loop does without.
inline bool hasHooks(const sluice_walk_kernel_t &k) {
  return k.init || k.stop || k.update || k.num_state;
}

struct Run {
  const sluice_graph_t *graph = nullptr;
  const sluice_walk_kernel_t *kernel = nullptr;
  const void *params = nullptr;
  const uint64_t *offsets = nullptr;
  const uint32_t *targets = nullptr;
  const float *weights = nullptr;
  uint64_t numVertices = 0;
  const uint32_t *starts = nullptr; // NULL: every vertex
  uint32_t walksPerVertex = 1;
  uint64_t numWalkers = 0;
  uint32_t maxLength = 1;
  uint32_t stride = 0; // output row width (0: no output)
  double stopProbability = 0;
  uint64_t seed = 0;
  Mode mode = Mode::Reservoir;
  double costRatio = CostModel::kDefaultRatio;
  uint32_t walkersPerThread = kDefaultWalkersPerThread;
  uint64_t chunkWalkers = kMaxChunkWalkers;
  // Alias tables (Mode::Alias), parallel to the CSR.
  const struct AliasEntry *alias = nullptr;
  // Modes Rejection and Auto: per vertex, the kernel's upper bound, or -1
  // where the cost model picked reservoir (Auto).
  const double *vertexBound = nullptr;
  // The same table when it has at most 256 distinct values (node2vec on an
  // unweighted graph: the bound, or -1): one byte per vertex indexing a
  // palette of exact doubles, so that it stays in cache (vertexBound is
  // then NULL).
  const uint8_t *boundIndex = nullptr;
  const double *boundPalette = nullptr;
  // Pre-acceptance (kernels with SLUICE_WALK_PURE_WEIGHT and a lower
  // bound): per vertex a lower bound of every candidate's weight, rounded
  // down to a float, as a table or as a byte per vertex into a palette. A
  // rejection trial whose coin falls below it accepts without calling the
  // weight function: the same decision, so the same walks.
  const float *vertexLower = nullptr;
  const uint8_t *lowerIndex = nullptr;
  const float *lowerPalette = nullptr;
  // Second-order kernels: the hubs' neighbour sets that run.graph's
  // has_edge consults (NULL when none were built); the rejection loop
  // prefetches their slots.
  const rt::EdgeSets *edgeSets = nullptr;
  // Second-order kernels: whether the rejection loop prefetches the first
  // probes of has_edge's binary search in prev's adjacency. Only on a graph
  // whose targets array is kEdgeSetMinGraphBytes or more (RunPlan.cpp): on
  // a smaller one those lines stay in cache and the prefetch is only
  // instructions (docs/sampling.md, "The rejection loop").
  bool prefetchPrevAdjacency = false;

  bool hasBounds() const { return vertexBound || boundIndex; }
  double boundOf(uint32_t v) const {
    return boundIndex ? boundPalette[boundIndex[v]] : vertexBound[v];
  }
  void prefetchBound(uint32_t v) const {
    if (boundIndex)
      __builtin_prefetch(boundIndex + v, 0, 3);
    else if (vertexBound)
      __builtin_prefetch(vertexBound + v, 0, 3);
    if (lowerIndex)
      __builtin_prefetch(lowerIndex + v, 0, 3);
    else if (vertexLower)
      __builtin_prefetch(vertexLower + v, 0, 3);
  }
  bool hasLower() const { return vertexLower || lowerIndex; }
  float lowerOf(uint32_t v) const {
    return lowerIndex ? lowerPalette[lowerIndex[v]] : vertexLower[v];
  }

  uint32_t startOf(uint64_t walker) const {
    uint64_t rank = walker / walksPerVertex;
    return starts ? starts[rank] : static_cast<uint32_t>(rank);
  }
  double edgeWeight(const sluice_walk_frame_t *f, uint64_t edge) const {
    double w = weights ? static_cast<double>(weights[edge]) : 1.0;
    return kernel->weight ? kernel->weight(f, targets[edge], edge, w) : w;
  }
  /// A zeroed frame over this run's graph, parameters and seed, with state
  /// `state` (NULL when the kernel keeps none), draw counter `draws` and
  /// fault slot `fault`.
  sluice_walk_frame_t frame(int64_t *state, uint64_t *draws,
                            sluice_walk_fault_t *fault) const {
    sluice_walk_frame_t f;
    std::memset(&f, 0, sizeof(f));
    f.graph = graph;
    f.params = params;
    f.state = kernel->num_state ? state : nullptr;
    f.seed = seed;
    f.random_draws = draws;
    f.fault = fault;
    return f;
  }
  /// The cost model's W_sum: the middle of the kernel's sum bounds, or the
  /// degree times the middle of the edge bounds when it has none.
  double sumEstimate(const sluice_walk_frame_t *f, uint64_t degree,
                     double upper) const {
    const sluice_walk_kernel_t &k = *kernel;
    if (k.sum_lower_bound && k.sum_upper_bound)
      return 0.5 * (k.sum_lower_bound(f) + k.sum_upper_bound(f));
    if (k.sum_upper_bound)
      return k.sum_upper_bound(f);
    if (k.sum_lower_bound)
      return k.sum_lower_bound(f);
    double lower = k.lower_bound ? k.lower_bound(f) : 0.0;
    return static_cast<double>(degree) * 0.5 * (lower + upper);
  }
};

/// Whether a run draws its uniform index from the quad stream
/// (kUniformKeyFlip): uniform mode without a stop probability.
inline bool uniformQuads(const Run &run) {
  return run.mode == Mode::Uniform && !(run.stopProbability > 0);
}

/// The key of the blocks a round computes for every walker: the alias
/// pairs', the uniform quads', or the step stream's (the seed).
inline uint64_t blockKey(const Run &run) {
  return run.mode == Mode::Alias ? run.seed ^ kAliasKeyFlip
         : uniformQuads(run)     ? run.seed ^ kUniformKeyFlip
                                 : run.seed;
}

/// A fault a kernel function recorded (walk.h: sluice_walk_fault_t), with
/// what the engine was doing: thrown by the thread that saw it, turned into
/// SLUICE_STATUS_OUT_OF_RANGE by sluice_walk_run.
struct KernelFault {
  sluice_walk_fault_t fault;
  const char *during; // nullptr: while walking (walker/step are meaningful)
};

/// Throws the fault in `slot`, if any, and clears nothing: a run stops at
/// its first fault.
inline void checkFault(const sluice_walk_fault_t &slot,
                       const char *during = nullptr) {
  if (__builtin_expect(slot.code != SLUICE_WALK_FAULT_NONE, 0))
    throw KernelFault{slot, during};
}

/// "walk 'W': walker 3 (start vertex 7) at step 2, vertex 9: list index 5
/// out of range (the list has 5 elements)", vertex ids as in the graph file.
inline std::string faultMessage(const sluice_walk_kernel_t *kernel,
                                const sluice_graph_t *graph,
                                uint64_t walksPerVertex, const uint32_t *starts,
                                const KernelFault &kf) {
  char what[160];
  sluice_walk_fault_describe(&kf.fault, what, sizeof(what));
  std::string name = kernel->name ? kernel->name : "(unnamed)";
  auto id = [&](uint32_t v) {
    return std::to_string(sluice_graph_original_id(graph, v));
  };
  std::string where;
  if (kf.during) {
    where = std::string(kf.during) + " of vertex " + id(kf.fault.cur);
  } else {
    uint64_t rank = kf.fault.walker / walksPerVertex;
    uint32_t start = starts ? starts[rank] : static_cast<uint32_t>(rank);
    where = "walker " + std::to_string(kf.fault.walker) + " (start vertex " +
            id(start) + ") at step " + std::to_string(kf.fault.step) +
            ", vertex " + id(kf.fault.cur);
  }
  return "walk '" + name + "': " + where + ": " + what;
}

struct ThreadStats {
  uint64_t steps = 0;
  uint64_t walks = 0;
  uint64_t rejectionSteps = 0, reservoirSteps = 0, aliasSteps = 0;
  SamplerStats sampler;

  void add(const ThreadStats &o) {
    steps += o.steps;
    walks += o.walks;
    rejectionSteps += o.rejectionSteps;
    reservoirSteps += o.reservoirSteps;
    aliasSteps += o.aliasSteps;
    sampler.rejectionTrials += o.sampler.rejectionTrials;
    sampler.rejectionFallbacks += o.sampler.rejectionFallbacks;
    sampler.boundViolations += o.sampler.boundViolations;
    sampler.preAccepted += o.sampler.preAccepted;
    sampler.reservoirCalls += o.sampler.reservoirCalls;
  }
};

/// One interleaved walker.
struct Slot {
  sluice_walk_frame_t f;
  uint64_t draws = 0; // f.random_draws points here
  WalkRng rng{0, 0, 0};
  uint32_t *row = nullptr;
  uint32_t length = 0;
  uint64_t local = 0; // index in the chunk
  uint64_t begin = 0, degree = 0, pre = 0;
  uint32_t coin = 0; // Mode::Alias: the step's coin word
  double bound = 0;
  float lower = 0; // pre-acceptance threshold (0: off), see Run::vertexLower
  Mode kind = Mode::Reservoir; // the sampler chosen for this step
  bool stage1 = false;
  bool active = false;
};

inline void prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

/// The stages of a step run once per walker per round: a call each (the
/// compiler's choice when the round loop grows) costs up to a third of a
/// node2vec step, so they are always inlined.
#if defined(__GNUC__)
#define SLUICE_WALK_INLINE inline __attribute__((always_inline))
#define SLUICE_WALK_LAMBDA_INLINE __attribute__((always_inline))
#else
#define SLUICE_WALK_INLINE inline
#define SLUICE_WALK_LAMBDA_INLINE
#endif

/// The trial cap of rejection before the exact two-pass fallback:
/// min(64, max(4, 2 * degree)). Past 2 * degree trials the fallback
/// (2 * degree weights) is the cheaper way to finish, e.g. at a vertex
/// whose weights are all zero (metapath).
inline uint32_t maxRejectionTrials(uint64_t degree) {
  return static_cast<uint32_t>(std::min<uint64_t>(
      kDefaultMaxRejectionTrials,
      std::max<uint64_t>(SLUICE_WALK_REJECTION_MIN_TRIALS,
                         SLUICE_WALK_REJECTION_TRIALS_PER_EDGE * degree)));
}

/// Whether a rejection step at a vertex of degree `d` with bound `bound`
/// and pre-acceptance threshold `lower` (0: none) is forced: one edge whose
/// weight is at least lower > 0 (a pure weight: Run::vertexLower exists
/// only for SLUICE_WALK_PURE_WEIGHT kernels). Rejection (and its exact
/// fallback) can only take that edge, so the engine takes it without a
/// trial: the same walk, no word drawn, no weight called. Not for the
/// reservoir steps the cost model chose (bound < 0); a NaN bound, which
/// rejection sends to its exact fallback, is forced too.
inline bool isForcedStep(uint64_t d, double bound, float lower) {
  return d == 1 && lower > 0 && !(bound < 0);
}

/// One rejection trial with coin `u` in [0, 1) against `bound`: accepts
/// when u * bound < weight. A coin below the pre-acceptance threshold
/// `lower` (0: none) accepts without calling `weightOf` (the same
/// decision; see Run::vertexLower). The coin is drawn before the weight:
/// a weight draws nothing from the step's stream, so the order does not
/// change the walks.
template <class WeightFn>
SLUICE_WALK_INLINE bool rejectionTrial(double u, double bound, double lower,
                                       WeightFn &&weightOf,
                                       SamplerStats &ss) {
  double y = u * bound;
  ++ss.rejectionTrials;
  if (lower > 0 && y < lower) {
    ++ss.preAccepted;
    return true;
  }
  double w = weightOf();
  if (w > bound)
    ++ss.boundViolations;
  return y < w;
}

/// Uniform in [0, n) for 0 < n < 2^32 by Lemire's multiply-shift from the
/// word `word`, unbiased: in the rare case (probability < n / 2^32) that
/// the word falls in the biased low part, further words come from `more`
/// (a callable returning a WalkRng&), as rng.uniformIndex would draw them.
template <class MoreFn>
inline uint32_t lemireIndex(uint32_t word, uint32_t n, MoreFn &&more) {
  uint64_t m = static_cast<uint64_t>(word) * n;
  uint32_t low = static_cast<uint32_t>(m);
  if (__builtin_expect(low < n, 0)) {
    uint32_t threshold = static_cast<uint32_t>(-n) % n;
    if (low < threshold) {
      WalkRng &rng = more();
      while (low < threshold) {
        m = static_cast<uint64_t>(rng.nextU32()) * n;
        low = static_cast<uint32_t>(m);
      }
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

/// rng.uniformIndex(n), with its 32-bit path inlined (the same draws).
inline uint64_t uniformIndex(WalkRng &rng, uint64_t n) {
  if (__builtin_expect(n > UINT32_MAX, 0))
    return rng.uniformIndex(n);
  uint32_t n32 = static_cast<uint32_t>(n);
  uint64_t m = static_cast<uint64_t>(rng.nextU32()) * n32;
  uint32_t low = static_cast<uint32_t>(m);
  if (__builtin_expect(low < n32, 0)) {
    uint32_t threshold = static_cast<uint32_t>(-n32) % n32;
    while (low < threshold) {
      m = static_cast<uint64_t>(rng.nextU32()) * n32;
      low = static_cast<uint32_t>(m);
    }
  }
  return m >> 32;
}

/// Walks the chunks one thread is given.

} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_ENGINEINTERNAL_H
