//===- AggregateTest.cpp - Tiled aggregation and its tile tuner -----------===//
//
// The tiled kernels against the untiled ones (the same bits: each output
// value is summed in the same order for any tile), against a reference in
// double, and backward against forward (the scatter is the aggregation's
// transpose: <A(H), G> = <H, A^T(G)>), on random sparse blocks; the tile
// model and the probe.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/gnn/Aggregate.h"

#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/gnn/TileTuner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sluice::rt;
using namespace sluice::rt::gnn;

namespace {

/// A block of `dst` dst rows over `src` src rows (dst first), each dst row
/// with 0 to maxDegree random neighbours (repeats allowed) and random
/// coefficients.
Block randomBlock(uint32_t dst, uint32_t src, uint32_t maxDegree,
                  uint64_t seed) {
  Block b;
  b.numDst = dst;
  Random rng(seed, Stream::Split, 3, 0, 0);
  for (uint32_t v = 0; v < src; ++v)
    b.src.push_back(v);
  b.offsets.push_back(0);
  for (uint32_t d = 0; d < dst; ++d) {
    const uint32_t degree = rng.below(maxDegree + 1);
    for (uint32_t k = 0; k < degree; ++k) {
      b.nbr.push_back(rng.below(src));
      b.coef.push_back(2.0f * rng.unit() - 1.0f);
    }
    b.offsets.push_back(static_cast<uint32_t>(b.nbr.size()));
    b.selfCoef.push_back(rng.unit());
  }
  return b;
}

std::vector<float> randomRows(size_t n, uint64_t seed) {
  std::vector<float> x(n);
  Random rng(seed, Stream::Split, 4, 0, 0);
  for (float &f : x)
    f = 2.0f * rng.unit() - 1.0f;
  return x;
}

/// The aggregate in double, straight from the definition.
std::vector<double> referenceForward(const Block &b, bool sage,
                                     const std::vector<float> &h, size_t in) {
  const size_t rows = sage ? 2 * in : in;
  std::vector<double> a(size_t(b.numDst) * rows, 0.0);
  for (size_t d = 0; d < b.numDst; ++d)
    for (size_t j = 0; j < in; ++j) {
      double self = (sage ? 1.0 : b.selfCoef[d]) * h[d * in + j], neigh = 0;
      for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e)
        neigh += double(b.coef[e]) * h[size_t(b.nbr[e]) * in + j];
      if (sage) {
        a[d * rows + j] = self;
        a[d * rows + in + j] = neigh;
      } else {
        a[d * rows + j] = self + neigh;
      }
    }
  return a;
}

struct Case {
  uint32_t dst, src, maxDegree;
  size_t width;
};

const Case kCases[] = {{1, 1, 0, 1},    {7, 20, 5, 5},     {30, 90, 12, 33},
                       {64, 64, 3, 64}, {50, 400, 25, 17}, {9, 9, 40, 2}};

} // namespace

TEST(GnnAggregate, TiledForwardGivesTheSameBits) {
  AlgoThreadPool three(3);
  for (const Case &c : kCases)
    for (bool sage : {true, false}) {
      const Block b = randomBlock(c.dst, c.src, c.maxDegree, c.width);
      const auto h = randomRows(size_t(c.src) * c.width, c.dst);
      const size_t rows = (sage ? 2 : 1) * c.width;
      std::vector<float> untiled(size_t(c.dst) * rows, -1.0f);
      aggregateForward(nullptr, b, sage, h.data(), c.width, untiled.data(), 0);
      const auto ref = referenceForward(b, sage, h, c.width);
      for (size_t i = 0; i < ref.size(); ++i)
        ASSERT_NEAR(untiled[i], ref[i], 1e-5 * (1 + std::fabs(ref[i])))
            << "value " << i;
      for (size_t tile : {size_t(1), size_t(2), size_t(3), size_t(7),
                          size_t(16), c.width, c.width + 1, size_t(1000)})
        for (AlgoThreadPool *pool : {(AlgoThreadPool *)nullptr, &three}) {
          std::vector<float> tiled(untiled.size(), -2.0f);
          aggregateForward(pool, b, sage, h.data(), c.width, tiled.data(),
                           tile);
          ASSERT_EQ(tiled, untiled) << "width " << c.width << " tile " << tile
                                    << (sage ? " sage" : " gcn");
        }
    }
}

TEST(GnnAggregate, TiledBackwardGivesTheSameBitsAndIsTheTranspose) {
  AlgoThreadPool three(3);
  for (const Case &c : kCases)
    for (bool sage : {true, false}) {
      const Block b = randomBlock(c.dst, c.src, c.maxDegree, c.width + 9);
      const size_t rows = (sage ? 2 : 1) * c.width;
      const auto h = randomRows(size_t(c.src) * c.width, 1);
      const auto g = randomRows(size_t(c.dst) * rows, 2);
      std::vector<float> untiled(size_t(c.src) * c.width, 0.0f);
      aggregateBackward(nullptr, b, sage, g.data(), c.width, untiled.data(), 0);
      // <A(H), G> = <H, A^T(G)>, in double.
      const auto a = referenceForward(b, sage, h, c.width);
      double lhs = 0, rhs = 0, scale = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        lhs += a[i] * g[i];
        scale += std::fabs(a[i] * g[i]);
      }
      for (size_t i = 0; i < h.size(); ++i)
        rhs += double(h[i]) * untiled[i];
      EXPECT_NEAR(lhs, rhs, 1e-5 * (1 + scale)) << "width " << c.width;
      for (size_t tile : {size_t(1), size_t(2), size_t(3), size_t(7),
                          size_t(16), c.width, c.width + 1, size_t(1000)})
        for (AlgoThreadPool *pool : {(AlgoThreadPool *)nullptr, &three}) {
          std::vector<float> tiled(untiled.size(), 0.0f);
          aggregateBackward(pool, b, sage, g.data(), c.width, tiled.data(),
                            tile);
          ASSERT_EQ(tiled, untiled) << "width " << c.width << " tile " << tile
                                    << (sage ? " sage" : " gcn");
        }
    }
}

TEST(GnnTileModel, OnePassWhenTheRowsFitOrAreNotReused) {
  const CacheSizes cache{32 << 10, 1 << 20};
  AggregateShape s;
  // 1000 rows of 64 floats: 256 KiB, within half of the L2.
  s.numSrc = 1000;
  s.numDst = 200;
  s.edges = 2000;
  s.width = 64;
  TileModel m = modelTile(cache, s);
  EXPECT_EQ(m.tile, 64u);
  EXPECT_EQ(m.width, 64u);
  // 100k rows of 512 floats, 30k reads: 26k rows read 1.16 times each,
  // nothing to keep.
  s.numSrc = 100000;
  s.numDst = 5000;
  s.edges = 25000;
  s.width = 512;
  m = modelTile(cache, s);
  EXPECT_EQ(m.tile, 512u);
  EXPECT_TRUE(m.sure);
}

TEST(GnnTileModel, TilesRowsThatDoNotFit) {
  const CacheSizes cache{32 << 10, 1 << 20};
  AggregateShape s;
  // 10k src rows read 10 times each (100k edges), 256 floats: 10 MiB of
  // rows, all reached; a tile of 512 KiB / (4 x ~10k rows) = 13 floats,
  // at least a cache line: 16; unsure (the rows may sit in the L3).
  s.numSrc = 10000;
  s.numDst = 10000;
  s.edges = 90000;
  s.width = 256;
  TileModel m = modelTile(cache, s);
  EXPECT_EQ(m.tile, 16u);
  EXPECT_FALSE(m.sure);
  // A 4 MiB L2: 2 MiB / (4 x 10k) = 52 -> 48 floats; the rows at 5x the
  // budget: unsure.
  m = modelTile(CacheSizes{32 << 10, 4 << 20}, s);
  EXPECT_EQ(m.tile, 48u);
  EXPECT_FALSE(m.sure);
  // Backward on 4 threads: each thread walks a quarter of the columns.
  s.backward = true;
  s.threads = 4;
  m = modelTile(CacheSizes{32 << 10, 4 << 20}, s);
  EXPECT_EQ(m.width, 64u);
  EXPECT_EQ(m.tile, 48u);
}

TEST(GnnTileTuner, ProbesTheCandidatesAndKeepsTheFastest) {
  AggregateShape s;
  s.numSrc = 10000;
  s.numDst = 10000;
  s.edges = 90000;
  s.width = 256;
  TileTuner tuner(CacheSizes{32 << 10, 4 << 20}, 0, 2);
  // Candidates: the model's 48, 16 (half, in lines), 96, 192, 256 (one
  // pass).
  // 96 columns is the fastest, 192 within 1.5x of it: the first round
  // tries all five, the next two only those.
  std::vector<size_t> seen;
  for (unsigned i = 0; i < 5 + 2 + 2; ++i) {
    const size_t t = tuner.tileFor(1, s);
    seen.push_back(t);
    tuner.record(1, false, t == 96 ? 1.0 : t == 192 ? 1.4 : 2.0, 1.0);
  }
  EXPECT_EQ(seen[0], 48u);
  EXPECT_EQ(seen[1], 16u);
  EXPECT_EQ(seen[2], 96u);
  EXPECT_EQ(seen[3], 192u);
  EXPECT_EQ(seen[4], 256u);
  EXPECT_EQ(seen[5], 96u);
  EXPECT_EQ(seen[6], 192u);
  EXPECT_EQ(seen[8], 192u);
  EXPECT_EQ(tuner.probeCalls(1, false), 9u);
  EXPECT_EQ(tuner.tile(1, false), 96u);
  EXPECT_EQ(tuner.modelChoice(1, false), 48u);
  EXPECT_TRUE(tuner.probed(1, false));
  EXPECT_EQ(tuner.tileFor(1, s), 96u);
  EXPECT_DOUBLE_EQ(tuner.seconds(), 3 * 1.0 + 3 * 1.4 + 3 * 2.0);
  // One candidate far ahead of the rest ends the probe after one round.
  TileTuner quick(CacheSizes{32 << 10, 4 << 20}, 0, 1);
  for (int i = 0; i < 5; ++i) {
    const size_t t = quick.tileFor(0, s);
    quick.record(0, false, t == 256 ? 1.0 : 3.0, 1.0);
  }
  EXPECT_EQ(quick.tileFor(0, s), 256u);
  EXPECT_EQ(quick.probeCalls(0, false), 5u);
  // Within 5% of the fastest, the widest tile wins.
  TileTuner wide(CacheSizes{32 << 10, 4 << 20}, 0, 1);
  while (wide.probeCalls(0, false) < 15) {
    const size_t t = wide.tileFor(0, s);
    wide.record(0, false, t == 96 ? 1.0 : t == 192 ? 1.04 : 1.3, 1.0);
  }
  EXPECT_EQ(wide.tileFor(0, s), 192u);
  // Layer 0 never ran; the backward slot of layer 1 neither.
  EXPECT_EQ(tuner.tile(0, false), 0u);
  EXPECT_EQ(tuner.tile(1, true), 0u);
}

TEST(GnnTileTuner, APinnedTileIsNeverProbed) {
  AggregateShape s;
  s.numSrc = 10000;
  s.numDst = 10000;
  s.edges = 90000;
  s.width = 256;
  TileTuner tuner(CacheSizes{32 << 10, 4 << 20}, 5, 1);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(tuner.tileFor(0, s), 5u);
    tuner.record(0, false, 1.0, 1.0);
  }
  EXPECT_FALSE(tuner.probed(0, false));
  EXPECT_EQ(tuner.tile(0, false), 5u);
}

TEST(GnnTileTuner, ReadsCacheSizes) {
  const CacheSizes c = readCacheSizes();
  EXPECT_GE(c.l1d, 4u << 10);
  EXPECT_GE(c.l2, c.l1d);
}
