//===- GraphSemanticsTest.cpp - Duplicates, self loops, kept vertices -----===//
//
// What the builder makes of the edges it reads: duplicates kept as parallel
// arcs, merged (the first copy wins) or summed; self loops kept or dropped;
// both directed and undirected (where u v and v u are one edge), weighted
// and unweighted; vertices without edges that a Matrix Market size line or
// a list of ids to keep (a walk's start list) declares; and the load
// statistics that report all of it.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cfloat>
#include <cstring>

using namespace sluice::test;

namespace {

constexpr uint32_t kMerge = SLUICE_GRAPH_LOAD_DEDUPLICATE;
constexpr uint32_t kSum = SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
constexpr uint32_t kUndirected = SLUICE_GRAPH_LOAD_UNDIRECTED;
constexpr uint32_t kDropLoops = SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
constexpr uint32_t kCompact = SLUICE_GRAPH_LOAD_COMPACT_IDS;
constexpr sluice_graph_format_t SNAP = SLUICE_GRAPH_FORMAT_SNAP;
constexpr sluice_graph_format_t MTX = SLUICE_GRAPH_FORMAT_MTX;

using Rows = std::vector<std::vector<Arc>>;

sluice_graph_load_stats_t statsOf(const sluice_graph_t *g) {
  sluice_graph_load_stats_t s;
  std::memset(&s, 0xff, sizeof(s));
  sluice_graph_load_stats(g, &s);
  return s;
}

/// Loads `text` (written to a fresh file) with `o`; fails the test on error.
GraphPtr loadText(const std::string &text, sluice_graph_load_options_t o) {
  TempDir dir;
  writeFile(dir.path("g"), text);
  Loaded r = load(dir.path("g"), o);
  EXPECT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  return std::move(r.graph);
}

void expectStats(const sluice_graph_t *g, uint64_t input, uint64_t loops,
                 uint64_t duplicates, uint64_t merged, uint64_t isolated) {
  sluice_graph_load_stats_t s = statsOf(g);
  EXPECT_EQ(s.input_edges, input);
  EXPECT_EQ(s.self_loops, loops);
  EXPECT_EQ(s.duplicate_edges, duplicates);
  EXPECT_EQ(s.merged_arcs, merged);
  EXPECT_EQ(s.isolated_vertices, isolated);
}

TEST(GraphSemantics, DirectedWeightedDuplicatesKeptMergedOrSummed) {
  // 0 -> 1 three times with different weights, in this order.
  const std::string text = "0 1 2.0\n0 1 3.5\n1 2 1\n0 1 0.5\n";
  GraphPtr keep = loadText(text, options(SNAP, 0, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(keep.get()),
            (Rows{{{1, 2.0f, -1}, {1, 3.5f, -1}, {1, 0.5f, -1}},
                  {{2, 1.0f, -1}},
                  {}}));
  EXPECT_FALSE(sluice_graph_properties(keep.get()) &
               SLUICE_GRAPH_NO_DUPLICATES);
  expectStats(keep.get(), 4, 0, 2, 0, 0);

  GraphPtr merged =
      loadText(text, options(SNAP, kMerge, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(merged.get()),
            (Rows{{{1, 2.0f, -1}}, {{2, 1.0f, -1}}, {}}));
  EXPECT_TRUE(sluice_graph_properties(merged.get()) &
              SLUICE_GRAPH_NO_DUPLICATES);
  expectStats(merged.get(), 4, 0, 2, 2, 0);
  EXPECT_EQ(sluice_graph_weight_sum(merged.get(), 0), 2.0f);

  GraphPtr summed = loadText(text, options(SNAP, kSum, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(summed.get()),
            (Rows{{{1, 6.0f, -1}}, {{2, 1.0f, -1}}, {}}));
  expectStats(summed.get(), 4, 0, 2, 2, 0);
  EXPECT_EQ(sluice_graph_weight_max(summed.get(), 0), 6.0f);
}

TEST(GraphSemantics, UnweightedDuplicatesKeptMergedOrSummed) {
  const std::string text = "0 1\n0 1\n1 0\n0 1\n";
  GraphPtr keep = loadText(text, options(SNAP));
  EXPECT_EQ(sluice_graph_num_edges(keep.get()), 4u);
  EXPECT_EQ(sluice_graph_weights(keep.get()), nullptr);
  expectStats(keep.get(), 4, 0, 2, 0, 0);

  GraphPtr merged = loadText(text, options(SNAP, kMerge));
  EXPECT_EQ(adjacency(merged.get()), (Rows{{{1, 1.0f, -1}}, {{0, 1.0f, -1}}}));
  EXPECT_EQ(sluice_graph_weights(merged.get()), nullptr);
  expectStats(merged.get(), 4, 0, 2, 2, 0);

  // Summing the copies of an unweighted edge gives its multiplicity, in a
  // weight array.
  GraphPtr summed = loadText(text, options(SNAP, kSum));
  ASSERT_NE(sluice_graph_weights(summed.get()), nullptr);
  EXPECT_TRUE(sluice_graph_properties(summed.get()) & SLUICE_GRAPH_WEIGHTED);
  EXPECT_EQ(adjacency(summed.get()), (Rows{{{1, 3.0f, -1}}, {{0, 1.0f, -1}}}));
  expectStats(summed.get(), 4, 0, 2, 2, 0);
}

TEST(GraphSemantics, ReciprocalEdgesOfAnUndirectedLoadAreOneEdge) {
  // 0 1 and 1 0 name the same undirected edge: two arcs once merged, four
  // (parallel pairs) when kept.
  const std::string text = "0 1\n1 0\n1 2\n";
  GraphPtr merged = loadText(text, options(SNAP, kUndirected | kMerge));
  EXPECT_EQ(sluice_graph_num_edges(merged.get()), 4u);
  EXPECT_EQ(
      adjacency(merged.get()),
      (Rows{{{1, 1.0f, -1}}, {{0, 1.0f, -1}, {2, 1.0f, -1}}, {{1, 1.0f, -1}}}));
  expectStats(merged.get(), 3, 0, 1, 2, 0);

  GraphPtr kept = loadText(text, options(SNAP, kUndirected));
  EXPECT_EQ(sluice_graph_num_edges(kept.get()), 6u);
  EXPECT_EQ(sluice_graph_degree(kept.get(), 0), 2u);
  expectStats(kept.get(), 3, 0, 1, 0, 0);

  // Weighted: both arcs get the first copy's weight when merged, the sum
  // of both lines when summed.
  const std::string weighted = "0 1 2\n1 0 5\n";
  GraphPtr first = loadText(
      weighted, options(SNAP, kUndirected | kMerge, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(first.get()), (Rows{{{1, 2.0f, -1}}, {{0, 2.0f, -1}}}));
  GraphPtr sum = loadText(
      weighted, options(SNAP, kUndirected | kSum, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(sum.get()), (Rows{{{1, 7.0f, -1}}, {{0, 7.0f, -1}}}));
  expectStats(sum.get(), 2, 0, 1, 2, 0);
}

TEST(GraphSemantics, SelfLoopsKeptOrDropped) {
  // Vertex 2's only edge is a self loop.
  const std::string text = "0 0\n0 1\n0 0\n2 2\n";
  GraphPtr all = loadText(text, options(SNAP));
  EXPECT_EQ(adjacency(all.get()),
            (Rows{{{0, 1.0f, -1}, {0, 1.0f, -1}, {1, 1.0f, -1}},
                  {},
                  {{2, 1.0f, -1}}}));
  EXPECT_FALSE(sluice_graph_properties(all.get()) & SLUICE_GRAPH_NO_SELF_LOOPS);
  expectStats(all.get(), 4, 3, 1, 0, 0);

  GraphPtr loopsMerged = loadText(text, options(SNAP, kMerge));
  EXPECT_EQ(adjacency(loopsMerged.get()),
            (Rows{{{0, 1.0f, -1}, {1, 1.0f, -1}}, {}, {{2, 1.0f, -1}}}));
  expectStats(loopsMerged.get(), 4, 3, 1, 1, 0);

  // Undirected: a self loop is one arc, a duplicate loop merges into it.
  GraphPtr undirected = loadText(text, options(SNAP, kUndirected | kMerge));
  EXPECT_EQ(
      adjacency(undirected.get()),
      (Rows{{{0, 1.0f, -1}, {1, 1.0f, -1}}, {{0, 1.0f, -1}}, {{2, 1.0f, -1}}}));
  expectStats(undirected.get(), 4, 3, 1, 1, 0);

  // Dropped: without compaction vertex 2 stays, without an edge; with it,
  // vertex 2 is gone (no edge names it any more).
  GraphPtr dropped = loadText(text, options(SNAP, kDropLoops | kMerge));
  EXPECT_EQ(adjacency(dropped.get()), (Rows{{{1, 1.0f, -1}}, {}, {}}));
  EXPECT_TRUE(sluice_graph_properties(dropped.get()) &
              SLUICE_GRAPH_NO_SELF_LOOPS);
  expectStats(dropped.get(), 4, 3, 0, 0, 1);
  GraphPtr compact =
      loadText(text, options(SNAP, kDropLoops | kMerge | kCompact));
  EXPECT_EQ(sluice_graph_num_vertices(compact.get()), 2u);
  expectStats(compact.get(), 4, 3, 0, 0, 0);

  // Undirected and weighted, loops dropped, duplicates summed.
  GraphPtr simple = loadText(
      "0 0 4\n0 1 1\n1 0 2\n1 1 8\n",
      options(SNAP, kUndirected | kDropLoops | kSum, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(simple.get()), (Rows{{{1, 3.0f, -1}}, {{0, 3.0f, -1}}}));
  expectStats(simple.get(), 4, 2, 1, 2, 0);
}

TEST(GraphSemantics, SumsAreInInputOrderAndSaturate) {
  // 1e8 + 1 + 1 ... in float would lose every one (floats are 8 apart
  // there); the sum is kept in double: 1e8 + 8, a float.
  std::string ones = "0 1 1e8\n";
  for (int i = 0; i < 8; ++i)
    ones += "0 1 1\n";
  GraphPtr exact = loadText(ones, options(SNAP, kSum, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(sluice_graph_weights(exact.get())[0], 100000008.0f);
  // Beyond float: FLT_MAX, never infinity.
  GraphPtr huge = loadText("0 1 3e38\n0 1 3e38\n",
                           options(SNAP, kSum, SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(sluice_graph_weights(huge.get())[0], FLT_MAX);
}

TEST(GraphSemantics, MergedEdgesKeepTheFirstCopysLabel) {
  GraphPtr g =
      loadText("0 1 5 7\n0 1 1 3\n",
               options(SNAP, kSum | SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN,
                       SLUICE_WEIGHTS_COLUMN));
  EXPECT_EQ(adjacency(g.get()), (Rows{{{1, 6.0f, 7}}, {}}));
}

TEST(GraphSemantics, MatrixMarketDeclaredVerticesAreKept) {
  // Five declared vertices; 3 and 5 have no edge.
  const std::string text = "%%MatrixMarket matrix coordinate pattern general\n"
                           "5 5 2\n1 2\n2 4\n";
  GraphPtr compacted = loadText(text, options(MTX, kCompact));
  EXPECT_EQ(sluice_graph_num_vertices(compacted.get()), 3u);
  EXPECT_EQ(sluice_graph_vertex_of(compacted.get(), 3), SLUICE_VERTEX_NONE);

  GraphPtr kept = loadText(
      text, options(MTX, kCompact | SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES));
  const sluice_graph_t *g = kept.get();
  EXPECT_EQ(sluice_graph_num_vertices(g), 5u);
  EXPECT_EQ(sluice_graph_original_ids(g), nullptr); // 1..5: the identity
  EXPECT_FALSE(sluice_graph_properties(g) & SLUICE_GRAPH_COMPACTED);
  for (uint64_t id = 1; id <= 5; ++id)
    EXPECT_EQ(sluice_graph_vertex_of(g, id), id - 1);
  EXPECT_EQ(sluice_graph_degree(g, sluice_graph_vertex_of(g, 3)), 0u);
  EXPECT_EQ(sluice_graph_degree(g, sluice_graph_vertex_of(g, 5)), 0u);
  EXPECT_TRUE(sluice_graph_has_edge(g, 1, 3)); // 2 -> 4
  expectStats(g, 2, 0, 0, 0, 2);

  // The same without compaction (declared vertices always stay), and a
  // symmetric matrix.
  GraphPtr plain = loadText(text, options(MTX));
  EXPECT_EQ(sluice_graph_num_vertices(plain.get()), 5u);
  GraphPtr symmetric = loadText(
      "%%MatrixMarket matrix coordinate pattern symmetric\n6 6 2\n2 1\n2 1\n",
      options(MTX,
              kCompact | kMerge | SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES));
  EXPECT_EQ(sluice_graph_num_vertices(symmetric.get()), 6u);
  EXPECT_EQ(sluice_graph_num_edges(symmetric.get()), 2u);
  expectStats(symmetric.get(), 2, 0, 1, 2, 4);
}

TEST(GraphSemantics, KeptIdsAreVerticesWithoutEdges) {
  // A walk's start list: 5 and 99 have no edge, 20 has.
  const uint64_t keep[] = {5, 20, 99, 5};
  sluice_graph_load_options_t o = options(SNAP, kCompact);
  o.keep_vertex_ids = keep;
  o.num_keep_vertex_ids = 4;
  GraphPtr g = loadText("10 20\n20 30\n", o);
  EXPECT_EQ(sluice_graph_num_vertices(g.get()), 5u);
  const uint64_t *ids = sluice_graph_original_ids(g.get());
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(std::vector<uint64_t>(ids, ids + 5),
            (std::vector<uint64_t>{5, 10, 20, 30, 99}));
  EXPECT_EQ(sluice_graph_degree(g.get(), sluice_graph_vertex_of(g.get(), 5)),
            0u);
  EXPECT_EQ(sluice_graph_degree(g.get(), sluice_graph_vertex_of(g.get(), 20)),
            1u);
  expectStats(g.get(), 2, 0, 0, 0, 2);

  // Without compaction an id widens the vertex range.
  const uint64_t far[] = {40};
  o = options(SNAP);
  o.keep_vertex_ids = far;
  o.num_keep_vertex_ids = 1;
  GraphPtr wide = loadText("0 1\n", o);
  EXPECT_EQ(sluice_graph_num_vertices(wide.get()), 41u);

  // A self loop's vertex dropped with its loop comes back when kept.
  const uint64_t loop[] = {7};
  o = options(SNAP, kCompact | kDropLoops);
  o.keep_vertex_ids = loop;
  o.num_keep_vertex_ids = 1;
  GraphPtr back = loadText("0 1\n7 7\n", o);
  EXPECT_NE(sluice_graph_vertex_of(back.get(), 7), SLUICE_VERTEX_NONE);
  EXPECT_EQ(sluice_graph_num_vertices(back.get()), 3u);

  // Ids the file cannot hold are ignored: 0 in a 1-based file, 9 beyond a
  // size line of 4 rows.
  const uint64_t outside[] = {0, 9, 3};
  o = options(MTX, kCompact);
  o.keep_vertex_ids = outside;
  o.num_keep_vertex_ids = 3;
  GraphPtr mtx = loadText(
      "%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 2\n", o);
  EXPECT_EQ(sluice_graph_num_vertices(mtx.get()), 3u);
  EXPECT_EQ(sluice_graph_vertex_of(mtx.get(), 9), SLUICE_VERTEX_NONE);
  EXPECT_NE(sluice_graph_vertex_of(mtx.get(), 3), SLUICE_VERTEX_NONE);
  o.format = SLUICE_GRAPH_FORMAT_MTX_BODY;
  GraphPtr body = loadText("1 2\n", o);
  EXPECT_EQ(sluice_graph_num_vertices(body.get()), 4u); // 1, 2, 3, 9
}

TEST(GraphSemantics, EdgeArraysSumAndReport) {
  const uint32_t src[] = {0, 0, 1, 2, 0};
  const uint32_t dst[] = {1, 1, 1, 0, 1};
  const float w[] = {1.5f, 2.0f, 4.0f, 1.0f, 0.5f};
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(4, 5, src, dst, w, nullptr, nullptr,
                                           kSum | kDropLoops, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  EXPECT_EQ(adjacency(g.get()),
            (Rows{{{1, 4.0f, -1}}, {}, {{0, 1.0f, -1}}, {}}));
  expectStats(g.get(), 5, 1, 2, 2, 1);
  // Unweighted arrays summed: multiplicities.
  ASSERT_EQ(sluice_graph_create_from_edges(4, 5, src, dst, nullptr, nullptr,
                                           nullptr, kSum, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr counts(raw);
  EXPECT_EQ(adjacency(counts.get()),
            (Rows{{{1, 3.0f, -1}}, {{1, 1.0f, -1}}, {{0, 1.0f, -1}}, {}}));
  sluice_error_t error;
  EXPECT_EQ(sluice_graph_create_from_edges(4, 5, src, dst, w, nullptr, nullptr,
                                           kSum | kMerge, &raw, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "duplicate edges both merged (DEDUPLICATE) and summed "
               "(SUM_DUPLICATES); choose one");
  // No graph: zeros.
  sluice_graph_load_stats_t none = statsOf(nullptr);
  EXPECT_EQ(none.input_edges + none.self_loops + none.duplicate_edges +
                none.merged_arcs + none.isolated_vertices,
            0u);
}

TEST(GraphSemantics, BinaryFilesReportWhatTheyStore) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n1 1\n1 2\n1 2\n0 1\n");
  Loaded text = load(dir.path("g.txt"), options(SNAP, kUndirected));
  ASSERT_EQ(text.status, SLUICE_STATUS_OK);
  expectStats(text.graph.get(), 5, 1, 2, 0, 0);
  std::string path = dir.path("g.scsr");
  ASSERT_EQ(sluice_graph_write_binary(text.graph.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  // The file's 9 arcs as read: the loop and the two duplicate edges.
  const uint64_t keep[] = {9};
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_AUTO);
  o.keep_vertex_ids = keep; // a binary file's vertices are fixed
  o.num_keep_vertex_ids = 1;
  Loaded binary = load(path, o);
  ASSERT_EQ(binary.status, SLUICE_STATUS_OK) << formatted(binary.error);
  expectStats(binary.graph.get(), 9, 1, 2, 0, 0);
  EXPECT_EQ(sluice_graph_vertex_of(binary.graph.get(), 9), SLUICE_VERTEX_NONE);
  // Summing is a requirement like deduplication.
  Loaded sum = load(path, options(SLUICE_GRAPH_FORMAT_AUTO, kSum));
  EXPECT_EQ(sum.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(sum.error.message),
            "summing duplicate edges was requested but the binary file has "
            "duplicate edges (options that transform edges apply when a "
            "binary file is written, not when it is loaded)");
}

TEST(GraphSemantics, EdgeLabelsOfDroppedSelfLoopsAreSkipped) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 0\n0 1\n");
  writeFile(dir.path("g.elabels"), "0 0 3\n0 1 4\n");
  std::string labels = dir.path("g.elabels");
  sluice_graph_load_options_t o = options(SNAP, kDropLoops);
  o.edge_labels_path = labels.c_str();
  Loaded dropped = load(dir.path("g.txt"), o);
  ASSERT_EQ(dropped.status, SLUICE_STATUS_OK) << formatted(dropped.error);
  EXPECT_EQ(adjacency(dropped.graph.get()), (Rows{{{1, 1.0f, 4}}, {}}));
  // Kept, the loop gets its label.
  o.flags &= ~kDropLoops;
  Loaded kept = load(dir.path("g.txt"), o);
  ASSERT_EQ(kept.status, SLUICE_STATUS_OK) << formatted(kept.error);
  EXPECT_EQ(adjacency(kept.graph.get()),
            (Rows{{{0, 1.0f, 3}, {1, 1.0f, 4}}, {}}));
}

} // namespace
