//===- AlgoOrderTest.cpp - `order: natural | degree | auto` vs brute force ===//
//
// Triangle counting (`triangles[u] += common_neighbors_below(u, v)` over
// the edges with v < u) scheduled `order: natural`, `degree` and `auto`, on
// seeded random graphs (uniform degrees: `auto` keeps the graph's order;
// with hubs: `auto` relabels) and on ego-Facebook, at 1 and 2 threads,
// against a brute-force count over an adjacency matrix: the total is the
// graph's triangle count whatever the order, and per vertex each triangle
// is counted at its vertex last in the loop's order (degree order computed
// here: degree descending, ties by vertex). The hubs' long adjacency lists
// against short ones also take common_neighbors' galloping path.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/Algo/AlgoTestUtils.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace sluice;
using namespace sluice::algotest;

namespace {

std::string tcProgram(const std::string &order) {
  return std::string(kHeader) + R"(
algorithm tc() on g {
  vertex triangles: i64 = 0
  @count edges(u, v) where v < u {
    triangles[u] += common_neighbors_below(u, v)
  }
  output triangles
}
schedule tc { @count { direction: push, parallel: dynamic(8))" +
         (order.empty() ? "" : ", order: " + order) + " } }\n";
}

/// Each vertex's position: the vertex itself (graph order) or its place
/// sorted by degree, highest first, ties by vertex.
std::vector<uint32_t> positions(const sluice_graph_t *g, bool byDegree) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  std::vector<uint32_t> order(n), rank(n);
  std::iota(order.begin(), order.end(), 0u);
  if (byDegree)
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      uint64_t da = off[a + 1] - off[a], db = off[b + 1] - off[b];
      return da != db ? da > db : a < b;
    });
  for (uint64_t i = 0; i < n; ++i)
    rank[order[i]] = static_cast<uint32_t>(i);
  return rank;
}

/// Per vertex u: the triangles {u, v, w} with rank w < rank v < rank u, by
/// an adjacency matrix (no merge, no sorted lists).
std::vector<int64_t> referenceTriangles(const sluice_graph_t *g,
                                        const std::vector<uint32_t> &rank) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<char> adjacent(n * n, 0);
  for (uint64_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      adjacent[u * n + tgt[e]] = 1;
  std::vector<int64_t> out(n, 0);
  for (uint64_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      uint32_t v = tgt[e];
      if (v == u || rank[v] >= rank[u])
        continue;
      for (uint64_t f = off[u]; f < off[u + 1]; ++f) {
        uint32_t w = tgt[f];
        if (w != u && w != v && rank[w] < rank[v] && adjacent[v * n + w])
          ++out[u];
      }
    }
  return out;
}

/// An undirected graph of `n` vertices: `hubs` vertices joined to
/// `perHub` random others each, and `m` uniform random edges.
void hubGraph(uint32_t n, uint32_t hubs, uint32_t perHub, uint32_t m,
              uint32_t seed, GraphHolder &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src, dst;
  for (uint32_t h = 0; h < hubs; ++h) {
    // Hubs spread over the ids, so the graph's order is not the degree's.
    uint32_t hub = h * (n / hubs) + n / hubs / 2;
    for (uint32_t k = 0; k < perHub; ++k) {
      src.push_back(hub);
      dst.push_back(rng() % n);
    }
  }
  for (uint32_t k = 0; k < m; ++k) {
    src.push_back(rng() % n);
    dst.push_back(rng() % n);
  }
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(
                n, src.size(), src.data(), dst.data(), nullptr, nullptr,
                nullptr,
                SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_UNDIRECTED,
                &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
}

int64_t sum(const std::vector<int64_t> &v) {
  return std::accumulate(v.begin(), v.end(), int64_t(0));
}

/// Runs `p` on `g` with `threads`: the counts and the order notes.
std::vector<int64_t> runOrdered(Program &p, const sluice_graph_t *g,
                                uint32_t threads,
                                std::vector<std::string> &notes) {
  Builder b(&p.ctx);
  auto result =
      p.compiled->run(g, b.getDictionaryAttr({}), threads, true, p.algo);
  EXPECT_TRUE(succeeded(result));
  if (failed(result) || result->outputs.empty())
    return {};
  notes = result->orderNotes;
  const auto *data = static_cast<const int64_t *>(result->outputs[0].data);
  return std::vector<int64_t>(data, data + sluice_graph_num_vertices(g));
}

/// Runs `p` on `g` at 1 and 2 threads: its outputs, as int64 columns,
/// equal `expected` (`what` says which run differs).
void expectOutputs(Program &p, const sluice_graph_t *g,
                   const std::vector<std::vector<int64_t>> &expected,
                   const std::string &what) {
  Builder b(&p.ctx);
  const uint64_t n = sluice_graph_num_vertices(g);
  for (uint32_t threads : {1u, 2u}) {
    auto result =
        p.compiled->run(g, b.getDictionaryAttr({}), threads, true, p.algo);
    ASSERT_TRUE(succeeded(result));
    ASSERT_EQ(result->outputs.size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      const auto *data = static_cast<const int64_t *>(result->outputs[k].data);
      EXPECT_EQ(std::vector<int64_t>(data, data + n), expected[k])
          << what << "output " << k << ", " << threads << " threads";
    }
  }
}

/// The counts of each order on `g`: exact per vertex, equal totals; what
/// `auto` decided is `autoRelabels`.
void checkOrders(const sluice_graph_t *g, bool autoRelabels) {
  auto byGraph = referenceTriangles(g, positions(g, false));
  auto byDegree = referenceTriangles(g, positions(g, true));
  ASSERT_EQ(sum(byGraph), sum(byDegree));
  EXPECT_GT(sum(byGraph), 100);
  // The orders attribute triangles differently (else the test shows
  // nothing).
  EXPECT_NE(byGraph, byDegree);
  struct Case {
    const char *order;
    const std::vector<int64_t> *expected;
    const char *note; ///< in the order note; null: no note
  };
  const Case cases[] = {{"", &byGraph, nullptr},
                        {"natural", &byGraph, nullptr},
                        {"degree", &byDegree, "order: degree"},
                        {"auto", autoRelabels ? &byDegree : &byGraph,
                         autoRelabels ? "order: auto relabelled by degree"
                                      : "order: auto kept the graph's order"}};
  for (const Case &c : cases) {
    Program p;
    ASSERT_TRUE(p.loadText(tcProgram(c.order), "tc")) << c.order;
    for (uint32_t threads : {1u, 2u}) {
      std::vector<std::string> notes;
      EXPECT_EQ(runOrdered(p, g, threads, notes), *c.expected)
          << "order: " << c.order << ", " << threads << " threads";
      if (!c.note) {
        EXPECT_TRUE(notes.empty());
        continue;
      }
      ASSERT_EQ(notes.size(), 1u);
      EXPECT_NE(notes[0].find("loop 'count' of algorithm 'tc': " +
                              std::string(c.note)),
                std::string::npos)
          << notes[0];
    }
  }
}

TEST(VertexOrder, UniformDegreesAutoKeepsTheGraphsOrder) {
  for (uint32_t seed : {21u, 22u}) {
    GraphHolder g;
    // 25 edges per vertex, each both ways: dense enough for the heuristic
    // to sample, uniform, so not skewed.
    randomGraph(600, 15000, seed, /*undirected=*/true, g);
    checkOrders(g.g, /*autoRelabels=*/false);
  }
}

TEST(VertexOrder, HubsAutoRelabelsByDegree) {
  for (uint32_t seed : {23u, 24u}) {
    GraphHolder g;
    hubGraph(2000, 50, 1000, 10000, seed, g);
    checkOrders(g.g, /*autoRelabels=*/true);
  }
}

TEST(VertexOrder, SparseGraphAutoKeepsTheGraphsOrder) {
  GraphHolder g;
  // 4 edges per vertex: below GAPBS's 10, whatever the degrees.
  hubGraph(3000, 5, 1000, 7000, 25, g);
  checkOrders(g.g, /*autoRelabels=*/false);
}

TEST(VertexOrder, FacebookTotalsInEveryOrder) {
  GraphHolder g;
  if (!loadShared("facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  auto byDegree = referenceTriangles(g.g, positions(g.g, true));
  EXPECT_EQ(sum(byDegree), 1612010); // SNAP's count for ego-Facebook
  for (const char *order : {"degree", "auto"}) {
    Program p;
    ASSERT_TRUE(p.loadText(tcProgram(order), "tc"));
    for (uint32_t threads : {1u, 2u}) {
      std::vector<std::string> notes;
      auto counts = runOrdered(p, g.g, threads, notes);
      ASSERT_EQ(notes.size(), 1u);
      bool relabelled = notes[0].find("relabelled") != std::string::npos ||
                        notes[0].find("order: degree") != std::string::npos;
      EXPECT_EQ(sum(counts), 1612010) << notes[0];
      if (relabelled) {
        EXPECT_EQ(counts, byDegree) << order << " " << threads;
      }
    }
  }
}

} // namespace

/// A `where` that holds for a prefix of a source's sorted out-edges
/// (`v < u`, `v <= u`, `u > v`, `v < limit` with limit a vertex from
/// before the loop) ends the out-edges at its first
/// false; the counts equal a scan of every edge, at 1 and 2 threads, on a
/// graph with self-loops. `where v != u` is not a prefix and scans them all.
/// `order: degree` with common_neighbors (not _below) runs over the
/// relabelled graph: the comparison is by degree position, the count the
/// same as in the graph.
TEST(VertexOrder, PrefixWhereEndsOutEdgesWithTheSameCounts) {
  GraphHolder g;
  randomGraph(500, 6000, 26, /*undirected=*/false, g);
  const std::string program = std::string(kHeader) + R"(
algorithm pre() on g {
  vertex below: i64 = 0
  vertex upto: i64 = 0
  vertex above: i64 = 0
  vertex small: i64 = 0
  vertex other: i64 = 0
  vertex both: i64 = 0
  @a edges(u, v) where v < u { below[u] += 1 }
  @b edges(u, v) where v <= u { upto[u] += id(v) }
  @c edges(u, v) where u > v { above[u] += common_neighbors(u, v) }
  let limit: vertex = 7
  @d edges(u, v) where v < limit { small[u] += 1 }
  @e edges(u, v) where v != u { other[u] += 1 }
  @f edges(u, v) where v < u { both[u] += common_neighbors(u, v) }
  output below, upto, above, small, other, both
}
schedule pre { @a { direction: push, parallel: dynamic(8) },
  @b { direction: push }, @c { direction: push, parallel: dynamic(8) },
  @d { direction: push }, @e { direction: push },
  @f { direction: push, order: degree } }
)";
  const uint64_t n = sluice_graph_num_vertices(g.g);
  const uint64_t *off = sluice_graph_offsets(g.g);
  const uint32_t *tgt = sluice_graph_targets(g.g);
  std::vector<std::vector<int64_t>> expected(6, std::vector<int64_t>(n, 0));
  const std::vector<uint32_t> rank = positions(g.g, true);
  auto common = [&](uint32_t u, uint32_t v) {
    int64_t count = 0; // each pair once (no repeated edges)
    for (uint64_t f = off[u]; f < off[u + 1]; ++f)
      count += std::binary_search(tgt + off[v], tgt + off[v + 1], tgt[f]);
    return count;
  };
  uint64_t selfLoops = 0;
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      uint32_t v = tgt[e];
      selfLoops += v == u;
      if (v < u) {
        ++expected[0][u];
        expected[2][u] += common(u, v);
      }
      if (rank[v] < rank[u])
        expected[5][u] += common(u, v);
      if (v <= u)
        expected[1][u] += v;
      if (v < 7)
        ++expected[3][u];
      if (v != u)
        ++expected[4][u];
    }
  ASSERT_GT(selfLoops, 0u);
  Program p;
  ASSERT_TRUE(p.loadText(program, "pre"));
  expectOutputs(p, g.g, expected, "");
}

/// common_neighbors_below(u, v) of a push loop's source and destination
/// merges the source's list as the edge loop loaded it and walks it
/// without end tests (the destination is in it, at or above the bound);
/// (v, u) merges as before; a destination used otherwise (`at[v]`) keeps
/// the CSR in the degree order, its comparisons on the positions. On a
/// directed graph with self-loops and short
/// lists (merged in the loop), over every out-edge and over a prefix, in
/// the graph's order (`natural`, and `auto`: 5 edges per vertex as GAPBS counts
/// them) and in the degree order (over the relabelled graph), at 1 and 2
/// threads, against a count by binary search in that order.
TEST(VertexOrder, CountsBelowOverTheSourcesListMatchBruteForce) {
  GraphHolder g;
  randomGraph(300, 3000, 27, /*undirected=*/false, g);
  const uint64_t n = sluice_graph_num_vertices(g.g);
  const uint64_t *off = sluice_graph_offsets(g.g);
  const uint32_t *tgt = sluice_graph_targets(g.g);
  for (const char *order : {"natural", "auto", "degree"}) {
    const std::string schedule =
        std::string("{ direction: push, parallel: dynamic(8), order: ") +
        order + " }";
    const std::string program = std::string(kHeader) + R"(
algorithm nb() on g {
  vertex all: i64 = 0
  vertex pre: i64 = 0
  vertex swapped: i64 = 0
  vertex at: i64 = 0
  @a edges(u, v) where v != u { all[u] += common_neighbors_below(u, v) }
  @b edges(u, v) where v < u { pre[u] += common_neighbors_below(u, v) }
  @c edges(u, v) { swapped[u] += common_neighbors_below(v, u) }
  @d edges(u, v) where v < u { at[v] += common_neighbors_below(u, v) }
  output all, pre, swapped, at
}
schedule nb { @a )" + schedule + ", @b " +
                                schedule + ", @c " + schedule + ", @d " +
                                schedule + " }\n";
    const std::vector<uint32_t> rank =
        positions(g.g, std::string(order) == "degree");
    // Common out-neighbours w of x and y below both in the order.
    auto below = [&](uint32_t x, uint32_t y) {
      int64_t count = 0;
      uint32_t bound = std::min(rank[x], rank[y]);
      for (uint64_t f = off[x]; f < off[x + 1]; ++f)
        count += rank[tgt[f]] < bound &&
                 std::binary_search(tgt + off[y], tgt + off[y + 1], tgt[f]);
      return count;
    };
    std::vector<std::vector<int64_t>> expected(4, std::vector<int64_t>(n, 0));
    uint64_t selfLoops = 0, short_ = 0;
    for (uint32_t u = 0; u < n; ++u) {
      short_ += off[u + 1] - off[u] < 16;
      for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
        uint32_t v = tgt[e];
        selfLoops += v == u;
        if (v != u)
          expected[0][u] += below(u, v);
        if (rank[v] < rank[u]) {
          expected[1][u] += below(u, v);
          expected[3][v] += below(u, v);
        }
        expected[2][u] += below(v, u);
      }
    }
    ASSERT_GT(selfLoops, 0u);
    ASSERT_GT(short_, n / 2);
    ASSERT_GT(std::accumulate(expected[1].begin(), expected[1].end(), 0ll), 50);
    Program p;
    ASSERT_TRUE(p.loadText(program, "nb")) << order;
    expectOutputs(p, g.g, expected, std::string("order: ") + order + ", ");
  }
}
