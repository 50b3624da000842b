//===- VertexTables.h - alias tables, per-vertex bounds, calibration ---===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("The walk engine"). Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_VERTEXTABLES_H
#define SLUICE_RUNTIME_WALK_VERTEXTABLES_H

#include "runtime/src/walk/EngineInternal.h"

#include "runtime/src/GraphImpl.h"
#include "runtime/src/HugeArray.h"

namespace sluice::walkengine {

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

using rt::HugeArray;

/// Copies of a large graph's arrays on transparent huge pages, and a
/// graph that views them (kernel functions get it as frame->graph, so
/// has_edge reads the copies too). A step reads the offsets and one
/// random edge; over an array of hundreds of megabytes with 4 KiB pages
/// nearly every such read also misses the TLB, and a file-backed mapping
/// (the binary CSR cache) cannot be given huge pages. Arrays below
/// kMinBytes are left where they are.
struct HugeGraph {
  static constexpr uint64_t kMinBytes = uint64_t(16) << 20;

  sluice_graph_t view;
  HugeArray<uint64_t> offsets;
  HugeArray<uint32_t> targets;
  HugeArray<float> weights;

  /// Copies the arrays of `graph` that a run in `mode` reads and that are
  /// at least kMinBytes (alias mode reads the offsets only), in parallel,
  /// and points `run` at them; false (run unchanged) when none qualifies.
  bool adopt(Run &run, const sluice_graph_t *graph, Mode mode,
             uint32_t threads) {
    const uint64_t n = run.numVertices, m = run.offsets[n];
    const bool copyOffsets = (n + 1) * sizeof(uint64_t) >= kMinBytes;
    const bool copyEdges = mode != Mode::Alias && m * sizeof(uint32_t) >= kMinBytes;
    if (!copyOffsets && !copyEdges)
      return false;
    view.viewArraysOf(*graph);
    if (copyOffsets) {
      offsets.resize(n + 1);
      copy(offsets.data(), run.offsets, n + 1, threads);
      view.offsets = run.offsets = offsets.data();
    }
    if (copyEdges) {
      targets.resize(m);
      copy(targets.data(), run.targets, m, threads);
      view.targets = run.targets = targets.data();
      if (run.weights) {
        weights.resize(m);
        copy(weights.data(), run.weights, m, threads);
        view.weights = run.weights = weights.data();
      }
    }
    run.graph = &view;
    return true;
  }

private:
  template <class T>
  static void copy(T *to, const T *from, uint64_t count, uint32_t threads) {
    parallelRanges(count, threads, [&](uint64_t lo, uint64_t hi) {
      std::memcpy(to + lo, from + lo, (hi - lo) * sizeof(T));
    });
  }
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
inline std::vector<double> vertexBounds(const Run &run, bool costModel,
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
inline std::vector<float> vertexLowers(const Run &run, uint32_t threads) {
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
inline double calibrate(const Run &run) {
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


} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_VERTEXTABLES_H
