//===- FrontierTest.cpp - Frontier storage, release and direction choice --===//
//
// Through the C API of sluice/algo.h: frontiers past their list's room
// (a 64th of the vertices) kept as bitmaps and listed from them, released
// frontiers' buffers reused cleared, a frontier's first vertex
// (sluice_algo_frontier_any), the direction-optimising choice of
// sluice_algo_frontier_pull_next against Beamer's rules computed by hand,
// and the thread pool's shares under many back-to-back passes.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <vector>

namespace {

using sluice::algotest::Graph;
using sluice::algotest::makeGraphFromEdges;

/// The graph of `edges` on `n` vertices, with a context of `threads`.
void makeGraph(uint32_t n,
               const std::vector<std::pair<uint32_t, uint32_t>> &edges,
               uint32_t threads, Graph &out) {
  std::vector<uint32_t> src, dst;
  for (auto [u, v] : edges) {
    src.push_back(u);
    dst.push_back(v);
  }
  makeGraphFromEdges(n, src, dst, nullptr, 0, threads, out);
}

struct InsertEnv {
  sluice_frontier_t *f;
  std::vector<uint32_t> vertices;
};

void insertAll(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  auto *e = static_cast<InsertEnv *>(env);
  for (uint64_t i = begin; i < end; ++i)
    sluice_algo_frontier_insert(e->f, e->vertices[i]);
}

/// A frontier of `vertices` (any order, repeats allowed) by concurrent
/// inserts, sealed.
sluice_frontier_t *frontierOf(sluice_algo_ctx_t *ctx,
                              std::vector<uint32_t> vertices) {
  InsertEnv env{sluice_algo_frontier_new(ctx), std::move(vertices)};
  sluice_algo_parallel_for(ctx, env.vertices.size(), SLUICE_ALGO_DYNAMIC, 3,
                           insertAll, &env);
  sluice_algo_frontier_seal(env.f);
  return env.f;
}

/// The members of `f`'s bitmap.
std::vector<uint32_t> bitmapMembers(sluice_frontier_t *f, uint32_t n) {
  const uint64_t *bits = sluice_algo_frontier_bitmap(f);
  std::vector<uint32_t> members;
  for (uint32_t v = 0; v < n; ++v)
    if ((bits[v / 64] >> (v % 64)) & 1)
      members.push_back(v);
  return members;
}

TEST(AlgoFrontier, DenseAndSparseFrontiersListTheSameSortedSet) {
  // 6400 vertices: a list has room for 100.
  const uint32_t n = 6400;
  Graph g;
  makeGraph(n, {{0, 1}}, 4, g);
  std::mt19937 rng(11);
  for (uint32_t size : {1u, 99u, 100u, 101u, 3000u, n}) {
    // `size` distinct vertices, shuffled, each inserted twice.
    std::vector<uint32_t> all(n);
    for (uint32_t v = 0; v < n; ++v)
      all[v] = v;
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<uint32_t> chosen(all.begin(), all.begin() + size);
    std::vector<uint32_t> twice = chosen;
    twice.insert(twice.end(), chosen.begin(), chosen.end());
    std::sort(chosen.begin(), chosen.end());
    sluice_frontier_t *f = frontierOf(g.ctx, twice);
    ASSERT_EQ(sluice_algo_frontier_size(f), size);
    // More than a 20th of the vertices is dense; fewer are weighed by
    // their out-edges (a dense frontier's list is built for that): the
    // graph's one edge leaves vertex 0.
    bool hasEdge = std::binary_search(chosen.begin(), chosen.end(), 0u);
    EXPECT_EQ(sluice_algo_frontier_prefers_dense(f),
              size * 20 > n || hasEdge ? 1 : 0)
        << size;
    // The bitmap first (a dense frontier's only storage), then the list.
    EXPECT_EQ(bitmapMembers(f, n), chosen) << size;
    const uint32_t *list = sluice_algo_frontier_list(f);
    EXPECT_EQ(std::vector<uint32_t>(list, list + size), chosen) << size;
  }
}

TEST(AlgoFrontier, DirectBitsAndInsertsSealToOneSortedSet) {
  // What a compiled pull pass does: most vertices set in the bitmap a word
  // at a time (sluice_algo_frontier_direct_bits), some inserted through
  // the call (another binder's vertex), some both; the sealed frontier
  // counts and lists their union, sparse or dense, and its buffers come
  // back cleared.
  const uint32_t n = 6400;
  Graph g;
  makeGraph(n, {{0, 1}}, 2, g);
  std::mt19937 rng(5);
  for (uint32_t size : {0u, 1u, 63u, 99u, 100u, 101u, 2000u, n}) {
    std::vector<uint32_t> all(n);
    for (uint32_t v = 0; v < n; ++v)
      all[v] = v;
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<uint32_t> chosen(all.begin(), all.begin() + size);
    sluice_frontier_t *f = sluice_algo_frontier_new(g.ctx);
    uint64_t *bits = sluice_algo_frontier_direct_bits(f);
    ASSERT_NE(bits, nullptr);
    for (size_t i = 0; i < chosen.size(); ++i) {
      uint32_t v = chosen[i];
      if (i % 3 != 0)
        __atomic_fetch_or(&bits[v / 64], uint64_t(1) << (v % 64),
                          __ATOMIC_RELAXED);
      if (i % 3 != 1)
        sluice_algo_frontier_insert(f, v);
    }
    sluice_algo_frontier_seal(f);
    std::sort(chosen.begin(), chosen.end());
    ASSERT_EQ(sluice_algo_frontier_size(f), size);
    // Its first vertex, from the list (sparse) or the bitmap (dense, not
    // listed yet); 0 when empty.
    EXPECT_EQ(sluice_algo_frontier_any(f), size ? chosen.front() : 0u) << size;
    EXPECT_EQ(bitmapMembers(f, n), chosen) << size;
    const uint32_t *list = sluice_algo_frontier_list(f);
    if (size) {
      EXPECT_EQ(std::vector<uint32_t>(list, list + size), chosen) << size;
    }
    // A sealed frontier takes no more direct bits.
    EXPECT_EQ(sluice_algo_frontier_direct_bits(f), nullptr);
    sluice_algo_frontier_release(f);
    sluice_frontier_t *next = frontierOf(g.ctx, {3, 4000});
    EXPECT_EQ(sluice_algo_frontier_size(next), 2u);
    EXPECT_EQ(bitmapMembers(next, n), (std::vector<uint32_t>{3, 4000}));
    sluice_algo_frontier_release(next);
  }
}

TEST(AlgoFrontier, ReleasedFrontiersGiveBackClearedBuffers) {
  const uint32_t n = 6400;
  Graph g;
  makeGraph(n, {{0, 1}}, 2, g);
  // A dense frontier (its list never built) and a sparse one, released;
  // the frontiers made after them reuse their buffers and start empty.
  std::vector<uint32_t> evens, few{5, 64, 6399};
  for (uint32_t v = 0; v < n; v += 2)
    evens.push_back(v);
  for (const std::vector<uint32_t> &vertices : {evens, few}) {
    sluice_frontier_t *f = frontierOf(g.ctx, vertices);
    sluice_algo_frontier_release(f);
    EXPECT_EQ(sluice_algo_frontier_size(f), 0u);
    sluice_frontier_t *next = frontierOf(g.ctx, {7, 5});
    EXPECT_EQ(bitmapMembers(next, n), (std::vector<uint32_t>{5, 7}));
    const uint32_t *list = sluice_algo_frontier_list(next);
    EXPECT_EQ(std::vector<uint32_t>(list, list + 2),
              (std::vector<uint32_t>{5, 7}));
    // Every vertex is new to a frontier made after the release.
    sluice_frontier_t *fresh = sluice_algo_frontier_new(g.ctx);
    for (uint32_t v : vertices)
      ASSERT_EQ(sluice_algo_frontier_insert(fresh, v), 1) << v;
    sluice_algo_frontier_seal(fresh);
    EXPECT_EQ(bitmapMembers(fresh, n), vertices);
    sluice_algo_frontier_release(fresh);
    sluice_algo_frontier_release(next);
  }
}

TEST(AlgoFrontier, ReleasedHandlesServeOneLaterFrontierEach) {
  const uint32_t n = 640;
  Graph g;
  makeGraph(n, {{0, 1}}, 2, g);
  // Released twice (the second does nothing), then two frontiers: the
  // first reuses the handle, made anew (unsealed, empty, every vertex new
  // to it), the second is another; each holds what was inserted into it.
  sluice_frontier_t *f = frontierOf(g.ctx, {1, 2, 3});
  sluice_algo_frontier_release(f);
  sluice_algo_frontier_release(f);
  EXPECT_EQ(sluice_algo_frontier_size(f), 0u);
  sluice_frontier_t *a = sluice_algo_frontier_new(g.ctx);
  sluice_frontier_t *b = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(a, f);
  EXPECT_NE(a, b);
  for (uint32_t v : {3u, 600u, 2u})
    EXPECT_EQ(sluice_algo_frontier_insert(a, v), 1) << v;
  EXPECT_EQ(sluice_algo_frontier_insert(b, 9), 1);
  sluice_algo_frontier_seal(a);
  sluice_algo_frontier_seal(b);
  EXPECT_EQ(bitmapMembers(a, n), (std::vector<uint32_t>{2, 3, 600}));
  EXPECT_EQ(bitmapMembers(b, n), (std::vector<uint32_t>{9}));
  // The frontier of every vertex takes a released handle too.
  sluice_algo_frontier_release(b);
  sluice_frontier_t *all = sluice_algo_frontier_all(g.ctx);
  EXPECT_EQ(all, b);
  EXPECT_EQ(sluice_algo_frontier_size(all), n);
  EXPECT_EQ(sluice_algo_frontier_any(all), 0u);
  // A frontier of one vertex, sparse: that vertex.
  EXPECT_EQ(sluice_algo_frontier_any(frontierOf(g.ctx, {601})), 601u);
}

TEST(AlgoFrontier, PullNextFollowsBeamersAlphaAndBeta) {
  // 360 vertices; vertex v < 20 has out-degree 10 * (v + 1), the others
  // one edge each: m = 10 * 210 + 340 = 2440 edges.
  const uint32_t n = 360;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t v = 0; v < 20; ++v)
    for (uint32_t k = 0; k < 10 * (v + 1); ++k)
      edges.push_back({v, 20 + k});
  for (uint32_t v = 20; v < n; ++v)
    edges.push_back({v, v == n - 1 ? 0 : v + 1});
  Graph g;
  makeGraph(n, edges, 2, g);
  const double alpha = 15, beta = 18;
  ASSERT_EQ(sluice_algo_view(g.ctx)->num_edges, 2440u);
  // [0]: 10 out-edges, at most 2440 / 15: push; 2430 edges left.
  sluice_frontier_t *f0 = frontierOf(g.ctx, {0});
  sluice_frontier_t *f1 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f0, f1, alpha, beta), 0);
  // f1 = [1, 2]: 20 + 30 = 50 out-edges, at most 2430 / 15 = 162: push;
  // 2380 left.
  for (uint32_t v : {1u, 2u})
    sluice_algo_frontier_insert(f1, v);
  sluice_algo_frontier_seal(f1);
  sluice_frontier_t *f2 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f1, f2, alpha, beta), 0);
  // f2 = [15]: 160 out-edges, at most 2380 / 15 = 158.7: pull.
  sluice_algo_frontier_insert(f2, 15);
  sluice_algo_frontier_seal(f2);
  sluice_frontier_t *f3 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f2, f3, alpha, beta), 1);
  // Pulling: f3 of 1 vertex (as large as f2): pull on.
  sluice_algo_frontier_insert(f3, 300);
  sluice_algo_frontier_seal(f3);
  sluice_frontier_t *f4 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f3, f4, alpha, beta), 1);
  // f4 of 30 vertices, more than 360 / 18 = 20: pull on.
  for (uint32_t v = 100; v < 130; ++v)
    sluice_algo_frontier_insert(f4, v);
  sluice_algo_frontier_seal(f4);
  sluice_frontier_t *f5 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f4, f5, alpha, beta), 1);
  // f5 of 20 vertices: shrinking, and not more than 20: push again.
  for (uint32_t v = 200; v < 220; ++v)
    sluice_algo_frontier_insert(f5, v);
  sluice_algo_frontier_seal(f5);
  sluice_frontier_t *f6 = sluice_algo_frontier_new(g.ctx);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f5, f6, alpha, beta), 0);
  // f6 = [19]: 200 out-edges against the 2380 left (pull rounds scan
  // none): 200 > 158.7, pull.
  sluice_algo_frontier_insert(f6, 19);
  sluice_algo_frontier_seal(f6);
  EXPECT_EQ(sluice_algo_frontier_pull_next(f6, nullptr, alpha, beta), 1);
  // A frontier no round built pushes while its out-edges are few (110 of
  // 2440); the frontier of every vertex pulls.
  EXPECT_EQ(sluice_algo_frontier_pull_next(frontierOf(g.ctx, {10}), nullptr,
                                           alpha, beta),
            0);
  // Frontiers of 6 vertices (a 64th of 360 rounded up) are kept as bitmaps
  // and weighed from them: 10 + 20 + ... + 60 = 210 out-edges pull, six
  // vertices of one out-edge each push.
  EXPECT_EQ(sluice_algo_frontier_pull_next(
                frontierOf(g.ctx, {5, 4, 3, 2, 1, 0}), nullptr, alpha, beta),
            1);
  EXPECT_EQ(
      sluice_algo_frontier_pull_next(
          frontierOf(g.ctx, {20, 21, 22, 23, 24, 25}), nullptr, alpha, beta),
      0);
  EXPECT_EQ(sluice_algo_frontier_pull_next(sluice_algo_frontier_all(g.ctx),
                                           nullptr, alpha, beta),
            1);
}

void countVisits(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  auto *visits = static_cast<std::vector<std::atomic<int>> *>(env);
  for (uint64_t i = begin; i < end; ++i)
    (*visits)[i].fetch_add(1, std::memory_order_relaxed);
}

TEST(AlgoFrontier, BackToBackPassesRunEveryShareOnce) {
  // Many short passes: workers that wake late find the shares taken; no
  // share runs twice or never.
  Graph g;
  makeGraph(10, {{0, 1}}, 4, g);
  for (int32_t schedule : {SLUICE_ALGO_STATIC, SLUICE_ALGO_DYNAMIC}) {
    std::vector<std::atomic<int>> visits(300);
    for (int pass = 0; pass < 2000; ++pass)
      sluice_algo_parallel_for(g.ctx, visits.size(), schedule, 16, countVisits,
                               &visits);
    for (size_t i = 0; i < visits.size(); ++i)
      ASSERT_EQ(visits[i].load(), 2000) << i << " schedule " << schedule;
  }
}

} // namespace
