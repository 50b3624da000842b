//===- VertexOrder.cpp - The degree order of `order: degree | auto` -------===//
//
// An edges loop scheduled `order: degree` compares its vertices by their
// position in the graph relabelled by degree (highest first, ties by the
// graph's order), as GAPBS does before counting triangles; `order: auto`
// does so when GAPBS's heuristic finds the degrees skewed. The order (a
// counting sort of the degrees) and the graph relabelled by it (per
// position, its out-neighbours' positions, sorted, laid out in that order
// as GAPBS's relabelled CSR) are built once per context on its threads; the
// decision is made per loop on its first run and said in a note.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

namespace sluice::rt {

struct VertexOrderState {
  /// Whether each named loop runs in degree order, decided on its first
  /// run, and its note.
  struct Loop {
    std::string name;
    bool relabel = false;
    std::string note;
  };
  std::vector<Loop> loops;
  /// The degree order (built on the first loop that relabels).
  bool built = false;
  std::vector<uint32_t> rank;     ///< num_vertices: vertex -> position
  std::vector<uint32_t> vertices; ///< num_vertices: position -> vertex
  /// The graph relabelled: per position, the positions of its vertex's
  /// out-neighbours, sorted (GAPBS's relabelled CSR).
  std::vector<uint64_t> offsets; ///< num_vertices + 1
  std::vector<uint32_t> targets; ///< num_edges
  double buildSeconds = 0;
};

void VertexOrderDeleter::operator()(VertexOrderState *state) const {
  delete state;
}

} // namespace sluice::rt

using namespace sluice::rt;

namespace {

/// GAPBS's WorthRelabelling: half the average out-degree (the edges per
/// vertex of a symmetric graph, each once) is at least 10, and the average
/// of 1000 sampled non-zero degrees is above 1.3 times their median. Says
/// why in `why`.
bool degreesSkewed(const sluice_algo_view_t &view, std::string &why) {
  const uint64_t n = view.num_vertices, m = view.num_edges;
  char text[256];
  const uint64_t perVertex = n ? m / 2 / n : 0;
  if (perVertex < 10) {
    std::snprintf(text, sizeof(text),
                  "%llu edges per vertex (half the average out-degree) is "
                  "below 10",
                  static_cast<unsigned long long>(perVertex));
    why = text;
    return false;
  }
  // Fixed seed: the same decision on every run.
  std::mt19937_64 rng(27491095);
  std::uniform_int_distribution<uint64_t> pick(0, n - 1);
  const uint64_t samples = std::min<uint64_t>(1000, n);
  std::vector<uint64_t> degrees;
  degrees.reserve(samples);
  uint64_t total = 0;
  // m > 0 here, so some vertex has out-edges; bounded tries all the same.
  for (uint64_t tries = 0; degrees.size() < samples && tries < 100 * samples;
       ++tries) {
    uint64_t v = pick(rng);
    uint64_t d = view.out_offsets[v + 1] - view.out_offsets[v];
    if (d) {
      degrees.push_back(d);
      total += d;
    }
  }
  if (degrees.empty()) {
    why = "no sampled vertex has out-edges";
    return false;
  }
  std::sort(degrees.begin(), degrees.end());
  const double average = double(total) / double(degrees.size());
  const double median = double(degrees[degrees.size() / 2]);
  const bool skewed = average / 1.3 > median;
  std::snprintf(text, sizeof(text),
                "%llu edges per vertex; sampled out-degrees average %.1f, "
                "%s 1.3 x their median %.0f",
                static_cast<unsigned long long>(perVertex), average,
                skewed ? "above" : "not above", median);
  why = text;
  return skewed;
}

/// The degree order of `ctx`'s graph and its out-neighbours' positions.
void buildOrder(sluice_algo_ctx_t *ctx, VertexOrderState &state) {
  auto t0 = std::chrono::steady_clock::now();
  const sluice_algo_view_t &view = ctx->view;
  const uint64_t n = view.num_vertices;
  const uint64_t *offsets = view.out_offsets;
  // A counting sort on the degree, highest first; stable, so ties keep the
  // graph's order.
  uint64_t maxDegree = 0;
  for (uint64_t v = 0; v < n; ++v)
    maxDegree = std::max(maxDegree, offsets[v + 1] - offsets[v]);
  std::vector<uint64_t> start(maxDegree + 2, 0);
  for (uint64_t v = 0; v < n; ++v)
    ++start[maxDegree - (offsets[v + 1] - offsets[v]) + 1];
  for (uint64_t d = 0; d <= maxDegree; ++d)
    start[d + 1] += start[d];
  state.rank.resize(n);
  state.vertices.resize(n);
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t r = start[maxDegree - (offsets[v + 1] - offsets[v])]++;
    state.rank[v] = static_cast<uint32_t>(r);
    state.vertices[r] = static_cast<uint32_t>(v);
  }
  state.offsets.resize(n + 1);
  state.offsets[0] = 0;
  for (uint64_t r = 0; r < n; ++r) {
    uint32_t v = state.vertices[r];
    state.offsets[r + 1] = state.offsets[r] + (offsets[v + 1] - offsets[v]);
  }
  // Each position's out-neighbours as positions, sorted, in parallel.
  state.targets.resize(view.num_edges);
  const uint32_t *rank = state.rank.data();
  const uint32_t *vertices = state.vertices.data();
  const uint64_t *rOffsets = state.offsets.data();
  uint32_t *targets = state.targets.data();
  std::atomic<uint64_t> next{0};
  constexpr uint64_t kChunk = 256;
  ctx->pool->run([&](uint32_t) {
    for (;;) {
      uint64_t begin = next.fetch_add(kChunk, std::memory_order_relaxed);
      if (begin >= n)
        break;
      for (uint64_t r = begin; r < std::min(n, begin + kChunk); ++r) {
        uint32_t *first = targets + rOffsets[r];
        uint32_t *last = targets + rOffsets[r + 1];
        const uint32_t *from = view.out_targets + offsets[vertices[r]];
        for (uint32_t *t = first; t != last; ++t, ++from)
          *t = rank[*from];
        std::sort(first, last);
      }
    }
  });
  state.built = true;
  state.buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
}

} // namespace

const uint32_t *sluice_algo_order_begin(sluice_algo_ctx_t *ctx, int32_t order,
                                        const char *name) {
  if (!ctx->order)
    ctx->order.reset(new VertexOrderState());
  VertexOrderState &state = *ctx->order;
  const std::string loopName = name ? name : "(unnamed loop)";
  auto loop = std::find_if(state.loops.begin(), state.loops.end(),
                           [&](const auto &l) { return l.name == loopName; });
  if (loop == state.loops.end()) {
    VertexOrderState::Loop decided;
    decided.name = loopName;
    std::string why;
    if (order == SLUICE_ALGO_ORDER_AUTO) {
      decided.relabel = degreesSkewed(ctx->view, why);
      decided.note = loopName + ": order: auto " +
                     (decided.relabel ? "relabelled by degree ("
                                      : "kept the graph's order (") +
                     why + ")";
    } else {
      decided.relabel = true;
      decided.note = loopName + ": order: degree";
    }
    if (decided.relabel && !state.built) {
      buildOrder(ctx, state);
      char built[96];
      std::snprintf(built, sizeof(built), "; the degree order built in %.1f ms",
                    state.buildSeconds * 1e3);
      decided.note += built;
    }
    state.loops.push_back(std::move(decided));
    loop = state.loops.end() - 1;
  }
  if (!loop->relabel)
    return nullptr;
  ctx->orderRank = state.rank.data();
  ctx->orderVertices = state.vertices.data();
  ctx->orderOffsets = state.offsets.data();
  ctx->orderTargets = state.targets.data();
  return ctx->orderRank;
}

const uint32_t *sluice_algo_order_vertices(const sluice_algo_ctx_t *ctx) {
  return ctx->orderVertices;
}

const uint64_t *sluice_algo_order_offsets(const sluice_algo_ctx_t *ctx) {
  return ctx->orderOffsets;
}

const uint32_t *sluice_algo_order_targets(const sluice_algo_ctx_t *ctx) {
  return ctx->orderTargets;
}

void sluice_algo_order_end(sluice_algo_ctx_t *ctx) {
  ctx->orderRank = nullptr;
  ctx->orderVertices = nullptr;
  ctx->orderOffsets = nullptr;
  ctx->orderTargets = nullptr;
}

const char *sluice_algo_order_note(const sluice_algo_ctx_t *ctx,
                                   uint32_t index) {
  if (!ctx->order || index >= ctx->order->loops.size())
    return nullptr;
  return ctx->order->loops[index].note.c_str();
}
