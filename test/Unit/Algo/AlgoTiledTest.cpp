//===- AlgoTiledTest.cpp - Tiled pull loops equal untiled ones ------------===//
//
// A tiled pull loop runs each destination's in-edges in the CSC's order on
// one thread, so its results are the same bits as the untiled loop's
// (docs/algorithms.md, "Tiled pull loops"): PageRank (an order-sensitive
// floating-point `+=`) and a weighted loop with `where` on the source,
// `+=`, `min=` and `degree(src)`, and a loop whose result frontier a push
// loop reads, under tiles of 1, a few, many and more than n sources and
// `auto`, serial, static and dynamic, at 1 and 2
// threads, on seeded random graphs and the shared real graphs, against
// the same program untiled (and PageRank against a serial reference).
//
//===----------------------------------------------------------------------===//
#include "AlgoTestUtils.h"

namespace {

using namespace sluice::algotest;

/// PageRank whose edges loop is a pull with `gather`.
std::string pullPageRank(const std::string &gather, int iterations = 12) {
  return pageRank("direction: pull, " + gather, iterations);
}

std::string weighted(const std::string &gather) {
  return std::string(kHeader) + R"(
algorithm mix(rounds: i64 = 4) on g {
  vertex x: f64 = 1.0
  vertex acc: f64 = 0.0
  vertex low: f64 = 1.0e300
  repeat rounds {
    @gather edges(src, dst, w) where x[src] > 0.3 {
      acc[dst] += w * x[src] / (1.0 + degree(src))
      low[dst] min= x[src] * w
    }
    @apply vertices(v) {
      if low[v] < 1.0e299 {
        x[v] = 0.5 * x[v] + 0.01 * acc[v] - 0.001 * low[v]
      } else {
        x[v] = 0.9 * x[v]
      }
      acc[v] = acc[v] * 0.25
    }
  }
  output x
}
schedule mix { @gather { direction: pull, )" +
         gather + " } }\n";
}

/// A tiled loop with a result frontier (the destinations whose `best` its
/// `max=` raised), which a push loop then reads.
std::string frontier(const std::string &gather) {
  return std::string(kHeader) + R"(
algorithm fr(rounds: i64 = 3) on g {
  vertex x: i64 = 0
  vertex best: i64 = 0
  vertex hits: i64 = 0
  @init vertices(v) { x[v] = id(v) % 7 }
  repeat rounds {
    @gather changed = edges(src, dst) { best[dst] max= x[src] + 1 }
    @use edges(src, dst) from changed { hits[dst] += 1 }
    @apply vertices(v) { x[v] = (x[v] + best[v]) % 11 }
  }
  output hits
}
schedule fr { @gather { direction: pull, )" +
         gather + " } }\n";
}

const char *const kTiles[] = {"tile: 1", "tile: 7", "tile: 64", "tile: 1000000",
                              "tile: auto"};
const char *const kParallel[] = {"parallel: serial", "parallel: static",
                                 "parallel: dynamic(16)"};

/// Every tile size and schedule of `program` gives the bits of `parallel:
/// static` untiled, at 1 and 2 threads.
void expectSameBits(std::string (*program)(const std::string &),
                    const char *name, const sluice_graph_t *g) {
  Program untiled;
  ASSERT_TRUE(untiled.loadText(program("parallel: static"), name));
  const auto expected = untiled.run(g, 1);
  ASSERT_EQ(untiled.run(g, 2), expected);
  for (const char *tile : kTiles)
    for (const char *parallel : kParallel) {
      Program tiled;
      std::string schedule = std::string(parallel) + ", " + tile;
      ASSERT_TRUE(tiled.loadText(program(schedule), name)) << schedule;
      for (uint32_t threads : {1u, 2u})
        EXPECT_EQ(tiled.run(g, threads), expected)
            << name << ": " << schedule << ", threads " << threads;
    }
}

TEST(AlgoTiled, PageRankSameBitsOnRandomGraphs) {
  for (uint32_t seed : {21u, 22u}) {
    GraphHolder g;
    randomGraph(1500, 20000, seed, seed == 22, g);
    expectSameBits([](const std::string &s) { return pullPageRank(s); },
                   "pagerank", g.g);
  }
}

TEST(AlgoTiled, WeightedLoopSameBitsOnRandomGraphs) {
  GraphHolder g;
  randomGraph(1200, 15000, 23, false, g);
  expectSameBits(weighted, "mix", g.g);
}

TEST(AlgoTiled, ResultFrontierSameVerticesOnRandomGraphs) {
  GraphHolder g;
  randomGraph(1000, 9000, 24, true, g);
  expectSameBits(frontier, "fr", g.g);
}

TEST(AlgoTiled, PageRankSameBitsOnSharedGraphs) {
  for (const char *file :
       {"email-Eu-core.txt.gz", "facebook_combined.txt.gz"}) {
    GraphHolder g;
    if (!loadShared(file, SLUICE_GRAPH_FORMAT_SNAP, 0, g))
      GTEST_SKIP() << "shared data not found";
    Program untiled, tiled, automatic;
    ASSERT_TRUE(
        untiled.loadText(pullPageRank("parallel: dynamic(64)"), "pagerank"));
    ASSERT_TRUE(tiled.loadText(pullPageRank("parallel: dynamic(64), tile: 256"),
                               "pagerank"));
    ASSERT_TRUE(automatic.loadText(
        pullPageRank("parallel: dynamic(64), tile: auto"), "pagerank"));
    auto expected = untiled.run(g.g, 1);
    for (uint32_t threads : {1u, 2u}) {
      EXPECT_EQ(tiled.run(g.g, threads), expected) << file << threads;
      EXPECT_EQ(automatic.run(g.g, threads), expected) << file << threads;
    }
  }
}

TEST(AlgoTiled, PageRankExampleOnSlashdot) {
  // pagerank.sluice (20 iterations) schedules its gather `tile: auto`.
  GraphHolder g;
  if (!loadShared("soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 0, g))
    GTEST_SKIP() << "shared data not found";
  Program example, untiled;
  ASSERT_TRUE(example.load(std::string(SLUICE_EXAMPLES_DIR) +
                               "/algorithms/pagerank.sluice",
                           "pagerank"));
  std::string program = pullPageRank("parallel: dynamic(64)", 20);
  ASSERT_TRUE(untiled.loadText(program, "pagerank"));
  auto expected = untiled.run(g.g, 1);
  EXPECT_EQ(example.run(g.g, 1), expected);
  EXPECT_EQ(example.run(g.g, 2), expected);
}

} // namespace
