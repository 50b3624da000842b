//===- AlgoBinnedTest.cpp - Binned push loops against references ----------===//
//
// A binned push loop (propagation blocking, docs/algorithms.md "Binned
// push loops") reduces each destination's values in source order on one
// thread: PageRank's push scatter, binned, gives the bits of the pull
// gather (which adds its sources in the same order) and the serial
// reference within 1e-12, for bins of 1, a few, many and more than n
// destinations and `auto`, serial, static and dynamic, at 1 and 2
// threads, on seeded random graphs, a graph with isolated vertices whose
// n is no multiple of the bin size, and the shared real graphs. Integer
// `min=`, `max=`, `+=` and `-=` equal a serial reference written here and the
// push with atomics exactly, also with a `where` on the source (an edge
// it rejects stores the identity). PageRank whose scatter skips sources by
// a `where` gives the bits of the pull with the same `where`.
//
//===----------------------------------------------------------------------===//
#include "AlgoTestUtils.h"

namespace {

using namespace sluice::algotest;

const char *const kTiles[] = {"tile: 1", "tile: 7", "tile: 64", "tile: 1000000",
                              "tile: auto"};
const char *const kParallel[] = {"parallel: serial", "parallel: static",
                                 "parallel: dynamic(16)"};

/// Binned PageRank, every bin size and schedule at 1 and 2 threads: the
/// pull gather's bits, and the serial reference within 1e-12 per vertex.
void expectPageRank(const sluice_graph_t *g, const char *what) {
  Program pull, atomics;
  ASSERT_TRUE(
      pull.loadText(pageRank("direction: pull, parallel: static"), "pagerank"));
  ASSERT_TRUE(atomics.loadText(
      pageRank("direction: push, parallel: dynamic(16)"), "pagerank"));
  const auto expected = pull.run(g, 1);
  const std::vector<double> reference = referencePageRank(g, 0.85, 12);
  ASSERT_EQ(expected.size(), reference.size());
  EXPECT_LT(l1(asF64(atomics.run(g, 2)), reference), 1e-12 * reference.size())
      << what << ": the push with atomics";
  for (const char *tile : kTiles)
    for (const char *parallel : kParallel) {
      Program binned;
      std::string schedule =
          std::string("direction: push, ") + parallel + ", " + tile;
      ASSERT_TRUE(binned.loadText(pageRank(schedule), "pagerank")) << schedule;
      for (uint32_t threads : {1u, 2u}) {
        auto got = binned.run(g, threads);
        EXPECT_EQ(got, expected)
            << what << ": " << schedule << ", threads " << threads;
        std::vector<double> ranks = asF64(got);
        for (size_t v = 0; v < ranks.size(); ++v)
          ASSERT_NEAR(ranks[v], reference[v], 1e-12)
              << what << ": " << schedule << ", vertex " << v;
      }
    }
}

TEST(AlgoBinned, PageRankOnRandomGraphs) {
  for (uint32_t seed : {31u, 32u}) {
    GraphHolder g;
    randomGraph(1500, 20000, seed, seed == 32, g);
    expectPageRank(g.g, "random");
  }
}

TEST(AlgoBinned, PageRankWithIsolatedVertices) {
  GraphHolder g;
  isolatedGraph(1001, 6000, 33, g);
  expectPageRank(g.g, "isolated");
}

TEST(AlgoBinned, IntegerReductionsExact) {
  for (uint32_t seed : {34u, 35u}) {
    GraphHolder g;
    isolatedGraph(1001, 8000, seed, g);
    const std::vector<int64_t> expected = referenceIntegers(g.g);
    Program atomics;
    ASSERT_TRUE(atomics.loadText(
        integers("direction: push, parallel: dynamic(16)"), "ints"));
    EXPECT_EQ(asI64(atomics.run(g.g, 2)), expected) << "atomics";
    for (const char *tile : kTiles)
      for (const char *parallel : kParallel) {
        Program binned;
        std::string schedule =
            std::string("direction: push, ") + parallel + ", " + tile;
        ASSERT_TRUE(binned.loadText(integers(schedule), "ints")) << schedule;
        for (uint32_t threads : {1u, 2u})
          EXPECT_EQ(asI64(binned.run(g.g, threads)), expected)
              << schedule << ", threads " << threads;
      }
  }
}

/// PageRank whose scatter skips the sources of odd degree: binned, the
/// bits of the pull with the same `where` (a rejected edge adds -0.0, which
/// changes no sum), every bin size and schedule, 1 and 2 threads.
std::string filteredPageRank(const std::string &schedule) {
  std::string program = pageRank(schedule);
  const std::string scatter = "@scatter edges(src, dst) {";
  program.replace(program.find(scatter), scatter.size(),
                  "@scatter edges(src, dst) where degree(src) % 2 == 0 {");
  return program;
}

TEST(AlgoBinned, PageRankWithAWhereOnTheSourceSameBitsAsThePull) {
  GraphHolder g;
  randomGraph(1500, 20000, 36, false, g);
  Program pull;
  ASSERT_TRUE(pull.loadText(
      filteredPageRank("direction: pull, parallel: static"), "pagerank"));
  const auto expected = pull.run(g.g, 1);
  const auto unfiltered = [&] {
    Program p;
    EXPECT_TRUE(
        p.loadText(pageRank("direction: pull, parallel: static"), "pagerank"));
    return p.run(g.g, 1);
  }();
  ASSERT_NE(expected, unfiltered) << "the `where` rejects some sources";
  for (const char *tile : kTiles)
    for (const char *parallel : kParallel) {
      Program binned;
      std::string schedule =
          std::string("direction: push, ") + parallel + ", " + tile;
      ASSERT_TRUE(binned.loadText(filteredPageRank(schedule), "pagerank"))
          << schedule;
      for (uint32_t threads : {1u, 2u})
        EXPECT_EQ(binned.run(g.g, threads), expected)
            << schedule << ", threads " << threads;
    }
}

TEST(AlgoBinned, PageRankOnSharedGraphs) {
  for (const char *file :
       {"email-Eu-core.txt.gz", "facebook_combined.txt.gz"}) {
    GraphHolder g;
    if (!loadShared(file, SLUICE_GRAPH_FORMAT_SNAP, 0, g))
      GTEST_SKIP() << "shared data not found";
    Program pull, binned, automatic;
    ASSERT_TRUE(pull.loadText(
        pageRank("direction: pull, parallel: dynamic(64)"), "pagerank"));
    ASSERT_TRUE(binned.loadText(
        pageRank("direction: push, parallel: dynamic(64), tile: 256"),
        "pagerank"));
    ASSERT_TRUE(automatic.loadText(
        pageRank("direction: push, parallel: dynamic(64), tile: auto"),
        "pagerank"));
    const auto expected = pull.run(g.g, 1);
    const std::vector<double> reference = referencePageRank(g.g, 0.85, 12);
    for (uint32_t threads : {1u, 2u}) {
      auto got = binned.run(g.g, threads);
      EXPECT_EQ(got, expected) << file << threads;
      EXPECT_LT(l1(asF64(got), reference), 1e-12 * reference.size()) << file;
      EXPECT_EQ(automatic.run(g.g, threads), expected) << file << threads;
    }
  }
}

} // namespace
