//===- GraphQueriesTest.cpp - CSR queries against brute force -------------===//
//
// Random multigraphs (fixed seeds) with self loops, duplicate edges,
// weights and labels, built with every combination of the edge options;
// the CSR, has_edge/find_edge, degrees and weight aggregates are checked
// against a reference computed the obvious way (std::set, linear scans).
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace sluice::test;

namespace {

struct RandomEdges {
  uint32_t n = 0;
  std::vector<uint32_t> src, dst;
  std::vector<float> weights;
  std::vector<int32_t> labels;
  std::vector<int32_t> vertexLabels;
};

RandomEdges randomEdges(std::mt19937 &rng, uint32_t n, uint32_t m) {
  RandomEdges e;
  e.n = n;
  std::uniform_int_distribution<uint32_t> vertex(0, n - 1);
  std::uniform_int_distribution<int> weight(1, 16);
  std::uniform_int_distribution<int32_t> label(0, 4);
  for (uint32_t i = 0; i < m; ++i) {
    uint32_t u = vertex(rng), v = vertex(rng);
    if (i % 13 == 0)
      v = u; // self loops
    e.src.push_back(u);
    e.dst.push_back(v);
    e.weights.push_back(0.25f * static_cast<float>(weight(rng)));
    e.labels.push_back(label(rng));
    if (i % 7 == 0) { // duplicates with other weights
      e.src.push_back(u);
      e.dst.push_back(v);
      e.weights.push_back(0.5f * static_cast<float>(weight(rng)));
      e.labels.push_back(label(rng));
    }
  }
  for (uint32_t v = 0; v < n; ++v)
    e.vertexLabels.push_back(v % 3 == 0 ? SLUICE_LABEL_NONE : label(rng));
  return e;
}

/// The obvious construction: arcs per source in input order, stable-sorted
/// by target, first copy kept on deduplication, weights added up (in
/// double, in input order) on summation.
std::vector<std::vector<Arc>> reference(const RandomEdges &e, uint32_t flags) {
  std::vector<std::vector<Arc>> adj(e.n);
  for (size_t i = 0; i < e.src.size(); ++i) {
    uint32_t u = e.src[i], v = e.dst[i];
    if (u == v && (flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS))
      continue;
    adj[u].push_back({v, e.weights[i], e.labels[i]});
    if ((flags & SLUICE_GRAPH_LOAD_UNDIRECTED) && u != v)
      adj[v].push_back({u, e.weights[i], e.labels[i]});
  }
  for (auto &row : adj) {
    std::stable_sort(row.begin(), row.end(), [](const Arc &a, const Arc &b) {
      return a.target < b.target;
    });
    if (flags & SLUICE_GRAPH_LOAD_DEDUPLICATE)
      row.erase(std::unique(row.begin(), row.end(),
                            [](const Arc &a, const Arc &b) {
                              return a.target == b.target;
                            }),
                row.end());
    if (flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES) {
      std::vector<Arc> merged;
      std::vector<double> sums;
      for (const Arc &a : row) {
        if (!merged.empty() && merged.back().target == a.target) {
          sums.back() += a.weight;
          continue;
        }
        merged.push_back(a);
        sums.push_back(a.weight);
      }
      for (size_t k = 0; k < merged.size(); ++k)
        merged[k].weight = static_cast<float>(sums[k]);
      row = merged;
    }
  }
  return adj;
}

/// The load statistics of `e` under `flags`, counted with sets.
sluice_graph_load_stats_t
referenceStats(const RandomEdges &e, uint32_t flags,
               const std::vector<std::vector<Arc>> &ref) {
  sluice_graph_load_stats_t s{};
  const bool undirected = flags & SLUICE_GRAPH_LOAD_UNDIRECTED;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  std::vector<bool> touched(e.n, false);
  uint64_t arcs = 0, stored = 0;
  for (size_t i = 0; i < e.src.size(); ++i) {
    uint32_t u = e.src[i], v = e.dst[i];
    ++s.input_edges;
    if (u == v)
      ++s.self_loops;
    if (u == v && (flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS))
      continue;
    arcs += undirected && u != v ? 2 : 1;
    std::pair<uint32_t, uint32_t> edge(u, v);
    if (undirected && v < u)
      edge = {v, u};
    if (!seen.insert(edge).second)
      ++s.duplicate_edges;
  }
  for (uint32_t u = 0; u < e.n; ++u)
    for (const Arc &a : ref[u]) {
      touched[u] = touched[a.target] = true;
      ++stored;
    }
  s.merged_arcs = arcs - stored;
  s.isolated_vertices = std::count(touched.begin(), touched.end(), false);
  return s;
}

void checkAgainstReference(const sluice_graph_t *g,
                           const std::vector<std::vector<Arc>> &ref,
                           bool weighted) {
  const uint64_t n = sluice_graph_num_vertices(g);
  ASSERT_EQ(n, ref.size());
  EXPECT_EQ(adjacency(g), ref);
  uint64_t total = 0;
  std::set<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t u = 0; u < n; ++u) {
    total += ref[u].size();
    for (const Arc &a : ref[u])
      edges.insert({u, a.target});
  }
  EXPECT_EQ(sluice_graph_num_edges(g), total);
  const uint32_t *targets = sluice_graph_targets(g);
  for (uint32_t u = 0; u < n; ++u) {
    EXPECT_EQ(sluice_graph_degree(g, u), ref[u].size());
    for (uint32_t v = 0; v < n; ++v) {
      bool expected = edges.count({u, v}) != 0;
      ASSERT_EQ(sluice_graph_has_edge(g, u, v), expected ? 1 : 0)
          << u << " -> " << v;
      uint64_t at = sluice_graph_find_edge(g, u, v);
      if (!expected) {
        EXPECT_EQ(at, SLUICE_EDGE_NONE);
        continue;
      }
      ASSERT_NE(at, SLUICE_EDGE_NONE);
      EXPECT_EQ(targets[at], v);
      EXPECT_TRUE(at == sluice_graph_offsets(g)[u] || targets[at - 1] != v)
          << "find_edge must return the first copy";
    }
    // Aggregates by brute force.
    double sum = 0;
    float mx = 0, mn = 0;
    for (size_t k = 0; k < ref[u].size(); ++k) {
      float w = weighted ? ref[u][k].weight : 1.0f;
      sum += w;
      mx = k ? std::max(mx, w) : w;
      mn = k ? std::min(mn, w) : w;
    }
    EXPECT_EQ(sluice_graph_weight_sum(g, u), static_cast<float>(sum));
    EXPECT_EQ(sluice_graph_weight_max(g, u), mx);
    EXPECT_EQ(sluice_graph_weight_min(g, u), mn);
  }
  EXPECT_EQ(sluice_graph_has_edge(g, static_cast<uint32_t>(n), 0), 0);
  EXPECT_EQ(sluice_graph_degree(g, static_cast<uint32_t>(n)), 0u);
}

class RandomGraphs : public ::testing::TestWithParam<uint32_t> {};

TEST_P(RandomGraphs, EveryOptionCombinationMatchesTheReference) {
  const uint32_t flags = GetParam();
  std::mt19937 rng(1234 + flags);
  for (uint32_t n : {1u, 2u, 7u, 60u, 250u}) {
    RandomEdges e = randomEdges(rng, n, n * 4);
    for (bool weighted : {false, true}) {
      const bool sum = flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
      sluice_graph_t *raw = nullptr;
      sluice_error_t error;
      ASSERT_EQ(sluice_graph_create_from_edges(
                    n, e.src.size(), e.src.data(), e.dst.data(),
                    weighted ? e.weights.data() : nullptr, e.labels.data(),
                    e.vertexLabels.data(), flags, &raw, &error),
                SLUICE_STATUS_OK)
          << formatted(error);
      GraphPtr g(raw);
      // Unweighted, every edge weighs 1 (summed: the multiplicities).
      RandomEdges input = e;
      if (!weighted)
        std::fill(input.weights.begin(), input.weights.end(), 1.0f);
      auto ref = reference(input, flags);
      SCOPED_TRACE("n=" + std::to_string(n) +
                   " weighted=" + std::to_string(weighted));
      checkAgainstReference(g.get(), ref, weighted || sum);
      EXPECT_EQ(sluice_graph_weight_sums(g.get()) != nullptr, weighted || sum);
      sluice_graph_load_stats_t stats, expected = referenceStats(e, flags, ref);
      sluice_graph_load_stats(g.get(), &stats);
      EXPECT_EQ(stats.input_edges, expected.input_edges);
      EXPECT_EQ(stats.self_loops, expected.self_loops);
      EXPECT_EQ(stats.duplicate_edges, expected.duplicate_edges);
      EXPECT_EQ(stats.merged_arcs, expected.merged_arcs);
      EXPECT_EQ(stats.isolated_vertices, expected.isolated_vertices);
      const int32_t *vl = sluice_graph_vertex_labels(g.get());
      ASSERT_NE(vl, nullptr);
      EXPECT_EQ(std::vector<int32_t>(vl, vl + n), e.vertexLabels);
      const uint32_t p = sluice_graph_properties(g.get());
      EXPECT_EQ(bool(p & SLUICE_GRAPH_DIRECTED),
                !(flags & SLUICE_GRAPH_LOAD_UNDIRECTED));
      bool anyLoop = false, anyDup = false;
      for (uint32_t u = 0; u < n; ++u)
        for (size_t k = 0; k < ref[u].size(); ++k) {
          anyLoop |= ref[u][k].target == u;
          anyDup |= k && ref[u][k].target == ref[u][k - 1].target;
        }
      EXPECT_EQ(bool(p & SLUICE_GRAPH_NO_SELF_LOOPS), !anyLoop);
      EXPECT_EQ(bool(p & SLUICE_GRAPH_NO_DUPLICATES), !anyDup);
    }
  }
}

// Every combination of UNDIRECTED, DROP_SELF_LOOPS and DEDUPLICATE, and
// SUM_DUPLICATES (which excludes DEDUPLICATE) with the first two.
INSTANTIATE_TEST_SUITE_P(
    Flags, RandomGraphs,
    ::testing::Values(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u,
                      SLUICE_GRAPH_LOAD_SUM_DUPLICATES,
                      SLUICE_GRAPH_LOAD_SUM_DUPLICATES | 1u,
                      SLUICE_GRAPH_LOAD_SUM_DUPLICATES | 2u,
                      SLUICE_GRAPH_LOAD_SUM_DUPLICATES | 3u),
    [](const ::testing::TestParamInfo<uint32_t> &info) {
      std::string name;
      name +=
          info.param & SLUICE_GRAPH_LOAD_UNDIRECTED ? "Undirected" : "Directed";
      if (info.param & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS)
        name += "NoLoops";
      if (info.param & SLUICE_GRAPH_LOAD_DEDUPLICATE)
        name += "Dedup";
      if (info.param & SLUICE_GRAPH_LOAD_SUM_DUPLICATES)
        name += "Sum";
      return name;
    });

TEST(GraphQueries, TextLoadMatchesEdgeArrays) {
  std::mt19937 rng(99);
  RandomEdges e = randomEdges(rng, 40, 300);
  std::string text;
  for (size_t i = 0; i < e.src.size(); ++i)
    text += std::to_string(e.src[i]) + " " + std::to_string(e.dst[i]) + " " +
            std::to_string(e.weights[i]) + "\n";
  TempDir dir;
  writeFile(dir.path("g.txt"), text);
  const uint32_t flags =
      SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DEDUPLICATE;
  Loaded r = load(dir.path("g.txt"), options(SLUICE_GRAPH_FORMAT_SNAP, flags,
                                             SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  auto ref = reference(e, flags);
  for (auto &row : ref)
    for (Arc &a : row)
      a.label = -1;
  // Vertices above the largest id in the file do not exist in the text load.
  while (!ref.empty() && ref.back().empty() &&
         ref.size() > sluice_graph_num_vertices(r.graph.get()))
    ref.pop_back();
  checkAgainstReference(r.graph.get(), ref, true);
}

TEST(GraphQueries, CompactedEdgeArraysKeepLabelsOfTheirVertices) {
  // Vertices 0 and 3 have no edges; compaction leaves 1, 2, 4.
  const uint32_t src[] = {1, 4}, dst[] = {2, 1};
  const int32_t vlabels[] = {10, 11, 12, 13, 14};
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(
                5, 2, src, dst, nullptr, nullptr, vlabels,
                SLUICE_GRAPH_LOAD_COMPACT_IDS, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  ASSERT_EQ(sluice_graph_num_vertices(g.get()), 3u);
  const uint64_t *ids = sluice_graph_original_ids(g.get());
  EXPECT_EQ(std::vector<uint64_t>(ids, ids + 3),
            (std::vector<uint64_t>{1, 2, 4}));
  const int32_t *l = sluice_graph_vertex_labels(g.get());
  EXPECT_EQ(std::vector<int32_t>(l, l + 3), (std::vector<int32_t>{11, 12, 14}));
  EXPECT_TRUE(sluice_graph_has_edge(g.get(), 2, 0)); // 4 -> 1
}

TEST(GraphQueries, MemoryStaysWithinTheBudget) {
  // Budget from the walk issue: below 24 bytes per edge plus 16 bytes per
  // vertex for a weighted graph. Layout: 8 (n + 1) offsets, 4 m targets,
  // 4 m weights, 12 n aggregates.
  std::mt19937 rng(5);
  RandomEdges e = randomEdges(rng, 1000, 8000);
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(
                e.n, e.src.size(), e.src.data(), e.dst.data(), e.weights.data(),
                nullptr, nullptr, SLUICE_GRAPH_LOAD_UNDIRECTED, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  const uint64_t n = sluice_graph_num_vertices(g.get());
  const uint64_t m = sluice_graph_num_edges(g.get());
  sluice_graph_memory_t mem;
  sluice_graph_memory(g.get(), &mem);
  EXPECT_EQ(mem.offsets_bytes, 8 * (n + 1));
  EXPECT_EQ(mem.targets_bytes, 4 * m);
  EXPECT_EQ(mem.weights_bytes, 4 * m);
  EXPECT_EQ(mem.aggregates_bytes, 12 * n);
  EXPECT_EQ(mem.labels_bytes, 0u);
  EXPECT_EQ(mem.original_ids_bytes, 0u);
  EXPECT_EQ(mem.mapped_bytes, 0u);
  EXPECT_EQ(mem.total_bytes, mem.heap_bytes);
  EXPECT_EQ(mem.total_bytes, 8 * (n + 1) + 8 * m + 12 * n);
  EXPECT_LT(mem.total_bytes, 24 * m + 16 * n);
}

// has_edge and find_edge on short and long lists (up to 3,000 neighbours,
// a dozen halvings of the branch-free search), with duplicate arcs
// (find_edge: the first copy), against a linear scan of the adjacency, for
// every target and ids past the last.
TEST(GraphQueries, LongListsMatchALinearScan) {
  const uint32_t n = 300;
  const uint32_t degrees[] = {0,  1,  2,   31,  32,   33,  34,
                              64, 65, 100, 257, 1000, 3000};
  std::mt19937 rng(77);
  std::vector<uint32_t> src, dst;
  for (uint32_t u = 0; u < std::size(degrees); ++u)
    for (uint32_t k = 0; k < degrees[u]; ++k) {
      src.push_back(u);
      dst.push_back(rng() % n);
    }
  sluice_graph_t *raw = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(n, src.size(), src.data(),
                                           dst.data(), nullptr, nullptr,
                                           nullptr, 0, &raw, &error),
            SLUICE_STATUS_OK)
      << formatted(error);
  GraphPtr g(raw);
  const uint64_t *offsets = sluice_graph_offsets(g.get());
  const uint32_t *targets = sluice_graph_targets(g.get());
  for (uint32_t u = 0; u < std::size(degrees); ++u) {
    ASSERT_EQ(sluice_graph_degree(g.get(), u), degrees[u]);
    for (uint32_t v = 0; v < n + 3; ++v) {
      uint64_t first = SLUICE_EDGE_NONE;
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
        if (targets[e] == v) {
          first = e;
          break;
        }
      ASSERT_EQ(sluice_graph_find_edge(g.get(), u, v), first)
          << u << " -> " << v;
      ASSERT_EQ(sluice_graph_has_edge(g.get(), u, v),
                first != SLUICE_EDGE_NONE ? 1 : 0)
          << u << " -> " << v;
    }
    EXPECT_EQ(sluice_graph_find_edge(g.get(), u, UINT32_MAX), SLUICE_EDGE_NONE);
  }
}

TEST(GraphQueries, NullGraphQueriesAreHarmless) {
  EXPECT_EQ(sluice_graph_num_vertices(nullptr), 0u);
  EXPECT_EQ(sluice_graph_num_edges(nullptr), 0u);
  EXPECT_EQ(sluice_graph_offsets(nullptr), nullptr);
  EXPECT_EQ(sluice_graph_has_edge(nullptr, 0, 0), 0);
  EXPECT_EQ(sluice_graph_vertex_of(nullptr, 0), SLUICE_VERTEX_NONE);
  EXPECT_EQ(sluice_graph_original_id(nullptr, 0), UINT64_MAX);
  sluice_graph_memory_t mem;
  sluice_graph_memory(nullptr, &mem);
  EXPECT_EQ(mem.total_bytes, 0u);
}

} // namespace
