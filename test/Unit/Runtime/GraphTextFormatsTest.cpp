//===- GraphTextFormatsTest.cpp - SNAP, Matrix Market, labels, options ----===//
//
// Each text format on small hand-written files (plain and gzip'd), each load
// option (undirected, self loops, deduplication, compact ids, weights, edge
// labels, vertex labels), format detection and progress reporting.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <random>
#include <set>

using namespace sluice::test;

namespace {

using Adjacency = std::vector<std::vector<uint32_t>>;

Adjacency targetsOf(const sluice_graph_t *g) {
  Adjacency adj;
  for (const auto &row : adjacency(g)) {
    adj.emplace_back();
    for (const Arc &a : row)
      adj.back().push_back(a.target);
  }
  return adj;
}

TEST(GraphTextFormats, SnapCommentsTabsCrlfAndNoFinalNewline) {
  TempDir dir;
  std::string path = dir.path("g.txt");
  writeFile(path, "# a SNAP header\r\n0\t1\r\n\r\n1 2\n2   0\n  % another "
                  "comment\n3 1");
  Loaded r = load(path, options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(r.error.status, SLUICE_STATUS_OK);
  EXPECT_STREQ(r.error.message, "");
  const sluice_graph_t *g = r.graph.get();
  EXPECT_EQ(sluice_graph_num_vertices(g), 4u);
  EXPECT_EQ(sluice_graph_num_edges(g), 4u);
  EXPECT_EQ(targetsOf(g), (Adjacency{{1}, {2}, {0}, {1}}));
  EXPECT_EQ(sluice_graph_properties(g),
            uint32_t(SLUICE_GRAPH_DIRECTED | SLUICE_GRAPH_NO_DUPLICATES |
                     SLUICE_GRAPH_NO_SELF_LOOPS));
  EXPECT_EQ(sluice_graph_weights(g), nullptr);
  EXPECT_EQ(sluice_graph_edge_labels(g), nullptr);
  EXPECT_EQ(sluice_graph_vertex_labels(g), nullptr);
  EXPECT_EQ(sluice_graph_original_ids(g), nullptr);
  EXPECT_EQ(sluice_graph_id_base(g), 0u);
  EXPECT_EQ(sluice_graph_original_id(g, 3), 3u);
  EXPECT_EQ(sluice_graph_vertex_of(g, 3), 3u);
  EXPECT_EQ(sluice_graph_vertex_of(g, 4), SLUICE_VERTEX_NONE);
}

/// CSV edge lists: comma-separated fields with blanks around them, a
/// header line, weights; detected by AUTO from the first entry line's
/// comma. A TSV/SNAP file with a header line loads too.
TEST(GraphTextFormats, CsvAndHeaderLines) {
  TempDir dir;
  writeFile(dir.path("g.csv"),
            "# exported edges\nsource, target ,weight\n0,1,2.5\n 1 , 2, 1\n"
            "2,0,0.5\n");
  for (sluice_graph_format_t f :
       {SLUICE_GRAPH_FORMAT_CSV, SLUICE_GRAPH_FORMAT_AUTO}) {
    sluice_graph_load_options_t o = options(f);
    o.weights = SLUICE_WEIGHTS_COLUMN;
    Loaded r = load(dir.path("g.csv"), o);
    ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
    const sluice_graph_t *g = r.graph.get();
    EXPECT_EQ(targetsOf(g), (Adjacency{{1}, {2}, {0}}));
    ASSERT_NE(sluice_graph_weights(g), nullptr);
    EXPECT_EQ(sluice_graph_weights(g)[0], 2.5f);
    EXPECT_EQ(sluice_graph_weights(g)[2], 0.5f);
  }
  writeFile(dir.path("g.tsv"), "src\tdst\n0\t1\n1\t0\n");
  Loaded tsv = load(dir.path("g.tsv"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(tsv.status, SLUICE_STATUS_OK) << formatted(tsv.error);
  EXPECT_EQ(targetsOf(tsv.graph.get()), (Adjacency{{1}, {0}}));

  // Only the first entry line can be a header, and only when neither id
  // field is a number: bad ids stay located errors.
  writeFile(dir.path("late.csv"), "0,1\nsrc,dst\n");
  Loaded late = load(dir.path("late.csv"), options(SLUICE_GRAPH_FORMAT_CSV));
  EXPECT_EQ(late.status, SLUICE_STATUS_PARSE_ERROR);
  EXPECT_EQ(late.error.line, 2u);
  writeFile(dir.path("one.csv"), "x,1\n");
  Loaded one = load(dir.path("one.csv"), options(SLUICE_GRAPH_FORMAT_CSV));
  EXPECT_EQ(one.status, SLUICE_STATUS_PARSE_ERROR);
  EXPECT_EQ(one.error.line, 1u);
  EXPECT_EQ(one.error.column, 1u);
  // An empty field is missing, not skipped.
  writeFile(dir.path("empty.csv"), "0,,1\n");
  Loaded empty = load(dir.path("empty.csv"), options(SLUICE_GRAPH_FORMAT_CSV));
  EXPECT_EQ(empty.status, SLUICE_STATUS_PARSE_ERROR) << formatted(empty.error);
  EXPECT_EQ(empty.error.column, 3u);
  sluice_graph_format_t f;
  ASSERT_EQ(sluice_graph_format_from_name("csv", &f), SLUICE_STATUS_OK);
  EXPECT_EQ(f, SLUICE_GRAPH_FORMAT_CSV);
  EXPECT_STREQ(sluice_graph_format_name(SLUICE_GRAPH_FORMAT_CSV), "csv");
}

TEST(GraphTextFormats, GzipIsDetectedFromTheContent) {
  TempDir dir;
  const std::string text = "0 1\n1 2\n2 0\n3 1\n";
  writeFile(dir.path("plain.txt"), text);
  writeGzip(dir.path("packed.txt.gz"), text);
  writeGzip(dir.path("packed-without-suffix"), text);
  Loaded plain = load(dir.path("plain.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(plain.status, SLUICE_STATUS_OK);
  for (const char *name : {"packed.txt.gz", "packed-without-suffix"}) {
    Loaded packed = load(dir.path(name), options(SLUICE_GRAPH_FORMAT_AUTO));
    ASSERT_EQ(packed.status, SLUICE_STATUS_OK) << formatted(packed.error);
    EXPECT_EQ(targetsOf(packed.graph.get()), targetsOf(plain.graph.get()))
        << name;
  }
}

TEST(GraphTextFormats, LineEndsAreLfCrLfOrCr) {
  TempDir dir;
  // A classic Mac file (CR only) starting with a comment: four lines, not one
  // comment line.
  const std::string mac = "# old Mac file\r0 1\r1 2\r2 0\r";
  writeFile(dir.path("mac.txt"), mac);
  Loaded cr = load(dir.path("mac.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(cr.status, SLUICE_STATUS_OK) << formatted(cr.error);
  EXPECT_EQ(targetsOf(cr.graph.get()), (Adjacency{{1}, {2}, {0}}));
  // The three conventions mixed, a blank line of each, and no final line end;
  // an error on the last line gives its number counted the same way.
  writeFile(dir.path("mixed.txt"), "0 1\n\n1 2\r\n\r\n2 0\r\r3 x");
  Loaded mixed = load(dir.path("mixed.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  EXPECT_EQ(mixed.status, SLUICE_STATUS_PARSE_ERROR);
  EXPECT_EQ(mixed.error.line, 7u) << formatted(mixed.error);
  EXPECT_STREQ(mixed.error.message, "expected a target vertex id, got 'x'");
  // "\r\n" split between two reads is still one line end: with 5-byte
  // lines the first read (256 KiB) ends between a "\r" and its "\n". A
  // blank line counted there would shift the number of the bad last line.
  std::string many;
  const uint64_t lines = 700000;
  for (uint64_t i = 0; i < lines; ++i)
    many += "0 1\r\n";
  many += "0 x\r\n";
  writeFile(dir.path("many.txt"), many);
  writeGzip(dir.path("many.gz"), many);
  for (const char *name : {"many.txt", "many.gz"}) {
    Loaded r = load(dir.path(name), options(SLUICE_GRAPH_FORMAT_SNAP));
    EXPECT_EQ(r.status, SLUICE_STATUS_PARSE_ERROR) << name;
    EXPECT_EQ(r.error.line, lines + 1) << name;
  }
  // The same lines gzip'd.
  writeGzip(dir.path("mac.gz"), mac);
  Loaded packed = load(dir.path("mac.gz"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(packed.status, SLUICE_STATUS_OK) << formatted(packed.error);
  EXPECT_EQ(targetsOf(packed.graph.get()), (Adjacency{{1}, {2}, {0}}));
}

TEST(GraphTextFormats, ConcatenatedGzipMembersAreOneFile) {
  TempDir dir;
  writeGzip(dir.path("a.gz"), "0 1\n1 2\n");
  writeGzip(dir.path("b.gz"), "2 0\n");
  writeGzip(dir.path("empty.gz"), "");
  writeFile(dir.path("ab.gz"), readFile(dir.path("a.gz")) +
                                   readFile(dir.path("empty.gz")) +
                                   readFile(dir.path("b.gz")));
  Loaded r = load(dir.path("ab.gz"), options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(targetsOf(r.graph.get()), (Adjacency{{1}, {2}, {0}}));
}

TEST(GraphTextFormats, AdjacencyIsSortedAndDuplicatesAreReported) {
  TempDir dir;
  std::string path = dir.path("g.txt");
  writeFile(path, "0 5\n0 2\n0 9\n0 2\n");
  Loaded kept = load(path, options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(kept.status, SLUICE_STATUS_OK);
  EXPECT_EQ(targetsOf(kept.graph.get())[0],
            (std::vector<uint32_t>{2, 2, 5, 9}));
  EXPECT_FALSE(sluice_graph_properties(kept.graph.get()) &
               SLUICE_GRAPH_NO_DUPLICATES);
  EXPECT_EQ(sluice_graph_num_vertices(kept.graph.get()), 10u);

  Loaded dedup = load(
      path, options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_DEDUPLICATE));
  ASSERT_EQ(dedup.status, SLUICE_STATUS_OK);
  EXPECT_EQ(targetsOf(dedup.graph.get())[0], (std::vector<uint32_t>{2, 5, 9}));
  EXPECT_TRUE(sluice_graph_properties(dedup.graph.get()) &
              SLUICE_GRAPH_NO_DUPLICATES);
}

TEST(GraphTextFormats, WeightColumnAndFirstCopyWinsOnDeduplication) {
  TempDir dir;
  std::string path = dir.path("w.txt");
  writeFile(path, "0 1 2.5\n0 1 7\n1 0 0.5\n2 2 1e-3\n");
  Loaded directed =
      load(path, options(SLUICE_GRAPH_FORMAT_SNAP,
                         SLUICE_GRAPH_LOAD_DEDUPLICATE, SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(directed.status, SLUICE_STATUS_OK) << formatted(directed.error);
  auto adj = adjacency(directed.graph.get());
  ASSERT_EQ(adj.size(), 3u);
  EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 2.5f, -1}}));
  EXPECT_EQ(adj[1], (std::vector<Arc>{{0, 0.5f, -1}}));
  EXPECT_EQ(adj[2], (std::vector<Arc>{{2, 1e-3f, -1}}));
  EXPECT_TRUE(sluice_graph_properties(directed.graph.get()) &
              SLUICE_GRAPH_WEIGHTED);

  // Undirected: row 1 holds, in input order, the reverses of lines 1 and 2
  // and line 3 itself; the first (2.5) survives.
  Loaded undirected = load(path, options(SLUICE_GRAPH_FORMAT_SNAP,
                                         SLUICE_GRAPH_LOAD_UNDIRECTED |
                                             SLUICE_GRAPH_LOAD_DEDUPLICATE,
                                         SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(undirected.status, SLUICE_STATUS_OK);
  adj = adjacency(undirected.graph.get());
  EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 2.5f, -1}}));
  EXPECT_EQ(adj[1], (std::vector<Arc>{{0, 2.5f, -1}}));
  EXPECT_FALSE(sluice_graph_properties(undirected.graph.get()) &
               SLUICE_GRAPH_DIRECTED);
}

TEST(GraphTextFormats, WeightsOfOne) {
  TempDir dir;
  std::string path = dir.path("g.txt");
  writeFile(path, "0 1\n1 2\n");
  Loaded r =
      load(path, options(SLUICE_GRAPH_FORMAT_SNAP, 0, SLUICE_WEIGHTS_ONES));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  const float *w = sluice_graph_weights(r.graph.get());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], 1.0f);
  ASSERT_NE(sluice_graph_weight_sums(r.graph.get()), nullptr);
  EXPECT_EQ(sluice_graph_weight_sum(r.graph.get(), 2), 0.0f);
}

TEST(GraphTextFormats, EdgeLabelColumn) {
  TempDir dir;
  writeFile(dir.path("l.txt"), "0 1 3\n1 2 4\n");
  Loaded r =
      load(dir.path("l.txt"), options(SLUICE_GRAPH_FORMAT_SNAP,
                                      SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  auto adj = adjacency(r.graph.get());
  EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 1.0f, 3}}));
  EXPECT_EQ(adj[1], (std::vector<Arc>{{2, 1.0f, 4}}));
  EXPECT_EQ(sluice_graph_weights(r.graph.get()), nullptr);

  writeFile(dir.path("wl.txt"), "0 1 0.5 7\n");
  Loaded both =
      load(dir.path("wl.txt"),
           options(SLUICE_GRAPH_FORMAT_SNAP,
                   SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN, SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(both.status, SLUICE_STATUS_OK) << formatted(both.error);
  EXPECT_EQ(adjacency(both.graph.get())[0], (std::vector<Arc>{{1, 0.5f, 7}}));
  EXPECT_TRUE(sluice_graph_properties(both.graph.get()) &
              SLUICE_GRAPH_EDGE_LABELS);
}

TEST(GraphTextFormats, UndirectedStoresSelfLoopsOnceAndCanDropThem) {
  TempDir dir;
  std::string path = dir.path("g.txt");
  writeFile(path, "0 1\n1 2\n2 2\n");
  Loaded r = load(
      path, options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_UNDIRECTED));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_edges(r.graph.get()), 5u);
  EXPECT_EQ(targetsOf(r.graph.get()), (Adjacency{{1}, {0, 2}, {1, 2}}));
  EXPECT_FALSE(sluice_graph_properties(r.graph.get()) &
               SLUICE_GRAPH_NO_SELF_LOOPS);

  Loaded dropped = load(path, options(SLUICE_GRAPH_FORMAT_SNAP,
                                      SLUICE_GRAPH_LOAD_UNDIRECTED |
                                          SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS));
  ASSERT_EQ(dropped.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_edges(dropped.graph.get()), 4u);
  // Without compaction the dropped loop's vertex still counts.
  EXPECT_EQ(sluice_graph_num_vertices(dropped.graph.get()), 3u);
  EXPECT_TRUE(sluice_graph_properties(dropped.graph.get()) &
              SLUICE_GRAPH_NO_SELF_LOOPS);
}

TEST(GraphTextFormats, CompactIdsKeepTheMapping) {
  TempDir dir;
  std::string path = dir.path("sparse.txt");
  writeFile(path, "100 7\n7 3000000000000\n100 3000000000000\n");
  Loaded r = load(
      path, options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  const sluice_graph_t *g = r.graph.get();
  ASSERT_EQ(sluice_graph_num_vertices(g), 3u);
  const uint64_t *ids = sluice_graph_original_ids(g);
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(std::vector<uint64_t>(ids, ids + 3),
            (std::vector<uint64_t>{7, 100, 3000000000000ULL}));
  EXPECT_EQ(targetsOf(g), (Adjacency{{2}, {0, 2}, {}}));
  EXPECT_EQ(sluice_graph_original_id(g, 2), 3000000000000ULL);
  EXPECT_EQ(sluice_graph_vertex_of(g, 100), 1u);
  EXPECT_EQ(sluice_graph_vertex_of(g, 8), SLUICE_VERTEX_NONE);
  EXPECT_TRUE(sluice_graph_properties(g) & SLUICE_GRAPH_COMPACTED);

  // Self loops are dropped before compaction: vertex 5 disappears.
  writeFile(dir.path("loop.txt"), "5 5\n7 8\n");
  Loaded loop = load(
      dir.path("loop.txt"),
      options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS |
                                            SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS));
  ASSERT_EQ(loop.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_vertices(loop.graph.get()), 2u);
  EXPECT_EQ(sluice_graph_original_id(loop.graph.get(), 0), 7u);

  // Dense ids need no mapping: compaction of 0..2 is the identity.
  writeFile(dir.path("dense.txt"), "2 0\n1 2\n");
  Loaded dense =
      load(dir.path("dense.txt"),
           options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(dense.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_original_ids(dense.graph.get()), nullptr);
  EXPECT_FALSE(sluice_graph_properties(dense.graph.get()) &
               SLUICE_GRAPH_COMPACTED);
  EXPECT_EQ(sluice_graph_original_id(dense.graph.get(), 2), 2u);
  // The same for a 1-based file whose ids are 1..n.
  writeFile(dir.path("dense.el"), "3 1\n2 3\n");
  Loaded oneBased =
      load(dir.path("dense.el"), options(SLUICE_GRAPH_FORMAT_MTX_BODY,
                                         SLUICE_GRAPH_LOAD_COMPACT_IDS));
  ASSERT_EQ(oneBased.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_original_ids(oneBased.graph.get()), nullptr);
  EXPECT_EQ(sluice_graph_original_id(oneBased.graph.get(), 2), 3u);
}

TEST(GraphTextFormats, CompactIdsEqualARankingOfTheDistinctIds) {
  // Random edges over sparse ids, compacted, against a reference: the
  // distinct ids sorted (std::set), each id's rank its vertex. Ids below
  // 2^28 are kept in a bitmap; a larger id (placed first, in the middle or
  // last, or absent) moves the ids seen to the hash map mid-file. The
  // graphs must not differ. (5000 lines: the edge arrays are reserved
  // from the first 4096.)
  TempDir dir;
  std::mt19937_64 rng(11);
  for (int where : {-1, 0, 2500, 4999}) {
    std::vector<std::pair<uint64_t, uint64_t>> edges;
    std::uniform_int_distribution<uint64_t> small(0, 5000), big(0, 1u << 29);
    for (int i = 0; i < 5000; ++i) {
      uint64_t u = i % 3 ? small(rng) * 37 : big(rng);
      uint64_t v = i % 5 ? small(rng) * 37 + 1 : big(rng);
      if (i == where)
        v = 5000000000000ULL + uint64_t(i);
      edges.push_back({u, v});
    }
    std::string text;
    for (auto [u, v] : edges)
      text += std::to_string(u) + " " + std::to_string(v) + "\n";
    std::string path = dir.path("ids" + std::to_string(where + 1) + ".txt");
    writeFile(path, text);
    Loaded r = load(
        path, options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS));
    ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
    std::set<uint64_t> distinct;
    for (auto [u, v] : edges)
      distinct.insert({u, v});
    std::vector<uint64_t> sorted(distinct.begin(), distinct.end());
    auto rank = [&](uint64_t id) {
      return uint32_t(std::lower_bound(sorted.begin(), sorted.end(), id) -
                      sorted.begin());
    };
    Adjacency expected(sorted.size());
    for (auto [u, v] : edges)
      expected[rank(u)].push_back(rank(v));
    for (auto &row : expected) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    const sluice_graph_t *g = r.graph.get();
    ASSERT_EQ(sluice_graph_num_vertices(g), sorted.size()) << where;
    const uint64_t *ids = sluice_graph_original_ids(g);
    ASSERT_NE(ids, nullptr);
    EXPECT_EQ(std::vector<uint64_t>(ids, ids + sorted.size()), sorted) << where;
    EXPECT_EQ(targetsOf(g), expected) << where;
  }
}

TEST(GraphTextFormats, MatrixMarketGeneralReal) {
  TempDir dir;
  std::string path = dir.path("g.mtx");
  writeFile(path, "%%MatrixMarket matrix coordinate real general\n"
                  "% a comment\n"
                  "\n"
                  "4 4 3\n"
                  "1 2 0.5\n"
                  "2 3 1.5\n"
                  "4 4 2\n");
  Loaded r =
      load(path, options(SLUICE_GRAPH_FORMAT_MTX, 0, SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  const sluice_graph_t *g = r.graph.get();
  EXPECT_EQ(sluice_graph_num_vertices(g), 4u);
  auto adj = adjacency(g);
  EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 0.5f, -1}}));
  EXPECT_EQ(adj[1], (std::vector<Arc>{{2, 1.5f, -1}}));
  EXPECT_TRUE(adj[2].empty());
  EXPECT_EQ(adj[3], (std::vector<Arc>{{3, 2.0f, -1}}));
  EXPECT_TRUE(sluice_graph_properties(g) & SLUICE_GRAPH_DIRECTED);
  EXPECT_EQ(sluice_graph_id_base(g), 1u);
  EXPECT_EQ(sluice_graph_original_id(g, 0), 1u);
  EXPECT_EQ(sluice_graph_vertex_of(g, 4), 3u);
  EXPECT_EQ(sluice_graph_vertex_of(g, 0), SLUICE_VERTEX_NONE);

  // The values are still checked, but ignored, without weights.
  Loaded unweighted = load(path, options(SLUICE_GRAPH_FORMAT_MTX));
  ASSERT_EQ(unweighted.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_weights(unweighted.graph.get()), nullptr);
}

TEST(GraphTextFormats, MatrixMarketSymmetricPatternIsUndirected) {
  TempDir dir;
  std::string path = dir.path("s.mtx");
  writeFile(path, "%%MatrixMarket matrix coordinate pattern symmetric\n"
                  "3 3 3\n"
                  "2 1\n"
                  "3 1\n"
                  "3 3\n");
  Loaded r = load(path, options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(targetsOf(r.graph.get()), (Adjacency{{1, 2}, {0}, {0, 2}}));
  EXPECT_FALSE(sluice_graph_properties(r.graph.get()) & SLUICE_GRAPH_DIRECTED);
}

TEST(GraphTextFormats, MatrixMarketIntegerAndCaseInsensitiveBanner) {
  TempDir dir;
  std::string path = dir.path("i.mtx.gz");
  writeGzip(path, "%%matrixmarket MATRIX Coordinate Integer General\n"
                  "2 2 2\n"
                  "1 2 5\n"
                  "2 1 3\n");
  Loaded r =
      load(path, options(SLUICE_GRAPH_FORMAT_AUTO, 0, SLUICE_WEIGHTS_COLUMN));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  auto adj = adjacency(r.graph.get());
  EXPECT_EQ(adj[0], (std::vector<Arc>{{1, 5.0f, -1}}));
  EXPECT_EQ(adj[1], (std::vector<Arc>{{0, 3.0f, -1}}));
  // A negative value is no weight, but a matrix whose values are not the
  // weights may hold one (GraphErrorsTest: mtx_negative_integer_weight).
  writeGzip(path, "%%MatrixMarket matrix coordinate integer general\n"
                  "2 2 1\n"
                  "2 1 -3\n");
  Loaded unweighted = load(path, options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(unweighted.status, SLUICE_STATUS_OK) << formatted(unweighted.error);
  EXPECT_EQ(sluice_graph_weights(unweighted.graph.get()), nullptr);
}

TEST(GraphTextFormats, MatrixMarketBodyIsOneBased) {
  TempDir dir;
  std::string path = dir.path("body.el");
  writeFile(path, "2 1\n3 2\n");
  Loaded r = load(path, options(SLUICE_GRAPH_FORMAT_MTX_BODY,
                                SLUICE_GRAPH_LOAD_UNDIRECTED));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  EXPECT_EQ(targetsOf(r.graph.get()), (Adjacency{{1}, {0, 2}, {1}}));
  EXPECT_EQ(sluice_graph_id_base(r.graph.get()), 1u);
  // Read as SNAP the same file is 0-based: four vertices.
  Loaded snap = load(path, options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(snap.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_vertices(snap.graph.get()), 4u);
}

TEST(GraphTextFormats, EmptyEdgeList) {
  TempDir dir;
  writeFile(dir.path("empty.txt"), "# nothing\n");
  Loaded r = load(dir.path("empty.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_vertices(r.graph.get()), 0u);
  EXPECT_EQ(sluice_graph_num_edges(r.graph.get()), 0u);
  ASSERT_NE(sluice_graph_offsets(r.graph.get()), nullptr);
  EXPECT_EQ(sluice_graph_offsets(r.graph.get())[0], 0u);
  EXPECT_NE(sluice_graph_targets(r.graph.get()), nullptr);
  EXPECT_EQ(sluice_graph_degree(r.graph.get(), 0), 0u);
}

TEST(GraphTextFormats, VertexLabels) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n1 2\n");
  writeFile(dir.path("g.labels"), "# vertex label\n0 3\n\n2 1\n");
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_SNAP);
  std::string labels = dir.path("g.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.txt"), o);
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  const int32_t *l = sluice_graph_vertex_labels(r.graph.get());
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(std::vector<int32_t>(l, l + 3),
            (std::vector<int32_t>{3, SLUICE_LABEL_NONE, 1}));
  EXPECT_EQ(sluice_graph_vertex_label(r.graph.get(), 0), 3);
  EXPECT_EQ(sluice_graph_vertex_label(r.graph.get(), 7), SLUICE_LABEL_NONE);
  EXPECT_TRUE(sluice_graph_properties(r.graph.get()) &
              SLUICE_GRAPH_VERTEX_LABELS);
}

TEST(GraphTextFormats, VertexLabelsOfCompactedAndOneBasedGraphs) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "10 20\n");
  writeFile(dir.path("g.labels"), "10 1\n20 2\n30 3\n");
  sluice_graph_load_options_t o =
      options(SLUICE_GRAPH_FORMAT_SNAP, SLUICE_GRAPH_LOAD_COMPACT_IDS);
  std::string labels = dir.path("g.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.txt"), o);
  ASSERT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  const int32_t *l = sluice_graph_vertex_labels(r.graph.get());
  EXPECT_EQ(std::vector<int32_t>(l, l + 2), (std::vector<int32_t>{1, 2}));

  writeFile(dir.path("b.el"), "1 2\n");
  writeFile(dir.path("b.labels"), "2 9\n");
  sluice_graph_load_options_t b = options(SLUICE_GRAPH_FORMAT_MTX_BODY);
  std::string bl = dir.path("b.labels");
  b.vertex_labels_path = bl.c_str();
  Loaded one = load(dir.path("b.el"), b);
  ASSERT_EQ(one.status, SLUICE_STATUS_OK) << formatted(one.error);
  EXPECT_EQ(sluice_graph_vertex_label(one.graph.get(), 0), SLUICE_LABEL_NONE);
  EXPECT_EQ(sluice_graph_vertex_label(one.graph.get(), 1), 9);
}

TEST(GraphTextFormats, FormatNamesAndDefaults) {
  sluice_graph_format_t f = SLUICE_GRAPH_FORMAT_AUTO;
  for (auto expected : {SLUICE_GRAPH_FORMAT_AUTO, SLUICE_GRAPH_FORMAT_SNAP,
                        SLUICE_GRAPH_FORMAT_MTX, SLUICE_GRAPH_FORMAT_MTX_BODY,
                        SLUICE_GRAPH_FORMAT_BINARY, SLUICE_GRAPH_FORMAT_CSV}) {
    ASSERT_EQ(
        sluice_graph_format_from_name(sluice_graph_format_name(expected), &f),
        SLUICE_STATUS_OK);
    EXPECT_EQ(f, expected);
  }
  EXPECT_STREQ(sluice_graph_format_name(SLUICE_GRAPH_FORMAT_MTX_BODY),
               "mtx-body");
  EXPECT_EQ(sluice_graph_format_from_name("tsv", &f),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  EXPECT_EQ(o.format, SLUICE_GRAPH_FORMAT_AUTO);
  EXPECT_EQ(o.flags, 0u);
  EXPECT_EQ(o.weights, SLUICE_WEIGHTS_NONE);
  EXPECT_EQ(o.progress_delay_ms, 1000u);
  EXPECT_EQ(o.progress_interval_ms, 1000u);
  EXPECT_STREQ(sluice_status_message(SLUICE_STATUS_PARSE_ERROR), "parse error");
  EXPECT_STREQ(sluice_status_message(static_cast<sluice_status_t>(99)),
               "unknown status");
}

/// The linked runtime's version is the headers' (a program built against
/// other headers can tell).
TEST(GraphTextFormats, RuntimeVersionMatchesTheHeaders) {
  EXPECT_EQ(sluice_runtime_version(),
            SLUICE_RUNTIME_VERSION_MAJOR * 1000u + SLUICE_RUNTIME_VERSION_MINOR);
  EXPECT_EQ(std::string(sluice_runtime_version_string()),
            std::to_string(SLUICE_RUNTIME_VERSION_MAJOR) + "." +
                std::to_string(SLUICE_RUNTIME_VERSION_MINOR));
}

TEST(GraphTextFormats, NullOptionsMeanDefaults) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n");
  sluice_graph_t *g = nullptr;
  ASSERT_EQ(sluice_graph_load(dir.path("g.txt").c_str(), nullptr, &g, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_graph_num_edges(g), 1u);
  sluice_graph_release(g);
  sluice_graph_release(nullptr);
}

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

void collect(void *userData, const char *line) {
  static_cast<std::vector<std::string> *>(userData)->push_back(line);
}

std::string manyEdges(int count) {
  std::string text;
  for (int i = 0; i < count; ++i)
    text +=
        std::to_string(i % 1000) + " " + std::to_string((i * 7) % 1000) + "\n";
  return text;
}

TEST(GraphProgress, ReportsThroughTheCallbackOnceTheDelayHasPassed) {
  TempDir dir;
  writeFile(dir.path("g.txt"), manyEdges(20000));
  std::vector<std::string> lines;
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.progress = collect;
  o.progress_user_data = &lines;
  o.progress_delay_ms = 0;
  o.progress_interval_ms = 0;
  Loaded r = load(dir.path("g.txt"), o);
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines.front().rfind("sluice: g.txt: reading: ", 0), 0u)
      << lines.front();
  EXPECT_EQ(lines.back().rfind("sluice: g.txt: done in ", 0), 0u)
      << lines.back();
  EXPECT_NE(lines.back().find(": 1000 vertices, 20000 edges"),
            std::string::npos)
      << lines.back();
}

TEST(GraphProgress, GoesToStderrWithoutACallback) {
  TempDir dir;
  writeFile(dir.path("g.txt"), manyEdges(20000));
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.progress_delay_ms = 0;
  o.progress_interval_ms = 0;
  ::testing::internal::CaptureStderr();
  Loaded r = load(dir.path("g.txt"), o);
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.status, SLUICE_STATUS_OK);
  EXPECT_NE(err.find("sluice: g.txt: reading: "), std::string::npos) << err;
  EXPECT_NE(err.find("sluice: g.txt: done in "), std::string::npos) << err;
}

TEST(GraphProgress, SilentForQuickLoadsAndWhenQuiet) {
  TempDir dir;
  writeFile(dir.path("g.txt"), manyEdges(20000));
  std::vector<std::string> lines;
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o); // 1 s delay: this load is faster
  o.progress = collect;
  o.progress_user_data = &lines;
  ASSERT_EQ(load(dir.path("g.txt"), o).status, SLUICE_STATUS_OK);
  EXPECT_TRUE(lines.empty());
  o.progress_delay_ms = 0;
  o.progress_interval_ms = 0;
  o.flags = SLUICE_GRAPH_LOAD_QUIET;
  ASSERT_EQ(load(dir.path("g.txt"), o).status, SLUICE_STATUS_OK);
  EXPECT_TRUE(lines.empty());
}

} // namespace
