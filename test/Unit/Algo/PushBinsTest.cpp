//===- PushBinsTest.cpp - The bins of binned push loops -------------------===//
//
// The bins builder (runtime/src/algo/PushBins.cpp) against a serial
// reference on random CSRs (bins of 1, a few, many and more than n
// destinations, n not a multiple of the bin size, isolated vertices; 1 to
// 7 source blocks, in order and reversed; an empty graph), its size check
// (a limit below the size is a clear error, nothing allocated), `tile:
// auto`'s choice, and the C API on a context (bins cached per size, the
// notes).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/PushBins.h"

#include "sluice/algo_bins.h"
#include "test/Unit/Algo/RandomAdjacency.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

using namespace sluice::rt;
using namespace sluice::algotest;

namespace {

/// A random CSR: n sources, out-degrees skewed, targets sorted per source;
/// every 5th vertex has no edges at all (isolated, unless another vertex
/// points at it).
using Csr = Adjacency;

Csr randomCsr(uint64_t n, uint32_t seed) {
  AdjacencyShape shape;
  shape.isolateEveryFifth = true;
  return randomAdjacency(n, seed, shape);
}

const ForEach &serial = serialForEach;
const ForEach &reversed = reversedForEach;

/// The bins written the obvious way: for each bin, every edge (u, v) with
/// v in its range, sources ascending, then in the CSR's order.
void expectBins(const Csr &c, uint64_t tile, const sluice_algo_bins_t &got) {
  const uint64_t m = c.ids.size();
  const uint64_t bins = c.n == 0 ? 0 : (c.n + tile - 1) / tile;
  ASSERT_EQ(got.tile, tile);
  ASSERT_EQ(got.num_bins, bins);
  ASSERT_EQ(got.num_pairs, m);
  std::vector<uint64_t> slotOf(m, ~uint64_t(0));
  uint64_t k = 0;
  for (uint64_t b = 0; b < bins; ++b) {
    ASSERT_EQ(got.bin_pairs[b], k) << "bin " << b;
    for (uint64_t u = 0; u < c.n; ++u)
      for (uint64_t e = c.offsets[u]; e < c.offsets[u + 1]; ++e)
        if (c.ids[e] / tile == b) {
          ASSERT_EQ(got.pair_dst[k], c.ids[e]) << "pair " << k;
          slotOf[e] = k++;
        }
  }
  ASSERT_EQ(got.bin_pairs[bins], m);
  for (uint64_t e = 0; e < m; ++e)
    ASSERT_EQ(got.slots[e], slotOf[e]) << "edge " << e;
}

TEST(PushBins, EqualsTheSerialReference) {
  for (uint64_t n : {1u, 37u, 200u})
    for (uint32_t seed : {1u, 2u}) {
      Csr c = randomCsr(n, seed);
      for (uint64_t tile :
           {uint64_t(1), uint64_t(3), uint64_t(16), n, uint64_t(n + 50)})
        for (uint64_t blocks : {1u, 3u, 7u})
          for (const ForEach *each : {&serial, &reversed}) {
            PushBins got;
            std::string error;
            ASSERT_TRUE(
                buildPushBins(c.n, c.offsets.data(), c.ids.data(),
                              destinationBlocks(c.n, c.offsets.data(), blocks),
                              tile, uint64_t(1) << 30, *each, got, error))
                << error;
            expectBins(c, tile, got.view);
          }
    }
}

TEST(PushBins, EmptyGraph) {
  Csr c;
  PushBins got;
  std::string error;
  ASSERT_TRUE(buildPushBins(0, c.offsets.data(), nullptr,
                            destinationBlocks(0, c.offsets.data(), 4), 8,
                            uint64_t(1) << 30, serial, got, error));
  EXPECT_EQ(got.view.num_bins, 0u);
  EXPECT_EQ(got.view.num_pairs, 0u);
}

TEST(PushBins, SizeIsCheckedBeforeAllocating) {
  Csr c = randomCsr(100, 3);
  const uint64_t m = c.ids.size();
  uint64_t bytes = 0;
  // 16 bytes a pair, 8 per bin offset (+1), 8 per block and bin counter.
  ASSERT_TRUE(pushBinsBytes(100, m, 10, 2, bytes));
  EXPECT_EQ(bytes, 16 * m + 8 * 11 + 8 * 2 * 10);
  PushBins got;
  std::string error;
  EXPECT_FALSE(buildPushBins(100, c.offsets.data(), c.ids.data(),
                             destinationBlocks(100, c.offsets.data(), 2), 10,
                             bytes - 1, serial, got, error));
  EXPECT_NE(error.find("the bins of 10 destinations (10 bins, " +
                       std::to_string(m) + " pairs) need "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("they do not fit in memory"), std::string::npos)
      << error;
  EXPECT_EQ(got.slots.size(), 0u) << "nothing allocated";
  // Exactly the size fits.
  EXPECT_TRUE(buildPushBins(100, c.offsets.data(), c.ids.data(),
                            destinationBlocks(100, c.offsets.data(), 2), 10,
                            bytes, serial, got, error))
      << error;
  // More pairs than 32-bit slots index: refused before any read of the
  // targets (there are none here).
  std::vector<uint64_t> many{0, kMaxPairs + 1};
  PushBins none;
  EXPECT_FALSE(buildPushBins(1, many.data(), nullptr,
                             destinationBlocks(1, many.data(), 1), 1,
                             ~uint64_t(0), serial, none, error));
  EXPECT_NE(error.find("more than 4294967295 pairs, which 32-bit slots "
                       "cannot index"),
            std::string::npos)
      << error;
  // 2^62 edges overflow 64 bits.
  uint64_t huge = 0;
  EXPECT_FALSE(pushBinsBytes(1, uint64_t(1) << 62, 1, 1, huge));
}

TEST(PushBins, AutoFillsHalfTheL2) {
  std::string reason;
  // 1 MiB of L2, 8 bytes a destination: 65536 destinations (512 KiB).
  EXPECT_EQ(chooseBinTile(uint64_t(1) << 24, 8, 1 << 20, 2, reason), 65536u);
  EXPECT_NE(reason.find("bins of 65536 destinations of 8 B fill 512.0 KiB, "
                        "at most half the L2 (1.0 MiB)"),
            std::string::npos)
      << reason;
  // 2^20 destinations on 8 threads: halved to 32 bins of 32768.
  EXPECT_EQ(chooseBinTile(uint64_t(1) << 20, 8, 1 << 20, 8, reason), 32768u);
  EXPECT_NE(reason.find("halved to 32768 for 32 bins (4 per thread)"),
            std::string::npos)
      << reason;
  // A small graph: never below 256 destinations a bin.
  EXPECT_EQ(chooseBinTile(1000, 8, 1 << 20, 2, reason), 256u);
}

TEST(PushBinsApi, BinsOfTheContextEqualTheReference) {
  for (uint32_t threads : {1u, 2u}) {
    Graph g;
    makeRandomGraph(700, 9000, 11, 9, threads, g);
    const sluice_algo_view_t *view = sluice_algo_view(g.ctx);
    Csr c;
    c.n = view->num_vertices;
    c.offsets.assign(view->out_offsets, view->out_offsets + c.n + 1);
    c.ids.assign(view->out_targets, view->out_targets + view->num_edges);
    for (int64_t tile : {1, 64, 700, 5000}) {
      const std::string name = "loop " + std::to_string(tile);
      const sluice_algo_bins_t *b =
          sluice_algo_bins_begin(g.ctx, name.c_str(), tile, 8);
      ASSERT_NE(b, nullptr);
      sluice_algo_bins_end(g.ctx, name.c_str());
      EXPECT_EQ(sluice_algo_bins_begin(g.ctx, name.c_str(), tile, 8), b)
          << "kept with the context";
      sluice_algo_bins_end(g.ctx, name.c_str());
      expectBins(c, uint64_t(tile), *b);
    }
  }
}

TEST(PushBinsApi, NotesSayWhatRan) {
  Graph g;
  // 1000 vertices, the last 10 isolated.
  std::vector<uint32_t> src, dst;
  for (uint32_t u = 0; u < 990; ++u) {
    src.push_back(u);
    dst.push_back((u * 7 + 3) % 990);
  }
  makeGraphFromEdges(1000, src, dst, nullptr, 0, 2, g);
  for (int run = 0; run < 3; ++run) {
    ASSERT_NE(sluice_algo_bins_begin(g.ctx, "loop 'a'", 300, 8), nullptr);
    sluice_algo_bins_end(g.ctx, "loop 'a'");
  }
  ASSERT_NE(sluice_algo_bins_begin(g.ctx, "loop 'b'", 0, 8), nullptr);
  sluice_algo_bins_end(g.ctx, "loop 'b'");
  std::string a = sluice_algo_bins_note(g.ctx, 0);
  std::string b = sluice_algo_bins_note(g.ctx, 1);
  EXPECT_EQ(sluice_algo_bins_note(g.ctx, 2), nullptr);
  EXPECT_NE(a.find("loop 'a': tile: 300: bins of 300 destinations (4 bins, "
                   "990 pairs"),
            std::string::npos)
      << a;
  EXPECT_NE(a.find("3 runs"), std::string::npos) << a;
  EXPECT_NE(b.find("loop 'b': tile: auto chose bins of 256 destinations (4 "
                   "bins, 990 pairs"),
            std::string::npos)
      << b;
  EXPECT_NE(b.find("model: bins of "), std::string::npos) << b;
}

} // namespace
