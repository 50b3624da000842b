//===- AlgoReferenceTest.cpp - compiled algorithms vs serial references ---===//
//
// The path of `sluicec --run` (parse, check, lower, graph-to-llvm, JIT,
// sluice/algo.h) against independent serial implementations: BFS by a
// queue, SSSP by Dijkstra, PageRank by the textbook pull loop. GraphIt
// style, each algorithm runs under many schedules (push, pull, hybrid;
// sparse, dense and auto frontiers; serial, static and dynamic) and at 1
// and 2 threads, on seeded random graphs and on the shared real graphs
// with the examples' own files. BFS depths and SSSP distances (integer
// weights; delta-stepping's ordered frontier included) and connected
// components (label propagation, Shiloach-Vishkin, Afforest-like; against
// union-find) must be equal; PageRank within 1e-9 in L1.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/Algo/AlgoTestUtils.h"

#include <fstream>
#include <queue>
#include <set>
#include <sstream>

using namespace mlir;
using namespace sluice;
using namespace sluice::algotest;

namespace {

std::vector<int64_t> referenceBfs(const sluice_graph_t *g, uint32_t s) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<int64_t> depth(n, -1);
  std::queue<uint32_t> q;
  depth[s] = 0;
  q.push(s);
  while (!q.empty()) {
    uint32_t u = q.front();
    q.pop();
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      if (depth[tgt[e]] < 0) {
        depth[tgt[e]] = depth[u] + 1;
        q.push(tgt[e]);
      }
  }
  return depth;
}

std::vector<double> referenceSssp(const sluice_graph_t *g, uint32_t s,
                                  double unreached) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  const float *w = sluice_graph_weights(g);
  std::vector<double> dist(n, unreached);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[s] = 0;
  heap.push({0.0, s});
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[u])
      continue;
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      double nd = d + (w ? double(w[e]) : 1.0);
      if (nd < dist[tgt[e]]) {
        dist[tgt[e]] = nd;
        heap.push({nd, tgt[e]});
      }
    }
  }
  return dist;
}

std::string bfsProgram(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm bfs(source: i64 = 0) on g {
  vertex depth: i64 = -1
  depth[source] = 0
  frontier active = [source]
  while size(active) > 0 {
    @expand active = edges(src, dst) from active where depth[dst] == -1 {
      depth[dst] = depth[src] + 1
    }
  }
  output depth
}
schedule bfs { @expand { )" + schedule + " } }\n";
}

std::string ssspProgram(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm sssp(source: i64 = 0) on g {
  vertex dist: f64 = 1.0e300
  dist[source] = 0.0
  frontier changed = [source]
  while size(changed) > 0 {
    @relax changed = edges(u, v, w) from changed {
      dist[v] min= dist[u] + w
    }
  }
  output dist
}
schedule sssp { @relax { )" + schedule + " } }\n";
}

class BfsSchedules : public ::testing::TestWithParam<const char *> {};
class SsspSchedules : public ::testing::TestWithParam<const char *> {};
class PageRankSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(BfsSchedules, DepthsEqualTheReference) {
  Program p;
  ASSERT_TRUE(p.loadText(bfsProgram(GetParam()), "bfs"));
  for (uint32_t seed : {1u, 2u, 3u}) {
    GraphHolder g;
    randomGraph(2000, seed == 3 ? 30000 : 3000, seed, seed == 2, g);
    for (uint32_t threads : {1u, 2u, 4u}) {
      auto got = asI64(p.run(g.g, threads, seed));
      EXPECT_EQ(got, referenceBfs(g.g, seed))
          << GetParam() << " seed " << seed << " threads " << threads;
    }
  }
}

TEST_P(SsspSchedules, DistancesEqualDijkstra) {
  Program p;
  ASSERT_TRUE(p.loadText(ssspProgram(GetParam()), "sssp"));
  for (uint32_t seed : {4u, 5u}) {
    GraphHolder g;
    randomGraph(1500, 12000, seed, seed == 5, g);
    for (uint32_t threads : {1u, 2u}) {
      auto got = asF64(p.run(g.g, threads, 7));
      EXPECT_EQ(got, referenceSssp(g.g, 7, 1e300))
          << GetParam() << " seed " << seed << " threads " << threads;
    }
  }
}

/// Delta-stepping files a round's inserts into the bins on graphs of at
/// most 2^19 vertices and into the bitmap and list above
/// (BucketBins::kBinnedVertices, BucketQueue.cpp): both sides of the gate
/// against Dijkstra, fused and not.
TEST(SsspLarge, DeltaSteppingOnBothSidesOfTheBinnedSize) {
  for (const char *schedule :
       {"frontier: buckets(4.5), parallel: dynamic(64)",
        "frontier: buckets(2), parallel: static, fusion: off"}) {
    Program p;
    ASSERT_TRUE(p.loadText(ssspProgram(schedule), "sssp"));
    for (uint32_t n : {uint32_t(1) << 19, (uint32_t(1) << 19) + 1}) {
      GraphHolder g;
      randomGraph(n, 3 * n, 11, true, g);
      auto got = asF64(p.run(g.g, 2, 5));
      EXPECT_EQ(got, referenceSssp(g.g, 5, 1e300))
          << schedule << ", " << n << " vertices";
    }
  }
}

TEST_P(PageRankSchedules, RanksWithin1e9OfTheReference) {
  Program p;
  ASSERT_TRUE(p.loadText(pageRank(GetParam(), 20), "pagerank"));
  GraphHolder g;
  randomGraph(3000, 40000, 6, false, g);
  auto reference = referencePageRank(g.g, 0.85, 20);
  for (uint32_t threads : {1u, 2u}) {
    auto got = asF64(p.run(g.g, threads));
    ASSERT_EQ(got.size(), reference.size());
    EXPECT_LT(l1(got, reference), 1e-9) << GetParam() << " threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, BfsSchedules,
    ::testing::Values(
        "direction: push, frontier: sparse, parallel: serial",
        "direction: push, frontier: sparse, parallel: dynamic(8)",
        "direction: push, frontier: dense, parallel: static",
        "direction: push, frontier: auto, parallel: dynamic(64)",
        "direction: pull, parallel: static",
        "direction: hybrid, frontier: auto, parallel: dynamic(32)",
        // Beamer's thresholds from the schedule: pull from
        // the second round on and never back; push always.
        "direction: hybrid(1.0e9, 1.0e9), parallel: static",
        "direction: hybrid(0.001, 2), parallel: dynamic(8)"));
INSTANTIATE_TEST_SUITE_P(
    Schedules, SsspSchedules,
    ::testing::Values(
        "direction: push, frontier: sparse, parallel: dynamic(16)",
        "direction: push, frontier: bitmap, parallel: static",
        "direction: pull, parallel: dynamic(4)",
        "direction: hybrid, parallel: static",
        "direction: hybrid(1.0e9, 1.0e9), parallel: static",
        // Delta-stepping: narrow, middling and wide buckets
        // (weights are 1..9).
        "direction: push, frontier: buckets(1), parallel: static",
        "frontier: buckets(4.5), parallel: dynamic(8)",
        "frontier: buckets(4.5), parallel: dynamic(8), fusion: off",
        "frontier: buckets(1), parallel: static, fusion: auto",
        "frontier: buckets(1000.0), parallel: serial"));
INSTANTIATE_TEST_SUITE_P(
    Schedules, PageRankSchedules,
    ::testing::Values("direction: pull, parallel: dynamic(64)",
                      "direction: push, parallel: static",
                      "direction: push, parallel: serial",
                      "direction: hybrid, parallel: dynamic(1)"));

/// The smallest original id in each vertex's component, by union-find.
std::vector<int64_t> referenceComponents(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<uint32_t> parent(n);
  for (uint32_t v = 0; v < n; ++v)
    parent[v] = v;
  auto find = [&](uint32_t v) {
    while (parent[v] != v)
      v = parent[v] = parent[parent[v]];
    return v;
  };
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      uint32_t a = find(u), b = find(tgt[e]);
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<int64_t> smallest(n, INT64_MAX), out(n);
  for (uint32_t v = 0; v < n; ++v)
    smallest[find(v)] = std::min<int64_t>(
        smallest[find(v)], int64_t(sluice_graph_original_id(g, v)));
  for (uint32_t v = 0; v < n; ++v)
    out[v] = smallest[find(v)];
  return out;
}

class CcSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(CcSchedules, ComponentsEqualUnionFind) {
  Program p;
  ASSERT_TRUE(p.loadText(std::string(kHeader) + R"(
algorithm cc() on g {
  vertex comp: i64 = 0
  @init vertices(v) { comp[v] = id(v) }
  frontier changed = all
  while size(changed) > 0 {
    @spread changed = edges(u, v) from changed { comp[v] min= comp[u] }
  }
  output comp
}
schedule cc { @spread { )" + std::string(GetParam()) + " } }\n",
                         "cc"));
  for (uint32_t seed : {8u, 9u}) {
    GraphHolder g;
    randomGraph(3000, seed == 8 ? 1200 : 2500, seed, /*undirected=*/true, g);
    auto reference = referenceComponents(g.g);
    std::set<int64_t> components(reference.begin(), reference.end());
    EXPECT_GT(components.size(), 100u); // many components to get right
    for (uint32_t threads : {1u, 2u})
      EXPECT_EQ(asI64(p.run(g.g, threads)), reference)
          << GetParam() << " seed " << seed << " threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CcSchedules,
    ::testing::Values("direction: push, frontier: auto, parallel: dynamic(64)",
                      "direction: push, frontier: sparse, parallel: static",
                      "direction: pull, parallel: dynamic(16)",
                      "direction: hybrid, parallel: static"));

TEST(AlgoExamples, ConnectedComponentsOnEmailEuCore) {
  // cc.sluice's algorithm on a graph with several components.
  GraphHolder g;
  if (!loadShared("email-Eu-core.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/cc.sluice",
                     "cc"));
  auto reference = referenceComponents(g.g);
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asI64(p.run(g.g, threads)), reference) << threads;
}

/// Connected components of an example under the schedules `schedules`,
/// against union-find on seeded random graphs at `threads` (and
/// `directed`: one whose weakly connected components it must find too).
void checkComponents(const std::string &file, const char *schedule,
                     bool directed,
                     std::initializer_list<uint32_t> threadCounts = {1u, 2u}) {
  Program p;
  ASSERT_TRUE(p.loadText(std::string(kHeader) + exampleAlgorithm(file) +
                             "schedule cc { " + schedule + " }\n",
                         "cc"));
  for (uint32_t seed : {8u, 9u, 10u}) {
    GraphHolder g;
    bool undirected = seed != 10 || !directed;
    randomGraph(3000, seed == 8 ? 1200 : 2500, seed, undirected, g);
    auto reference = referenceComponents(g.g);
    std::set<int64_t> components(reference.begin(), reference.end());
    EXPECT_GT(components.size(), 100u); // many components to get right
    for (uint32_t threads : threadCounts)
      EXPECT_EQ(asI64(p.run(g.g, threads)), reference)
          << file << " " << schedule << " seed " << seed << " threads "
          << threads;
  }
}

/// cc-sv.sluice (Shiloach-Vishkin: `min=` into `comp[comp[u]]`, a vertex
/// property without an initial value, pointer jumping).
class CcSvSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(CcSvSchedules, ComponentsEqualUnionFind) {
  checkComponents("cc-sv.sluice", GetParam(), /*directed=*/true);
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CcSvSchedules,
    ::testing::Values(
        "@hook { direction: push, parallel: dynamic(64) }, @jump { parallel: "
        "static }",
        "@hook { direction: pull, parallel: static }, @jump { parallel: "
        "dynamic(16) }",
        "@hook { direction: push, parallel: serial }, @jump { parallel: "
        "serial }",
        "@hook { direction: hybrid, parallel: dynamic(1) }"));

/// cc-afforest.sluice (union-find links with compare_swap along two sampled
/// edges per vertex, then one sweep skipping the largest component;
/// symmetric graphs only), at 1, 2 and 4 threads: the links race.
class CcAfforestSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(CcAfforestSchedules, ComponentsEqualUnionFind) {
  checkComponents("cc-afforest.sluice", GetParam(), /*directed=*/false,
                  {1u, 2u, 4u});
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CcAfforestSchedules,
    ::testing::Values("@sample { direction: pull, parallel: dynamic(256) }, "
                      "@link { direction: pull, parallel: dynamic(256) }",
                      "@sample { direction: pull, parallel: static }, @link "
                      "{ direction: pull, parallel: serial }, @compress { "
                      "parallel: dynamic(8) }",
                      // Small chunks: more links race for one root.
                      "@sample { direction: pull, parallel: dynamic(1) }, "
                      "@link { direction: pull, parallel: dynamic(1) }, "
                      "@flatten { parallel: dynamic(1) }"));

TEST(AlgoExamples, FasterComponentsOnSharedGraphs) {
  // cc-sv.sluice and cc-afforest.sluice on graphs with one component
  // (facebook), several (email-Eu-core, luxembourg_osm: ids from 1), and,
  // for cc-sv, a directed one (its weakly connected components).
  struct Case {
    const char *file;
    sluice_graph_format_t format;
    uint32_t flags;
  } cases[] = {
      {"facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
       SLUICE_GRAPH_LOAD_UNDIRECTED},
      {"email-Eu-core.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
       SLUICE_GRAPH_LOAD_UNDIRECTED},
      {"luxembourg_osm.el.gz", SLUICE_GRAPH_FORMAT_SNAP,
       SLUICE_GRAPH_LOAD_UNDIRECTED},
      {"soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 0},
  };
  for (const char *example : {"cc-sv.sluice", "cc-afforest.sluice"}) {
    Program p;
    ASSERT_TRUE(p.load(
        std::string(SLUICE_EXAMPLES_DIR) + "/algorithms/" + example, "cc"));
    for (const Case &c : cases) {
      bool symmetric = c.flags & SLUICE_GRAPH_LOAD_UNDIRECTED;
      if (!symmetric && std::string(example) == "cc-afforest.sluice")
        continue;
      GraphHolder g;
      if (!loadShared(c.file, c.format, c.flags, g))
        GTEST_SKIP() << "shared data not found";
      auto reference = referenceComponents(g.g);
      for (uint32_t threads : {1u, 2u, 4u})
        EXPECT_EQ(asI64(p.run(g.g, threads)), reference)
            << example << " " << c.file << " " << threads;
    }
  }
}

/// has_edge and weight(u, v), answered by the runtime, against the graph's
/// arrays: per vertex, its reciprocated out-edges and their weights.
TEST(AlgoQueries, HasEdgeAndWeightMatchTheGraph) {
  Program p;
  ASSERT_TRUE(p.loadText(std::string(kHeader) + R"(
algorithm recip() on g {
  vertex back: f64 = 0.0
  @count edges(u, v) where has_edge(v, u) { back[u] += weight(v, u) }
  output back
}
schedule recip { @count { direction: push, parallel: dynamic(16) } }
)",
                         "recip"));
  GraphHolder g;
  randomGraph(500, 6000, 11, false, g);
  uint64_t n = sluice_graph_num_vertices(g.g);
  const uint64_t *off = sluice_graph_offsets(g.g);
  const uint32_t *tgt = sluice_graph_targets(g.g);
  const float *w = sluice_graph_weights(g.g);
  std::vector<double> reference(n, 0.0);
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      for (uint64_t f = off[tgt[e]]; f < off[tgt[e] + 1]; ++f)
        if (tgt[f] == u)
          reference[u] += w[f];
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asF64(p.run(g.g, threads)), reference) << threads;
}

TEST(AlgoExamples, BfsOnFacebook) {
  GraphHolder g;
  if (!loadShared("facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/bfs.sluice",
                     "bfs"));
  auto reference = referenceBfs(g.g, sluice_graph_vertex_of(g.g, 0));
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asI64(p.run(g.g, threads)), reference) << threads;
}

TEST(AlgoExamples, SsspOnLuxembourgRoads) {
  GraphHolder g;
  if (!loadShared("luxembourg_osm.el.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/sssp.sluice",
                     "sssp"));
  auto reference = referenceSssp(g.g, sluice_graph_vertex_of(g.g, 1), 1e300);
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asF64(p.run(g.g, threads)), reference) << threads;
}

TEST(AlgoExamples, PageRankOnSlashdot) {
  GraphHolder g;
  if (!loadShared("soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 0, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/pagerank.sluice",
                     "pagerank"));
  auto reference = referencePageRank(g.g, 0.85, 20);
  for (uint32_t threads : {1u, 2u})
    EXPECT_LT(l1(asF64(p.run(g.g, threads)), reference), 1e-9) << threads;
}

} // namespace
