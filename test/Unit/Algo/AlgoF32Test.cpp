//===- AlgoF32Test.cpp - f32 vertex properties vs serial references ------===//
//
// f32 vertex properties through sluicec --run's path: PageRank with f32
// ranks (examples/algorithms/pagerank-f32.sluice's algorithm) against the
// serial f64 reference within the f32 rounding bound stated below, under
// pull (tiled and untiled), push (atomic f32 adds) and hybrid schedules,
// at 1 and 2 threads; and the other f32 reductions (`-=`, `min=`, `max=`,
// atomic where the loop pushes) on values f32 holds exactly, which must
// equal their serial references bit for bit.
//
//===----------------------------------------------------------------------===//
#include "AlgoTestUtils.h"

#include <algorithm>
#include <limits>

namespace {

using namespace sluice::algotest;

/// pagerank-f32.sluice's algorithm on the tests' graph, with `gather`'s
/// schedule.
std::string pageRankF32(const std::string &gather) {
  return std::string(kHeader) + exampleAlgorithm("pagerank-f32.sluice") +
         "schedule pagerank { @gather { " + gather + " } }\n";
}

/// The largest in-degree of `g`.
uint64_t maxInDegree(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<uint64_t> in(n);
  for (uint64_t e = 0; e < off[n]; ++e)
    ++in[tgt[e]];
  return n ? *std::max_element(in.begin(), in.end()) : 0;
}

/// How far f32 ranks may be from the f64 reference, in L1. The ranks sum
/// to at most 1; f32's unit roundoff is u = 2^-24. Per iteration a rank
/// picks up at most (d + 3) u of relative error: d roundings summing its
/// d in-edges' contributions (recursive summation, Higham's gamma_d), one
/// for the quotient rank[src] / degree(src), two for the stores of
/// `incoming` and `rank` (the apply step computes in f64); the error
/// already in the ranks passes on damped by 0.85. So the L1 error stays
/// below (dmax + 3) u / (1 - 0.85), plus u for the first ranks, 1 / n
/// rounded. A rank computed in f64 and stored as f32 meets it with room
/// to spare; reading an f32 as anything else does not.
double f32Bound(const sluice_graph_t *g) {
  const double u = std::ldexp(1.0, -24);
  return (double(maxInDegree(g)) + 4.0) * u / (1.0 - 0.85);
}

std::vector<double> widen(const std::vector<float> &x) {
  return std::vector<double>(x.begin(), x.end());
}

/// The element type of property `name` of the compiled algorithm.
mlir::Type propertyType(Program &p, llvm::StringRef name) {
  for (auto prop : p.algo.getBody().front().getOps<sluice::graph::PropertyOp>())
    if (prop.getSymName() == name)
      return prop.getElementType();
  return {};
}

class PageRankF32Schedules : public ::testing::TestWithParam<const char *> {};

TEST_P(PageRankF32Schedules, RanksWithinTheF32BoundOfTheF64Reference) {
  Program p;
  ASSERT_TRUE(p.loadText(pageRankF32(GetParam()), "pagerank"));
  ASSERT_TRUE(propertyType(p, "rank") && propertyType(p, "rank").isF32());
  for (uint32_t seed : {6u, 8u}) {
    GraphHolder g;
    randomGraph(3000, seed == 6 ? 40000 : 12000, seed, seed == 8, g);
    auto reference = referencePageRank(g.g, 0.85, 20);
    double bound = f32Bound(g.g);
    std::vector<double> one;
    for (uint32_t threads : {1u, 2u}) {
      auto got = widen(asF32(p.run(g.g, threads)));
      ASSERT_EQ(got.size(), reference.size());
      double err = l1(got, reference);
      EXPECT_LT(err, bound)
          << GetParam() << " seed " << seed << " threads " << threads;
      // Not f64 in disguise: f32 ranks do round.
      EXPECT_GT(err, 0.0) << GetParam();
      if (threads == 1)
        one = got;
      else // atomics add in another order: the same bound between runs
        EXPECT_LT(l1(got, one), bound) << GetParam() << " seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, PageRankF32Schedules,
    ::testing::Values("direction: pull, parallel: dynamic(64)",
                      "direction: pull, parallel: dynamic(64), tile: 256",
                      "direction: pull, parallel: static, tile: auto",
                      "direction: push, parallel: static",
                      "direction: push, parallel: serial",
                      "direction: hybrid, parallel: dynamic(1)"));

// A pull loop sums each vertex's in-edges in one order on one thread: the
// same bits for any number of threads.
TEST(PageRankF32, PullIsTheSameBitsForOneAndTwoThreads) {
  Program p;
  ASSERT_TRUE(p.loadText(
      pageRankF32("direction: pull, parallel: dynamic(16), tile: 64"),
      "pagerank"));
  GraphHolder g;
  randomGraph(2500, 30000, 9, false, g);
  EXPECT_EQ(p.run(g.g, 1), p.run(g.g, 2));
}

TEST(PageRankF32, ExampleOnSlashdot) {
  GraphHolder g;
  if (!loadShared("soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 0, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/pagerank-f32.sluice",
                     "pagerank"));
  auto reference = referencePageRank(g.g, 0.85, 20);
  for (uint32_t threads : {1u, 2u})
    EXPECT_LT(l1(widen(asF32(p.run(g.g, threads))), reference), f32Bound(g.g))
        << threads;
}

/// `-=`, `max=` and `min=` into f32 properties: -(in-degree), the largest
/// source id, and hop distances from vertex 0 relaxed to a fixpoint. All
/// are integers below 2^24, so f32 holds every partial result exactly.
std::string reductions(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm red() on g {
  vertex down: f32 = 0.0
  vertex top: f32 = -1.0
  vertex dist: f32 = 1.0e30
  dist[0] = 0.0
  @count edges(u, v) {
    down[v] -= 1.0
    top[v] max= id(u)
  }
  frontier changed = [0]
  while size(changed) > 0 {
    @relax changed = edges(u, v) from changed {
      dist[v] min= dist[u] + 1
    }
  }
  output down, top, dist
}
schedule red { @count { )" +
         schedule + " }, @relax { " + schedule + " } }\n";
}

class F32Reductions : public ::testing::TestWithParam<const char *> {};

TEST_P(F32Reductions, EqualTheSerialReference) {
  Program p;
  ASSERT_TRUE(p.loadText(reductions(GetParam()), "red"));
  GraphHolder g;
  randomGraph(1500, 9000, 11, false, g);
  uint64_t n = sluice_graph_num_vertices(g.g);
  const uint64_t *off = sluice_graph_offsets(g.g);
  const uint32_t *tgt = sluice_graph_targets(g.g);
  std::vector<float> down(n, 0.0f), top(n, -1.0f), dist(n, 1.0e30f);
  dist[0] = 0.0f;
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      down[tgt[e]] -= 1.0f;
      top[tgt[e]] =
          std::max(top[tgt[e]], float(sluice_graph_original_id(g.g, u)));
    }
  // Bellman-Ford to the fixpoint.
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t u = 0; u < n; ++u)
      for (uint64_t e = off[u]; e < off[u + 1]; ++e)
        if (dist[u] + 1.0f < dist[tgt[e]]) {
          dist[tgt[e]] = dist[u] + 1.0f;
          changed = true;
        }
  }
  for (uint32_t threads : {1u, 2u}) {
    auto result =
        p.compiled->run(g.g, mlir::Builder(&p.ctx).getDictionaryAttr({}),
                        threads, /*quiet=*/true, p.algo);
    ASSERT_TRUE(succeeded(result));
    ASSERT_EQ(result->outputs.size(), 3u);
    for (const sluice_algo_column_t &c : result->outputs)
      ASSERT_EQ(c.type, SLUICE_ALGO_F32) << c.name;
    auto column = [&](size_t i) {
      const auto *f = static_cast<const float *>(result->outputs[i].data);
      return std::vector<float>(f, f + n);
    };
    EXPECT_EQ(column(0), down) << GetParam() << " threads " << threads;
    EXPECT_EQ(column(1), top) << GetParam() << " threads " << threads;
    EXPECT_EQ(column(2), dist) << GetParam() << " threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, F32Reductions,
    ::testing::Values("direction: push, parallel: static",
                      "direction: push, parallel: serial",
                      "direction: pull, parallel: dynamic(8)",
                      "direction: pull, parallel: static, "
                      "tile: 64"));

} // namespace
