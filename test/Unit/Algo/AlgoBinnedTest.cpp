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
// push with atomics exactly. Loops that are not binned (a `where`) still
// compute what they computed.
//
//===----------------------------------------------------------------------===//
#include "AlgoTestUtils.h"

namespace {

using namespace sluice::algotest;

std::string pageRank(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm pagerank(damping: f64 = 0.85, iterations: i64 = 12) on g {
  let n = num_vertices()
  vertex rank: f64 = 1.0 / n
  vertex incoming: f64 = 0.0
  repeat iterations {
    @scatter edges(src, dst) {
      incoming[dst] += rank[src] / degree(src)
    }
    @apply vertices(v) {
      rank[v] = (1.0 - damping) / n + damping * incoming[v]
      incoming[v] = 0.0
    }
  }
  output rank
}
schedule pagerank { @scatter { )" +
         schedule + " } }\n";
}

/// Integer `min=`, `max=`, `+=` and `-=` of values from the source alone;
/// the `where` of @far keeps it unbinned.
std::string integers(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm ints(rounds: i64 = 3) on g {
  vertex x: i64 = 0
  vertex low: i64 = 1000000
  vertex high: i64 = 0
  vertex total: i64 = 0
  vertex far: i64 = 0
  vertex minus: i64 = 0
  @init vertices(v) { x[v] = id(v) % 13 }
  repeat rounds {
    @lo edges(src, dst) { low[dst] min= x[src] + degree(src) }
    @hi edges(src, dst) { high[dst] max= x[src] * 2 - degree(src) }
    @sum edges(src, dst) { total[dst] += x[src] + 1 }
    @sub edges(src, dst) { minus[dst] -= x[src] * 3 }
    @far edges(src, dst) where x[src] > 5 { far[dst] += x[src] }
    @apply vertices(v) {
      x[v] = (x[v] + low[v] + high[v] + total[v] + far[v] - minus[v]) % 17
      low[v] = 1000000
      high[v] = 0
      total[v] = 0
      far[v] = 0
      minus[v] = 0
    }
  }
  output x
}
schedule ints { @lo { )" +
         schedule + " }, @hi { " + schedule + " }, @sum { " + schedule +
         " }, @sub { " + schedule + " }, @far { " + schedule + " } }\n";
}

/// integers() computed serially, here, from the CSR: the independent
/// reference (ids are vertex numbers: the graphs here are built so).
std::vector<int64_t> referenceIntegers(const sluice_graph_t *g) {
  const uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<int64_t> x(n), low(n, 1000000), high(n, 0), total(n, 0),
      far(n, 0), minus(n, 0);
  for (uint64_t v = 0; v < n; ++v)
    x[v] = sluice_graph_original_id(g, v) % 13;
  for (int round = 0; round < 3; ++round) {
    for (uint64_t u = 0; u < n; ++u) {
      const int64_t degree = int64_t(off[u + 1] - off[u]);
      for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
        const uint32_t v = tgt[e];
        low[v] = std::min(low[v], x[u] + degree);
        high[v] = std::max(high[v], x[u] * 2 - degree);
        total[v] += x[u] + 1;
        minus[v] -= x[u] * 3;
        if (x[u] > 5)
          far[v] += x[u];
      }
    }
    for (uint64_t v = 0; v < n; ++v) {
      x[v] = (x[v] + low[v] + high[v] + total[v] + far[v] - minus[v]) % 17;
      low[v] = 1000000;
      high[v] = total[v] = far[v] = minus[v] = 0;
    }
  }
  return x;
}

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

/// A graph of n vertices, 1 in 3 isolated (no edge in or out), the others
/// on random edges; n is no multiple of the bin sizes tested.
void isolatedGraph(uint32_t n, uint32_t m, uint32_t seed, GraphHolder &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src, dst;
  auto connected = [&] {
    uint32_t v;
    do
      v = rng() % n;
    while (v % 3 == 0);
    return v;
  };
  for (uint32_t i = 0; i < m; ++i) {
    src.push_back(connected());
    dst.push_back(connected());
  }
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(
                n, m, src.data(), dst.data(), nullptr, nullptr, nullptr,
                SLUICE_GRAPH_LOAD_DEDUPLICATE, &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  ASSERT_EQ(sluice_graph_num_vertices(out.g), n);
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
