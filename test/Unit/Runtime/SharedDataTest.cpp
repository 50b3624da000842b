//===- SharedDataTest.cpp - The real graphs of shared/data ----------------===//
//
// Counts asserted here come from shared/data/README.md: the raw node and
// edge counts, and the "simple undirected graph (ids compacted, no self
// loops or duplicates)" column with its max degree. A simple undirected
// graph with m edges is stored as 2m arcs. Skipped when the data directory
// is absent.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cstring>

using namespace sluice::test;

namespace {

constexpr uint32_t kSimple =
    SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
    SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS;

#define REQUIRE_DATA(name)                                                     \
  if (!fileExists(sharedData(name)))                                           \
  GTEST_SKIP() << sharedData(name) << " is absent"

uint64_t maxDegree(const sluice_graph_t *g) {
  uint64_t best = 0;
  for (uint32_t v = 0; v < sluice_graph_num_vertices(g); ++v)
    best = std::max(best, sluice_graph_degree(g, v));
  return best;
}

struct Expected {
  const char *file;
  sluice_graph_format_t format;
  uint64_t rawVertices, rawEdges;       // the "raw format" column
  uint64_t simpleVertices, simpleEdges; // the "simple undirected" column
  uint64_t maxDegree;
};

void PrintTo(const Expected &e, std::ostream *os) { *os << e.file; }

const Expected kGraphs[] = {
    {"email-Eu-core.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 1005, 25571, 986, 16064,
     345},
    {"facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 4039, 88234, 4039,
     88234, 1045},
    // Raw: 119,666 entry lines, ids 1..114,599.
    {"luxembourg_osm.el.gz", SLUICE_GRAPH_FORMAT_MTX_BODY, 114599, 119666,
     114599, 119666, 6},
    {"soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 82168, 948464, 82168,
     504230, 2552},
};

class SharedGraphs : public ::testing::TestWithParam<Expected> {};

TEST_P(SharedGraphs, RawCountsMatchTheReadme) {
  const Expected &x = GetParam();
  REQUIRE_DATA(x.file);
  Loaded r = load(sharedData(x.file), options(x.format));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(sluice_graph_num_vertices(r.graph.get()), x.rawVertices);
  EXPECT_EQ(sluice_graph_num_edges(r.graph.get()), x.rawEdges);
  EXPECT_TRUE(sluice_graph_properties(r.graph.get()) & SLUICE_GRAPH_DIRECTED);
}

TEST_P(SharedGraphs, SimpleUndirectedCountsMatchTheReadme) {
  const Expected &x = GetParam();
  REQUIRE_DATA(x.file);
  Loaded r = load(sharedData(x.file), options(x.format, kSimple));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  const sluice_graph_t *g = r.graph.get();
  EXPECT_EQ(sluice_graph_num_vertices(g), x.simpleVertices);
  EXPECT_EQ(sluice_graph_num_edges(g), 2 * x.simpleEdges);
  EXPECT_EQ(maxDegree(g), x.maxDegree);
  const uint32_t p = sluice_graph_properties(g);
  EXPECT_TRUE(p & SLUICE_GRAPH_NO_DUPLICATES);
  EXPECT_TRUE(p & SLUICE_GRAPH_NO_SELF_LOOPS);
  EXPECT_FALSE(p & SLUICE_GRAPH_DIRECTED);
  // Symmetric: every arc has its reverse.
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *t = sluice_graph_targets(g);
  for (uint32_t v = 0; v < sluice_graph_num_vertices(g); ++v)
    for (uint64_t i = off[v]; i < off[v + 1]; ++i)
      ASSERT_TRUE(sluice_graph_has_edge(g, t[i], v)) << t[i] << " -> " << v;
}

INSTANTIATE_TEST_SUITE_P(Readme, SharedGraphs, ::testing::ValuesIn(kGraphs),
                         [](const ::testing::TestParamInfo<Expected> &info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(SharedData, EmailCompactionDropsTheVerticesWithoutEdges) {
  REQUIRE_DATA("email-Eu-core.txt.gz");
  Loaded r = load(sharedData("email-Eu-core.txt.gz"),
                  options(SLUICE_GRAPH_FORMAT_SNAP, kSimple));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  const sluice_graph_t *g = r.graph.get();
  // 1,005 ids (0..1004) of which 986 keep an edge: 19 are gone, and the
  // mapping is increasing within 0..1004.
  const uint64_t *ids = sluice_graph_original_ids(g);
  ASSERT_NE(ids, nullptr);
  EXPECT_LE(ids[985], 1004u);
  for (uint32_t v = 1; v < 986; ++v)
    ASSERT_LT(ids[v - 1], ids[v]);
  for (uint32_t v = 0; v < 986; ++v)
    ASSERT_EQ(sluice_graph_vertex_of(g, ids[v]), v);
  // Every vertex of a compacted simple graph has an edge.
  for (uint32_t v = 0; v < 986; ++v)
    ASSERT_GT(sluice_graph_degree(g, v), 0u);
}

TEST(SharedData, EmailWithTheExampleVertexLabels) {
  REQUIRE_DATA("email-Eu-core.txt.gz");
  std::string labels =
      std::string(SLUICE_EXAMPLES_DIR) + "/walks/email-Eu-core.labels";
  if (!fileExists(labels))
    GTEST_SKIP() << labels << " is absent";
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_SNAP);
  o.vertex_labels_path = labels.c_str();
  Loaded directed = load(sharedData("email-Eu-core.txt.gz"), o);
  ASSERT_EQ(directed.status, SLUICE_STATUS_OK) << formatted(directed.error);
  for (uint32_t v = 0; v < 1005; ++v) {
    int32_t l = sluice_graph_vertex_label(directed.graph.get(), v);
    ASSERT_GE(l, 0) << v;
    ASSERT_LE(l, 4) << v;
  }
  // Compacted: the labels follow their vertices, those of dropped ids are
  // skipped.
  o.flags |= kSimple;
  Loaded simple = load(sharedData("email-Eu-core.txt.gz"), o);
  ASSERT_EQ(simple.status, SLUICE_STATUS_OK) << formatted(simple.error);
  for (uint32_t v = 0; v < 986; ++v)
    ASSERT_EQ(sluice_graph_vertex_label(simple.graph.get(), v),
              sluice_graph_vertex_label(
                  directed.graph.get(),
                  static_cast<uint32_t>(
                      sluice_graph_original_id(simple.graph.get(), v))));
}

TEST(SharedData, SlashdotBinaryRoundTripAndMemory) {
  REQUIRE_DATA("soc-Slashdot0902.txt.gz");
  Loaded text =
      load(sharedData("soc-Slashdot0902.txt.gz"),
           options(SLUICE_GRAPH_FORMAT_SNAP, kSimple, SLUICE_WEIGHTS_ONES));
  ASSERT_EQ(text.status, SLUICE_STATUS_OK) << formatted(text.error);
  const sluice_graph_t *g = text.graph.get();
  const uint64_t n = sluice_graph_num_vertices(g),
                 m = sluice_graph_num_edges(g);
  sluice_graph_memory_t mem;
  sluice_graph_memory(g, &mem);
  // offsets + targets + weights + aggregates; the ids 0..82167 are dense,
  // so compaction stores no mapping.
  EXPECT_EQ(sluice_graph_original_ids(g), nullptr);
  EXPECT_EQ(mem.total_bytes, 8 * (n + 1) + 8 * m + 12 * n);
  EXPECT_LT(mem.total_bytes, 24 * m + 16 * n);
  RecordProperty("bytes_per_edge",
                 std::to_string(double(mem.total_bytes) / double(m)));

  TempDir dir;
  std::string path = dir.path("slashdot.scsr");
  sluice_error_t e;
  ASSERT_EQ(sluice_graph_write_binary(g, path.c_str(), &e), SLUICE_STATUS_OK)
      << formatted(e);
  Loaded mapped = load(
      path, options(SLUICE_GRAPH_FORMAT_AUTO, kSimple, SLUICE_WEIGHTS_ONES));
  ASSERT_EQ(mapped.status, SLUICE_STATUS_OK) << formatted(mapped.error);
  const sluice_graph_t *b = mapped.graph.get();
  ASSERT_EQ(sluice_graph_num_vertices(b), n);
  ASSERT_EQ(sluice_graph_num_edges(b), m);
  EXPECT_EQ(std::memcmp(sluice_graph_offsets(b), sluice_graph_offsets(g),
                        8 * (n + 1)),
            0);
  EXPECT_EQ(
      std::memcmp(sluice_graph_targets(b), sluice_graph_targets(g), 4 * m), 0);
  EXPECT_EQ(
      std::memcmp(sluice_graph_weights(b), sluice_graph_weights(g), 4 * m), 0);
  EXPECT_EQ(std::memcmp(sluice_graph_weight_sums(b),
                        sluice_graph_weight_sums(g), 4 * n),
            0);
  sluice_graph_memory(b, &mem);
  EXPECT_EQ(mem.heap_bytes, 12 * n) << "only the aggregates are copied";
}

} // namespace
