//===- EdgeSetsTest.cpp - The hubs' neighbour sets against a plain scan ---===//
//
// rt::EdgeSets (runtime/src/EdgeSets.h) answers has_edge(u, v) for the
// vertices of degree kMinDegree or more; here every answer is compared with
// a linear scan of u's adjacency, on multigraphs with duplicate edges and
// self loops, for every v in range, ids out of range and UINT32_MAX; the
// memory budget picks the largest degrees first and is never exceeded.
//
//===----------------------------------------------------------------------===//
#include "WalkTestUtil.h"

#include "runtime/src/EdgeSets.h"

#include <algorithm>

using namespace sluice::walktest;
using sluice::rt::EdgeSets;

namespace {

/// Whether u -> v is an edge: a linear scan of u's adjacency.
bool scan(const sluice_graph_t *g, uint32_t u, uint32_t v) {
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tg = sluice_graph_targets(g);
  return std::find(tg + off[u], tg + off[u + 1], v) != tg + off[u + 1];
}

/// A multigraph: hub 0 linked to every vertex twice (duplicates), hub 1
/// to every third vertex, self loops on 0, 1 and 5, and a ring; kept as
/// loaded (no deduplication), directed.
GraphPtr multigraph(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t v = 0; v < n; ++v) {
    e.push_back({0, v});
    e.push_back({0, v});
    if (v % 3 == 0)
      e.push_back({1, v});
    e.push_back({v, (v + 1) % n});
  }
  e.push_back({1, 1});
  e.push_back({5, 5});
  return makeGraph(n, e);
}

void buildSets(EdgeSets &sets, const sluice_graph_t *g, uint32_t threads,
               uint64_t maxBytes) {
  sets.build(sluice_graph_num_vertices(g), sluice_graph_offsets(g),
             sluice_graph_targets(g), threads, maxBytes);
}

/// Every (u, v) with v in [0, n + 3) and UINT32_MAX: find() is -1 where u
/// has no set and the scan's answer where it has one; returns the vertices
/// with a set.
uint64_t checkAll(const sluice_graph_t *g, const EdgeSets &sets) {
  const uint32_t n = static_cast<uint32_t>(sluice_graph_num_vertices(g));
  uint64_t withSet = 0;
  for (uint32_t u = 0; u < n; ++u) {
    bool has = sets.find(u, 0) >= 0;
    withSet += has;
    if (has) {
      EXPECT_GE(sluice_graph_degree(g, u), EdgeSets::kMinDegree) << u;
    }
    for (uint32_t v = 0; v < n + 3; ++v) {
      int got = sets.find(u, v);
      int want = !has ? -1 : v < n && scan(g, u, v) ? 1 : 0;
      if (got != want) {
        ADD_FAILURE() << u << " -> " << v << ": " << got << ", want " << want;
        return withSet;
      }
    }
    if (has) {
      EXPECT_EQ(sets.find(u, UINT32_MAX), 0) << u;
    }
  }
  EXPECT_EQ(sets.find(n, 0), -1);
  EXPECT_EQ(sets.find(UINT32_MAX, 0), -1);
  return withSet;
}

TEST(EdgeSets, MultigraphDuplicatesAndSelfLoops) {
  GraphPtr g = multigraph(500);
  EdgeSets sets;
  buildSets(sets, g.get(), 1, uint64_t(1) << 30);
  // Hub 0 (1001 arcs, 500 distinct ids) and hub 1 (169) have sets.
  EXPECT_EQ(checkAll(g.get(), sets), 2u);
  EXPECT_EQ(sets.vertices(), 2u);
  EXPECT_EQ(sets.find(0, 0), 1); // self loop in the multigraph
  EXPECT_EQ(sets.find(1, 1), 1); // self loop added
  EXPECT_EQ(sets.find(1, 2), 1); // the ring
  EXPECT_EQ(sets.find(1, 4), 0);
  EXPECT_EQ(sets.edges(),
            sluice_graph_degree(g.get(), 0) + sluice_graph_degree(g.get(), 1));
  EXPECT_EQ(sluice_graph_degree(g.get(), 0), 1001u); // duplicates kept
}

TEST(EdgeSets, SkewedRandomGraphAnyThreadCount) {
  GraphPtr g = randomGraph(3000, 40000, 7);
  uint64_t hubs = 0;
  for (uint32_t u = 0; u < 3000; ++u)
    hubs += sluice_graph_degree(g.get(), u) >= EdgeSets::kMinDegree;
  ASSERT_GT(hubs, 20u);
  for (uint32_t threads : {1u, 3u}) {
    EdgeSets sets;
    buildSets(sets, g.get(), threads, uint64_t(1) << 30);
    EXPECT_EQ(checkAll(g.get(), sets), hubs) << threads;
    EXPECT_EQ(sets.vertices(), hubs);
  }
}

/// A budget for a few sets: those of the largest degrees are built, the
/// bytes stay within the budget, the others answer -1.
TEST(EdgeSets, BudgetTakesTheLargestDegreesFirst) {
  GraphPtr g = randomGraph(3000, 40000, 7);
  const uint32_t n = 3000;
  const uint64_t budget = n * sizeof(uint64_t) + 4096 * sizeof(uint32_t);
  EdgeSets sets;
  buildSets(sets, g.get(), 2, budget);
  EXPECT_LE(sets.bytes(), budget);
  ASSERT_GT(sets.vertices(), 0u);
  uint32_t top = 0;
  uint64_t withoutSet = 0;
  for (uint32_t u = 0; u < n; ++u) {
    uint64_t d = sluice_graph_degree(g.get(), u);
    if (d > sluice_graph_degree(g.get(), top))
      top = u;
    withoutSet += d >= EdgeSets::kMinDegree && sets.find(u, 0) < 0;
  }
  EXPECT_GE(sets.find(top, 0), 0) << "the largest degree comes first";
  EXPECT_GT(withoutSet, 0u);
  checkAll(g.get(), sets);
  // Too small a budget for even the index: no sets.
  EdgeSets none;
  buildSets(none, g.get(), 2, n * sizeof(uint64_t));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.find(0, 1), -1);
}

/// A graph without hubs gets no sets.
TEST(EdgeSets, NoHubsNoSets) {
  GraphPtr g = multigraph(40); // hub 0 has 80 arcs: one set
  EdgeSets one;
  buildSets(one, g.get(), 1, uint64_t(1) << 30);
  EXPECT_EQ(one.vertices(), 1u);
  GraphPtr r = randomGraph(100, 200, 3);
  EdgeSets sets;
  buildSets(sets, r.get(), 1, uint64_t(1) << 30);
  EXPECT_TRUE(sets.empty());
  EXPECT_EQ(sets.bytes(), 0u);
}

} // namespace
