//===- TiledCscTest.cpp - Tiled in-edges and the tile model ---------------===//
//
// The tiled CSC builder (runtime/src/algo/TiledCsc.cpp) against a serial
// reference on random CSCs (tiles of 1, a few, many and more than n
// sources; 1 to 7 destination blocks; weighted and not; an empty graph),
// the destination blocks, the model of `tile: auto`, and the C API on a
// context (layouts cached per size, fixed sizes, `auto` on a small graph,
// the notes).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/TiledCsc.h"

#include "sluice/algo_tile.h"
#include "test/Unit/Algo/RandomAdjacency.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>

using namespace sluice::rt;
using namespace sluice::algotest;

namespace {

/// A random CSC: n destinations, in-degrees from a skewed distribution,
/// sources sorted and distinct per destination, weighted.
using Csc = Adjacency;

Csc randomCsc(uint64_t n, uint32_t seed) {
  AdjacencyShape shape;
  shape.distinct = true;
  shape.weighted = true;
  return randomAdjacency(n, seed, shape);
}

const ForEach &serial = serialForEach;
/// Blocks in reverse order: the result must not depend on the order.
const ForEach &reversed = reversedForEach;

/// The layout the builder must produce, written the obvious way: per
/// block, per tile, per destination in order, its sources in that tile.
void expectLayout(const Csc &c, const std::vector<uint64_t> &starts,
                  uint64_t tile, bool weighted, const TiledCsc &got) {
  const uint64_t tiles = c.n ? (c.n - 1) / tile + 1 : 0;
  std::vector<uint64_t> blockEntries{0}, entryEdges;
  std::vector<uint32_t> entryDst, sources;
  std::vector<float> weights;
  for (size_t b = 0; b + 1 < starts.size(); ++b) {
    for (uint64_t t = 0; t < tiles; ++t)
      for (uint64_t v = starts[b]; v < starts[b + 1]; ++v) {
        bool entry = false;
        for (uint64_t e = c.offsets[v]; e < c.offsets[v + 1]; ++e) {
          if (c.ids[e] / tile != t)
            continue;
          if (!entry) {
            entryDst.push_back(static_cast<uint32_t>(v));
            entryEdges.push_back(sources.size());
            entry = true;
          }
          sources.push_back(c.ids[e]);
          weights.push_back(c.weights[e]);
        }
      }
    blockEntries.push_back(entryDst.size());
  }
  entryEdges.push_back(sources.size());
  const sluice_algo_tiled_t &view = got.view;
  EXPECT_EQ(view.tile, tile);
  EXPECT_EQ(view.num_tiles, tiles);
  ASSERT_EQ(view.num_blocks + 1, starts.size());
  ASSERT_EQ(view.num_entries, entryDst.size());
  EXPECT_EQ(std::vector<uint64_t>(view.block_entries,
                                  view.block_entries + view.num_blocks + 1),
            blockEntries);
  EXPECT_EQ(
      std::vector<uint32_t>(view.entry_dst, view.entry_dst + view.num_entries),
      entryDst);
  EXPECT_EQ(std::vector<uint64_t>(view.entry_edges,
                                  view.entry_edges + view.num_entries + 1),
            entryEdges);
  EXPECT_EQ(std::vector<uint32_t>(view.sources, view.sources + sources.size()),
            sources);
  if (weighted) {
    ASSERT_NE(view.weights, nullptr);
    EXPECT_EQ(std::vector<float>(view.weights, view.weights + weights.size()),
              weights);
  } else {
    EXPECT_EQ(view.weights, nullptr);
  }
}

TEST(TiledCsc, EqualsTheSerialReference) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    Csc c = randomCsc(seed == 3 ? 1 : 97 * seed, seed);
    for (uint64_t tile : {uint64_t(1), uint64_t(3), uint64_t(16), uint64_t(c.n),
                          uint64_t(c.n + 5)})
      for (uint64_t blocks : {1u, 3u, 7u})
        for (bool weighted : {false, true}) {
          auto starts = destinationBlocks(c.n, c.offsets.data(), blocks);
          TiledCsc got;
          std::string error;
          ASSERT_TRUE(
              buildTiledCsc(c.n, c.offsets.data(), c.ids.data(),
                            weighted ? c.weights.data() : nullptr, starts, tile,
                            blocks == 3 ? reversed : serial, got, error))
              << error;
          SCOPED_TRACE("seed " + std::to_string(seed) + " tile " +
                       std::to_string(tile) + " blocks " +
                       std::to_string(blocks));
          expectLayout(c, starts, tile, weighted, got);
        }
  }
}

TEST(TiledCsc, EmptyGraph) {
  Csc c;
  auto starts = destinationBlocks(0, c.offsets.data(), 4);
  EXPECT_EQ(starts, (std::vector<uint64_t>{0, 0}));
  TiledCsc got;
  std::string error;
  ASSERT_TRUE(buildTiledCsc(0, c.offsets.data(), nullptr, nullptr, starts, 8,
                            serial, got, error));
  EXPECT_EQ(got.view.num_tiles, 0u);
  EXPECT_EQ(got.view.num_entries, 0u);
}

TEST(TiledCsc, DestinationBlocksCoverTheVerticesInOrder) {
  Csc c = randomCsc(500, 9);
  for (uint64_t blocks : {1u, 2u, 8u, 600u}) {
    auto starts = destinationBlocks(c.n, c.offsets.data(), blocks);
    ASSERT_EQ(starts.size(), std::min<uint64_t>(blocks, c.n) + 1);
    EXPECT_EQ(starts.front(), 0u);
    EXPECT_EQ(starts.back(), c.n);
    EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
  }
  // Balanced by in-edges plus vertices: no block of two carries more than
  // its half plus one vertex's share.
  auto two = destinationBlocks(c.n, c.offsets.data(), 2);
  uint64_t total = c.offsets[c.n] + c.n;
  uint64_t first = c.offsets[two[1]] + two[1];
  uint64_t maxDegree = 0;
  for (uint64_t v = 0; v < c.n; ++v)
    maxDegree = std::max(maxDegree, c.offsets[v + 1] - c.offsets[v]);
  EXPECT_LE(first, total / 2 + maxDegree + 1);
  EXPECT_GE(first + maxDegree + 1, total / 2);
}

TEST(TileModel, SmallSourceDataStaysUntiled) {
  Csc c = randomCsc(1000, 4);
  CacheSizes caches{1 << 20, 32 << 20, "test"};
  TileModel m = modelTile(c.n, c.offsets.data(), 16, caches);
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{0}));
  EXPECT_NE(m.reason.find("fits in half the L2"), std::string::npos)
      << m.reason;
  EXPECT_EQ(modelTile(c.n, c.offsets.data(), 0, caches).candidates,
            (std::vector<uint64_t>{0}));
}

TEST(TileModel, LargeSourceData) {
  // 2^20 vertices of in-degree 256: 16 MiB of source data at 16 B a
  // vertex, ~16 edges per destination and tile of 65536.
  const uint64_t n = 1 << 20;
  std::vector<uint64_t> offsets(n + 1);
  for (uint64_t v = 0; v <= n; ++v)
    offsets[v] = 256 * v;
  // L2 1 MiB: tiles of 65536 sources fill it.
  CacheSizes unsure{1 << 20, 32 << 20, "test"};
  TileModel m = modelTile(n, offsets.data(), 16, unsure);
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{65536, 0})) << m.reason;
  // Far beyond the last level: tiled without timing.
  CacheSizes small{1 << 20, 2 << 20, "test"};
  EXPECT_EQ(modelTile(n, offsets.data(), 16, small).candidates,
            (std::vector<uint64_t>{65536}));
  // Degree 1: one edge per destination and tile, untiled.
  std::vector<uint64_t> sparse(n + 1);
  for (uint64_t v = 0; v <= n; ++v)
    sparse[v] = v;
  TileModel s = modelTile(n, sparse.data(), 16, small);
  EXPECT_EQ(s.candidates, (std::vector<uint64_t>{0})) << s.reason;
}

TEST(TileModel, EstimatedEntries) {
  // One destination of degree 2 over 2 tiles: 1 + 1/2 tiles expected.
  std::vector<uint64_t> offsets{0, 2};
  EXPECT_NEAR(estimatedEntries(1, offsets.data(), 1), 1.0, 1e-12);
  std::vector<uint64_t> four{0, 2, 2};
  EXPECT_NEAR(estimatedEntries(2, four.data(), 1), 1.5, 1e-12);
}

/// A seeded random graph (weights 1..9) and a context of `threads`.
void randomGraph(uint32_t n, uint32_t m, uint32_t seed, uint32_t threads,
                 Graph &out) {
  makeRandomGraph(n, m, seed, 9, threads, out);
}

TEST(TiledCscApi, LayoutsOfTheContextEqualTheReference) {
  for (uint32_t threads : {1u, 2u}) {
    Graph g;
    randomGraph(700, 9000, 11, threads, g);
    const sluice_algo_view_t *view = sluice_algo_view(g.ctx);
    Csc c;
    c.n = view->num_vertices;
    c.offsets.assign(view->in_offsets, view->in_offsets + c.n + 1);
    c.ids.assign(view->in_sources, view->in_sources + view->num_edges);
    c.weights.assign(view->in_weights, view->in_weights + view->num_edges);
    EXPECT_EQ(sluice_algo_tiled_csc(g.ctx, 0), nullptr);
    for (uint64_t tile : {1u, 50u, 700u, 5000u}) {
      const sluice_algo_tiled_t *t = sluice_algo_tiled_csc(g.ctx, tile);
      ASSERT_NE(t, nullptr);
      EXPECT_EQ(sluice_algo_tiled_csc(g.ctx, tile), t) << "cached";
      EXPECT_EQ(t->num_blocks, 4u * threads);
      TiledCsc copy;
      copy.view = *t;
      expectLayout(c,
                   std::vector<uint64_t>(
                       destinationBlocks(c.n, c.offsets.data(), 4 * threads)),
                   tile, true, copy);
    }
  }
}

TEST(TiledCscApi, BeginEndAndNotes) {
  Graph g;
  randomGraph(300, 2000, 12, 2, g);
  // A fixed size: that layout on every run.
  for (int run = 0; run < 3; ++run) {
    const sluice_algo_tiled_t *t =
        sluice_algo_tile_begin(g.ctx, "loop 'a'", 64, 16);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->tile, 64u);
    sluice_algo_tile_end(g.ctx, "loop 'a'");
  }
  // auto on 300 vertices: 4.7 KiB of source data fits in any L2.
  EXPECT_EQ(sluice_algo_tile_begin(g.ctx, "loop 'b'", 0, 16), nullptr);
  sluice_algo_tile_end(g.ctx, "loop 'b'");
  std::string a = sluice_algo_tile_note(g.ctx, 0);
  std::string b = sluice_algo_tile_note(g.ctx, 1);
  EXPECT_EQ(sluice_algo_tile_note(g.ctx, 2), nullptr);
  EXPECT_NE(a.find("loop 'a': tile: 64: tiles of 64 sources (5 tiles, 8 "
                   "destination blocks"),
            std::string::npos)
      << a;
  EXPECT_NE(a.find("3 runs"), std::string::npos) << a;
  EXPECT_NE(b.find("loop 'b': tile: auto chose untiled, 1 runs; model: "
                   "untiled: the source data (4.7 KiB"),
            std::string::npos)
      << b;
}

} // namespace

namespace {

TEST(TileProbe, EachCandidateTwiceInTurnThenTheFastest) {
  const double inf = std::numeric_limits<double>::infinity();
  // Two candidates: T, untiled, T, untiled, then the fastest by its best
  // run.
  std::vector<double> best = {inf, inf};
  std::vector<size_t> order;
  const double times[4] = {0.9, 0.7, 0.6, 0.8}; // T's first run is cold
  for (uint64_t run = 0; run < 4; ++run) {
    size_t c = probeCandidate(run, best);
    order.push_back(c);
    best[c] = std::min(best[c], times[run]);
  }
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 0, 1}));
  // T's fastest (0.6) beats untiled's (0.7): T from now on.
  EXPECT_EQ(probeCandidate(4, best), 0u);
  EXPECT_EQ(probeCandidate(100, best), 0u);
  best = {0.75, 0.7};
  EXPECT_EQ(probeCandidate(4, best), 1u);
  // One candidate: no probe.
  EXPECT_EQ(probeCandidate(0, {inf}), 0u);
  EXPECT_EQ(probeCandidate(1, {0.5}), 0u);
}

} // namespace

namespace {

TEST(TileReadProbe, ReadsTheFootprintOfMemoryInUse) {
  std::vector<uint32_t> region(1 << 20, 7);
  // 4 MiB of source data over a 4 MiB region, L2 of 1 MiB: reads within
  // 256 KiB against reads over 4 MiB.
  ReadProbe p =
      probeRandomReads(region.data(), region.size(), 4 << 20, 1 << 20);
  EXPECT_EQ(p.bytes, uint64_t(4) << 20);
  EXPECT_EQ(p.smallBytes, uint64_t(256) << 10);
  EXPECT_GT(p.nsPerRead, 0.0);
  EXPECT_GT(p.nsPerSmallRead, 0.0);
  EXPECT_GT(p.ratio(), 0.0);
  EXPECT_GE(p.seconds, 0.0);
  // Source data larger than the region: nothing to read.
  ReadProbe none =
      probeRandomReads(region.data(), region.size(), (4 << 20) + 4, 1 << 20);
  EXPECT_EQ(none.ratio(), 0.0);
  EXPECT_EQ(none.bytes, 0u);
  // A footprint below the small block reads the same words twice.
  ReadProbe tiny = probeRandomReads(region.data(), region.size(), 64, 1 << 20);
  EXPECT_EQ(tiny.bytes, 64u);
  EXPECT_EQ(tiny.smallBytes, 64u);
}

TEST(TileReadProbe, DecidesOnlyWhatTheModelLeftOpen) {
  TileModel unsure;
  unsure.candidates = {65536, 0};
  unsure.reason = "unsure, timed: source data 4.9 MiB";
  ReadProbe cached;
  cached.bytes = 4 << 20;
  cached.smallBytes = 256 << 10;
  cached.nsPerSmallRead = 1.0;
  cached.nsPerRead = kCachedReadRatio * 0.9;
  TileModel m = refineByReads(unsure, cached);
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{0}));
  EXPECT_EQ(m.reason.rfind("untiled: source data 4.9 MiB; random reads over "
                           "4.0 MiB of memory took ",
                           0),
            0u)
      << m.reason;
  EXPECT_NE(m.reason.find("the source data stays in a cache"),
            std::string::npos)
      << m.reason;
  // Slow reads: still timed, with what was measured.
  ReadProbe slow = cached;
  slow.nsPerRead = kCachedReadRatio * 1.1;
  m = refineByReads(unsure, slow);
  // Untiled first, so that its first run may settle it (settleByUntiledRuns).
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{0, 65536}));
  EXPECT_EQ(m.l2ReadNs, 1.0);
  EXPECT_EQ(
      m.reason.rfind("unsure, timed: source data 4.9 MiB; random reads", 0), 0u)
      << m.reason;
  // No probe: unchanged, and said.
  m = refineByReads(unsure, ReadProbe{});
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{65536, 0}));
  EXPECT_NE(m.reason.find("no read probe"), std::string::npos) << m.reason;
  // A model that is sure is left alone.
  TileModel sure;
  sure.candidates = {0};
  sure.reason = "untiled: fits";
  EXPECT_EQ(refineByReads(sure, slow).reason, "untiled: fits");
}

} // namespace

namespace {

TEST(TileReadProbe, UntiledRunsNearL2SpeedSettleIt) {
  TileModel timed;
  timed.candidates = {0, 131072};
  timed.reason = "unsure, timed: source data 18.3 MiB";
  timed.l2ReadNs = 0.9;
  // 134 M in-edges in 0.17 s of CPU: 1.27 ns an edge, 1.4x an L2 read.
  TileModel m = timed;
  EXPECT_TRUE(settleByUntiledRuns(m, 0.17, 134000000));
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{0}));
  EXPECT_NE(m.reason.find("the fastest of the first 2 untiled runs took "
                          "1.27 ns of CPU an in-edge, 1.41x an L2 read: its "
                          "source reads hit a cache, untiled"),
            std::string::npos)
      << m.reason;
  // 0.5 s: 3.7 ns an edge, 4.1x: still timed, the figure said.
  m = timed;
  EXPECT_FALSE(settleByUntiledRuns(m, 0.5, 134000000));
  EXPECT_EQ(m.candidates, (std::vector<uint64_t>{0, 131072}));
  EXPECT_NE(m.reason.find("4.15x an L2 read"), std::string::npos) << m.reason;
  EXPECT_EQ(m.reason.find("untiled\n"), std::string::npos);
  // Not probed, tiles first, one candidate, no edges: nothing to settle.
  m = timed;
  m.l2ReadNs = 0;
  EXPECT_FALSE(settleByUntiledRuns(m, 0.01, 134000000));
  m = timed;
  m.candidates = {131072, 0};
  EXPECT_FALSE(settleByUntiledRuns(m, 0.01, 134000000));
  m = timed;
  m.candidates = {0};
  EXPECT_FALSE(settleByUntiledRuns(m, 0.01, 134000000));
  m = timed;
  EXPECT_FALSE(settleByUntiledRuns(m, 0.01, 0));
}

} // namespace
