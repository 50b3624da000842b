//===- RoundArenaTest.cpp - A context's arena for its rounds' structures --===//
//
// RoundArena (runtime/src/algo/RoundArena.h) against what a memory resource
// owes its users: blocks of the asked size and alignment that do not
// overlap while live (checked by writing each block's own pattern and
// reading them all back), freed blocks reused by their class, blocks past
// the reserved range from operator new, and the round structures of a
// context served from the range.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/RoundArena.h"

#include "runtime/src/algo/AlgoInternal.h"
#include "sluice/algo.h"
#include "test/Unit/Algo/RuntimeGraph.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using sluice::rt::RoundArena;

namespace {

struct Block {
  unsigned char *p;
  size_t bytes, align;
  unsigned char fill;
};

/// Blocks of random sizes (1 B to 256 KiB) and alignments, some freed and
/// allocated again; each live block holds its own byte, all read back.
void checkBlocks(RoundArena &arena, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Block> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t k = rng() % live.size();
      Block b = live[k];
      for (size_t j = 0; j < b.bytes; ++j)
        ASSERT_EQ(b.p[j], b.fill) << "block " << k << " overwritten";
      arena.deallocate(b.p, b.bytes, b.align);
      live.erase(live.begin() + k);
      continue;
    }
    size_t bytes = size_t(1) + rng() % (size_t(1) << (rng() % 18 + 1));
    size_t align = size_t(1) << (rng() % 8);
    auto *p = static_cast<unsigned char *>(arena.allocate(bytes, align));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
    unsigned char fill = static_cast<unsigned char>(i);
    std::memset(p, fill, bytes);
    live.push_back({p, bytes, align, fill});
  }
  for (const Block &b : live) {
    for (size_t j = 0; j < b.bytes; ++j)
      ASSERT_EQ(b.p[j], b.fill);
    arena.deallocate(b.p, b.bytes, b.align);
  }
}

} // namespace

TEST(RoundArena, BlocksAreDisjointAndAligned) {
  RoundArena arena;
  arena.reserve(1000);
  ASSERT_TRUE(arena.mapped());
  checkBlocks(arena, 1);
  EXPECT_GT(arena.bytesTaken(), 0u);
}

TEST(RoundArena, WithoutARangeBlocksComeFromOperatorNew) {
  RoundArena arena;
  checkBlocks(arena, 2);
  EXPECT_FALSE(arena.mapped());
  EXPECT_EQ(arena.bytesTaken(), 0u);
}

/// A freed block serves the next allocation of its class: the range does
/// not grow.
TEST(RoundArena, FreedBlocksAreReused) {
  RoundArena arena;
  arena.reserve(1000);
  void *a = arena.allocate(3000, 8);
  uint64_t taken = arena.bytesTaken();
  arena.deallocate(a, 3000, 8);
  void *b = arena.allocate(4096, 8);
  EXPECT_EQ(a, b);
  EXPECT_EQ(arena.bytesTaken(), taken);
  arena.deallocate(b, 4096, 8);
}

/// Past the reserved range, blocks come from operator new (and go back
/// there).
TEST(RoundArena, PastTheRangeFromOperatorNew) {
  RoundArena arena;
  arena.reserve(0);
  const uint64_t reserved = RoundArena::reserveFor(0);
  ASSERT_EQ(reserved, uint64_t(64) << 20);
  std::vector<void *> blocks;
  for (int i = 0; i < 5; ++i)
    blocks.push_back(arena.allocate(size_t(16) << 20, 64));
  EXPECT_LE(arena.bytesTaken(), reserved);
  for (void *p : blocks)
    std::memset(p, 1, size_t(16) << 20);
  for (void *p : blocks)
    arena.deallocate(p, size_t(16) << 20, 64);
}

TEST(RoundArena, ReserveForOverflowsToZero) {
  EXPECT_EQ(RoundArena::reserveFor(UINT64_MAX / 2), 0u);
  EXPECT_EQ(RoundArena::reserveFor(1) % (uint64_t(2) << 20), 0u);
}

/// A context's frontiers and bucket rounds take their buffers, queue and
/// buckets from its arena.
TEST(RoundArena, AContextsBucketRoundsUseIt) {
  sluice::algotest::Graph g;
  sluice::algotest::makeRandomGraph(50, 200, 3, 4, 1, g);
  sluice_algo_ctx_t *ctx = g.ctx;
  std::vector<double> p(50);
  for (uint32_t v = 0; v < 50; ++v)
    p[v] = v % 7;
  sluice_frontier_t *f = sluice_algo_frontier_new(ctx);
  for (uint32_t v = 0; v < 50; v += 2)
    sluice_algo_frontier_insert(f, v);
  sluice_algo_frontier_seal(f);
  // (The frontiers' lists and bitmaps are the arena's too.)
  ASSERT_TRUE(ctx->arena.mapped());
  const uint64_t before = ctx->arena.bytesTaken();
  EXPECT_GT(before, 0u);
  sluice_frontier_t *rest = sluice_algo_frontier_new(ctx);
  sluice_frontier_t *round = sluice_algo_frontier_bucket(
      f, p.data(), SLUICE_ALGO_F64, 1.0, rest, SLUICE_ALGO_BUCKET_CONSUME);
  // Bucket 0: the even multiples of 7 below 50.
  ASSERT_EQ(sluice_algo_frontier_size(round), 4u);
  const uint32_t *list = sluice_algo_frontier_list(round);
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(list[i], 14 * i);
  // The queue's slots at least.
  EXPECT_GE(ctx->arena.bytesTaken(), before + 50 * sizeof(int32_t));
}
