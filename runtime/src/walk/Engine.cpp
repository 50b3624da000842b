//===- Engine.cpp - The walk engine: sluice_walk_run ----------------------===//
//
// Runs a walk kernel (sluice/walk.h) over a graph:
//
//   - the walkers (start rank * walks_per_vertex + k) are cut into chunks;
//     worker threads take chunks in increasing order and the calling thread
//     appends finished chunks to the writer in chunk order, so the output is
//     in walker order whatever the thread count;
//   - inside a chunk, a thread interleaves `walkers_per_thread` walkers.
//     A round advances every walker by one step in three passes: the first
//     Philox block of every walker's step (one batch), stage 0 of every
//     walker (read the current vertex's offsets, prefetched when the walker
//     arrived; run the stop rules; prefetch the edge(s) the draw will
//     touch), then stage 1 of every walker (draw, move, prefetch the offsets
//     of the vertex reached). Memory latency is hidden behind the others;
//   - every random number of a step comes from WalkRng(seed, walker, step)
//     (Philox), so a walk is a pure function of (seed, walker) and of the
//     sampler chosen for each step;
//   - samplers: uniform index (CONSTANT weights), per-vertex alias tables
//     built once (STATIC), rejection against the kernel's upper bound,
//     reservoir (A-ExpJ), or FlexiWalker's cost model per vertex and step.
//
// See docs/sampling.md ("The walk engine").
//
//===----------------------------------------------------------------------===//
#include "sluice/walk.h"

#include "sluice/sampling.h"
#include "sluice/walk_support.h"

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

using namespace sluice::rt;
using namespace sluice::walk;
using sluice::walk::detail::philoxLaneCapacity;
using sluice::walk::detail::philoxLanes;

namespace {

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
AliasEntry aliasCell(float prob, uint32_t target, uint32_t aliasTarget) {
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

/// The read-only description of one run, shared by all threads.
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
std::string faultMessage(const sluice_walk_kernel_t *kernel,
                         const sluice_graph_t *graph, uint64_t walksPerVertex,
                         const uint32_t *starts, const KernelFault &kf) {
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
      kDefaultMaxRejectionTrials, std::max<uint64_t>(4, 2 * degree)));
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
class Walker {
public:
  Walker(const Run &run)
      : run(run), k(*run.kernel),
        secondOrder((run.kernel->flags & SLUICE_WALK_SECOND_ORDER) != 0) {
    slots.resize(run.walkersPerThread);
    for (auto *lane : {&lane0, &lane1, &lane2, &lane3})
      lane->resize(philoxLaneCapacity(run.walkersPerThread));
    state.assign(static_cast<size_t>(run.walkersPerThread) * k.num_state, 0);
    for (uint32_t i = 0; i < run.walkersPerThread; ++i) {
      Slot &s = slots[i];
      s.f = run.frame(k.num_state ? state.data() + size_t(i) * k.num_state
                                  : nullptr,
                      &s.draws, &fault);
    }
  }

  /// Walks walkers first .. first+count-1; rows/lengths may be NULL.
  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint64_t next = 0, active = 0;
    for (Slot &s : slots) {
      if (next < count) {
        begin(s, first, next++, rows);
        ++active;
      } else {
        s.active = false;
      }
    }
    // One round = one step of every walker: the first Philox block of
    // each walker's step stream in one batch (independent lanes: the
    // multiplications pipeline and vectorise), then stage 0 of every
    // walker, then stage 1 of every walker that passed stage 0.
    auto finish = [&](Slot &s) {
      if (lengths)
        lengths[s.local] = s.length;
      ++stats.walks;
      if (next < count) {
        begin(s, first, next++, rows);
      } else {
        s.active = false;
        --active;
      }
    };
    uint32_t n = static_cast<uint32_t>(slots.size());
    while (active) {
      if (abort.load(std::memory_order_relaxed))
        return;
      // Mode::Alias: the block of the step pair (see kAliasKeyFlip).
      const bool pairs = run.mode == Mode::Alias;
      for (uint32_t i = 0; i < n; ++i) {
        const Slot &s = slots[i];
        uint32_t step = static_cast<uint32_t>(s.f.step);
        lane1[i] = pairs ? step >> 1 : step;
        lane2[i] = static_cast<uint32_t>(s.f.walker);
        lane3[i] = static_cast<uint32_t>(s.f.walker >> 32);
      }
      philoxLanes(n, pairs ? run.seed ^ kAliasKeyFlip : run.seed,
                  lane0.data(), lane1.data(), lane2.data(), lane3.data());
      for (uint32_t i = 0; i < n; ++i) {
        Slot &s = slots[i];
        if (!s.active)
          continue;
        const uint32_t block[4] = {lane0[i], lane1[i], lane2[i], lane3[i]};
        if (!stage0(s, block))
          finish(s);
      }
      for (Slot &s : slots)
        if (s.active && s.stage1 && !stage1(s))
          finish(s);
      checkFault(fault);
    }
    checkFault(fault);
  }

  ThreadStats stats;
  ThreadStats result() const { return stats; }
  /// Where this thread's kernel functions record a fault (walk.h).
  sluice_walk_fault_t fault{};

private:
  void begin(Slot &s, uint64_t first, uint64_t local, uint32_t *rows) {
    uint64_t walker = first + local;
    uint32_t start = run.startOf(walker);
    s.local = local;
    s.f.walker = walker;
    s.f.prev = s.f.cur = start;
    s.f.step = 0;
    s.draws = 0;
    if (k.num_state)
      std::memset(s.f.state, 0, sizeof(int64_t) * k.num_state);
    if (k.init)
      k.init(&s.f);
    s.row = rows ? rows + local * run.stride : nullptr;
    if (s.row)
      s.row[0] = start;
    s.length = 1;
    s.stage1 = false;
    s.active = true;
    prefetch(run.offsets + start);
    run.prefetchBound(start);
  }

  /// Stage 0 of a step (block: the first Philox block of the step's
  /// stream, or in Mode::Alias the block of the step pair); false when the
  /// walk has ended.
  SLUICE_WALK_INLINE bool stage0(Slot &s, const uint32_t block[4]) {
    {
      if (s.length >= run.maxLength)
        return false;
      uint32_t step = static_cast<uint32_t>(s.f.step);
      uint32_t indexWord = 0;
      if (run.mode == Mode::Alias) {
        s.rng = WalkRng(run.seed, s.f.walker, step);
        indexWord = block[(step & 1) * 2];
        s.coin = block[(step & 1) * 2 + 1];
      } else {
        s.rng = WalkRng(run.seed, s.f.walker, step, block);
      }
      if (run.stopProbability > 0 &&
          s.rng.nextDouble() < run.stopProbability)
        return false;
      if (k.stop && k.stop(&s.f))
        return false;
      uint32_t cur = s.f.cur;
      s.begin = run.offsets[cur];
      s.degree = run.offsets[cur + 1] - s.begin;
      if (s.degree == 0)
        return false;
      s.kind = run.mode;
      switch (run.mode) {
      case Mode::Uniform:
        s.pre = uniformIndex(s.rng, s.degree);
        prefetch(run.targets + s.begin + s.pre);
        if (run.weights)
          prefetch(run.weights + s.begin + s.pre);
        break;
      case Mode::Alias:
        s.pre = lemireIndex(indexWord, static_cast<uint32_t>(s.degree),
                            [&]() -> WalkRng & { return s.rng; });
        prefetch(run.alias + s.begin + s.pre);
        break;
      case Mode::Auto:
      case Mode::Rejection:
        s.bound = run.boundOf(cur);
        s.kind = s.bound < 0 ? Mode::Reservoir : Mode::Rejection;
        if (run.hasLower())
          s.lower = run.lowerOf(cur);
        break;
      case Mode::Reservoir:
        break;
      }
      if (s.kind == Mode::Rejection) {
        // The first proposal is drawn now so that its edge is in cache
        // when the trial runs (the same draws, in the same order, as
        // sampleRejection).
        if (s.bound > 0 && std::isfinite(s.bound)) {
          s.pre = uniformIndex(s.rng, s.degree);
          prefetch(run.targets + s.begin + s.pre);
          if (run.weights)
            prefetch(run.weights + s.begin + s.pre);
        }
      } else if (s.kind == Mode::Reservoir) {
        prefetch(run.targets + s.begin);
        if (run.weights)
          prefetch(run.weights + s.begin);
      }
      if (secondOrder && s.f.prev != cur) {
        // A second-order weight usually asks has_edge(prev, next): a binary
        // search in prev's adjacency. Its first probes (the middle, then a
        // quarter or three quarters) are prefetched.
        uint64_t pb = run.offsets[s.f.prev];
        uint64_t pd = run.offsets[s.f.prev + 1] - pb;
        const uint32_t *adj = run.targets + pb;
        prefetch(adj + pd / 2);
        if (pd > 32) {
          prefetch(adj + pd / 4);
          prefetch(adj + 3 * pd / 4);
        }
      }
      s.stage1 = true;
      return true;
    }
  }

  /// Stage 1: draw, update, move; false when the walk has ended.
  SLUICE_WALK_INLINE bool stage1(Slot &s) {
    s.stage1 = false;
    uint64_t b = s.begin, d = s.degree;
    const sluice_walk_frame_t *f = &s.f;
    auto weight = [&](uint64_t i) { return run.edgeWeight(f, b + i); };
    uint32_t next;
    switch (s.kind) {
    case Mode::Uniform:
      if (!(weight(s.pre) > 0))
        return false;
      next = run.targets[b + s.pre];
      ++stats.aliasSteps;
      break;
    case Mode::Alias: {
      const AliasEntry &e = run.alias[b + s.pre];
      next = s.coin < e.threshold ? e.target : e.aliasTarget;
      if (next == SLUICE_VERTEX_NONE)
        return false;
      ++stats.aliasSteps;
      break;
    }
    case Mode::Rejection: {
      uint64_t j = rejection(s, d, weight);
      if (j == kNoCandidate)
        return false;
      next = run.targets[b + j];
      ++stats.rejectionSteps;
      break;
    }
    default: {
      uint64_t j = sampleReservoir(d, weight, s.rng, &stats.sampler);
      if (j == kNoCandidate)
        return false;
      next = run.targets[b + j];
      ++stats.reservoirSteps;
      break;
    }
    }
    ++stats.steps;
    if (k.update)
      k.update(&s.f, next);
    s.f.prev = s.f.cur;
    s.f.cur = next;
    ++s.f.step;
    s.draws = 0;
    if (s.row)
      s.row[s.length] = next;
    ++s.length;
    prefetch(run.offsets + next);
    run.prefetchBound(next);
    return s.length < run.maxLength;
  }

  /// sampleRejection with the first proposal (s.pre) drawn in stage 0,
  /// and at most maxRejectionTrials(degree) trials before the exact
  /// two-pass fallback. Exact either way: an acceptance picks i with
  /// probability proportional to w_i, and so does the fallback.
  template <class WeightFn>
  uint64_t rejection(Slot &s, uint64_t d, WeightFn &weight) {
    double bound = s.bound;
    SamplerStats &ss = stats.sampler;
    if (bound > 0 && std::isfinite(bound)) {
      const uint32_t maxTrials = maxRejectionTrials(d);
      for (uint32_t trial = 0; trial < maxTrials; ++trial) {
        uint64_t i = trial == 0 ? s.pre : uniformIndex(s.rng, d);
        if (rejectionTrial(s.rng.nextDouble(), bound, s.lower,
                           [&] { return weight(i); }, ss))
          return i;
      }
    }
    ++ss.rejectionFallbacks;
    return sampleExact(d, weight, s.rng);
  }

  const Run &run;
  const sluice_walk_kernel_t &k;
  const bool secondOrder;
  std::vector<Slot> slots;
  std::vector<uint32_t> lane0, lane1, lane2, lane3; // Philox lanes
  std::vector<int64_t> state;
};

/// The walkers of one chunk for the specialised loops, handed out in
/// walker order. A walk of max_length 1 ends where it starts: written and
/// counted here, never handed out.
class ChunkFeed {
public:
  ChunkFeed(const Run &run, uint64_t first, uint64_t count, uint32_t *rows,
            uint32_t *lengths, ThreadStats &stats)
      : run(run), first(first), count(count), rows(rows), lengths(lengths),
        stats(stats) {}

  /// Records that walker `local` of the chunk ended with `length` vertices.
  void end(uint64_t local, uint32_t length) {
    if (lengths)
      lengths[local] = length;
    ++stats.walks;
  }

  /// The next walker that takes a step: its index in the chunk and its
  /// start vertex (already written to its row); false when none is left.
  bool take(uint64_t *local, uint32_t *start) {
    while (next < count) {
      uint64_t l = next++;
      uint32_t v = run.startOf(first + l);
      if (rows)
        rows[l * run.stride] = v;
      if (run.maxLength <= 1) {
        end(l, 1);
        continue;
      }
      *local = l;
      *start = v;
      return true;
    }
    return false;
  }

private:
  const Run &run;
  const uint64_t first, count;
  uint32_t *const rows, *const lengths;
  ThreadStats &stats;
  uint64_t next = 0;
};

/// Mode::Alias for a kernel without stop or update function and without
/// stop probability (DeepWalk): the same walks as Walker, from a loop
/// specialised to it. Per walker only its vertex, length, id and the
/// four words of its step pair's block are kept (arrays, not frames), and
/// a round advances every walker in three passes:
///   0. the Philox blocks of the walkers at an even step (compacted into
///      one batch: one 10-round block serves two steps);
///   1. read the offsets (prefetched when the walker arrived), the index
///      by Lemire's multiply-shift, prefetch the alias cell;
///   2. the coin against the cell's 32-bit threshold, move, write the
///      vertex, prefetch the offsets of the vertex reached.
/// No kernel function is called per step.
class AliasWalker {
public:
  AliasWalker(const Run &run)
      : run(run), width(run.walkersPerThread), cur(width), length(width),
        walker(width), local(width), pos(width), words(4 * size_t(width)),
        lane(width), c0(philoxLaneCapacity(width)),
        c1(philoxLaneCapacity(width)), c2(philoxLaneCapacity(width)),
        c3(philoxLaneCapacity(width)) {}

  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint32_t active = 0;
    const uint32_t maxLength = run.maxLength;
    const uint64_t *offsets = run.offsets;
    const AliasEntry *alias = run.alias;
    const uint64_t pairSeed = run.seed ^ kAliasKeyFlip;
    // The arrays' bases in locals: stores through the arrays do not make
    // the compiler load them again (measured: 18 of 103 instructions per
    // step were such loads).
    uint32_t *const cur = this->cur.data(), *const length = this->length.data();
    uint64_t *const walker = this->walker.data(), *const local = this->local.data();
    uint64_t *const pos = this->pos.data();
    uint32_t *const words = this->words.data(), *const lane = this->lane.data();
    uint32_t *const c0 = this->c0.data(), *const c1 = this->c1.data(),
                   *const c2 = this->c2.data(), *const c3 = this->c3.data();
    ChunkFeed feed(run, first, count, rows, lengths, stats);
    auto begin = [&](uint32_t i) {
      uint64_t l;
      uint32_t start;
      if (!feed.take(&l, &start))
        return false;
      cur[i] = start;
      length[i] = 1;
      walker[i] = first + l;
      local[i] = l;
      prefetch(offsets + start);
      return true;
    };
    // Slots [0, active) hold walkers; a finished one is replaced by the
    // next walker, or by the last slot's walker when none is left.
    auto finish = [&](uint32_t i) {
      feed.end(local[i], length[i]);
      stats.steps += length[i] - 1;
      if (begin(i))
        return true;
      --active;
      if (i != active) {
        cur[i] = cur[active];
        length[i] = length[active];
        walker[i] = walker[active];
        local[i] = local[active];
        pos[i] = pos[active];
        for (int j = 0; j < 4; ++j)
          words[4 * size_t(i) + j] = words[4 * size_t(active) + j];
      }
      return false;
    };
    for (uint32_t i = 0; i < width && begin(i); ++i)
      ++active;
    while (active) {
      if (abort.load(std::memory_order_relaxed))
        return;
      // Pass 0: blocks for the walkers at an even step (step = length - 1).
      uint32_t m = 0;
      for (uint32_t i = 0; i < active; ++i) {
        lane[m] = i;
        m += (length[i] & 1); // length odd: step even
      }
      for (uint32_t j = 0; j < m; ++j) {
        uint32_t i = lane[j];
        c1[j] = (length[i] - 1) >> 1;
        c2[j] = static_cast<uint32_t>(walker[i]);
        c3[j] = static_cast<uint32_t>(walker[i] >> 32);
      }
      philoxLanes(m, pairSeed, c0, c1, c2, c3);
      for (uint32_t j = 0; j < m; ++j) {
        uint32_t *w = &words[4 * size_t(lane[j])];
        w[0] = c0[j];
        w[1] = c1[j];
        w[2] = c2[j];
        w[3] = c3[j];
      }
      // Pass 1: the index, prefetch the cell. A walker at a sink ends.
      for (uint32_t i = 0; i < active;) {
        uint32_t v = cur[i];
        uint64_t b = offsets[v];
        uint64_t d = offsets[v + 1] - b;
        if (__builtin_expect(d == 0, 0)) {
          if (!finish(i))
            continue; // slot i now holds another walker in pass 1
          pos[i] = kNoCandidate; // a new walker: its first step next round
          ++i;
          continue;
        }
        uint32_t step = length[i] - 1;
        uint32_t word = words[4 * size_t(i) + (step & 1) * 2];
        uint32_t idx =
            lemireIndex(word, static_cast<uint32_t>(d), [&]() -> WalkRng & {
              retry = WalkRng(run.seed, walker[i], step);
              return retry;
            });
        pos[i] = b + idx;
        prefetch(alias + pos[i]);
        ++i;
      }
      // Pass 2: coin, move.
      for (uint32_t i = 0; i < active;) {
        if (__builtin_expect(pos[i] == kNoCandidate, 0)) {
          ++i;
          continue;
        }
        uint32_t step = length[i] - 1;
        uint32_t coin = words[4 * size_t(i) + (step & 1) * 2 + 1];
        const AliasEntry &e = alias[pos[i]];
        uint32_t to = coin < e.threshold ? e.target : e.aliasTarget;
        if (__builtin_expect(to == SLUICE_VERTEX_NONE, 0)) {
          if (finish(i))
            pos[i] = kNoCandidate;
          continue;
        }
        if (rows)
          rows[local[i] * run.stride + length[i]] = to;
        cur[i] = to;
        prefetch(offsets + to);
        if (++length[i] == maxLength) {
          if (finish(i))
            pos[i] = kNoCandidate;
          continue;
        }
        ++i;
      }
    }
  }

  ThreadStats stats;

  /// Folds the step count into the stats (every step is an alias step).
  ThreadStats result() const {
    ThreadStats out = stats;
    out.aliasSteps = out.steps;
    return out;
  }

private:
  const Run &run;
  const uint32_t width;
  std::vector<uint32_t> cur, length;
  std::vector<uint64_t> walker, local, pos;
  std::vector<uint32_t> words;
  std::vector<uint32_t> lane, c0, c1, c2, c3;
  WalkRng retry{0, 0, 0};
};

/// Modes Rejection and Auto for a kernel without stop, update, init or
/// state and without stop probability (node2vec, weighted node2vec,
/// DeepWalk forced to rejection): the same walks as Walker, from a loop
/// specialised to it. Per walker only its vertices, length, id, the first
/// Philox block of its step and the step's first proposal are kept
/// (arrays, not frames); one frame per thread is filled in just before a
/// kernel function is called. A rejection trial draws 3 words (index and
/// a 53-bit coin), so the first three trials of a step use words 0-2,
/// 3-5 and 6-8 of its stream: blocks 0, 1 and 2, each computed in one
/// batch for the walkers that need it. A round advances every walker in
/// these passes:
///   0. block 0 of every walker's step;
///   1. offsets and bound of the current vertex (prefetched when the
///      walker arrived), the first proposal from word 0, prefetch its edge
///      and the middle of the previous vertex's adjacency (has_edge);
///   2. trial 0 (words 1 and 2 are its coin);
///   3. block 1 of the walkers trial 0 rejected, trial 1;
///   4. block 2 of the walkers trial 1 rejected, trial 2; further trials,
///      the exact fallback and reservoir steps (the cost model's choice)
///      draw from a WalkRng positioned in the stream;
///   5. walkers that ended are replaced by new ones.
/// Moving a walker prefetches the offsets and bound of the vertex reached.
class RejectionWalker {
public:
  RejectionWalker(const Run &run)
      : run(run),
        secondOrder((run.kernel->flags & SLUICE_WALK_SECOND_ORDER) != 0),
        width(run.walkersPerThread), cur(width), prev(width), length(width),
        walker(width), local(width), begin_(width), degree(width),
        pre(width), skip(width), done(width), again(width), keep2(width),
        keep3(width), draws(width), bound(width), lower(width) {
    for (auto *lane : {&w0, &w1, &w2, &w3, &x0, &x1, &x2, &x3})
      lane->resize(philoxLaneCapacity(width));
    f = run.frame(nullptr, draws.data(), &fault);
  }

  void chunk(uint64_t first, uint64_t count, uint32_t *rows,
             uint32_t *lengths, const std::atomic<bool> &abort) {
    uint32_t active = 0;
    const uint32_t maxLength = run.maxLength;
    const uint64_t *offsets = run.offsets;
    const uint32_t *targets = run.targets;
    const float *weights = run.weights;
    ChunkFeed feed(run, first, count, rows, lengths, stats);
    auto begin = [&](uint32_t i) {
      uint64_t l;
      uint32_t start;
      if (!feed.take(&l, &start))
        return false;
      cur[i] = prev[i] = start;
      length[i] = 1;
      walker[i] = first + l;
      local[i] = l;
      done[i] = 0;
      prefetch(offsets + start);
      run.prefetchBound(start);
      return true;
    };
    // Slots [0, active) hold walkers; a finished one is replaced by the
    // next walker, or by the last slot's walker when none is left.
    auto finish = [&](uint32_t i) {
      feed.end(local[i], length[i]);
      if (begin(i))
        return true;
      --active;
      if (i != active) {
        cur[i] = cur[active];
        prev[i] = prev[active];
        length[i] = length[active];
        walker[i] = walker[active];
        local[i] = local[active];
        begin_[i] = begin_[active];
        degree[i] = degree[active];
        pre[i] = pre[active];
        skip[i] = skip[active];
        done[i] = done[active];
        draws[i] = draws[active];
        bound[i] = bound[active];
        lower[i] = lower[active];
        w0[i] = w0[active];
        w1[i] = w1[active];
        w2[i] = w2[active];
        w3[i] = w3[active];
      }
      return false;
    };
    // Moves slot i along edge j of its vertex (kNoCandidate: the walk
    // ends); marks it done when it has ended.
    auto move = [&](uint32_t i, uint64_t j) SLUICE_WALK_LAMBDA_INLINE {
      if (__builtin_expect(j == kNoCandidate, 0)) {
        done[i] = 1;
        return;
      }
      uint32_t to = targets[begin_[i] + j];
      if (rows)
        rows[local[i] * run.stride + length[i]] = to;
      prev[i] = cur[i];
      cur[i] = to;
      prefetch(offsets + to);
      run.prefetchBound(to);
      if (++length[i] == maxLength)
        done[i] = 1;
    };
    for (uint32_t i = 0; i < width && begin(i); ++i)
      ++active;
    while (active) {
      if (abort.load(std::memory_order_relaxed))
        return;
      // Pass 0: block 0 of every walker's step stream.
      for (uint32_t i = 0; i < active; ++i) {
        w1[i] = length[i] - 1;
        w2[i] = static_cast<uint32_t>(walker[i]);
        w3[i] = static_cast<uint32_t>(walker[i] >> 32);
      }
      philoxLanes(active, run.seed, w0.data(), w1.data(), w2.data(),
                  w3.data());
      // Pass 1: degree, bound, the first proposal. A walker at a sink
      // ends (its slot then holds a new walker, which waits for the next
      // round, or the last slot's walker, handled now).
      for (uint32_t i = 0; i < active;) {
        uint32_t v = cur[i];
        uint64_t b = offsets[v];
        uint64_t d = offsets[v + 1] - b;
        if (__builtin_expect(d == 0, 0)) {
          if (finish(i)) {
            skip[i] = kSkip;
            ++i;
          }
          continue;
        }
        begin_[i] = b;
        degree[i] = static_cast<uint32_t>(d);
        double bd = run.boundOf(v);
        bound[i] = bd;
        lower[i] = run.hasLower() ? run.lowerOf(v) : 0.0f;
        if (bd > 0 && std::isfinite(bd)) {
          // Rejection: the first proposal, as uniformIndex draws it from
          // the stream (skip: the words drawn, more than 1 only when
          // Lemire's method asked for more).
          bool more = false;
          pre[i] = lemireIndex(w0[i], static_cast<uint32_t>(d),
                               [&]() -> WalkRng & {
                                 const uint32_t block[4] = {w0[i], w1[i],
                                                            w2[i], w3[i]};
                                 retry = WalkRng(run.seed, walker[i],
                                                 length[i] - 1, block, 0, 1);
                                 more = true;
                                 return retry;
                               });
          skip[i] = __builtin_expect(more, 0)
                        ? static_cast<uint32_t>(retry.drawn())
                        : 1;
          prefetch(targets + b + pre[i]);
          if (weights)
            prefetch(weights + b + pre[i]);
        } else {
          // Reservoir (the cost model's choice, bound < 0) or a bound
          // that admits no trial: the whole stream is left to pass 2.
          skip[i] = 0;
          prefetch(targets + b);
          if (weights)
            prefetch(weights + b);
        }
        if (secondOrder && prev[i] != v) {
          uint64_t pb = offsets[prev[i]];
          uint64_t pd = offsets[prev[i] + 1] - pb;
          const uint32_t *adj = targets + pb;
          prefetch(adj + pd / 2);
          if (pd > 32) {
            prefetch(adj + pd / 4);
            prefetch(adj + 3 * pd / 4);
          }
        }
        ++i;
      }
      // Pass 2: trial 0 (or the whole step when it is not a plain
      // rejection step).
      uint32_t m = 0;
      for (uint32_t i = 0; i < active; ++i) {
        draws[i] = 0;
        if (__builtin_expect(skip[i] != 1, 0)) {
          if (skip[i] != kSkip)
            move(i, slowStep(i));
          continue;
        }
        setFrame(i);
        uint64_t idx = pre[i];
        if (trial(i, idx, coinOf(w1[i], w2[i])))
          move(i, idx);
        else
          again[m++] = i;
      }
      // Pass 3: block 1 of the walkers trial 0 rejected; trial 1 (index
      // from word 3 of block 0, coin from words 0 and 1 of block 1).
      uint32_t m2 = 0;
      if (m) {
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = again[j];
          x1[j] = length[i] - 1;
          x2[j] = static_cast<uint32_t>(walker[i]);
          x3[j] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(m, run.seed, x0.data(), x1.data(), x2.data(), x3.data(),
                    1);
        for (uint32_t j = 0; j < m; ++j) {
          uint32_t i = again[j];
          const uint32_t d = degree[i];
          setFrame(i);
          uint64_t product = static_cast<uint64_t>(w3[i]) * d;
          if (__builtin_expect(static_cast<uint32_t>(product) < d, 0)) {
            // Lemire's method may want more words: from the stream.
            const uint32_t block[4] = {w0[i], w1[i], w2[i], w3[i]};
            WalkRng rng(run.seed, walker[i], length[i] - 1, block, 0, 3);
            move(i, trials(i, rng, 1));
            continue;
          }
          uint64_t idx = product >> 32;
          if (trial(i, idx, coinOf(x0[j], x1[j]))) {
            move(i, idx);
            continue;
          }
          // Trial 2 draws words 2 and 3 of block 1 and word 0 of block 2.
          keep2[m2] = x2[j];
          keep3[m2] = x3[j];
          again[m2++] = i; // m2 <= j: again[j] was read
        }
      }
      // Pass 4: block 2 of the walkers trial 1 rejected; trial 2.
      if (m2) {
        for (uint32_t j = 0; j < m2; ++j) {
          uint32_t i = again[j];
          x1[j] = length[i] - 1;
          x2[j] = static_cast<uint32_t>(walker[i]);
          x3[j] = static_cast<uint32_t>(walker[i] >> 32);
        }
        philoxLanes(m2, run.seed, x0.data(), x1.data(), x2.data(),
                    x3.data(), 2);
        for (uint32_t j = 0; j < m2; ++j) {
          uint32_t i = again[j];
          const uint32_t d = degree[i];
          const uint32_t block2[4] = {x0[j], x1[j], x2[j], x3[j]};
          setFrame(i);
          uint64_t product = static_cast<uint64_t>(keep2[j]) * d;
          if (__builtin_expect(static_cast<uint32_t>(product) < d, 0)) {
            const uint32_t block1[4] = {0, 0, keep2[j], keep3[j]};
            WalkRng rng(run.seed, walker[i], length[i] - 1, block1, 1, 2);
            move(i, trials(i, rng, 2));
            continue;
          }
          uint64_t idx = product >> 32;
          if (trial(i, idx, coinOf(keep3[j], block2[0]))) {
            move(i, idx);
            continue;
          }
          WalkRng rng(run.seed, walker[i], length[i] - 1, block2, 2, 1);
          move(i, trials(i, rng, 3));
        }
      }
      checkFault(fault);
      // Pass 5: count the steps, replace the walkers that ended.
      for (uint32_t i = 0; i < active;) {
        if (!done[i]) {
          ++i;
          continue;
        }
        done[i] = 0;
        if (finish(i))
          ++i;
      }
    }
    checkFault(fault);
  }

  ThreadStats stats;
  ThreadStats result() const { return stats; }
  sluice_walk_fault_t fault{};

private:
  /// skip[i] of a slot whose walker was started in this round's pass 1
  /// (it takes its first step next round).
  static constexpr uint32_t kSkip = UINT32_MAX;

  /// nextDouble() of the words hi, lo.
  static double coinOf(uint32_t hi, uint32_t lo) {
    return static_cast<double>((uint64_t(hi) << 32 | lo) >> 11) * 0x1.0p-53;
  }

  /// The frame the kernel functions see for slot i's current step (its
  /// random() draws count on across the passes of the step).
  SLUICE_WALK_INLINE void setFrame(uint32_t i) {
    f.walker = walker[i];
    f.prev = prev[i];
    f.cur = cur[i];
    f.step = length[i] - 1;
    f.random_draws = &draws[i];
  }

  SLUICE_WALK_INLINE double weight(uint32_t i, uint64_t e) {
    return run.edgeWeight(&f, begin_[i] + e);
  }

  /// One rejection trial of slot i (frame set): candidate idx, coin `u`
  /// in [0, 1). As Walker::rejection: with a lower bound the coin decides
  /// first and a coin below it accepts without the weight. Counts the
  /// step when it accepts.
  SLUICE_WALK_INLINE bool trial(uint32_t i, uint64_t idx, double u) {
    bool accept = rejectionTrial(u, bound[i], lower[i],
                                 [&] { return weight(i, idx); },
                                 stats.sampler);
    if (accept)
      countStep(false);
    return accept;
  }

  SLUICE_WALK_INLINE void countStep(bool reservoir) {
    ++stats.steps;
    ++(reservoir ? stats.reservoirSteps : stats.rejectionSteps);
  }

  /// Counts a step that `j` (kNoCandidate: none) takes.
  uint64_t counted(uint64_t j, bool reservoir) {
    if (j != kNoCandidate)
      countStep(reservoir);
    return j;
  }

  /// Trials `first`.. of slot i (frame set) from `rng`, positioned where
  /// trial `first` draws its index; then the exact fallback.
  uint64_t trials(uint32_t i, WalkRng &rng, uint32_t first) {
    const uint32_t d = degree[i];
    const uint32_t maxTrials = maxRejectionTrials(d);
    for (uint32_t t = first; t < maxTrials; ++t) {
      uint64_t idx = uniformIndex(rng, d);
      if (trial(i, idx, rng.nextDouble()))
        return idx;
    }
    ++stats.sampler.rejectionFallbacks;
    return counted(
        sampleExact(d, [&](uint64_t e) { return weight(i, e); }, rng), false);
  }

  /// A step that is not a plain rejection step (skip[i] != 1): reservoir
  /// (bound < 0), the exact sampler (a bound that admits no trial), or
  /// rejection whose first index drew more than one word.
  uint64_t slowStep(uint32_t i) {
    setFrame(i);
    const uint32_t block[4] = {w0[i], w1[i], w2[i], w3[i]};
    WalkRng rng(run.seed, walker[i], length[i] - 1, block, 0, 0);
    auto weightFn = [&](uint64_t e) { return weight(i, e); };
    if (skip[i] == 0) {
      if (bound[i] < 0)
        return counted(
            sampleReservoir(degree[i], weightFn, rng, &stats.sampler), true);
      ++stats.sampler.rejectionFallbacks;
      return counted(sampleExact(degree[i], weightFn, rng), false);
    }
    for (uint32_t j = 0; j < skip[i]; ++j)
      rng.nextU32();
    uint64_t idx = pre[i];
    if (trial(i, idx, rng.nextDouble()))
      return idx;
    return trials(i, rng, 1);
  }

  const Run &run;
  const bool secondOrder;
  const uint32_t width;
  std::vector<uint32_t> cur, prev, length;
  std::vector<uint64_t> walker, local, begin_;
  std::vector<uint32_t> degree, pre, skip;
  std::vector<uint8_t> done;
  std::vector<uint32_t> again, keep2, keep3;
  std::vector<uint64_t> draws; // random() draws of each walker's step
  std::vector<double> bound;
  std::vector<float> lower;
  // Block 0 of each slot's step (lanes of philoxLanes, one per slot), and
  // blocks 1 and 2 of the walkers that need them (one lane per walker).
  std::vector<uint32_t> w0, w1, w2, w3;
  std::vector<uint32_t> x0, x1, x2, x3;
  sluice_walk_frame_t f;
  WalkRng retry{0, 0, 0};
};

//===----------------------------------------------------------------------===//
// Set-up: alias tables and the cost ratio
//===----------------------------------------------------------------------===//

/// Runs body(begin, end) over [0, n) in `threads` contiguous ranges.
template <class Body>
void parallelRanges(uint64_t n, uint32_t threads, Body &&body) {
  threads = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(threads, n / 1024 + 1)));
  if (threads == 1) {
    body(uint64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  for (uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        body(n * t / threads, n * (t + 1) / threads);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (std::thread &th : pool)
    th.join();
  for (std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}

/// An array of trivially copyable T (zero-filled) in anonymous memory
/// that the kernel is asked to back with transparent huge pages (Linux
/// madvise; elsewhere, or when mmap fails, plain pages): the walk reads
/// one random cell per step, and with 4 KiB pages a table of a few
/// megabytes misses the TLB as often as the cache.
template <class T> class HugeArray {
public:
  HugeArray() = default;
  HugeArray(const HugeArray &) = delete;
  HugeArray &operator=(const HugeArray &) = delete;
  ~HugeArray() { release(); }

  void resize(uint64_t n) {
    release();
    if (n == 0)
      return;
    if (n > UINT64_MAX / sizeof(T))
      throw std::bad_alloc();
#ifdef __linux__
    constexpr uint64_t kHuge = uint64_t(2) << 20;
    uint64_t bytes = n * sizeof(T);
    if (bytes >= kHuge) {
      uint64_t mapped = (bytes + 2 * kHuge - 1) & ~(kHuge - 1);
      void *p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
        // Start at a 2 MiB boundary, so that every huge page is full.
        uintptr_t a = reinterpret_cast<uintptr_t>(p);
        uintptr_t aligned = (a + kHuge - 1) & ~uintptr_t(kHuge - 1);
        ::madvise(reinterpret_cast<void *>(aligned), mapped - (aligned - a),
                  MADV_HUGEPAGE);
        map_ = p;
        mapped_ = mapped;
        data_ = reinterpret_cast<T *>(aligned);
        size_ = n;
        return; // anonymous memory is zero
      }
    }
#endif
    vector_.assign(n, T{});
    data_ = vector_.data();
    size_ = n;
  }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T &operator[](uint64_t i) { return data_[i]; }
  uint64_t size() const { return size_; }

private:
  void release() {
#ifdef __linux__
    if (map_)
      ::munmap(map_, mapped_);
#endif
    map_ = nullptr;
    mapped_ = 0;
    std::vector<T>().swap(vector_);
    data_ = nullptr;
    size_ = 0;
  }

  void *map_ = nullptr;
  uint64_t mapped_ = 0;
  std::vector<T> vector_;
  T *data_ = nullptr;
  uint64_t size_ = 0;
};

/// Per-vertex alias tables over the kernel's (static) weight.
struct AliasTables {
  HugeArray<AliasEntry> entries;

  void build(const Run &run, uint32_t threads) {
    uint64_t m = run.offsets[run.numVertices];
    entries.resize(m);
    const sluice_walk_kernel_t &k = *run.kernel;
    parallelRanges(run.numVertices, threads, [&](uint64_t lo, uint64_t hi) {
      std::vector<double> scaled;
      std::vector<uint32_t> small, large, alias;
      std::vector<float> prob;
      std::vector<int64_t> state(k.num_state, 0);
      uint64_t draws = 0;
      sluice_walk_fault_t fault{};
      sluice_walk_frame_t f = run.frame(state.data(), &draws, &fault);
      for (uint64_t v = lo; v < hi; ++v) {
        uint64_t b = run.offsets[v], d = run.offsets[v + 1] - b;
        if (d == 0)
          continue;
        f.prev = f.cur = static_cast<uint32_t>(v);
        prob.resize(d);
        alias.resize(d);
        double total = buildAlias(
            static_cast<uint32_t>(d),
            [&](uint64_t i) { return run.edgeWeight(&f, b + i); },
            prob.data(), alias.data(), scaled, small, large);
        checkFault(fault, "building the alias table");
        for (uint64_t i = 0; i < d; ++i)
          entries[b + i] =
              total > 0 ? aliasCell(prob[i], run.targets[b + i],
                                    run.targets[b + alias[i]])
                        : AliasEntry{0, run.targets[b + i],
                                     SLUICE_VERTEX_NONE};
      }
    });
  }
};

/// The per-vertex bound table of modes Rejection and Auto. The bound
/// functions depend on cur and the parameters only (walk.h: "for all its
/// candidate edges and any history"), so they are evaluated once per vertex
/// (prev == cur, step 0, zeroed state), and so is the cost model's choice,
/// which therefore is the same at every step from a vertex: the upper bound
/// where rejection is used, -1 where reservoir is.
std::vector<double> vertexBounds(const Run &run, bool costModel,
                                 uint32_t threads) {
  std::vector<double> out(run.numVertices);
  const sluice_walk_kernel_t &k = *run.kernel;
  parallelRanges(run.numVertices, threads, [&](uint64_t lo, uint64_t hi) {
    std::vector<int64_t> state(k.num_state, 0);
    uint64_t draws = 0;
    sluice_walk_fault_t fault{};
    sluice_walk_frame_t f = run.frame(state.data(), &draws, &fault);
    for (uint64_t v = lo; v < hi; ++v) {
      f.prev = f.cur = static_cast<uint32_t>(v);
      uint64_t degree = run.offsets[v + 1] - run.offsets[v];
      if (degree == 0) {
        out[v] = 0;
        continue;
      }
      double bound = k.upper_bound(&f);
      bool reservoir = false;
      if (costModel) {
        // A weight that may be zero, with no positive lower bound of the
        // mass it lets through at v (a label filter asking for a label v
        // has no edge of): a step may find nothing to accept, and rejection
        // then pays its whole trial cap plus the exact fallback, more than
        // one reservoir pass. The midpoint W_sum estimate cannot see that.
        if ((k.flags & SLUICE_WALK_MAY_BE_ZERO) && k.sum_lower_bound &&
            !(k.sum_lower_bound(&f) > 0))
          reservoir = true;
        else
          reservoir = prefersReservoir(run.costRatio, bound,
                                       run.sumEstimate(&f, degree, bound));
      }
      checkFault(fault, "computing the bounds");
      out[v] = reservoir ? -1.0 : bound;
    }
  });
  return out;
}

/// A per-vertex table as one byte per vertex into a palette of its
/// distinct values (compared bit for bit, so every value is kept exactly);
/// false when it has more than 256 of them.
template <class T>
bool paletteOf(const std::vector<T> &values, std::vector<uint8_t> *index,
               std::vector<T> *palette) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "bits fit in 64");
  palette->clear();
  index->resize(values.size());
  std::unordered_map<uint64_t, uint8_t> slot;
  uint64_t lastBits = 0;
  uint8_t last = 0;
  for (size_t v = 0; v < values.size(); ++v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &values[v], sizeof(T));
    if (v == 0 || bits != lastBits) {
      auto [it, inserted] =
          slot.emplace(bits, static_cast<uint8_t>(palette->size()));
      if (inserted) {
        if (palette->size() == 256)
          return false;
        palette->push_back(values[v]);
      }
      last = it->second;
      lastBits = bits;
    }
    (*index)[v] = last;
  }
  return true;
}

/// Pre-acceptance thresholds (Run::vertexLower): the kernel's lower bound
/// at each vertex, rounded down to a float and lowered by one more ulp, so
/// that a rounding difference between the bound function and the weight
/// function (the same product in another order) can never accept a trial
/// the weight would reject. 0 where the bound is not positive.
std::vector<float> vertexLowers(const Run &run, uint32_t threads) {
  std::vector<float> out(run.numVertices, 0.0f);
  const sluice_walk_kernel_t &k = *run.kernel;
  parallelRanges(run.numVertices, threads, [&](uint64_t lo, uint64_t hi) {
    std::vector<int64_t> state(k.num_state, 0);
    uint64_t draws = 0;
    sluice_walk_fault_t fault{};
    sluice_walk_frame_t f = run.frame(state.data(), &draws, &fault);
    for (uint64_t v = lo; v < hi; ++v) {
      if (run.offsets[v + 1] == run.offsets[v])
        continue;
      f.prev = f.cur = static_cast<uint32_t>(v);
      double lower = k.lower_bound(&f);
      checkFault(fault, "the lower bound");
      if (!(lower > 0) || !std::isfinite(lower))
        continue;
      float l = static_cast<float>(lower);
      if (static_cast<double>(l) >= lower)
        l = std::nextafter(l, 0.0f);
      out[v] = std::nextafter(l, 0.0f);
    }
  });
  return out;
}

/// FlexiWalker's start-up profiling with the kernel itself: the cost of a
/// rejection trial over the cost of a reservoir edge, measured on up to 256
/// vertices of the graph (degree >= 2, evenly spread over the ids), with
/// prev == cur. Each cost is measured per vertex and averaged over the
/// vertices (not over edges), so that the reservoir's fixed cost per call
/// (its exponential draws) weighs in at the small degrees where the choice
/// is made. Best of three rounds, clamped to [1/16, 256].
double calibrate(const Run &run) {
  const sluice_walk_kernel_t &k = *run.kernel;
  std::vector<uint32_t> sample;
  uint64_t n = run.numVertices;
  uint64_t step = std::max<uint64_t>(1, n / 256);
  for (uint64_t v = 0; v < n && sample.size() < 256; v += step)
    if (run.offsets[v + 1] - run.offsets[v] >= 2)
      sample.push_back(static_cast<uint32_t>(v));
  if (sample.empty())
    return CostModel::kDefaultRatio;
  std::vector<int64_t> state(k.num_state, 0);
  uint64_t draws = 0;
  sluice_walk_fault_t fault{};
  sluice_walk_frame_t f = run.frame(state.data(), &draws, &fault);
  using Clock = std::chrono::steady_clock;
  double bestRes = 1e300, bestRej = 1e300;
  volatile uint64_t sink = 0;
  auto seconds = [](Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  };
  for (uint32_t round = 0; round < 3; ++round) {
    uint64_t acc = 0;
    double sumRes = 0, sumRej = 0;
    for (uint32_t v : sample) {
      f.prev = f.cur = v;
      uint64_t b = run.offsets[v], d = run.offsets[v + 1] - b;
      auto weight = [&](uint64_t i) { return run.edgeWeight(&f, b + i); };
      auto t0 = Clock::now();
      for (uint32_t rep = 0; rep < 4; ++rep) {
        WalkRng rng(run.seed ^ 0xca11b7a7e0ull, v, round * 4 + rep);
        acc += sampleReservoir(d, weight, rng);
      }
      auto t1 = Clock::now();
      SamplerStats rejStats;
      double bound = k.upper_bound(&f);
      for (uint32_t rep = 0; rep < 16; ++rep) {
        WalkRng rng(run.seed ^ 0xca11b7a7e1ull, v, round * 16 + rep);
        acc += sampleRejection(d, weight, bound, rng, &rejStats);
      }
      auto t2 = Clock::now();
      checkFault(fault, "calibrating the cost model at the weights");
      sumRes += seconds(t1 - t0) / (4.0 * double(d));
      sumRej += seconds(t2 - t1) /
                double(std::max<uint64_t>(rejStats.rejectionTrials, 1));
    }
    sink = sink + acc;
    bestRes = std::min(bestRes, sumRes / double(sample.size()));
    bestRej = std::min(bestRej, sumRej / double(sample.size()));
  }
  (void)sink;
  if (!(bestRes > 0) || !(bestRej > 0) || !std::isfinite(bestRej / bestRes))
    return CostModel::kDefaultRatio;
  return std::clamp(bestRej / bestRes, 1.0 / 16, 256.0);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
}

std::string kernelName(const sluice_walk_kernel_t *kernel) {
  return std::string("walk '") + (kernel->name ? kernel->name : "?") + "'";
}

sluice_status_t checkKernel(const sluice_walk_kernel_t *kernel,
                            const void *params, sluice_error_t *error) {
  if (kernel->abi_version != SLUICE_WALK_ABI_VERSION)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                kernelName(kernel) + " was built for walk ABI version " +
                    std::to_string(kernel->abi_version) +
                    ", this runtime has version " +
                    std::to_string(SLUICE_WALK_ABI_VERSION));
  int64_t cls = enumValue(kernel->weight_class);
  if (cls < SLUICE_WALK_WEIGHT_CONSTANT || cls > SLUICE_WALK_WEIGHT_DYNAMIC)
    return invalid(error, kernelName(kernel) + ": unknown weight class " +
                              std::to_string(cls));
  const uint32_t known = SLUICE_WALK_SECOND_ORDER | SLUICE_WALK_MAY_BE_ZERO |
                         SLUICE_WALK_UNBOUNDED | SLUICE_WALK_PURE_WEIGHT;
  if (kernel->flags & ~known)
    return invalid(error, kernelName(kernel) + ": unknown flags " +
                              hex(kernel->flags & ~known));
  if ((kernel->flags & SLUICE_WALK_SECOND_ORDER) &&
      cls != SLUICE_WALK_WEIGHT_DYNAMIC)
    return invalid(error, kernelName(kernel) +
                              ": a second-order weight (SLUICE_WALK_SECOND_"
                              "ORDER) must be classified DYNAMIC");
  if (!kernel->upper_bound && !(kernel->flags & SLUICE_WALK_UNBOUNDED))
    return invalid(error, kernelName(kernel) +
                              " has no upper_bound but is not marked "
                              "SLUICE_WALK_UNBOUNDED");
  if (kernel->num_params && !params)
    return invalid(error, kernelName(kernel) + " takes " +
                              std::to_string(kernel->num_params) +
                              " parameters but params is NULL");
  return SLUICE_STATUS_OK;
}

/// The step mode for (kernel, requested sampler), or an error for a sampler
/// that would be unsound for the kernel.
sluice_status_t chooseMode(const sluice_walk_kernel_t *kernel,
                           int64_t sampler, Mode *mode,
                           sluice_error_t *error) {
  auto cls = kernel->weight_class;
  bool unbounded = (kernel->flags & SLUICE_WALK_UNBOUNDED) != 0;
  switch (sampler) {
  case SLUICE_WALK_SAMPLER_AUTO:
    *mode = cls == SLUICE_WALK_WEIGHT_CONSTANT ? Mode::Uniform
            : cls == SLUICE_WALK_WEIGHT_STATIC ? Mode::Alias
            : unbounded                        ? Mode::Reservoir
                                               : Mode::Auto;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_ALIAS:
    if (cls == SLUICE_WALK_WEIGHT_DYNAMIC)
      return invalid(error,
                     "sampler alias needs a static weight, but the weight "
                     "of " +
                         kernelName(kernel) +
                         " is dynamic (it depends on prev, step, state or "
                         "random()); use rejection, reservoir or auto");
    *mode = cls == SLUICE_WALK_WEIGHT_CONSTANT ? Mode::Uniform : Mode::Alias;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_UNIFORM:
    if (cls != SLUICE_WALK_WEIGHT_CONSTANT)
      return invalid(error, "sampler uniform needs a constant weight, but "
                            "the weight of " +
                                kernelName(kernel) +
                                " is not (it depends on the edge or the "
                                "walk); use alias, rejection, reservoir or "
                                "auto");
    *mode = Mode::Uniform;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_REJECTION:
    if (unbounded)
      return invalid(error, "sampler rejection needs an upper bound of the "
                            "weight, but none could be proven for " +
                                kernelName(kernel) +
                                "; use reservoir or auto");
    *mode = Mode::Rejection;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_RESERVOIR:
    *mode = Mode::Reservoir;
    return SLUICE_STATUS_OK;
  default:
    return invalid(error, "unknown sampler " + std::to_string(sampler));
  }
}

/// Output buffers of one chunk.
struct ChunkBuffer {
  std::vector<uint32_t> rows;
  std::vector<uint32_t> lengths;
  bool ready = false;
};

/// Whether every degree is below 2^32 (the specialised loops keep degrees
/// and indices in 32 bits); a scan only when the graph has 2^32 edges or
/// more.
bool degreesFit32(const Run &run) {
  if (run.offsets[run.numVertices] <= UINT32_MAX)
    return true;
  for (uint64_t v = 0; v < run.numVertices; ++v)
    if (run.offsets[v + 1] - run.offsets[v] > UINT32_MAX)
      return false;
  return true;
}

sluice_status_t runWalks(const sluice_graph_t *graph,
                         const sluice_walk_kernel_t *kernel,
                         const void *params,
                         const sluice_walk_options_t &options,
                         sluice_walk_writer_t *writer,
                         sluice_walk_stats_t *outStats,
                         sluice_error_t *error) {
  Run run;
  run.graph = graph;
  run.kernel = kernel;
  run.params = params;
  run.offsets = sluice_graph_offsets(graph);
  run.targets = sluice_graph_targets(graph);
  run.weights = sluice_graph_weights(graph);
  run.numVertices = sluice_graph_num_vertices(graph);
  run.starts = options.starts;
  uint64_t numStarts = options.starts ? options.num_starts : run.numVertices;
  run.walksPerVertex = options.walks_per_vertex;
  if (numStarts && options.walks_per_vertex > UINT64_MAX / numStarts)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "num_starts * walks_per_vertex does not fit in 64 bits");
  run.numWalkers = numStarts * options.walks_per_vertex;
  if (options.starts)
    for (uint64_t i = 0; i < numStarts; ++i)
      if (options.starts[i] >= run.numVertices)
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                    "start vertex " + std::to_string(options.starts[i]) +
                        " (starts[" + std::to_string(i) +
                        "]) is not in the graph (" +
                        std::to_string(run.numVertices) + " vertices)");
  run.maxLength = options.max_length;
  run.stopProbability = options.stop_probability;
  run.seed = options.seed;
  run.walkersPerThread = options.walkers_per_thread
                             ? options.walkers_per_thread
                             : kDefaultWalkersPerThread;
  if (writer) {
    run.stride = walkWriterLength(writer);
    if (run.stride < run.maxLength)
      return invalid(error, "the writer takes walks of at most " +
                                std::to_string(run.stride) +
                                " vertices, but max_length is " +
                                std::to_string(run.maxLength));
    run.chunkWalkers = std::clamp<uint64_t>(kChunkEntries / run.stride, 1,
                                            kMaxChunkWalkers);
  }
  Mode mode;
  sluice_status_t status =
      chooseMode(kernel, enumValue(options.sampler), &mode, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  run.mode = mode;

  uint32_t threads = options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency());
  AliasTables tables;
  if (mode == Mode::Alias) {
    if (!degreesFit32(run))
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                  "alias tables need degrees below 2^32");
    tables.build(run, threads);
    run.alias = tables.entries.data();
  }
  run.costRatio = options.cost_ratio;
  if (mode == Mode::Auto && run.costRatio == 0)
    run.costRatio = calibrate(run);
  std::vector<double> bounds;
  std::vector<uint8_t> boundIndex;
  std::vector<double> boundPalette;
  if (mode == Mode::Auto || mode == Mode::Rejection) {
    bounds = vertexBounds(run, mode == Mode::Auto, threads);
    run.vertexBound = bounds.data();
    // The cost model chose reservoir at every vertex with an edge: the
    // run is a reservoir run (the same draws, without a table lookup per
    // step).
    bool allReservoir = mode == Mode::Auto;
    for (uint64_t v = 0; allReservoir && v < run.numVertices; ++v)
      allReservoir = bounds[v] < 0 || run.offsets[v + 1] == run.offsets[v];
    if (allReservoir) {
      run.mode = Mode::Reservoir;
      run.vertexBound = nullptr;
      std::vector<double>().swap(bounds);
    } else if (paletteOf(bounds, &boundIndex, &boundPalette)) {
      run.vertexBound = nullptr;
      run.boundIndex = boundIndex.data();
      run.boundPalette = boundPalette.data();
      std::vector<double>().swap(bounds);
    }
  }
  std::vector<float> lowers, lowerPalette;
  std::vector<uint8_t> lowerIndex;
  if ((run.mode == Mode::Auto || run.mode == Mode::Rejection) &&
      (kernel->flags & SLUICE_WALK_PURE_WEIGHT) && kernel->lower_bound &&
      !(options.engine_flags & SLUICE_WALK_ENGINE_NO_PRE_ACCEPT)) {
    lowers = vertexLowers(run, threads);
    if (std::any_of(lowers.begin(), lowers.end(),
                    [](float l) { return l > 0; })) {
      run.vertexLower = lowers.data();
      if (paletteOf(lowers, &lowerIndex, &lowerPalette)) {
        run.vertexLower = nullptr;
        run.lowerIndex = lowerIndex.data();
        run.lowerPalette = lowerPalette.data();
        std::vector<float>().swap(lowers);
      }
    }
  }

  uint64_t numChunks =
      (run.numWalkers + run.chunkWalkers - 1) / run.chunkWalkers;
  threads = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(threads, numChunks)));
  // Chunk buffers: a ring, so that memory stays bounded while the writer
  // commits chunks in order.
  const uint64_t ringSize = writer ? 2 * uint64_t(threads) + 2 : 0;
  // Estimated before allocating: in a host whose new-handler aborts (LLVM's
  // tools), a failed allocation would end the process instead of returning
  // OUT_OF_MEMORY.
  if (ringSize) {
    long double bytes = (long double)ringSize * run.chunkWalkers *
                        ((long double)run.stride + 1) * sizeof(uint32_t);
    long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    long double memory =
        pages > 0 && pageSize > 0 ? (long double)pages * pageSize : 0;
    if (memory > 0 && bytes > memory / 2)
      return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {},
                  "the output buffers of " + std::to_string(ringSize) +
                      " chunks of walks of up to " +
                      std::to_string(run.stride) + " vertices need " +
                      std::to_string((unsigned long long)(bytes / (1 << 20))) +
                      " MiB, more than half of this machine's " +
                      std::to_string((unsigned long long)(memory / (1 << 20))) +
                      " MiB: lower the walk length or the threads");
  }
  std::vector<ChunkBuffer> ring(ringSize);
  for (ChunkBuffer &c : ring) {
    c.rows.resize(run.chunkWalkers * run.stride);
    c.lengths.resize(run.chunkWalkers);
  }

  std::mutex mutex;
  std::condition_variable changed;
  uint64_t nextChunk = 0, written = 0, walksDone = 0;
  std::atomic<bool> abort{false};
  std::vector<ThreadStats> threadStats(threads);
  std::vector<std::exception_ptr> threadErrors(threads);

  Progress progress(!options.quiet, options.progress,
                    options.progress_user_data, 1000, 1000,
                    kernelName(kernel));
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  // DeepWalk-like runs take the specialised alias loop (the same walks).
  const bool fastAlias = mode == Mode::Alias && !kernel->stop &&
                         !kernel->update && !kernel->init &&
                         run.stopProbability == 0;
  // node2vec-like runs take the specialised rejection loop (the same
  // walks); SLUICE_WALK_ENGINE_GENERIC keeps the generic one (tests
  // compare).
  const bool fastRejection =
      (run.mode == Mode::Rejection || run.mode == Mode::Auto) &&
      !kernel->stop &&
      !kernel->update && !kernel->init && kernel->num_state == 0 &&
      run.stopProbability == 0 && degreesFit32(run) &&
      !(options.engine_flags & SLUICE_WALK_ENGINE_GENERIC);
  auto work = [&](uint32_t t, auto &walker) {
        for (;;) {
          uint64_t c;
          ChunkBuffer *buffer = nullptr;
          {
            std::unique_lock<std::mutex> lock(mutex);
            if (abort || nextChunk == numChunks)
              break;
            c = nextChunk++;
            if (writer) {
              changed.wait(lock,
                           [&] { return abort || c < written + ringSize; });
              if (abort)
                break;
              buffer = &ring[c % ringSize];
            }
          }
          uint64_t first = c * run.chunkWalkers;
          uint64_t count = std::min(run.chunkWalkers, run.numWalkers - first);
          walker.chunk(first, count, buffer ? buffer->rows.data() : nullptr,
                       buffer ? buffer->lengths.data() : nullptr, abort);
          std::lock_guard<std::mutex> lock(mutex);
          walksDone += count;
          if (buffer)
            buffer->ready = true;
          changed.notify_all();
        }
        threadStats[t] = walker.result();
  };
  for (uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        if (fastAlias) {
          AliasWalker walker(run);
          work(t, walker);
        } else if (fastRejection) {
          RejectionWalker walker(run);
          work(t, walker);
        } else {
          Walker walker(run);
          work(t, walker);
        }
      } catch (...) {
        threadErrors[t] = std::current_exception();
        abort = true;
        std::lock_guard<std::mutex> lock(mutex);
        changed.notify_all();
      }
    });

  // The calling thread: progress, and the writer in chunk order.
  for (;;) {
    ChunkBuffer *buffer = nullptr;
    uint64_t count = 0;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait_for(lock, std::chrono::milliseconds(100), [&] {
        return abort || (writer && (written == numChunks ||
                                    ring[written % ringSize].ready)) ||
               (!writer && walksDone == run.numWalkers);
      });
      progress.update("walking", walksDone, run.numWalkers, "walks");
      if (abort)
        break;
      if (!writer) {
        if (walksDone == run.numWalkers)
          break;
        continue;
      }
      if (written == numChunks)
        break;
      if (!ring[written % ringSize].ready)
        continue;
      buffer = &ring[written % ringSize];
      count = std::min(run.chunkWalkers,
                       run.numWalkers - written * run.chunkWalkers);
    }
    status = sluice_walk_writer_append(writer, buffer->rows.data(),
                                       buffer->lengths.data(), count, error);
    std::lock_guard<std::mutex> lock(mutex);
    if (status != SLUICE_STATUS_OK) {
      abort = true;
      changed.notify_all();
      break;
    }
    buffer->ready = false;
    ++written;
    changed.notify_all();
  }
  for (std::thread &th : pool)
    th.join();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (status != SLUICE_STATUS_OK)
    return status;
  // A kernel fault stops every thread; the one of the smallest walker is
  // reported (with one thread: the first in walker order).
  const KernelFault *first = nullptr;
  std::vector<KernelFault> faults;
  faults.reserve(threads);
  for (std::exception_ptr &e : threadErrors) {
    if (!e)
      continue;
    try {
      std::rethrow_exception(e);
    } catch (const KernelFault &kf) {
      faults.push_back(kf);
    }
  }
  for (const KernelFault &kf : faults)
    if (!first || kf.fault.walker < first->fault.walker)
      first = &kf;
  if (first)
    throw *first;

  ThreadStats total;
  for (const ThreadStats &s : threadStats)
    total.add(s);
  char summary[160];
  std::snprintf(summary, sizeof(summary),
                "%llu walks, %llu steps, %.3g steps/s",
                static_cast<unsigned long long>(total.walks),
                static_cast<unsigned long long>(total.steps),
                seconds > 0 ? double(total.steps) / seconds : 0.0);
  progress.finish(summary);
  if (outStats) {
    sluice_walk_stats_t &s = *outStats;
    std::memset(&s, 0, sizeof(s));
    s.walks = total.walks;
    s.steps = total.steps;
    s.seconds = seconds;
    s.rejection_steps = total.rejectionSteps;
    s.reservoir_steps = total.reservoirSteps;
    s.alias_steps = total.aliasSteps;
    s.rejection_trials = total.sampler.rejectionTrials;
    s.bound_violations = total.sampler.boundViolations;
    s.pre_accepted = total.sampler.preAccepted;
    s.cost_ratio = mode == Mode::Auto ? run.costRatio : 0.0;
  }
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

/// The stream of random() (sluice_walk_random): Philox keyed by the seed
/// with its words flipped, so it never overlaps the sampler's stream.
constexpr uint32_t kRandomKeyFlip0 = 0x6a09e667u, kRandomKeyFlip1 = 0xbb67ae85u;

} // namespace

extern "C" SLUICE_API void
sluice_walk_options_init(sluice_walk_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->max_length = 80;
  options->stop_probability = 0;
  options->starts = nullptr;
  options->num_starts = 0;
  options->walks_per_vertex = 1;
  options->seed = 0;
  options->threads = 0;
  options->walkers_per_thread = 0;
  options->sampler = SLUICE_WALK_SAMPLER_AUTO;
  options->cost_ratio = 0;
  options->progress = nullptr;
  options->progress_user_data = nullptr;
  options->quiet = 0;
  options->engine_flags = 0;
}

extern "C" SLUICE_API sluice_status_t sluice_walk_run(
    const sluice_graph_t *graph, const sluice_walk_kernel_t *kernel,
    const void *params, const sluice_walk_options_t *options,
    sluice_walk_writer_t *writer, sluice_walk_stats_t *stats,
    sluice_error_t *error) {
  sluice_error_clear(error);
  if (!graph)
    return invalid(error, "graph is NULL");
  if (!kernel)
    return invalid(error, "kernel is NULL");
  sluice_walk_options_t defaults;
  if (!options) {
    sluice_walk_options_init(&defaults);
    options = &defaults;
  }
  sluice_status_t status = checkKernel(kernel, params, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  const sluice_walk_options_t &o = *options;
  if (o.max_length < 1)
    return invalid(error, "max_length must be at least 1");
  if (o.walks_per_vertex < 1)
    return invalid(error, "walks_per_vertex must be at least 1");
  if (!(o.stop_probability >= 0 && o.stop_probability <= 1))
    return invalid(error, "stop_probability must be in [0, 1], got " +
                              std::to_string(o.stop_probability));
  if (!(o.cost_ratio >= 0) || !std::isfinite(o.cost_ratio))
    return invalid(error,
                   "cost_ratio must be finite and >= 0 (0: calibrate), got " +
                       std::to_string(o.cost_ratio));
  if (o.threads > SLUICE_WALK_MAX_THREADS)
    return invalid(error, "threads must be at most " +
                              std::to_string(SLUICE_WALK_MAX_THREADS) +
                              ", got " + std::to_string(o.threads));
  if (o.walkers_per_thread > kMaxWalkersPerThread)
    return invalid(error, "walkers_per_thread must be at most " +
                              std::to_string(kMaxWalkersPerThread) + ", got " +
                              std::to_string(o.walkers_per_thread));
  constexpr uint32_t kEngineFlags =
      SLUICE_WALK_ENGINE_GENERIC | SLUICE_WALK_ENGINE_NO_PRE_ACCEPT;
  if (o.engine_flags & ~kEngineFlags)
    return invalid(error, "engine_flags has unknown bits " +
                              std::to_string(o.engine_flags & ~kEngineFlags));
  if (o.starts == nullptr && o.num_starts != 0 &&
      o.num_starts != sluice_graph_num_vertices(graph))
    return invalid(error, "num_starts is " + std::to_string(o.num_starts) +
                              " but starts is NULL (every vertex)");
  return guarded(error, {}, [&] {
    try {
      return runWalks(graph, kernel, params, o, writer, stats, error);
    } catch (const KernelFault &kf) {
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  faultMessage(kernel, graph, o.walks_per_vertex, o.starts,
                               kf));
    }
  });
}

extern "C" SLUICE_API double sluice_walk_random(const sluice_walk_frame_t *f) {
  if (!f)
    return 0;
  uint64_t draw = 0;
  if (f->random_draws)
    draw = (*f->random_draws)++;
  uint32_t key[2] = {static_cast<uint32_t>(f->seed) ^ kRandomKeyFlip0,
                     static_cast<uint32_t>(f->seed >> 32) ^ kRandomKeyFlip1};
  uint32_t counter[4] = {static_cast<uint32_t>(draw / 2),
                         static_cast<uint32_t>(f->step),
                         static_cast<uint32_t>(f->walker),
                         static_cast<uint32_t>(f->walker >> 32)};
  uint32_t out[4];
  philox4x32_10(counter, key, out);
  unsigned half = static_cast<unsigned>(draw % 2) * 2;
  uint64_t bits = uint64_t(out[half]) << 32 | out[half + 1];
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}
