//===- BucketQueueTest.cpp - Delta-stepping's buckets against references --===//
//
// The bucket queue against a set that finds the lowest bucket by scanning
// (the definition), over seeded runs that lower priorities into lower
// buckets, far ahead (past the ring), below the ring, to infinity and NaN,
// and keys past an int32 (the slots' coarse codes);
// refiling of priorities changed unseen; large buckets taken on a thread
// pool; and sluice_algo_frontier_bucket's
// two paths (queue handed on, scan) giving the same rounds of an SSSP run
// through the C API, whose distances match Dijkstra.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/BucketQueue.h"

#include "runtime/src/algo/AlgoInternal.h"
#include "sluice/algo.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

namespace {

using sluice::algotest::Graph;
using sluice::algotest::makeRandomGraph;
using sluice::rt::BucketQueue;

/// The lowest bucket of `waiting` by a scan, taken out of it (sorted).
template <typename T>
std::vector<uint32_t> takeLowestByScan(std::set<uint32_t> &waiting,
                                       const std::vector<T> &p, int32_t type,
                                       double delta) {
  double low = HUGE_VAL;
  for (uint32_t v : waiting)
    low = std::min(low, BucketQueue::keyOf(p.data(), type, delta, v));
  std::vector<uint32_t> out;
  for (uint32_t v : waiting)
    if (BucketQueue::keyOf(p.data(), type, delta, v) == low)
      out.push_back(v);
  for (uint32_t v : out)
    waiting.erase(v);
  return out;
}

/// A run of rounds: take the lowest bucket, then lower the priorities of
/// some vertices (as a round's min= does) and file them; the queue takes
/// what the scan takes, round by round. `n` vertices, every `every`-th
/// filed first, up to `changes` - 1 changes in each of the first
/// `changeRounds` rounds; with `pool`, large buckets are taken on its
/// threads.
template <typename T>
void checkAgainstScan(uint32_t seed, double delta, uint32_t n = 400,
                      uint32_t every = 3, uint32_t changes = 6,
                      int changeRounds = 1000,
                      sluice::rt::AlgoThreadPool *pool = nullptr) {
  constexpr int32_t type =
      std::is_same_v<T, double> ? SLUICE_ALGO_F64 : SLUICE_ALGO_I64;
  std::mt19937 rng(seed);
  std::vector<T> p(n);
  for (T &x : p)
    x = T(rng() % 100000);
  // (Its arrays on an arena, as a context's queue has them.)
  sluice::rt::RoundArena arena;
  arena.reserve(n);
  BucketQueue queue(p.data(), type, delta, n, pool, &arena);
  std::set<uint32_t> waiting;
  for (uint32_t v = 0; v < n; v += every) {
    queue.file(v);
    waiting.insert(v);
  }
  std::pmr::vector<uint32_t> got(&arena);
  for (int round = 0; round < 3000 && !waiting.empty(); ++round) {
    queue.takeLowest(got);
    std::vector<uint32_t> want = takeLowestByScan(waiting, p, type, delta);
    ASSERT_EQ(std::vector<uint32_t>(got.begin(), got.end()), want)
        << "round " << round;
    ASSERT_EQ(queue.size(), waiting.size());
    // Lower a few priorities: a little (same or next buckets), far below
    // (under the ring's keys), far ahead of the lowest (past the ring),
    // and, for doubles, to -inf or NaN; re-lower some waiting vertices.
    for (uint32_t k = 0, m = round < changeRounds ? rng() % changes : 0; k < m;
         ++k) {
      uint32_t v = rng() % n;
      T before = p[v];
      switch (rng() % 8) {
      case 0:
        p[v] = T(before - T(rng() % 50));
        break;
      case 1:
        p[v] = T(before - T(1000000));
        break;
      case 2:
        p[v] = T(double(BucketQueue::kWindow) * 3 * delta + (rng() % 1000));
        break;
      case 3:
        if constexpr (type == SLUICE_ALGO_F64)
          p[v] = rng() % 2 ? -HUGE_VAL : std::nan("");
        break;
      default:
        p[v] = T(before - T(rng() % 5000));
        break;
      }
      queue.file(v);
      waiting.insert(v);
    }
  }
  EXPECT_TRUE(waiting.empty()) << "runs ended early";
}

TEST(BucketQueue, TakesWhatAScanTakesF64) {
  for (uint32_t seed : {1u, 2u, 3u})
    for (double delta : {1.0, 16.0, 2.5, 1.0e9, 1.0e-5})
      checkAgainstScan<double>(seed, delta);
}

TEST(BucketQueue, TakesWhatAScanTakesI64) {
  for (uint32_t seed : {4u, 5u})
    for (double delta : {1.0, 7.0, 300.0})
      checkAgainstScan<int64_t>(seed, delta);
}

/// Buckets of thousands of entries taken on a pool's threads (lanes, the
/// claim of a vertex's slot against its second entry in the bucket, a
/// bitmap-sorted result) take what the scan takes: wide buckets, many
/// changes a round, vertices filed again under a key they left.
TEST(BucketQueue, TakesWhatAScanTakesOnThreads) {
  for (uint32_t threads : {2u, 3u}) {
    sluice::rt::AlgoThreadPool pool(threads);
    for (uint32_t seed : {7u, 8u})
      for (double delta : {30000.0, 1.0e9})
        checkAgainstScan<double>(seed, delta, 12000, 1, 3000, 30, &pool);
    checkAgainstScan<int64_t>(9, 40000.0, 12000, 1, 3000, 30, &pool);
  }
}

/// Priorities changed without refiling (a write outside the loop): each
/// vertex is still taken once, in the bucket its priority has then (a
/// lowered one when its old bucket comes up, so not in key order).
TEST(BucketQueue, RefilesPrioritiesChangedUnseen) {
  const uint32_t n = 300;
  std::mt19937 rng(11);
  std::vector<double> p(n);
  for (double &x : p)
    x = rng() % 10000;
  const double delta = 10.0;
  BucketQueue queue(p.data(), SLUICE_ALGO_F64, delta, n);
  for (uint32_t v = 0; v < n; ++v)
    queue.file(v);
  for (uint32_t v = 0; v < n; v += 7)
    p[v] = v % 2 ? p[v] + 5000 : p[v] / 3;
  std::vector<uint32_t> taken;
  std::pmr::vector<uint32_t> got;
  for (queue.takeLowest(got); !got.empty(); queue.takeLowest(got)) {
    double key = BucketQueue::keyOf(p.data(), SLUICE_ALGO_F64, delta, got[0]);
    for (uint32_t v : got)
      EXPECT_EQ(BucketQueue::keyOf(p.data(), SLUICE_ALGO_F64, delta, v), key);
    taken.insert(taken.end(), got.begin(), got.end());
  }
  std::sort(taken.begin(), taken.end());
  ASSERT_EQ(taken.size(), n);
  for (uint32_t v = 0; v < n; ++v)
    EXPECT_EQ(taken[v], v);
  EXPECT_EQ(queue.size(), 0u);
}

/// Delta-stepping through sluice_algo_frontier_bucket as generated code
/// calls it (a serial relax): the rounds' buckets and the distances.
std::vector<double> deltaStep(sluice_algo_ctx_t *ctx, double delta,
                              int32_t consume,
                              std::vector<std::vector<uint32_t>> &rounds) {
  const sluice_algo_view_t *view = sluice_algo_view(ctx);
  std::vector<double> dist(view->num_vertices, 1e300);
  dist[0] = 0;
  sluice_frontier_t *changed = sluice_algo_frontier_new(ctx);
  sluice_algo_frontier_insert(changed, 0);
  sluice_algo_frontier_seal(changed);
  while (sluice_algo_frontier_size(changed) > 0) {
    sluice_frontier_t *out = sluice_algo_frontier_new(ctx);
    sluice_frontier_t *current = sluice_algo_frontier_bucket(
        changed, dist.data(), SLUICE_ALGO_F64, delta, out, consume);
    const uint32_t *list = sluice_algo_frontier_list(current);
    rounds.emplace_back(list, list + sluice_algo_frontier_size(current));
    for (uint32_t u : rounds.back())
      for (uint64_t e = view->out_offsets[u]; e < view->out_offsets[u + 1];
           ++e) {
        uint32_t v = view->out_targets[e];
        double d = dist[u] + view->out_weights[e];
        if (d < dist[v]) {
          dist[v] = d;
          sluice_algo_frontier_insert(out, v);
        }
      }
    sluice_algo_frontier_seal(out);
    // A queued frontier lists what the scan's frontier holds: the list
    // and bitmap agree with its size.
    if (rounds.size() % 17 == 0) {
      uint64_t size = sluice_algo_frontier_size(out);
      const uint32_t *all = sluice_algo_frontier_list(out);
      EXPECT_TRUE(std::is_sorted(all, all + size));
      const uint64_t *bits = sluice_algo_frontier_bitmap(out);
      uint64_t set = 0;
      for (uint64_t w = 0; w < (view->num_vertices + 63) / 64; ++w)
        set += __builtin_popcountll(bits[w]);
      EXPECT_EQ(set, size);
    }
    changed = out;
  }
  return dist;
}

TEST(BucketQueue, FrontierRoundsMatchTheScanAndDijkstra) {
  Graph g;
  makeRandomGraph(3000, 15000, 21, 40, 2, g);
  const sluice_algo_view_t *view = sluice_algo_view(g.ctx);
  // Dijkstra.
  std::vector<double> want(view->num_vertices, 1e300);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  want[0] = 0;
  heap.push({0.0, 0});
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > want[u])
      continue;
    for (uint64_t e = view->out_offsets[u]; e < view->out_offsets[u + 1]; ++e) {
      uint32_t v = view->out_targets[e];
      if (d + view->out_weights[e] < want[v]) {
        want[v] = d + view->out_weights[e];
        heap.push({want[v], v});
      }
    }
  }
  for (double delta : {1.0, 8.0, 1e9}) {
    std::vector<std::vector<uint32_t>> queued, scanned;
    std::vector<double> a = deltaStep(g.ctx, delta, 1, queued);
    std::vector<double> b = deltaStep(g.ctx, delta, 0, scanned);
    EXPECT_EQ(a, want) << "delta " << delta;
    EXPECT_EQ(b, want) << "delta " << delta;
    ASSERT_EQ(queued.size(), scanned.size()) << "delta " << delta;
    for (size_t r = 0; r < queued.size(); ++r)
      ASSERT_EQ(queued[r], scanned[r]) << "delta " << delta << " round " << r;
  }
}

} // namespace
