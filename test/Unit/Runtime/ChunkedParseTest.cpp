//===- ChunkedParseTest.cpp - Edge lists parsed in chunks on threads ------===//
//
// The chunked parse (runtime/src/ChunkedEdgeList.h) against the serial one
// on random files (fixed seeds): comments, blank lines, "\n", "\r\n" and
// lone "\r" line ends, a last line without a line end, weights, edge
// labels, compact ids above 2^28, a header line, at 1, 2, 3 and 8 threads
// with pieces of a few bytes (so lines, line ends and the header fall on
// piece boundaries). The graphs must be equal array for array, bit for
// bit; a bad line must be reported at the serial parse's line and column.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include "runtime/src/ChunkedEdgeList.h"

#include <cstring>
#include <random>

using namespace sluice::test;
using sluice::rt::ChunkedParseTuning;
using sluice::rt::setChunkedParseTuningForTesting;

namespace {

/// Sets the tuning for the scope of a test.
struct ForcedChunks {
  uint64_t parses = 0;
  ForcedChunks(size_t pieceBytes) {
    ChunkedParseTuning t;
    t.pieceBytes = pieceBytes;
    t.force = true;
    t.parses = &parses;
    setChunkedParseTuningForTesting(&t);
  }
  ~ForcedChunks() { setChunkedParseTuningForTesting(nullptr); }
};

/// What a random file holds.
struct FileShape {
  bool weights = false;
  bool labels = false;
  bool bigIds = false; // ids above 2^28 (compact ids only)
  bool header = false;
  bool csv = false;
  bool finalNewline = true;
};

std::string randomFile(std::mt19937_64 &rng, const FileShape &shape,
                       int lines) {
  std::uniform_int_distribution<uint64_t> id(0, 400), kind(0, 19), ending(0, 5),
      big(0, uint64_t(1) << 40), weight(0, 9999);
  const char *sep = shape.csv ? "," : " ";
  auto end = [&] {
    switch (ending(rng)) {
    case 0:
      return "\r\n";
    case 1:
      return "\r";
    default:
      return "\n";
    }
  };
  std::string text;
  // Comments and blanks before the header, so that with small pieces the
  // header is not in the first piece.
  text += "# a random edge list";
  text += end();
  text += "   \t";
  text += end();
  if (shape.header) {
    text += shape.csv ? "source,target" : "src\tdst";
    if (shape.weights)
      text += shape.csv ? ",weight" : " w";
    text += end();
  }
  for (int i = 0; i < lines; ++i) {
    uint64_t k = kind(rng);
    if (k == 0)
      text += "% comment " + std::to_string(i);
    else if (k == 1)
      text += i % 2 ? "" : " \t";
    else {
      uint64_t u = id(rng), v = k == 2 ? u : id(rng); // some self loops
      if (shape.bigIds && k % 5 == 3)
        u = big(rng);
      text += std::to_string(u) + sep +
              (k % 3       ? ""
               : shape.csv ? " "
                           : "\t") +
              std::to_string(v);
      if (shape.weights)
        text += std::string(sep) + std::to_string(weight(rng)) + "." +
                std::to_string(k) + "e-2";
      if (shape.labels)
        text += std::string(sep) + std::to_string(k * 7);
    }
    if (i + 1 < lines || shape.finalNewline)
      text += end();
  }
  return text;
}

/// Everything a load produced, array by array.
struct Snapshot {
  uint64_t n = 0, m = 0;
  uint32_t properties = 0;
  std::vector<uint64_t> offsets, originalIds;
  std::vector<uint32_t> targets, weightBits;
  std::vector<int32_t> labels;
  sluice_graph_load_stats_t stats{};

  explicit Snapshot(const sluice_graph_t *g) {
    n = sluice_graph_num_vertices(g);
    m = sluice_graph_num_edges(g);
    properties = sluice_graph_properties(g);
    const uint64_t *off = sluice_graph_offsets(g);
    offsets.assign(off, off + n + 1);
    const uint32_t *t = sluice_graph_targets(g);
    targets.assign(t, t + m);
    if (const float *w = sluice_graph_weights(g)) {
      weightBits.resize(m);
      std::memcpy(weightBits.data(), w, m * sizeof(float));
    }
    if (const int32_t *l = sluice_graph_edge_labels(g))
      labels.assign(l, l + m);
    if (const uint64_t *ids = sluice_graph_original_ids(g))
      originalIds.assign(ids, ids + n);
    sluice_graph_load_stats(g, &stats);
  }
  bool operator==(const Snapshot &o) const {
    return n == o.n && m == o.m && properties == o.properties &&
           offsets == o.offsets && targets == o.targets &&
           weightBits == o.weightBits && labels == o.labels &&
           originalIds == o.originalIds &&
           std::memcmp(&stats, &o.stats, sizeof(stats)) == 0;
  }
};

sluice_graph_load_options_t optionsFor(const FileShape &shape, bool compact,
                                       bool dropLoops, uint32_t threads) {
  uint32_t flags = (compact ? SLUICE_GRAPH_LOAD_COMPACT_IDS : 0) |
                   (dropLoops ? SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS : 0) |
                   (shape.labels ? SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN : 0);
  auto o = options(
      shape.csv ? SLUICE_GRAPH_FORMAT_CSV : SLUICE_GRAPH_FORMAT_SNAP, flags,
      shape.weights ? SLUICE_WEIGHTS_COLUMN : SLUICE_WEIGHTS_NONE);
  o.threads = threads;
  return o;
}

TEST(GraphTextFormatsChunked, EqualsTheSerialParse) {
  TempDir dir;
  std::mt19937_64 rng(20261204);
  int file = 0;
  for (int variant = 0; variant < 12; ++variant) {
    FileShape shape;
    shape.weights = variant % 2;
    shape.labels = variant % 3 == 0;
    shape.bigIds = variant % 4 >= 2;
    shape.header = variant % 5 != 1;
    shape.csv = variant % 6 == 5;
    shape.finalNewline = variant % 7 != 3;
    const bool compact = shape.bigIds || variant % 3 == 1;
    const bool dropLoops = variant % 5 == 2;
    const int lines = variant < 2 ? 40 : 2000;
    std::string path = dir.path("g" + std::to_string(file++) + ".txt");
    writeFile(path, randomFile(rng, shape, lines));

    Loaded serial = load(path, optionsFor(shape, compact, dropLoops, 1));
    ASSERT_EQ(serial.status, SLUICE_STATUS_OK)
        << variant << ": " << formatted(serial.error);
    Snapshot expected(serial.graph.get());
    ASSERT_GT(expected.m, 0u) << variant;
    if (shape.bigIds) {
      EXPECT_GT(expected.originalIds.back(), uint64_t(1) << 28) << variant;
    }

    for (size_t pieceBytes : {size_t(1), size_t(5), size_t(64), size_t(4096)})
      for (uint32_t threads : {1u, 2u, 3u, 8u}) {
        ForcedChunks forced(pieceBytes);
        Loaded chunked =
            load(path, optionsFor(shape, compact, dropLoops, threads));
        ASSERT_EQ(chunked.status, SLUICE_STATUS_OK)
            << variant << " pieces of " << pieceBytes << ", " << threads
            << " threads: " << formatted(chunked.error);
        EXPECT_EQ(forced.parses, 1u);
        EXPECT_TRUE(Snapshot(chunked.graph.get()) == expected)
            << variant << " pieces of " << pieceBytes << ", " << threads
            << " threads";
      }
  }
}

TEST(GraphTextFormatsChunked, BadLinesAreReportedAtTheirFileLine) {
  TempDir dir;
  std::mt19937_64 rng(7);
  FileShape shape;
  shape.weights = true;
  std::string good = randomFile(rng, shape, 3000);
  // A bad field late in the file, a header-like line that is not the first
  // entry line, a negative weight, a missing column, a line of one id.
  const std::vector<std::string> bad = {"12 x7 1.5", "src dst w", "3 4 -2",
                                        "3 4", "17 \t 9 1 extra"};
  int file = 0;
  for (const std::string &line : bad)
    for (bool crlf : {false, true}) {
      const char *eol = crlf ? "\r\n" : "\n";
      std::string text = good + "5 6 1" + eol + line + eol + "7 8 2" + eol;
      std::string path = dir.path("bad" + std::to_string(file++) + ".txt");
      writeFile(path, text);
      Loaded serial = load(path, optionsFor(shape, true, false, 1));
      ASSERT_NE(serial.status, SLUICE_STATUS_OK) << line;
      // Counted independently: the lines before the bad one, +1.
      uint64_t expectedLine = 1;
      for (size_t i = 0; i < good.size(); ++i)
        if (good[i] == '\n' ||
            (good[i] == '\r' && (i + 1 == good.size() || good[i + 1] != '\n')))
          ++expectedLine;
      expectedLine += 1; // "5 6 1"
      EXPECT_EQ(serial.error.line, expectedLine) << line;
      for (size_t pieceBytes : {size_t(1), size_t(32), size_t(1000)})
        for (uint32_t threads : {1u, 2u, 3u, 8u}) {
          ForcedChunks forced(pieceBytes);
          Loaded chunked = load(path, optionsFor(shape, true, false, threads));
          EXPECT_EQ(forced.parses, 1u);
          EXPECT_EQ(chunked.status, serial.status) << line;
          EXPECT_FALSE(chunked.handleTouched);
          EXPECT_EQ(formatted(chunked.error), formatted(serial.error))
              << line << ", pieces of " << pieceBytes << ", " << threads
              << " threads";
        }
    }
}

TEST(GraphTextFormatsChunked, GzipAndSmallFilesStaySerial) {
  TempDir dir;
  std::mt19937_64 rng(3);
  std::string text = randomFile(rng, FileShape(), 500);
  std::string plain = dir.path("plain.txt"), gz = dir.path("g.txt.gz");
  writeFile(plain, text);
  writeGzip(gz, text);
  uint64_t parses = 0;
  ChunkedParseTuning t; // the defaults: 4 MiB at least, more than 1 thread
  t.parses = &parses;
  setChunkedParseTuningForTesting(&t);
  Loaded small = load(plain, optionsFor(FileShape(), false, false, 8));
  EXPECT_EQ(small.status, SLUICE_STATUS_OK);
  EXPECT_EQ(parses, 0u);
  t.force = true;
  setChunkedParseTuningForTesting(&t);
  Loaded zipped = load(gz, optionsFor(FileShape(), false, false, 8));
  EXPECT_EQ(zipped.status, SLUICE_STATUS_OK);
  EXPECT_EQ(parses, 0u);
  Loaded forced = load(plain, optionsFor(FileShape(), false, false, 8));
  EXPECT_EQ(parses, 1u);
  setChunkedParseTuningForTesting(nullptr);
  ASSERT_EQ(forced.status, SLUICE_STATUS_OK);
  EXPECT_TRUE(Snapshot(forced.graph.get()) == Snapshot(small.graph.get()));
  EXPECT_TRUE(Snapshot(zipped.graph.get()) == Snapshot(small.graph.get()));
}

} // namespace
