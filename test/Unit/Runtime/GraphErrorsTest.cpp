//===- GraphErrorsTest.cpp - Every malformed-input message, verbatim
//-------===//
//
// One case per error a text input can produce: the status, the line and
// column it points at, and the message text. Every failed load must leave
// the output handle untouched. Binary-file errors are in BinaryCsrTest.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cstring>
#include <limits>
#include <type_traits>

using namespace sluice::test;

namespace {

struct ErrorCase {
  const char *name;
  sluice_graph_format_t format;
  uint32_t flags;
  sluice_weights_t weights;
  std::string content;
  sluice_status_t status;
  uint64_t line, column;
  std::string message;
};

void PrintTo(const ErrorCase &c, std::ostream *os) { *os << c.name; }

constexpr auto SNAP = SLUICE_GRAPH_FORMAT_SNAP;
constexpr auto MTX = SLUICE_GRAPH_FORMAT_MTX;
constexpr auto BODY = SLUICE_GRAPH_FORMAT_MTX_BODY;
constexpr auto NOW = SLUICE_WEIGHTS_NONE;
constexpr auto COL = SLUICE_WEIGHTS_COLUMN;
constexpr auto PARSE = SLUICE_STATUS_PARSE_ERROR;
constexpr auto RANGE = SLUICE_STATUS_OUT_OF_RANGE;
constexpr auto UNSUP = SLUICE_STATUS_UNSUPPORTED;
constexpr uint32_t LABELS = SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN;

const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

const ErrorCase kCases[] = {
    // SNAP edge lists.
    {"snap_non_numeric_target", SNAP, 0, NOW, "0 x\n", PARSE, 1, 3,
     "expected a target vertex id, got 'x'"},
    {"snap_non_numeric_source", SNAP, 0, NOW, "# c\n\na 1\n", PARSE, 3, 1,
     "expected a source vertex id, got 'a'"},
    {"snap_float_id", SNAP, 0, NOW, "0 1.0\n", PARSE, 1, 3,
     "expected a target vertex id, got '1.0'"},
    {"snap_control_byte", SNAP, 0, NOW, std::string("0 1\x01\n"), PARSE, 1, 3,
     "expected a target vertex id, got '1\\x01'"},
    {"snap_missing_column", SNAP, 0, NOW, "0 1\n7\n", PARSE, 2, 2,
     "missing target vertex id (column 2)"},
    {"snap_negative_id", SNAP, 0, NOW, "0 -3\n", PARSE, 1, 3,
     "negative target vertex id '-3'"},
    {"snap_extra_column", SNAP, 0, NOW, "0 1 2\n", PARSE, 1, 5,
     "unexpected column 3 '2' (expected 2 columns; set weights to 'column' "
     "to read edge weights)"},
    {"snap_id_beyond_64_bits", SNAP, 0, NOW, "99999999999999999999 1\n", RANGE,
     1, 1, "source vertex id '99999999999999999999' does not fit in 64 bits"},
    {"snap_id_beyond_32_bits", SNAP, 0, NOW, "4294967295 1\n", RANGE, 1, 1,
     "source vertex id 4294967295 does not fit in 32 bits (the largest is "
     "4294967294; compact ids renumber sparse ids)"},
    {"snap_missing_weight", SNAP, 0, COL, "0 1\n", PARSE, 1, 4,
     "missing edge weight (column 3)"},
    {"snap_non_numeric_weight", SNAP, 0, COL, "0 1 abc\n", PARSE, 1, 5,
     "expected an edge weight, got 'abc'"},
    {"snap_nan_weight", SNAP, 0, COL, "0 1 nan\n", PARSE, 1, 5,
     "edge weight 'nan' is not finite"},
    {"snap_huge_weight", SNAP, 0, COL, "0 1 1e50\n", RANGE, 1, 5,
     "edge weight '1e50' is out of range for float32"},
    {"snap_negative_weight", SNAP, 0, COL, "0 1 2\n1 2 -0.5\n", PARSE, 2, 5,
     "negative edge weight '-0.5' (edge weights must not be negative)"},
    {"snap_extra_after_weight", SNAP, 0, COL, "0 1 1.0 extra\n", PARSE, 1, 9,
     "unexpected column 4 'extra' (expected 3 columns)"},
    {"snap_missing_label", SNAP, LABELS, NOW, "0 1\n", PARSE, 1, 4,
     "missing edge label (column 3)"},
    {"snap_non_numeric_label", SNAP, LABELS, NOW, "0 1 x\n", PARSE, 1, 5,
     "expected an edge label, got 'x'"},
    {"snap_negative_label", SNAP, LABELS, NOW, "0 1 -2\n", PARSE, 1, 5,
     "negative edge label '-2'"},
    {"snap_label_beyond_32_bits", SNAP, LABELS, NOW, "0 1 3000000000\n", RANGE,
     1, 5, "edge label '3000000000' does not fit in 32 bits"},
    // Matrix Market bodies.
    {"body_zero_id", BODY, 0, NOW, "1 2\n0 1\n", PARSE, 2, 1,
     "source vertex id 0 is not valid in a 1-based file"},
    // Matrix Market files.
    {"mtx_empty", MTX, 0, NOW, "", PARSE, 1, 1,
     "empty file: expected a '%%MatrixMarket' banner"},
    {"mtx_no_banner", MTX, 0, NOW, "1 2 3\n", PARSE, 1, 1,
     "expected a '%%MatrixMarket' banner, got '1 2 3'"},
    {"mtx_incomplete_banner", MTX, 0, NOW,
     "%%MatrixMarket matrix coordinate real\n", PARSE, 1, 38,
     "incomplete banner: expected '%%MatrixMarket matrix coordinate <field> "
     "<symmetry>'"},
    {"mtx_extra_banner_word", MTX, 0, NOW,
     "%%MatrixMarket matrix coordinate real general extra\n", PARSE, 1, 47,
     "unexpected 'extra' after the banner"},
    {"mtx_vector", MTX, 0, NOW,
     "%%MatrixMarket vector coordinate real general\n", UNSUP, 1, 16,
     "unsupported object 'vector' (expected 'matrix')"},
    {"mtx_array", MTX, 0, NOW, "%%MatrixMarket matrix array real general\n",
     UNSUP, 1, 23, "unsupported format 'array' (expected 'coordinate')"},
    {"mtx_complex", MTX, 0, NOW,
     "%%MatrixMarket matrix coordinate complex general\n", UNSUP, 1, 34,
     "unsupported field 'complex' (expected real, integer or pattern)"},
    {"mtx_hermitian", MTX, 0, NOW,
     "%%MatrixMarket matrix coordinate real hermitian\n", UNSUP, 1, 39,
     "unsupported symmetry 'hermitian' (expected general or symmetric)"},
    {"mtx_pattern_weights", MTX, 0, COL,
     "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
     SLUICE_STATUS_INVALID_ARGUMENT, 1, 34,
     "weights come from a column but the matrix field is 'pattern' (no "
     "values)"},
    {"mtx_missing_size_line", MTX, 0, NOW, kBanner + "% only comments\n", PARSE,
     3, 1, "missing the size line 'rows columns entries'"},
    {"mtx_short_size_line", MTX, 0, NOW, kBanner + "3 3\n", PARSE, 2, 4,
     "missing the number of entries in the size line 'rows columns entries'"},
    {"mtx_bad_size", MTX, 0, NOW, kBanner + "3 x 2\n", PARSE, 2, 3,
     "expected the number of columns, got 'x'"},
    {"mtx_long_size_line", MTX, 0, NOW, kBanner + "3 3 2 1\n", PARSE, 2, 7,
     "unexpected '1' after the size line 'rows columns entries'"},
    {"mtx_not_square", MTX, 0, NOW, kBanner + "3 4 1\n", UNSUP, 2, 1,
     "the matrix is 3 x 4; a graph needs a square matrix"},
    {"mtx_too_many_rows", MTX, 0, NOW, kBanner + "5000000000 5000000000 1\n",
     RANGE, 2, 1,
     "the matrix has 5000000000 rows, more than the 4294967295 vertices "
     "supported (compact ids renumber the ids that occur)"},
    {"mtx_row_beyond_size", MTX, 0, NOW, kBanner + "3 3 1\n4 1 1.0\n", PARSE, 3,
     1, "row index 4 is beyond the 3 declared rows"},
    {"mtx_column_beyond_size", MTX, 0, NOW, kBanner + "3 3 1\n1 5 1.0\n", PARSE,
     3, 3, "column index 5 is beyond the 3 declared columns"},
    {"mtx_negative_weight", MTX, 0, COL, kBanner + "3 3 2\n1 2 1\n2 3 -1e3\n",
     PARSE, 4, 5, "negative value '-1e3' (edge weights must not be negative)"},
    {"mtx_negative_integer_weight", MTX, 0, COL,
     "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -7\n", PARSE,
     3, 5, "negative value '-7' (edge weights must not be negative)"},
    {"mtx_zero_index", MTX, 0, NOW, kBanner + "3 3 1\n0 1 1.0\n", PARSE, 3, 1,
     "row index 0 is not valid in a 1-based file"},
    {"mtx_negative_index", MTX, 0, NOW, kBanner + "3 3 1\n-1 2 1.0\n", PARSE, 3,
     1, "negative row index '-1'"},
    {"mtx_missing_value", MTX, 0, NOW, kBanner + "3 3 1\n1 2\n", PARSE, 3, 4,
     "missing value (column 3)"},
    {"mtx_bad_value", MTX, 0, NOW, kBanner + "3 3 1\n1 2 x\n", PARSE, 3, 5,
     "expected a value, got 'x'"},
    {"mtx_integer_value", MTX, 0, NOW,
     "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n",
     PARSE, 3, 5, "expected an integer value, got '1.5'"},
    {"mtx_too_many_entries", MTX, 0, NOW, kBanner + "3 3 1\n1 2 1\n2 3 1\n",
     PARSE, 4, 1, "more entries than the 1 declared in the size line (line 2)"},
    {"mtx_too_few_entries", MTX, 0, NOW, kBanner + "3 3 3\n1 2 1\n", PARSE, 4,
     0, "unexpected end of file after 1 of the 3 declared entries"},
};

class GraphErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(GraphErrors, LocatedMessageAndNoHandle) {
  const ErrorCase &c = GetParam();
  TempDir dir;
  std::string path = dir.path("input");
  writeFile(path, c.content);
  Loaded r = load(path, options(c.format, c.flags, c.weights));
  EXPECT_EQ(r.status, c.status) << formatted(r.error);
  EXPECT_EQ(r.error.status, c.status);
  EXPECT_EQ(std::string(r.error.message), c.message);
  EXPECT_EQ(r.error.line, c.line) << formatted(r.error);
  EXPECT_EQ(r.error.column, c.column) << formatted(r.error);
  EXPECT_EQ(std::string(r.error.path), path);
  EXPECT_FALSE(r.handleTouched);
  EXPECT_EQ(r.graph, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Text, GraphErrors, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase> &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// Vertex label files
//===----------------------------------------------------------------------===//

struct LabelCase {
  const char *name;
  std::string content;
  sluice_status_t status;
  uint64_t line, column;
  std::string message;
};

void PrintTo(const LabelCase &c, std::ostream *os) { *os << c.name; }

const LabelCase kLabelCases[] = {
    {"non_numeric_label", "0 x\n", PARSE, 1, 3, "expected a label, got 'x'"},
    {"missing_label", "0\n", PARSE, 1, 2, "missing label (column 2)"},
    {"non_numeric_vertex", "x 1\n", PARSE, 1, 1,
     "expected a vertex id, got 'x'"},
    {"negative_vertex", "-1 1\n", PARSE, 1, 1, "negative vertex id '-1'"},
    {"huge_vertex", "99999999999999999999 1\n", RANGE, 1, 1,
     "vertex id '99999999999999999999' does not fit in 64 bits"},
    {"negative_label", "0 -1\n", PARSE, 1, 3, "negative label '-1'"},
    {"label_beyond_32_bits", "0 3000000000\n", RANGE, 1, 3,
     "label '3000000000' does not fit in 32 bits"},
    {"extra_column", "0 1 2\n", PARSE, 1, 5,
     "unexpected column 3 '2' (expected 2 columns: vertex label)"},
    {"vertex_not_in_graph", "5 1\n", RANGE, 1, 1,
     "vertex id 5 is not in the graph (ids 0..2)"},
    {"labelled_twice", "0 1\n# again\n0 2\n", PARSE, 3, 1,
     "vertex id 0 is labelled twice"},
};

class VertexLabelErrors : public ::testing::TestWithParam<LabelCase> {};

TEST_P(VertexLabelErrors, LocatedMessageInTheLabelFile) {
  const LabelCase &c = GetParam();
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n1 2\n");
  std::string labels = dir.path("g.labels");
  writeFile(labels, c.content);
  sluice_graph_load_options_t o = options(SNAP);
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.txt"), o);
  EXPECT_EQ(r.status, c.status) << formatted(r.error);
  EXPECT_EQ(std::string(r.error.message), c.message);
  EXPECT_EQ(r.error.line, c.line);
  EXPECT_EQ(r.error.column, c.column);
  EXPECT_EQ(std::string(r.error.path), labels);
  EXPECT_FALSE(r.handleTouched);
}

INSTANTIATE_TEST_SUITE_P(Labels, VertexLabelErrors,
                         ::testing::ValuesIn(kLabelCases),
                         [](const ::testing::TestParamInfo<LabelCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(VertexLabelErrors, ZeroIdInAOneBasedGraph) {
  TempDir dir;
  writeFile(dir.path("g.el"), "1 2\n");
  std::string labels = dir.path("g.labels");
  writeFile(labels, "0 4\n");
  sluice_graph_load_options_t o = options(BODY);
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.el"), o);
  EXPECT_EQ(r.status, PARSE);
  EXPECT_STREQ(r.error.message, "vertex id 0 is not valid in a 1-based file");
}

TEST(VertexLabelErrors, MissingLabelFile) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n");
  std::string labels = dir.path("absent.labels");
  sluice_graph_load_options_t o = options(SNAP);
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("g.txt"), o);
  EXPECT_EQ(r.status, SLUICE_STATUS_NOT_FOUND);
  EXPECT_STREQ(r.error.message, "cannot open: No such file or directory");
  EXPECT_EQ(std::string(r.error.path), labels);
}

//===----------------------------------------------------------------------===//
// Files, streams and arguments
//===----------------------------------------------------------------------===//

TEST(GraphLoadErrors, MissingFileAndDirectory) {
  TempDir dir;
  Loaded missing = load(dir.path("nope.txt"), options(SNAP));
  EXPECT_EQ(missing.status, SLUICE_STATUS_NOT_FOUND);
  EXPECT_STREQ(missing.error.message, "cannot open: No such file or directory");
  EXPECT_FALSE(missing.handleTouched);
  EXPECT_EQ(formatted(missing.error),
            dir.path("nope.txt") + ": cannot open: No such file or directory");

  Loaded directory = load(dir.root(), options(SLUICE_GRAPH_FORMAT_AUTO));
  EXPECT_EQ(directory.status, SLUICE_STATUS_IO_ERROR);
  EXPECT_STREQ(directory.error.message, "cannot read: Is a directory");
}

TEST(GraphLoadErrors, TruncatedAndCorruptGzip) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  writeGzip(dir.path("full.gz"), text);
  std::string packed = readFile(dir.path("full.gz"));

  writeFile(dir.path("truncated.gz"), packed.substr(0, packed.size() / 2));
  Loaded truncated = load(dir.path("truncated.gz"), options(SNAP));
  EXPECT_EQ(truncated.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_STREQ(truncated.error.message,
               "corrupt gzip data: unexpected end of file");
  EXPECT_GT(truncated.error.line, 1u);
  EXPECT_FALSE(truncated.handleTouched);

  std::string garbled = packed;
  for (size_t i = 20; i < 60; ++i)
    garbled[i] = static_cast<char>(0xff);
  writeFile(dir.path("garbled.gz"), garbled);
  Loaded bad = load(dir.path("garbled.gz"), options(SNAP));
  EXPECT_EQ(bad.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(std::string(bad.error.message).rfind("corrupt gzip data: ", 0), 0u)
      << bad.error.message;
}

TEST(GraphLoadErrors, TrailingBytesAfterGzipAreAnError) {
  TempDir dir;
  writeGzip(dir.path("g.gz"), "0 1\n1 2\n");
  const std::string packed = readFile(dir.path("g.gz"));
  // Garbage (here a plain-text edge) after the last member.
  writeFile(dir.path("garbage.gz"), packed + "7 8\n");
  Loaded garbage = load(dir.path("garbage.gz"), options(SNAP));
  EXPECT_EQ(garbage.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(std::string(garbage.error.message),
            "corrupt gzip data: 4 trailing bytes at byte " +
                std::to_string(packed.size()) +
                " after the end of the gzip stream are not another gzip "
                "member");
  EXPECT_FALSE(garbage.handleTouched);
  // One stray byte, and zero padding, are garbage too.
  for (const std::string &tail :
       {std::string("\x1f"), std::string(512, '\0')}) {
    writeFile(dir.path("tail.gz"), packed + tail);
    Loaded r = load(dir.path("tail.gz"), options(SNAP));
    EXPECT_EQ(r.status, SLUICE_STATUS_DATA_CORRUPT) << tail.size();
    EXPECT_NE(std::string(r.error.message).find("trailing bytes"),
              std::string::npos)
        << r.error.message;
  }
  // A second member that is itself truncated is reported as such.
  writeFile(dir.path("half.gz"), packed + packed.substr(0, 12));
  Loaded half = load(dir.path("half.gz"), options(SNAP));
  EXPECT_EQ(half.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_STREQ(half.error.message, "corrupt gzip data: unexpected end of file");
  // A damaged CRC-32 trailer (the 8 bytes before the end).
  std::string badCrc = packed;
  badCrc[badCrc.size() - 6] ^= 0x40;
  writeFile(dir.path("crc.gz"), badCrc);
  Loaded crc = load(dir.path("crc.gz"), options(SNAP));
  EXPECT_EQ(crc.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_STREQ(crc.error.message, "corrupt gzip data: incorrect data check");
}

TEST(GraphLoadErrors, InvalidArguments) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n");
  sluice_graph_t *g = nullptr;
  sluice_error_t e;
  EXPECT_EQ(sluice_graph_load(nullptr, nullptr, &g, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "path is NULL");
  EXPECT_EQ(sluice_graph_load(dir.path("g.txt").c_str(), nullptr, nullptr, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "out_graph is NULL");

  sluice_graph_load_options_t o = options(SNAP);
  o.flags |= 1u << 8;
  Loaded flags = load(dir.path("g.txt"), o);
  EXPECT_EQ(flags.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(flags.error.message, "unknown load flags 0x100");
  // Duplicates are merged one way.
  o = options(SNAP,
              SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_SUM_DUPLICATES);
  Loaded both = load(dir.path("g.txt"), o);
  EXPECT_EQ(both.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(both.error.message,
               "duplicate edges both merged (DEDUPLICATE) and summed "
               "(SUM_DUPLICATES); choose one");
  o = options(SNAP);
  o.num_keep_vertex_ids = 2;
  Loaded keep = load(dir.path("g.txt"), o);
  EXPECT_EQ(keep.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(keep.error.message,
               "keep_vertex_ids is NULL but num_keep_vertex_ids is 2");

  // A C caller can store any int in an enum field. Stored as bytes: a C++
  // enum value out of the enumerators' range is undefined (UBSan: enum).
  o = options(SNAP);
  std::underlying_type_t<sluice_graph_format_t> badFormat = 9;
  std::memcpy(&o.format, &badFormat, sizeof(o.format));
  Loaded format = load(dir.path("g.txt"), o);
  EXPECT_STREQ(format.error.message, "unknown format 9");
  o = options(SNAP);
  std::underlying_type_t<sluice_weights_t> badWeights = 7;
  std::memcpy(&o.weights, &badWeights, sizeof(o.weights));
  Loaded weights = load(dir.path("g.txt"), o);
  EXPECT_STREQ(weights.error.message, "unknown weights mode 7");
  // The NULL error pointer is allowed.
  EXPECT_EQ(sluice_graph_load(nullptr, nullptr, &g, nullptr),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

TEST(GraphLoadErrors, ASuccessfulCallClearsTheError) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n");
  sluice_error_t e;
  sluice_graph_t *g = nullptr;
  ASSERT_NE(sluice_graph_load(dir.path("nope").c_str(), nullptr, &g, &e),
            SLUICE_STATUS_OK);
  EXPECT_NE(e.message[0], '\0');
  ASSERT_EQ(sluice_graph_load(dir.path("g.txt").c_str(), nullptr, &g, &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(e.status, SLUICE_STATUS_OK);
  EXPECT_STREQ(e.message, "");
  EXPECT_STREQ(e.path, "");
  EXPECT_EQ(e.line, 0u);
  sluice_graph_release(g);
}

TEST(GraphLoadErrors, ErrorFormatting) {
  sluice_error_t e;
  sluice_error_clear(&e);
  e.status = SLUICE_STATUS_PARSE_ERROR;
  std::snprintf(e.path, sizeof(e.path), "g.txt");
  std::snprintf(e.message, sizeof(e.message), "negative source vertex id '-1'");
  e.line = 3;
  e.column = 5;
  EXPECT_EQ(formatted(e), "g.txt:3:5: negative source vertex id '-1'");
  e.column = 0;
  EXPECT_EQ(formatted(e), "g.txt:3: negative source vertex id '-1'");
  e.line = 0;
  e.byte_offset = 40;
  EXPECT_EQ(formatted(e), "g.txt: byte 40: negative source vertex id '-1'");
  char small[6];
  EXPECT_EQ(sluice_error_format(&e, small, sizeof(small)), formatted(e).size());
  EXPECT_STREQ(small, "g.txt");
  e.path[0] = '\0';
  e.byte_offset = 0;
  EXPECT_EQ(formatted(e), "negative source vertex id '-1'");
}

TEST(GraphLoadErrors, EdgeArrays) {
  const uint32_t src[] = {0, 1}, dst[] = {1, 5};
  sluice_graph_t *g = nullptr;
  sluice_error_t e;
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, src, dst, nullptr, nullptr,
                                           nullptr, 0, &g, &e),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(e.message,
               "edge 1 (1 -> 5) has a vertex id not below num_vertices 3");
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, nullptr, dst, nullptr, nullptr,
                                           nullptr, 0, &g, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message,
               "sources and targets must not be NULL when num_edges > 0");
  const uint32_t dst2[] = {1, 2};
  const float w[] = {1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, src, dst2, w, nullptr, nullptr,
                                           0, &g, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "weight of edge 1 is not finite");
  const float negative[] = {1.0f, -2.5f};
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, src, dst2, negative, nullptr,
                                           nullptr, 0, &g, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "weight of edge 1 is negative (-2.5)");
  const int32_t labels[] = {0, -4};
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, src, dst2, nullptr, labels,
                                           nullptr, 0, &g, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "edge 1 has the negative label -4");
  EXPECT_EQ(sluice_graph_create_from_edges(3, 2, src, dst2, nullptr, nullptr,
                                           nullptr, SLUICE_GRAPH_LOAD_QUIET, &g,
                                           &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "unsupported flags 0x20 for edge arrays");
  EXPECT_EQ(sluice_graph_create_from_edges(uint64_t(1) << 33, 0, nullptr,
                                           nullptr, nullptr, nullptr, nullptr,
                                           0, &g, &e),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(e.message, "8589934592 vertices exceed the limit of 4294967295");
  EXPECT_EQ(g, nullptr);
}

} // namespace
