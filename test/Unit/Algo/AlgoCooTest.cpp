//===- AlgoCooTest.cpp - Push loops over edge coordinates vs references --===//
//
// `format: coo` (docs/algorithms.md, "Edges as coordinates") runs a push
// loop over its edges, each range a thread gets finding its first source
// by a binary search of the out-offsets. Checked against serial references
// written here, at serial, static and dynamic schedules and 1 and 2
// threads: PageRank within 1e-12 per vertex, integer `min=`, `max=`, `+=`,
// `-=` (one loop with a `where`) exactly, weighted `+=` and `min=` of the
// integer weights exactly; on graphs where a hub's out-edges span several
// chunks (and both threads' static shares), runs of vertices without
// out-edges sit before, between and after the edges, and ranges end inside
// a source's out-edges. A loop that
// writes at its source keeps the CSR and still counts right.
//
//===----------------------------------------------------------------------===//
#include "AlgoTestUtils.h"

namespace {

using namespace sluice::algotest;

const char *const kParallel[] = {"parallel: serial", "parallel: static",
                                 "parallel: dynamic(16)"};

/// n vertices; vertex `hub` has an out-edge to every other vertex but the
/// first `quiet` ones (more than 8,192 when n is large), the
/// vertices below `quiet` and the last `quiet` ones have no out-edges, the
/// rest random edges.
void hubGraph(uint32_t n, uint32_t hub, uint32_t quiet, uint32_t m,
              uint32_t seed, GraphHolder &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src, dst;
  std::vector<float> w;
  for (uint32_t v = quiet; v < n; ++v)
    if (v != hub) {
      src.push_back(hub);
      dst.push_back(v);
      w.push_back(float(1 + v % 7));
    }
  for (uint32_t i = 0; i < m; ++i) {
    uint32_t u = quiet + rng() % (n - 2 * quiet);
    src.push_back(u);
    dst.push_back(rng() % n);
    w.push_back(float(1 + rng() % 9));
  }
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(
                n, src.size(), src.data(), dst.data(), w.data(), nullptr,
                nullptr, SLUICE_GRAPH_LOAD_DEDUPLICATE, &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  ASSERT_EQ(sluice_graph_num_vertices(out.g), n);
}

/// The graphs of every test: random (directed, undirected), isolated
/// vertices, a hub over several blocks.
template <typename Check> void onEveryGraph(Check check) {
  for (uint32_t seed : {41u, 42u}) {
    GraphHolder g;
    randomGraph(1500, 20000, seed, seed == 42, g);
    check(g.g, "random " + std::to_string(seed));
  }
  {
    GraphHolder g;
    isolatedGraph(1001, 9000, 43, g);
    check(g.g, "isolated");
  }
  {
    GraphHolder g;
    hubGraph(12000, 7001, 300, 30000, 44, g);
    ASSERT_GT(sluice_graph_offsets(g.g)[7002] - sluice_graph_offsets(g.g)[7001],
              2u * 4096)
        << "the hub has more than 8,192 out-edges";
    check(g.g, "hub");
  }
}

TEST(AlgoCoo, PageRankMatchesReference) {
  onEveryGraph([](const sluice_graph_t *g, const std::string &what) {
    const std::vector<double> reference = referencePageRank(g, 0.85, 12);
    for (const char *parallel : kParallel) {
      Program coo;
      std::string schedule =
          std::string("direction: push, format: coo, ") + parallel;
      ASSERT_TRUE(coo.loadText(pageRank(schedule), "pagerank")) << schedule;
      for (uint32_t threads : {1u, 2u}) {
        std::vector<double> ranks = asF64(coo.run(g, threads));
        ASSERT_EQ(ranks.size(), reference.size());
        for (size_t v = 0; v < ranks.size(); ++v)
          ASSERT_NEAR(ranks[v], reference[v], 1e-12)
              << what << ": " << schedule << ", threads " << threads
              << ", vertex " << v;
      }
    }
  });
}

TEST(AlgoCoo, IntegerReductionsExact) {
  onEveryGraph([](const sluice_graph_t *g, const std::string &what) {
    const std::vector<int64_t> expected = referenceIntegers(g);
    for (const char *parallel : kParallel) {
      Program coo;
      std::string schedule =
          std::string("direction: push, format: coo, ") + parallel;
      ASSERT_TRUE(coo.loadText(integers(schedule), "ints")) << schedule;
      for (uint32_t threads : {1u, 2u})
        EXPECT_EQ(asI64(coo.run(g, threads)), expected)
            << what << ": " << schedule << ", threads " << threads;
    }
  });
}

/// The sum and the minimum of each vertex's in-edge weights (integers
/// 1..9, or 1.0 on an unweighted graph: the sum is exact in any order), as
/// sum * 100 + minimum.
std::string weights(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm wsum() on g {
  vertex total: f64 = 0.0
  vertex low: f64 = 100.0
  vertex both: f64 = 0.0
  @sum edges(src, dst, w) { total[dst] += w }
  @low edges(src, dst, w) { low[dst] min= w }
  @join vertices(v) { both[v] = total[v] * 100.0 + low[v] }
  output both
}
schedule wsum { @sum { )" +
         schedule + " }, @low { " + schedule + " } }\n";
}

TEST(AlgoCoo, WeightedSumAndMinimumExact) {
  onEveryGraph([](const sluice_graph_t *g, const std::string &what) {
    const uint64_t n = sluice_graph_num_vertices(g);
    const uint64_t *off = sluice_graph_offsets(g);
    const uint32_t *tgt = sluice_graph_targets(g);
    // Unweighted (the isolated graph): every edge reads 1.0.
    const float *w = sluice_graph_weights(g);
    std::vector<double> total(n, 0.0), low(n, 100.0), expected(n);
    for (uint64_t u = 0; u < n; ++u)
      for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
        const double we = w ? w[e] : 1.0;
        total[tgt[e]] += we;
        low[tgt[e]] = std::min(low[tgt[e]], we);
      }
    for (uint64_t v = 0; v < n; ++v)
      expected[v] = total[v] * 100.0 + low[v];
    for (const char *parallel : kParallel) {
      Program coo;
      std::string schedule =
          std::string("direction: push, format: coo, ") + parallel;
      ASSERT_TRUE(coo.loadText(weights(schedule), "wsum")) << schedule;
      for (uint32_t threads : {1u, 2u})
        EXPECT_EQ(asF64(coo.run(g, threads)), expected)
            << what << ": " << schedule << ", threads " << threads;
    }
  });
}

/// A loop that writes at its source keeps the CSR (a remark says why): the
/// out-degree counted per source is still exact.
TEST(AlgoCoo, LoopWritingItsSourceKeepsTheCsr) {
  std::string program = std::string(kHeader) + R"(
algorithm outs() on g {
  vertex count: i64 = 0
  @count edges(src, dst) { count[src] += 1 }
  output count
}
schedule outs { @count { direction: push, format: coo, parallel: dynamic(4) } }
)";
  GraphHolder g;
  hubGraph(12000, 7001, 300, 30000, 45, g);
  Program p;
  ASSERT_TRUE(p.loadText(program, "outs"));
  const uint64_t *off = sluice_graph_offsets(g.g);
  std::vector<int64_t> expected(sluice_graph_num_vertices(g.g));
  for (size_t v = 0; v < expected.size(); ++v)
    expected[v] = int64_t(off[v + 1] - off[v]);
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asI64(p.run(g.g, threads)), expected) << threads;
}

} // namespace
