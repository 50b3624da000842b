//===- AlgoCentralityTest.cpp - betweenness centrality vs Brandes ---------===//
//
// examples/algorithms/bc.sluice (Brandes' dependencies from one source,
// written level by level) compiled as `sluicec --run` compiles it, under
// several schedules, at 1 and 2 threads, against the textbook algorithm
// (Brandes 2001: a queue BFS recording each vertex's predecessors, then
// the vertices in the reverse order of their discovery), on seeded random
// graphs (directed and undirected) and on email-Eu-core and ego-Facebook.
// Every dependency within 1e-9 relative.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/Algo/AlgoTestUtils.h"

#include <algorithm>

using namespace mlir;
using namespace sluice;
using namespace sluice::algotest;

namespace {

/// Brandes' dependencies delta[v] of source `s`: for every vertex t
/// reached from `s`, the fraction of the shortest s-t paths through v,
/// summed (at `s` itself: the number of vertices reached, but `s`).
std::vector<double> referenceBrandes(const sluice_graph_t *g, uint32_t s) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<int64_t> dist(n, -1);
  std::vector<double> sigma(n, 0.0), delta(n, 0.0);
  std::vector<std::vector<uint32_t>> predecessors(n);
  std::vector<uint32_t> order; // discovery order: a queue, then a stack
  dist[s] = 0;
  sigma[s] = 1.0;
  order.push_back(s);
  for (size_t head = 0; head < order.size(); ++head) {
    uint32_t v = order[head];
    for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
      uint32_t w = tgt[e];
      if (dist[w] < 0) {
        dist[w] = dist[v] + 1;
        order.push_back(w);
      }
      if (dist[w] == dist[v] + 1) {
        sigma[w] += sigma[v];
        predecessors[w].push_back(v);
      }
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (uint32_t v : predecessors[*it])
      delta[v] += sigma[v] / sigma[*it] * (1.0 + delta[*it]);
  return delta;
}

/// Every entry of `got` within 1e-9 of `want`'s, relative (exact where it
/// is 0: unreached vertices and leaves of the BFS tree).
void expectClose(const std::vector<double> &got,
                 const std::vector<double> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0, nonzero = 0;
  for (size_t v = 0; v < want.size(); ++v) {
    nonzero += want[v] != 0.0;
    if (std::fabs(got[v] - want[v]) > 1e-9 * std::fabs(want[v]) && bad++ < 5)
      ADD_FAILURE() << what << ": vertex " << v << " got " << got[v]
                    << ", Brandes gives " << want[v];
  }
  EXPECT_EQ(bad, 0u) << what;
  EXPECT_GT(nonzero, want.size() / 20) << what; // the test has teeth
}

/// bc.sluice's algorithm under `schedule` on graph `g`.
std::string bcProgram(const std::string &schedule) {
  return std::string(kHeader) + exampleAlgorithm("bc.sluice") +
         "schedule bc { " + schedule + " }\n";
}

class BcSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(BcSchedules, DependenciesEqualBrandes) {
  Program p;
  ASSERT_TRUE(p.loadText(bcProgram(GetParam()), "bc"));
  // Undirected and directed, sparse (many levels, few paths each) and
  // denser (few levels, many shortest paths per vertex).
  struct Case {
    uint32_t n, m, seed;
    bool undirected;
  } cases[] = {{2000, 5000, 11, true},
               {2000, 6000, 12, false},
               {1500, 30000, 13, true},
               {3000, 9000, 14, false}};
  for (const Case &c : cases) {
    GraphHolder g;
    randomGraph(c.n, c.m, c.seed, c.undirected, g);
    for (uint32_t source : {0u, 7u}) {
      auto reference = referenceBrandes(g.g, source);
      for (uint32_t threads : {1u, 2u})
        expectClose(asF64(p.run(g.g, threads, source)), reference,
                    std::string(GetParam()) + " seed " +
                        std::to_string(c.seed) + " source " +
                        std::to_string(source) + " threads " +
                        std::to_string(threads));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, BcSchedules,
    ::testing::Values(
        // The example's own schedule.
        "@expand { direction: push, frontier: auto, parallel: dynamic(64) }, "
        "@count { direction: push, frontier: auto, parallel: dynamic(64) }, "
        "@coef { parallel: static }, "
        "@accumulate { direction: push, parallel: dynamic(64) }",
        // Everything in order on one thread.
        "parallel: serial",
        // Sparse and dense frontiers, small chunks.
        "@expand { frontier: sparse, parallel: dynamic(2) }, "
        "@count { frontier: dense, parallel: static }, "
        "@accumulate { parallel: dynamic(1) }",
        // Pull: the BFS bottom-up, the path counts at the destination,
        // the dependencies through atomics at the source.
        "@expand { direction: hybrid, parallel: dynamic(8) }, "
        "@count { direction: pull, parallel: static }, "
        "@accumulate { direction: pull, parallel: dynamic(16) }"));

/// Original id -> dense index, for a source given by its original id.
uint32_t vertexOf(const sluice_graph_t *g, uint64_t id) {
  uint64_t n = sluice_graph_num_vertices(g);
  for (uint32_t v = 0; v < n; ++v)
    if (sluice_graph_original_id(g, v) == id)
      return v;
  ADD_FAILURE() << "vertex " << id << " is not in the graph";
  return 0;
}

TEST(AlgoExamples, BetweennessOnSharedGraphs) {
  // bc.sluice itself (its schedule) on ego-Facebook, the graph it names,
  // and on email-Eu-core (several components, a directed version too).
  struct Case {
    const char *file;
    uint32_t flags;
    uint64_t source;
  } cases[] = {
      {"facebook_combined.txt.gz", SLUICE_GRAPH_LOAD_UNDIRECTED, 0},
      {"facebook_combined.txt.gz", SLUICE_GRAPH_LOAD_UNDIRECTED, 1912},
      {"email-Eu-core.txt.gz", SLUICE_GRAPH_LOAD_UNDIRECTED, 0},
      {"email-Eu-core.txt.gz", 0, 160},
  };
  Program p;
  ASSERT_TRUE(
      p.load(std::string(SLUICE_EXAMPLES_DIR) + "/algorithms/bc.sluice", "bc"));
  for (const Case &c : cases) {
    GraphHolder g;
    if (!loadShared(c.file, SLUICE_GRAPH_FORMAT_SNAP, c.flags, g))
      GTEST_SKIP() << "shared data not found: " << c.file;
    auto reference = referenceBrandes(g.g, vertexOf(g.g, c.source));
    for (uint32_t threads : {1u, 2u})
      expectClose(asF64(p.run(g.g, threads, int64_t(c.source))), reference,
                  std::string(c.file) + " source " + std::to_string(c.source) +
                      " threads " + std::to_string(threads));
  }
}

} // namespace
