//===- RobustnessTest.cpp - Mutated inputs never crash the loaders --------===//
//
// Thousands of randomly mutated binary and text files (fixed seeds): each
// load either succeeds with a graph whose invariants hold or fails with a
// status and a message, never crashes. Most useful under
// -DSLUICE_SANITIZE=address,undefined.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtil.h"

#include <cstring>
#include <random>

using namespace sluice::test;

namespace {

/// Checks what every query relies on: sorted, in-range adjacency.
void expectValidGraph(const sluice_graph_t *g) {
  const uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *t = sluice_graph_targets(g);
  ASSERT_EQ(off[0], 0u);
  ASSERT_EQ(off[n], sluice_graph_num_edges(g));
  for (uint64_t v = 0; v < n; ++v) {
    ASSERT_LE(off[v], off[v + 1]);
    for (uint64_t i = off[v]; i < off[v + 1]; ++i) {
      ASSERT_LT(t[i], n);
      if (i > off[v]) {
        ASSERT_LE(t[i - 1], t[i]);
      }
    }
  }
}

void expectCleanOutcome(const Loaded &r) {
  ASSERT_FALSE(r.handleTouched);
  if (r.status == SLUICE_STATUS_OK) {
    expectValidGraph(r.graph.get());
    return;
  }
  EXPECT_NE(r.error.message[0], '\0');
  EXPECT_EQ(r.error.status, r.status);
  EXPECT_NE(r.status, SLUICE_STATUS_INTERNAL) << r.error.message;
}

void fixChecksum(std::string &b) {
  std::memset(&b[100], 0, 4);
  uint32_t crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef *>(b.data()), 128));
  std::memcpy(&b[100], &crc, 4);
}

TEST(Robustness, MutatedBinaryFiles) {
  TempDir dir;
  writeFile(dir.path("g.txt"), "10 20 0.5 2\n10 40 1.5 0\n20 30 2 1\n"
                               "40 10 4 3\n30 30 1 1\n20 10 3 0\n");
  writeFile(dir.path("g.labels"), "10 1\n30 3\n");
  sluice_graph_load_options_t o = options(
      SLUICE_GRAPH_FORMAT_SNAP,
      SLUICE_GRAPH_LOAD_COMPACT_IDS | SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN,
      SLUICE_WEIGHTS_COLUMN);
  std::string labels = dir.path("g.labels");
  o.vertex_labels_path = labels.c_str();
  Loaded text = load(dir.path("g.txt"), o);
  ASSERT_EQ(text.status, SLUICE_STATUS_OK);
  std::string path = dir.path("g.scsr");
  ASSERT_EQ(sluice_graph_write_binary(text.graph.get(), path.c_str(), nullptr),
            SLUICE_STATUS_OK);
  const std::string original = readFile(path);

  std::mt19937 rng(2024);
  std::uniform_int_distribution<size_t> position(0, original.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), count(1, 4), coin(0, 3);
  int ok = 0, failed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = original;
    int kind = coin(rng);
    if (kind == 0) {
      bytes.resize(position(rng)); // truncation
    } else {
      for (int k = count(rng); k > 0; --k)
        bytes[kind == 1 ? position(rng) % 128 : position(rng)] =
            static_cast<char>(byte(rng));
      if (kind != 3)
        fixChecksum(bytes); // reach the checks behind the checksum
    }
    // A new file each round: rewriting one in place makes ext4 flush it.
    std::string mutated = dir.path("m" + std::to_string(round));
    writeFile(mutated, bytes);
    Loaded r = load(mutated, options(SLUICE_GRAPH_FORMAT_BINARY));
    unlink(mutated.c_str());
    expectCleanOutcome(r);
    (r.status == SLUICE_STATUS_OK ? ok : failed)++;
    if (HasFatalFailure())
      FAIL() << "round " << round;
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(ok, 0) << "some mutations (e.g. of weights) are valid files";
}

TEST(Robustness, MutatedTextFiles) {
  const std::string seeds[] = {
      "# c\n0 1 0.5\n1 2 1.5\n2 0 2\n3 1 1\n",
      "%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.5\n"
      "3 2 2\n4 4 1\n",
  };
  const sluice_graph_format_t formats[] = {SLUICE_GRAPH_FORMAT_SNAP,
                                           SLUICE_GRAPH_FORMAT_MTX};
  const char alphabet[] = "0123456789 \t\n\r-.e#%x\x00\xff";
  TempDir dir;
  std::mt19937 rng(7);
  for (int s = 0; s < 2; ++s) {
    for (int round = 0; round < 1500; ++round) {
      std::string text = seeds[s];
      std::uniform_int_distribution<size_t> position(0, text.size());
      std::uniform_int_distribution<size_t> letter(0, sizeof(alphabet) - 2);
      for (int k = 0; k < 3; ++k) {
        size_t at = position(rng) % (text.size() + 1);
        switch (rng() % 3) {
        case 0:
          text.insert(at, 1, alphabet[letter(rng)]);
          break;
        case 1:
          if (at < text.size())
            text.erase(at, 1);
          break;
        default:
          if (at < text.size())
            text[at] = alphabet[letter(rng)];
        }
      }
      std::string path = dir.path("m" + std::to_string(round));
      writeFile(path, text);
      uint32_t flags = rng() % 2 ? SLUICE_GRAPH_LOAD_COMPACT_IDS
                                 : SLUICE_GRAPH_LOAD_UNDIRECTED |
                                       SLUICE_GRAPH_LOAD_DEDUPLICATE;
      Loaded r = load(path, options(formats[s], flags, SLUICE_WEIGHTS_COLUMN));
      unlink(path.c_str());
      expectCleanOutcome(r);
      if (r.status != SLUICE_STATUS_OK) {
        EXPECT_GT(r.error.line, 0u) << r.error.message;
      }
      if (HasFatalFailure())
        FAIL() << "round " << round << ": " << text;
    }
  }
}

} // namespace
