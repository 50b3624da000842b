//===- AlignGpuEmulationTest.cpp - The GPU kernel's algorithm on the CPU --===//
//
// align-to-gpu's warp algorithm (AlignWarpEmulation.h: 32 lanes in lock
// step, the kernel's strides, butterfly and tie rule) over the arrays the
// launcher prepares (runtime/src/align/AlignGpu.h), against the row-by-row
// reference on generated reads: what the GPU run adds is codegen only.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/Align/AlignHostLaunch.h"
#include "test/Unit/Align/AlignReference.h"
#include "test/Unit/Align/AlignWarpEmulation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace sluice::test;
using sluice::rt::align::GpuBatch;

namespace {

/// The emulated launch of `pairs` with `warps` warps (0: the launcher's
/// count), checked against the reference.
void checkAgainstReference(const Pairs &pairs, const sluice_align_scoring_t &sc,
                           uint64_t warps, const std::string &what) {
  HostLaunch launch(pairs, sc, warps);
  emulateWarpKernel(launch.args, launch.scratch.data());
  EXPECT_EQ(launch.next, pairs.size() + launch.args.warps)
      << what << ": every warp takes one past";
  for (size_t k = 0; k < pairs.size(); ++k)
    EXPECT_EQ(describe(referenceAlign(pairs[k].first, pairs[k].second, sc)),
              describe(launch.results[k]))
        << what << " pair " << k << ": " << pairs[k].first.substr(0, 40)
        << " / " << pairs[k].second.substr(0, 40);
}

TEST(AlignGpuEmulation, HandCases) {
  const Pairs cases = {{"ACGTACGT", "ACGTACGT"},
                       {"ACGTTCGT", "ACGTACGT"},
                       {"ACGTGTACGTAC", "ACGTACGTACGTAC"},
                       {"AAAA", "CCCC"}, // every cell ties below 0
                       {"A", "A"},
                       {"A", "C"},
                       {"ANGT", "ANGT"},
                       {"", "ACGT"},
                       {"ACGT", ""},
                       {"ACGTACGTACGTACGT", "ACGT"}};
  for (int band : {1, 2, 3, 100}) {
    sluice_align_scoring_t sc = {2, 4, 4, 2, band, 400};
    checkAgainstReference(cases, sc, 0, "band " + std::to_string(band));
  }
}

// Wide bands: anti-diagonals of up to 2 * 100 + 1 cells, 7 per lane, and
// the ties of equal scores across lanes (repeats).
TEST(AlignGpuEmulation, GeneratedReadsWideBand) {
  for (uint64_t seed : {1, 2, 3}) {
    sluice_align_scoring_t sc = {2, 4, 4, 2, 100, 400};
    checkAgainstReference(generatePairs(seed, 30, 400, 0.03, 0.02, 0), sc, 0,
                          "seed " + std::to_string(seed));
  }
  std::string repeat;
  for (int k = 0; k < 50; ++k)
    repeat += "ACGTAC";
  sluice_align_scoring_t sc = {1, 1, 0, 1, 100, -1};
  checkAgainstReference({{repeat, repeat.substr(3)}, {repeat, "CCCC" + repeat}},
                        sc, 0, "repeats");
}

TEST(AlignGpuEmulation, GeneratedReadsNarrowBandsAndZDrops) {
  for (int band : {1, 2, 5, 17, 31, 32, 33, 64}) {
    sluice_align_scoring_t sc = {2, 4, 4, 2, band, 400};
    checkAgainstReference(generatePairs(10 + band, 20, 200, 0.05, 0.04, 0), sc,
                          0, "band " + std::to_string(band));
  }
  for (int zdrop : {0, 5, 20, 50}) {
    sluice_align_scoring_t sc = {1, 4, 6, 1, 30, zdrop};
    checkAgainstReference(generatePairs(20 + zdrop, 20, 250, 0.04, 0.03, 60),
                          sc, 0, "zdrop " + std::to_string(zdrop));
  }
  sluice_align_scoring_t sc = {3, 2, 0, 1, 40, 200};
  checkAgainstReference(generatePairs(77, 20, 300, 0.15, 0.10, 30), sc, 0,
                        "noisy");
  sc = {1, 1, 10, 3, 8, -1};
  checkAgainstReference(generatePairs(78, 20, 300, 0.15, 0.10, 30), sc, 0,
                        "gap-heavy");
}

// Plateaus: after 10 matching bases, gaps cost 1 and mismatches 255, so
// every cell past the match on an anti-diagonal has the same score. The
// tie rule (the smallest target index) decides the Z-drop's drift and so
// where it stops, hence whether the query's end is reached: a lane that
// kept its last equal cell (k + 32 over k), or a butterfly that preferred
// the larger k, fails these (both checked).
TEST(AlignGpuEmulation, TiesWithinAndAcrossLanes) {
  const std::string m = "ACGTTGCAAC";
  struct Case {
    int a, b;
    sluice_align_scoring_t sc;
  } cases[] = {{46, 83, {3, 255, 0, 1, 107, 20}},
               {148, 232, {1, 255, 0, 1, 296, 24}},
               {154, 48, {3, 255, 0, 1, 257, 19}},
               {101, 208, {1, 255, 0, 1, 167, 14}}};
  for (const Case &c : cases)
    checkAgainstReference(
        {{m + std::string(c.a, 'A'), m + std::string(c.b, 'C')}}, c.sc, 0,
        "plateau " + std::to_string(c.a) + " x " + std::to_string(c.b));
}

// Fewer warps than pairs: warps reuse their scratch (stale rows from the
// pair before) and take several pairs each from the queue.
TEST(AlignGpuEmulation, FewWarpsReuseTheirScratch) {
  sluice_align_scoring_t sc = {2, 4, 4, 2, 50, 100};
  Pairs pairs = generatePairs(5, 40, 300, 0.05, 0.03, 40);
  for (uint64_t warps : {1, 3, 7})
    checkAgainstReference(pairs, sc, warps, std::to_string(warps) + " warps");
}

TEST(AlignGpuEmulation, TheQueueTakesTheLongestPairsFirst) {
  Pairs pairs = {
      {"AC", "ACG"}, {"ACGTACGT", "ACGT"}, {"A", "A"}, {"ACGTA", "ACGTAC"}};
  HostLaunch launch(pairs, {2, 4, 4, 2, 10, 100}, 0);
  emulateWarpKernel(launch.args, launch.scratch.data());
  const GpuBatch &batch = launch.batch;
  EXPECT_EQ(batch.order, (std::vector<uint32_t>{1, 3, 0, 2}));
  EXPECT_EQ(batch.row, 8u); // longest target 6, + 2
  EXPECT_EQ(batch.warps, 4u);
  EXPECT_EQ(batch.queryOffsets, (std::vector<uint64_t>{0, 2, 10, 11, 16}));
  // Codes: A C G T -> 0 1 2 3.
  EXPECT_EQ(
      std::vector<uint8_t>(batch.queries.begin(), batch.queries.begin() + 4),
      (std::vector<uint8_t>{0, 1, 0, 1}));
}

} // namespace
