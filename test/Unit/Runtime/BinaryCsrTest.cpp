//===- BinaryCsrTest.cpp - Binary CSR: round trips, layout, corruption ----===//
//
// text -> binary -> mmap gives the same graph; the file follows the layout
// documented in docs/runtime.md; every corruption the loader checks for is
// reported with its message (never a crash); writes are atomic.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cmath>
#include <csignal>
#include <cstring>
#include <sys/resource.h>

using namespace sluice::test;

namespace {

// Header layout (docs/runtime.md).
constexpr size_t kVersionAt = 8, kHeaderBytesAt = 12, kFlagsAt = 16,
                 kVerticesAt = 24, kEdgesAt = 32, kFileBytesAt = 40,
                 kSectionsAt = 48, kIdBaseAt = 96, kChecksumAt = 100,
                 kReservedAt = 104, kHeaderBytes = 128;
enum { Offsets, Targets, Weights, VertexLabels, EdgeLabels, OriginalIds };

uint64_t get64(const std::string &b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
uint32_t get32(const std::string &b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
void put64(std::string &b, size_t at, uint64_t v) {
  std::memcpy(&b[at], &v, 8);
}
void put32(std::string &b, size_t at, uint32_t v) {
  std::memcpy(&b[at], &v, 4);
}
void fixChecksum(std::string &b) {
  put32(b, kChecksumAt, 0);
  put32(b, kChecksumAt,
        static_cast<uint32_t>(crc32(
            0L, reinterpret_cast<const Bytef *>(b.data()), kHeaderBytes)));
}
uint64_t sectionAt(const std::string &b, int s) {
  return get64(b, kSectionsAt + 8 * s);
}

/// 0 -> 1 (w 0.5, label 2), 0 -> 3 (1.5, 0), 1 -> 2 (2, 1), 3 -> 0 (4, 3),
/// with vertex labels and the original ids 10, 20, 30, 40.
GraphPtr smallGraph(TempDir &dir) {
  writeFile(dir.path("small.txt"),
            "10 20 0.5 2\n10 40 1.5 0\n20 30 2 1\n40 10 4 3\n");
  writeFile(dir.path("small.labels"), "10 1\n30 3\n");
  sluice_graph_load_options_t o = options(
      SLUICE_GRAPH_FORMAT_SNAP,
      SLUICE_GRAPH_LOAD_COMPACT_IDS | SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN,
      SLUICE_WEIGHTS_COLUMN);
  std::string labels = dir.path("small.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded r = load(dir.path("small.txt"), o);
  EXPECT_EQ(r.status, SLUICE_STATUS_OK) << formatted(r.error);
  return std::move(r.graph);
}

void expectSameGraph(const sluice_graph_t *a, const sluice_graph_t *b) {
  const uint64_t n = sluice_graph_num_vertices(a);
  ASSERT_EQ(sluice_graph_num_vertices(b), n);
  ASSERT_EQ(sluice_graph_num_edges(b), sluice_graph_num_edges(a));
  EXPECT_EQ(sluice_graph_properties(b) & ~uint32_t(SLUICE_GRAPH_MAPPED),
            sluice_graph_properties(a));
  EXPECT_EQ(adjacency(b), adjacency(a));
  EXPECT_EQ(sluice_graph_id_base(b), sluice_graph_id_base(a));
  const uint64_t *oa = sluice_graph_offsets(a), *ob = sluice_graph_offsets(b);
  EXPECT_EQ(std::vector<uint64_t>(ob, ob + n + 1),
            std::vector<uint64_t>(oa, oa + n + 1));
  for (uint32_t v = 0; v < n; ++v) {
    EXPECT_EQ(sluice_graph_original_id(b, v), sluice_graph_original_id(a, v));
    EXPECT_EQ(sluice_graph_vertex_label(b, v), sluice_graph_vertex_label(a, v));
    EXPECT_EQ(sluice_graph_weight_sum(b, v), sluice_graph_weight_sum(a, v));
    EXPECT_EQ(sluice_graph_weight_max(b, v), sluice_graph_weight_max(a, v));
    EXPECT_EQ(sluice_graph_weight_min(b, v), sluice_graph_weight_min(a, v));
  }
  EXPECT_EQ(sluice_graph_original_ids(b) != nullptr,
            sluice_graph_original_ids(a) != nullptr);
  EXPECT_EQ(sluice_graph_vertex_labels(b) != nullptr,
            sluice_graph_vertex_labels(a) != nullptr);
  EXPECT_EQ(sluice_graph_edge_labels(b) != nullptr,
            sluice_graph_edge_labels(a) != nullptr);
}

TEST(BinaryCsr, RoundTripWithEveryOptionalSection) {
  TempDir dir;
  GraphPtr text = smallGraph(dir);
  ASSERT_NE(text, nullptr);
  std::string path = dir.path("small.scsr");
  sluice_error_t e;
  ASSERT_EQ(sluice_graph_write_binary(text.get(), path.c_str(), &e),
            SLUICE_STATUS_OK)
      << formatted(e);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"small.labels", "small.scsr",
                                                  "small.txt"}));
  Loaded mapped = load(path, options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(mapped.status, SLUICE_STATUS_OK) << formatted(mapped.error);
  EXPECT_TRUE(sluice_graph_properties(mapped.graph.get()) &
              SLUICE_GRAPH_MAPPED);
  expectSameGraph(text.get(), mapped.graph.get());
  EXPECT_EQ(sluice_graph_vertex_of(mapped.graph.get(), 30), 2u);

  // Mapped, not copied: only the aggregates are on the heap.
  sluice_graph_memory_t mem;
  sluice_graph_memory(mapped.graph.get(), &mem);
  EXPECT_EQ(mem.mapped_bytes, readFile(path).size());
  EXPECT_EQ(mem.heap_bytes, 12 * sluice_graph_num_vertices(mapped.graph.get()));

  // Writing the mapped graph again gives the same bytes.
  std::string again = dir.path("again.scsr");
  ASSERT_EQ(sluice_graph_write_binary(mapped.graph.get(), again.c_str(), &e),
            SLUICE_STATUS_OK);
  EXPECT_EQ(readFile(again), readFile(path));
}

TEST(BinaryCsr, LayoutFollowsTheDocumentation) {
  TempDir dir;
  GraphPtr g = smallGraph(dir);
  std::string path = dir.path("small.scsr");
  ASSERT_EQ(sluice_graph_write_binary(g.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  std::string b = readFile(path);
  ASSERT_GE(b.size(), kHeaderBytes);
  EXPECT_EQ(b.substr(0, 8), std::string("SLUICSR\0", 8));
  EXPECT_EQ(get32(b, kVersionAt), 1u);
  EXPECT_EQ(get32(b, kHeaderBytesAt), 128u);
  // directed | weights | vertex labels | edge labels | original ids
  EXPECT_EQ(get64(b, kFlagsAt), 0x1fu);
  EXPECT_EQ(get64(b, kVerticesAt), 4u);
  EXPECT_EQ(get64(b, kEdgesAt), 4u);
  EXPECT_EQ(get64(b, kFileBytesAt), b.size());
  EXPECT_EQ(get32(b, kIdBaseAt), 0u);
  EXPECT_EQ(b.substr(kReservedAt, 24), std::string(24, '\0'));
  const uint64_t expectedAt[] = {128, 192, 256, 320, 384, 448};
  for (int s = Offsets; s <= OriginalIds; ++s)
    EXPECT_EQ(sectionAt(b, s), expectedAt[s]) << "section " << s;
  EXPECT_EQ(b.size(), 448u + 4 * 8);
  EXPECT_EQ(get64(b, 128 + 8 * 4), 4u); // offsets[n] == m
  EXPECT_EQ(get32(b, 192), 1u);         // targets[0]: 10 -> 20
  float w;
  std::memcpy(&w, b.data() + 256, 4);
  EXPECT_EQ(w, 0.5f);
  EXPECT_EQ(get64(b, 448 + 8 * 3), 40u); // original id of vertex 3
  std::string copy = b;
  fixChecksum(copy);
  EXPECT_EQ(copy, b) << "CRC-32 of the header with the checksum zeroed";
}

TEST(BinaryCsr, UnweightedOneBasedUndirectedAndEmpty) {
  TempDir dir;
  writeFile(dir.path("g.mtx"),
            "%%MatrixMarket matrix coordinate pattern symmetric\n"
            "5 5 4\n2 1\n3 2\n5 3\n4 4\n");
  Loaded text = load(dir.path("g.mtx"), options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(text.status, SLUICE_STATUS_OK);
  std::string path = dir.path("g.scsr");
  ASSERT_EQ(sluice_graph_write_binary(text.graph.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  Loaded mapped = load(
      path, options(SLUICE_GRAPH_FORMAT_BINARY, SLUICE_GRAPH_LOAD_UNDIRECTED));
  ASSERT_EQ(mapped.status, SLUICE_STATUS_OK) << formatted(mapped.error);
  expectSameGraph(text.graph.get(), mapped.graph.get());
  EXPECT_EQ(sluice_graph_original_id(mapped.graph.get(), 4), 5u);
  sluice_graph_memory_t mem;
  sluice_graph_memory(mapped.graph.get(), &mem);
  EXPECT_EQ(mem.heap_bytes, 0u);

  writeFile(dir.path("empty.txt"), "");
  Loaded empty = load(dir.path("empty.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  ASSERT_EQ(empty.status, SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_graph_write_binary(empty.graph.get(),
                                      dir.path("empty.scsr").c_str(), nullptr),
            SLUICE_STATUS_OK);
  Loaded emptyMapped =
      load(dir.path("empty.scsr"), options(SLUICE_GRAPH_FORMAT_AUTO));
  ASSERT_EQ(emptyMapped.status, SLUICE_STATUS_OK)
      << formatted(emptyMapped.error);
  EXPECT_EQ(sluice_graph_num_vertices(emptyMapped.graph.get()), 0u);
  EXPECT_EQ(sluice_graph_num_edges(emptyMapped.graph.get()), 0u);
}

TEST(BinaryCsr, LoadOptionsAreRequirements) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "0 1\n1 1\n1 2\n1 2\n");
  Loaded text = load(dir.path("g.txt"), options(SLUICE_GRAPH_FORMAT_SNAP));
  std::string path = dir.path("g.scsr");
  ASSERT_EQ(sluice_graph_write_binary(text.graph.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  const std::string tail = " (options that transform edges apply when a "
                           "binary file is written, not when it is loaded)";
  struct Case {
    uint32_t flags;
    sluice_weights_t weights;
    std::string message;
  } cases[] = {
      {SLUICE_GRAPH_LOAD_UNDIRECTED, SLUICE_WEIGHTS_NONE,
       "undirected was requested but the binary file holds a directed graph"},
      {SLUICE_GRAPH_LOAD_DEDUPLICATE, SLUICE_WEIGHTS_NONE,
       "deduplication was requested but the binary file has duplicate edges"},
      {SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS, SLUICE_WEIGHTS_NONE,
       "dropping self loops was requested but the binary file has self "
       "loops"},
      {0, SLUICE_WEIGHTS_COLUMN,
       "weights were requested but the binary file has none"},
      {SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN, SLUICE_WEIGHTS_NONE,
       "edge labels were requested but the binary file has none"},
  };
  for (const Case &c : cases) {
    Loaded r =
        load(path, options(SLUICE_GRAPH_FORMAT_AUTO, c.flags, c.weights));
    EXPECT_EQ(r.status, SLUICE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(r.error.message), c.message + tail);
    EXPECT_FALSE(r.handleTouched);
  }
  // Compaction is not a requirement: the file keeps its ids.
  EXPECT_EQ(load(path, options(SLUICE_GRAPH_FORMAT_AUTO,
                               SLUICE_GRAPH_LOAD_COMPACT_IDS))
                .status,
            SLUICE_STATUS_OK);

  // Vertex labels can be attached to a file without them, not added twice.
  writeFile(dir.path("g.labels"), "2 5\n");
  sluice_graph_load_options_t o = options(SLUICE_GRAPH_FORMAT_AUTO);
  std::string labels = dir.path("g.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded labelled = load(path, o);
  ASSERT_EQ(labelled.status, SLUICE_STATUS_OK) << formatted(labelled.error);
  EXPECT_EQ(sluice_graph_vertex_label(labelled.graph.get(), 2), 5);
  std::string withLabels = dir.path("labelled.scsr");
  ASSERT_EQ(sluice_graph_write_binary(labelled.graph.get(), withLabels.c_str(),
                                      nullptr),
            SLUICE_STATUS_OK);
  Loaded twice = load(withLabels, o);
  EXPECT_EQ(twice.status, SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(twice.error.message),
            "a vertex label file was given but the binary file already has "
            "vertex labels" +
                tail);
}

//===----------------------------------------------------------------------===//
// Corrupt files
//===----------------------------------------------------------------------===//

struct Corruption {
  const char *name;
  void (*patch)(std::string &bytes);
  sluice_status_t status;
  std::string message; // a prefix when it ends in "..."
  uint64_t byteOffset;
};

void PrintTo(const Corruption &c, std::ostream *os) { *os << c.name; }

const Corruption kCorruptions[] = {
    {"shorter_than_header", [](std::string &b) { b.resize(100); },
     SLUICE_STATUS_DATA_CORRUPT,
     "truncated file: 100 bytes, shorter than the 128-byte header", 100},
    {"truncated_payload", [](std::string &b) { b.resize(300); },
     SLUICE_STATUS_DATA_CORRUPT,
     "truncated file: the header declares 480 bytes, the file has 300", 300},
    {"trailing_bytes", [](std::string &b) { b += "xyz"; },
     SLUICE_STATUS_DATA_CORRUPT,
     "the file has 483 bytes, more than the 480 the header declares", 480},
    {"bad_magic", [](std::string &b) { b[0] = 'X'; },
     SLUICE_STATUS_DATA_CORRUPT, "bad magic: not a Sluice binary CSR file", 0},
    {"version_mismatch",
     [](std::string &b) {
       put32(b, kVersionAt, 2);
       fixChecksum(b);
     },
     SLUICE_STATUS_UNSUPPORTED,
     "format version 2 is not supported (this runtime reads version 1)",
     kVersionAt},
    {"header_size",
     [](std::string &b) {
       put32(b, kHeaderBytesAt, 64);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT, "header size 64, expected 128",
     kHeaderBytesAt},
    {"checksum_mismatch", [](std::string &b) { b[kVerticesAt] ^= 1; },
     SLUICE_STATUS_DATA_CORRUPT, "header checksum mismatch (stored 0x...",
     kChecksumAt},
    {"unknown_flag",
     [](std::string &b) {
       put64(b, kFlagsAt, get64(b, kFlagsAt) | 0x20);
       fixChecksum(b);
     },
     SLUICE_STATUS_UNSUPPORTED, "unknown flag bits 0x20", kFlagsAt},
    {"reserved_bytes",
     [](std::string &b) {
       b[kReservedAt + 3] = 1;
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT, "reserved header bytes are not zero",
     kReservedAt + 3},
    {"too_many_vertices",
     [](std::string &b) {
       put64(b, kVerticesAt, uint64_t(1) << 33);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the header declares 8589934592 vertices, more than the 4294967295 "
     "supported",
     kVerticesAt},
    {"id_base",
     [](std::string &b) {
       put32(b, kIdBaseAt, 7);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT, "id base 7, expected 0 or 1", kIdBaseAt},
    {"section_without_flag",
     [](std::string &b) {
       put64(b, kFlagsAt, get64(b, kFlagsAt) & ~uint64_t(2));
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the weights section is present but its flag is not set",
     kSectionsAt + 8 * Weights},
    {"flag_without_section",
     [](std::string &b) {
       put64(b, kSectionsAt + 8 * Weights, 0);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the weights section is missing but its flag is set",
     kSectionsAt + 8 * Weights},
    {"misaligned_section",
     [](std::string &b) {
       put64(b, kSectionsAt + 8 * Targets, 200);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the targets section starts at byte 200, not a multiple of 64 after the "
     "header",
     kSectionsAt + 8 * Targets},
    {"section_past_end",
     [](std::string &b) {
       put64(b, kSectionsAt + 8 * OriginalIds, 640);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the original ids section (4 x 8 bytes at byte 640) extends past the end "
     "of the file",
     640},
    {"section_count_past_end",
     [](std::string &b) {
       put64(b, kEdgesAt, uint64_t(1) << 62);
       fixChecksum(b);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the targets section (4611686018427387904 x 4 bytes at byte 192) extends "
     "past the end of the file",
     192},
    {"first_offset", [](std::string &b) { put64(b, 128, 1); },
     SLUICE_STATUS_DATA_CORRUPT, "offsets[0] is 1, expected 0", 128},
    {"offsets_decrease", [](std::string &b) { put64(b, 128 + 8 * 2, 9); },
     SLUICE_STATUS_DATA_CORRUPT, "offsets decrease at vertex 2 (3 after 9)",
     128 + 8 * 3},
    {"offsets_end", [](std::string &b) { put64(b, 128 + 8 * 4, 3); },
     SLUICE_STATUS_DATA_CORRUPT,
     "offsets end at 3, the header declares 4 edges", 128 + 8 * 4},
    {"target_out_of_range", [](std::string &b) { put32(b, 192 + 4, 99); },
     SLUICE_STATUS_DATA_CORRUPT,
     "edge 1 points to vertex 99, beyond the 4 vertices", 196},
    {"unsorted_adjacency",
     [](std::string &b) {
       put32(b, 192, 3);
       put32(b, 196, 1);
     },
     SLUICE_STATUS_DATA_CORRUPT,
     "the adjacency of vertex 0 is not sorted (edge 1)", 196},
    {"nan_weight",
     [](std::string &b) {
       float nan = std::nanf("");
       std::memcpy(&b[256 + 8], &nan, 4);
     },
     SLUICE_STATUS_DATA_CORRUPT, "the weight of edge 2 is not finite", 264},
    {"negative_weight",
     [](std::string &b) {
       float negative = -0.75f;
       std::memcpy(&b[256 + 4], &negative, 4);
     },
     SLUICE_STATUS_DATA_CORRUPT, "the weight of edge 1 is negative (-0.75)",
     260},
    {"bad_vertex_label",
     [](std::string &b) { put32(b, 320 + 4, uint32_t(-5)); },
     SLUICE_STATUS_DATA_CORRUPT, "vertex 1 has the invalid label -5", 324},
    {"negative_edge_label",
     [](std::string &b) { put32(b, 384 + 12, uint32_t(-1)); },
     SLUICE_STATUS_DATA_CORRUPT, "edge 3 has the negative label -1", 396},
    {"original_ids_not_increasing",
     [](std::string &b) { put64(b, 448 + 16, 5); }, SLUICE_STATUS_DATA_CORRUPT,
     "original ids do not increase at vertex 2", 464},
};

class BinaryCorruption : public ::testing::TestWithParam<Corruption> {};

TEST_P(BinaryCorruption, ReportedNeverCrashes) {
  const Corruption &c = GetParam();
  TempDir dir;
  GraphPtr g = smallGraph(dir);
  std::string path = dir.path("small.scsr");
  ASSERT_EQ(sluice_graph_write_binary(g.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  std::string bytes = readFile(path);
  ASSERT_EQ(bytes.size(), 480u);
  c.patch(bytes);
  writeFile(path, bytes);
  Loaded r = load(path, options(SLUICE_GRAPH_FORMAT_BINARY));
  EXPECT_EQ(r.status, c.status) << formatted(r.error);
  std::string message = r.error.message;
  if (c.message.size() > 3 &&
      c.message.compare(c.message.size() - 3, 3, "...") == 0)
    EXPECT_EQ(message.rfind(c.message.substr(0, c.message.size() - 3), 0), 0u)
        << message;
  else
    EXPECT_EQ(message, c.message);
  EXPECT_EQ(r.error.byte_offset, c.byteOffset);
  EXPECT_EQ(r.error.line, 0u);
  EXPECT_EQ(std::string(r.error.path), path);
  EXPECT_FALSE(r.handleTouched);
}

INSTANTIATE_TEST_SUITE_P(Files, BinaryCorruption,
                         ::testing::ValuesIn(kCorruptions),
                         [](const ::testing::TestParamInfo<Corruption> &info) {
                           return std::string(info.param.name);
                         });

TEST(BinaryCorruption, AutoDetectionNeedsTheWholeMagic) {
  TempDir dir;
  writeFile(dir.path("short"), "SLUI");
  Loaded r = load(dir.path("short"), options(SLUICE_GRAPH_FORMAT_AUTO));
  // Not binary: read as an edge list, where 'SLUI' is no vertex id.
  EXPECT_EQ(r.status, SLUICE_STATUS_PARSE_ERROR);
  EXPECT_STREQ(r.error.message, "expected a source vertex id, got 'SLUI'");
  Loaded forced = load(dir.path("short"), options(SLUICE_GRAPH_FORMAT_BINARY));
  EXPECT_EQ(forced.status, SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_STREQ(forced.error.message,
               "truncated file: 4 bytes, shorter than the 128-byte header");
}

//===----------------------------------------------------------------------===//
// Atomic writes
//===----------------------------------------------------------------------===//

TEST(BinaryCsrWrite, MissingDirectoryLeavesNothing) {
  TempDir dir;
  GraphPtr g = smallGraph(dir);
  std::string path = dir.path("no-such-dir/g.scsr");
  sluice_error_t e;
  EXPECT_EQ(sluice_graph_write_binary(g.get(), path.c_str(), &e),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(std::string(e.message), "cannot create a file in directory '" +
                                        dir.path("no-such-dir") +
                                        "': No such file or directory");
  EXPECT_EQ(std::string(e.path), path);
  EXPECT_EQ(dir.list(),
            (std::vector<std::string>{"small.labels", "small.txt"}));

  // A regular file where a directory should be.
  std::string underFile = dir.path("small.txt/g.scsr");
  EXPECT_EQ(sluice_graph_write_binary(g.get(), underFile.c_str(), &e),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(std::string(e.message), "cannot create a file in directory '" +
                                        dir.path("small.txt") +
                                        "': Not a directory");
}

TEST(BinaryCsrWrite, RenameOntoADirectoryFailsCleanly) {
  TempDir dir;
  GraphPtr g = smallGraph(dir);
  std::string target = dir.path("occupied");
  ASSERT_EQ(mkdir(target.c_str(), 0755), 0);
  sluice_error_t e;
  EXPECT_EQ(sluice_graph_write_binary(g.get(), target.c_str(), &e),
            SLUICE_STATUS_IO_ERROR);
  EXPECT_STREQ(e.message, "cannot rename the finished file: Is a directory");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"occupied", "small.labels",
                                                  "small.txt"}));
}

TEST(BinaryCsrWrite, WriteErrorKeepsTheOldFileAndLeavesNoTemporary) {
  TempDir dir;
  // Enough edges that the file exceeds the 4 KiB size limit set below.
  std::vector<uint32_t> src, dst;
  for (uint32_t i = 0; i < 4000; ++i) {
    src.push_back(i % 100);
    dst.push_back((i * 31) % 100);
  }
  sluice_graph_t *raw = nullptr;
  ASSERT_EQ(sluice_graph_create_from_edges(100, src.size(), src.data(),
                                           dst.data(), nullptr, nullptr,
                                           nullptr, 0, &raw, nullptr),
            SLUICE_STATUS_OK);
  GraphPtr g(raw);
  std::string path = dir.path("g.scsr");
  writeFile(path, "old contents");

  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  sluice_error_t e;
  sluice_status_t status = sluice_graph_write_binary(g.get(), path.c_str(), &e);
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, oldHandler);

  EXPECT_EQ(status, SLUICE_STATUS_IO_ERROR);
  EXPECT_STREQ(e.message, "cannot write: File too large");
  EXPECT_EQ(readFile(path), "old contents");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"g.scsr"}));
}

TEST(BinaryCsrWrite, Arguments) {
  sluice_error_t e;
  EXPECT_EQ(sluice_graph_write_binary(nullptr, "x", &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "graph is NULL");
  TempDir dir;
  GraphPtr g = smallGraph(dir);
  EXPECT_EQ(sluice_graph_write_binary(g.get(), nullptr, &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "path is NULL");
  EXPECT_EQ(sluice_graph_write_binary(g.get(), (dir.root() + "/").c_str(), &e),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(e.message, "the output path names no file");
}

} // namespace
