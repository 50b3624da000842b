//===- BucketFusionTest.cpp - Fused delta-stepping rounds against Dijkstra ===//
//
// sluice_algo_bucket_for's fused rounds (GAPBS's bucket fusion) driven as
// generated code drives them (a parallel relax through the C API: atomic
// min, inserts into the round's result) against the same run unfused and
// against Dijkstra: equal distances at 1, 2 and 4 threads, on a seeded
// random weighted graph (narrow, middling and one-bucket widths: bins
// that stay small and bins passed on past SLUICE_ALGO_FUSE_BELOW) and on
// a shared real graph (soc-Slashdot0902, else the bundled email-Eu-core)
// with seeded weights; and fused runs taking fewer rounds. Each run also
// with its relaxed vertices filed through sluice_algo_bucket_insert (the
// threads' bins of their buckets, GAPBS's local bins) instead of
// sluice_algo_frontier_insert: the same distances, and at 1 thread the
// same rounds; with the queue not handed on (a scan per round) the bins'
// insert falls back to the frontier's.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"
#include "sluice/graph.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

namespace {

using sluice::algotest::Graph;
using sluice::algotest::makeGraphFromEdges;
using sluice::algotest::makeRandomGraph;

/// What the relax pass reads through its environment's slot 0.
struct Relax {
  const sluice_algo_view_t *view;
  std::atomic<double> *dist;
  sluice_frontier_t *out;
  /// Inserts through sluice_algo_bucket_insert (the threads' bins).
  bool binned;
};

/// The environment's slots: the relax state, unused, the list.
constexpr uint64_t kSlots = 3, kListSlot = 2;

/// `dist[v] min= dist[u] + w` over the out-edges of list[begin, end),
/// inserting each lowered v into the round's result.
void relax(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  const uint64_t *slots = static_cast<const uint64_t *>(env);
  const Relax &r = *reinterpret_cast<const Relax *>(slots[0]);
  const uint32_t *list = reinterpret_cast<const uint32_t *>(slots[kListSlot]);
  for (uint64_t i = begin; i < end; ++i) {
    uint32_t u = list[i];
    double du = r.dist[u].load(std::memory_order_relaxed);
    for (uint64_t e = r.view->out_offsets[u]; e < r.view->out_offsets[u + 1];
         ++e) {
      uint32_t v = r.view->out_targets[e];
      double d = du + r.view->out_weights[e];
      double old = r.dist[v].load(std::memory_order_relaxed);
      while (d < old && !r.dist[v].compare_exchange_weak(
                            old, d, std::memory_order_relaxed))
        ;
      if (d < old) {
        if (r.binned)
          sluice_algo_bucket_insert(r.out, v);
        else
          sluice_algo_frontier_insert(r.out, v);
      }
    }
  }
}

/// How a run files its relaxed vertices and takes its rounds.
struct Filing {
  bool fuse = false;
  bool binned = false;
  /// The queue handed on from round to round (else a scan per round).
  bool consume = true;
};

/// Delta-stepping from vertex 0, filed as `how` says; the rounds it took.
std::vector<double> deltaStep(sluice_algo_ctx_t *ctx, double delta, Filing how,
                              uint64_t &rounds) {
  const sluice_algo_view_t *view = sluice_algo_view(ctx);
  static_assert(sizeof(std::atomic<double>) == sizeof(double),
                "the queue reads the distances as doubles");
  std::unique_ptr<std::atomic<double>[]> dist(
      new std::atomic<double>[view->num_vertices]);
  for (uint64_t v = 0; v < view->num_vertices; ++v)
    dist[v].store(v == 0 ? 0.0 : 1e300);
  Relax r{view, dist.get(), nullptr, how.binned};
  uint64_t env[kSlots] = {reinterpret_cast<uint64_t>(&r), 0, 0};
  sluice_frontier_t *changed = sluice_algo_frontier_new(ctx);
  sluice_algo_frontier_insert(changed, 0);
  sluice_algo_frontier_seal(changed);
  rounds = 0;
  while (sluice_algo_frontier_size(changed) > 0) {
    r.out = sluice_algo_frontier_new(ctx);
    sluice_frontier_t *current = sluice_algo_frontier_bucket(
        changed, dist.get(), SLUICE_ALGO_F64, delta, r.out,
        (how.consume ? SLUICE_ALGO_BUCKET_CONSUME : 0) |
            (how.fuse ? SLUICE_ALGO_BUCKET_FUSE : 0));
    env[kListSlot] =
        reinterpret_cast<uint64_t>(sluice_algo_frontier_list(current));
    sluice_algo_bucket_for(current, SLUICE_ALGO_DYNAMIC, 8, relax, env, kSlots,
                           kListSlot);
    sluice_algo_frontier_release(current);
    sluice_algo_frontier_release(changed);
    sluice_algo_frontier_seal(r.out);
    changed = r.out;
    ++rounds;
  }
  std::vector<double> out(view->num_vertices);
  for (uint64_t v = 0; v < view->num_vertices; ++v)
    out[v] = dist[v].load();
  return out;
}

std::vector<double> dijkstra(const sluice_algo_view_t *view) {
  std::vector<double> dist(view->num_vertices, 1e300);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[0] = 0;
  heap.push({0.0, 0});
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[u])
      continue;
    for (uint64_t e = view->out_offsets[u]; e < view->out_offsets[u + 1]; ++e) {
      uint32_t v = view->out_targets[e];
      if (d + view->out_weights[e] < dist[v]) {
        dist[v] = d + view->out_weights[e];
        heap.push({dist[v], v});
      }
    }
  }
  return dist;
}

/// Fused and unfused runs against Dijkstra at each width; the rounds of
/// each, summed over the widths.
void checkWidths(sluice_algo_ctx_t *ctx, std::initializer_list<double> deltas,
                 const std::string &what, uint64_t &fusedRounds,
                 uint64_t &plainRounds) {
  std::vector<double> want = dijkstra(sluice_algo_view(ctx));
  fusedRounds = plainRounds = 0;
  const bool serial = sluice_algo_threads(ctx) == 1;
  for (double delta : deltas) {
    uint64_t fused, plain, binnedFused, binnedPlain, scanned;
    EXPECT_EQ(deltaStep(ctx, delta, {true, false}, fused), want)
        << what << " delta " << delta << " fused";
    EXPECT_EQ(deltaStep(ctx, delta, {false, false}, plain), want)
        << what << " delta " << delta << " unfused";
    EXPECT_EQ(deltaStep(ctx, delta, {true, true}, binnedFused), want)
        << what << " delta " << delta << " fused, bins";
    EXPECT_EQ(deltaStep(ctx, delta, {false, true}, binnedPlain), want)
        << what << " delta " << delta << " unfused, bins";
    EXPECT_EQ(deltaStep(ctx, delta, {false, true, false}, scanned), want)
        << what << " delta " << delta << " scanned, bins";
    if (serial) {
      // One thread: the bins file what the seal filed, round by round.
      EXPECT_EQ(binnedFused, fused) << what << " delta " << delta;
      EXPECT_EQ(binnedPlain, plain) << what << " delta " << delta;
      EXPECT_EQ(scanned, plain) << what << " delta " << delta;
    }
    fusedRounds += fused;
    plainRounds += plain;
  }
}

TEST(BucketFusion, RandomGraphFusedEqualsUnfusedAndDijkstra) {
  for (uint32_t threads : {1u, 2u, 4u}) {
    Graph g;
    makeRandomGraph(20000, 160000, 31, 100, threads, g);
    uint64_t fused, plain;
    // (0.5: keys up to 200 past the round's, past the bins' 64 near ones.)
    checkWidths(g.ctx, {0.5, 2.0, 16.0, 1e9},
                "threads " + std::to_string(threads), fused, plain);
    EXPECT_LT(fused, plain) << "threads " << threads;
  }
}

TEST(BucketFusion, SharedGraphFusedEqualsUnfusedAndDijkstra) {
  // The real graph's edges with seeded weights 1..255 (GAPBS's range).
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format = SLUICE_GRAPH_FORMAT_SNAP;
  options.flags = SLUICE_GRAPH_LOAD_COMPACT_IDS | SLUICE_GRAPH_LOAD_QUIET;
  std::string path = SLUICE_SHARED_DATA_DIR "/soc-Slashdot0902.txt.gz";
  if (!std::ifstream(path))
    path = SLUICE_BUNDLED_DATA_DIR "/email-Eu-core.txt.gz";
  sluice_graph_t *real = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_load(path.c_str(), &options, &real, &error),
            SLUICE_STATUS_OK)
      << path << ": " << error.message;
  const uint64_t n = sluice_graph_num_vertices(real);
  const uint64_t *offsets = sluice_graph_offsets(real);
  const uint32_t *targets = sluice_graph_targets(real);
  std::vector<uint32_t> src, dst;
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      src.push_back(u);
      dst.push_back(targets[e]);
    }
  sluice_graph_release(real);
  std::mt19937 rng(41);
  std::vector<float> w(src.size());
  for (float &x : w)
    x = float(1 + rng() % 255);
  for (uint32_t threads : {1u, 2u, 4u}) {
    Graph g;
    makeGraphFromEdges(uint32_t(n), src, dst, w.data(), 0, threads, g);
    uint64_t fused, plain;
    checkWidths(g.ctx, {32.0}, path + " threads " + std::to_string(threads),
                fused, plain);
    EXPECT_LT(fused, plain) << "threads " << threads;
  }
}

} // namespace
