//===- EdgeLabelFileTest.cpp - "u v label" files (edge_labels_path) -------===//
//
// Labels land on every u -> v arc (parallel arcs too; both directions of an
// undirected graph), ids are read as in the graph file (1-based Matrix
// Market, original ids of compacted graphs), unlisted arcs get
// SLUICE_LABEL_NONE, and every bad line is a located error.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "sluice/walk_support.h"

using namespace sluice::test;

namespace {

/// Loads `graph` (SNAP text) with edge labels from `labels`.
sluice_status_t load(const TempDir &dir, const std::string &graph,
                     const std::string &labels, uint32_t flags,
                     GraphPtr &out, sluice_error_t &error,
                     sluice_graph_format_t format = SLUICE_GRAPH_FORMAT_SNAP) {
  writeFile(dir.path("g.txt"), graph);
  writeFile(dir.path("g.elabels"), labels);
  sluice_graph_load_options_t o = options(format, flags);
  std::string path = dir.path("g.elabels");
  o.edge_labels_path = path.c_str();
  sluice_graph_t *g = nullptr;
  sluice_status_t s =
      sluice_graph_load(dir.path("g.txt").c_str(), &o, &g, &error);
  out.reset(g);
  return s;
}

int64_t label(const sluice_graph_t *g, uint64_t u, uint64_t v) {
  return sluice_kernel_edge_label(g, sluice_graph_vertex_of(g, u),
                                  sluice_graph_vertex_of(g, v));
}

TEST(EdgeLabelFile, DirectedCompactedAndParallelArcs) {
  TempDir dir;
  GraphPtr g;
  sluice_error_t e;
  // Ids 10, 20, 30 (compacted to 0..2); 10 -> 20 twice.
  ASSERT_EQ(load(dir, "10 20\n10 20\n20 30\n30 10\n",
                 "# comment\n10 20 4\n\n30 10 0\n", SLUICE_GRAPH_LOAD_COMPACT_IDS,
                 g, e),
            SLUICE_STATUS_OK)
      << e.message;
  EXPECT_TRUE(sluice_graph_properties(g.get()) & SLUICE_GRAPH_EDGE_LABELS);
  const int32_t *labels = sluice_graph_edge_labels(g.get());
  ASSERT_NE(labels, nullptr);
  EXPECT_EQ(label(g.get(), 10, 20), 4);
  EXPECT_EQ(label(g.get(), 30, 10), 0);
  EXPECT_EQ(label(g.get(), 20, 30), SLUICE_LABEL_NONE); // no line
  EXPECT_EQ(label(g.get(), 20, 10), -1);                // no such edge
  // Both parallel arcs 10 -> 20 carry the label.
  uint32_t u = sluice_graph_vertex_of(g.get(), 10);
  const uint64_t *off = sluice_graph_offsets(g.get());
  ASSERT_EQ(off[u + 1] - off[u], 2u);
  EXPECT_EQ(labels[off[u]], 4);
  EXPECT_EQ(labels[off[u] + 1], 4);
}

TEST(EdgeLabelFile, UndirectedLabelsBothDirectionsAndMtxIsOneBased) {
  TempDir dir;
  GraphPtr g;
  sluice_error_t e;
  ASSERT_EQ(load(dir, "0 1\n1 2\n", "1 0 7\n", SLUICE_GRAPH_LOAD_UNDIRECTED, g,
                 e),
            SLUICE_STATUS_OK)
      << e.message;
  EXPECT_EQ(label(g.get(), 0, 1), 7);
  EXPECT_EQ(label(g.get(), 1, 0), 7);
  EXPECT_EQ(label(g.get(), 1, 2), SLUICE_LABEL_NONE);

  GraphPtr m;
  ASSERT_EQ(load(dir,
                 "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n"
                 "1 2\n2 3\n",
                 "1 2 5\n", 0, m, e, SLUICE_GRAPH_FORMAT_MTX),
            SLUICE_STATUS_OK)
      << e.message;
  EXPECT_EQ(sluice_kernel_edge_label(m.get(), 0, 1), 5);
  EXPECT_EQ(load(dir,
                 "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n"
                 "1 2\n2 3\n",
                 "0 1 5\n", 0, m, e, SLUICE_GRAPH_FORMAT_MTX),
            SLUICE_STATUS_PARSE_ERROR);
  EXPECT_NE(std::string(e.message).find("vertex id 0 is not valid"),
            std::string::npos)
      << e.message;
}

TEST(EdgeLabelFile, BadLinesAreLocated) {
  struct Case {
    const char *labels;
    sluice_status_t status;
    uint64_t line, column;
    const char *message;
  } cases[] = {
      {"0 1 1\n0 2 1\n", SLUICE_STATUS_NOT_FOUND, 2, 1,
       "edge 0 2 is not in the graph"},
      {"0 1 1\n0 1 2\n", SLUICE_STATUS_PARSE_ERROR, 2, 1,
       "edge 0 1 is labelled twice"},
      {"0 1 x\n", SLUICE_STATUS_PARSE_ERROR, 1, 5, "expected a label, got 'x'"},
      {"0 1 -3\n", SLUICE_STATUS_PARSE_ERROR, 1, 5, "negative label"},
      {"0 1\n", SLUICE_STATUS_PARSE_ERROR, 1, 4, "missing label (column 3"},
      {"0\n", SLUICE_STATUS_PARSE_ERROR, 1, 2, "missing target vertex id"},
      {"0 1 1 9\n", SLUICE_STATUS_PARSE_ERROR, 1, 7, "unexpected column 4"},
      {"0 1 4294967296\n", SLUICE_STATUS_OUT_OF_RANGE, 1, 5,
       "does not fit in 32 bits"},
      {"a 1 1\n", SLUICE_STATUS_PARSE_ERROR, 1, 1, "expected a vertex id"},
  };
  for (const Case &c : cases) {
    TempDir dir;
    GraphPtr g;
    sluice_error_t e;
    EXPECT_EQ(load(dir, "0 1\n1 2\n", c.labels, 0, g, e), c.status)
        << c.labels;
    EXPECT_TRUE(g == nullptr);
    EXPECT_NE(std::string(e.message).find(c.message), std::string::npos)
        << c.labels << ": " << e.message;
    EXPECT_EQ(e.line, c.line) << c.labels << ": " << e.message;
    EXPECT_EQ(e.column, c.column) << c.labels << ": " << e.message;
    EXPECT_NE(std::string(e.path).find("g.elabels"), std::string::npos);
  }
}

TEST(EdgeLabelFile, RefusedWithALabelColumnAndWhenMissing) {
  TempDir dir;
  GraphPtr g;
  sluice_error_t e;
  EXPECT_EQ(load(dir, "0 1 3\n", "0 1 1\n",
                 SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN, g, e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(e.message).find("choose one"), std::string::npos)
      << e.message;
  writeFile(dir.path("g.txt"), "0 1\n");
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_SNAP);
  std::string missing = dir.path("none.elabels");
  o.edge_labels_path = missing.c_str();
  sluice_graph_t *raw = nullptr;
  EXPECT_EQ(sluice_graph_load(dir.path("g.txt").c_str(), &o, &raw, &e),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(raw, nullptr);
}

} // namespace
