//===- AlignKernelTest.cpp - The alignment kernels against a reference ----===//
#include "test/Unit/Align/AlignCases.h"
#include "test/Unit/Align/AlignReference.h"

#include "sluice/align.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace sluice::test;

namespace {

constexpr sluice_align_scoring_t kMinimap2 = {2, 4, 4, 2, 100, 400};

void expectSame(const sluice_align_result_t &want,
                const sluice_align_result_t &got, const std::string &what) {
  EXPECT_EQ(describe(want), describe(got)) << what;
}

/// Runs both kernels of the runtime on `pairs` with `threads` threads.
std::vector<sluice_align_result_t>
runKernel(const std::vector<std::pair<std::string, std::string>> &pairs,
          const sluice_align_scoring_t &sc, sluice_align_kernel_t kernel,
          uint32_t threads) {
  std::vector<const char *> q, t;
  std::vector<uint32_t> ql, tl;
  for (const auto &[query, target] : pairs) {
    q.push_back(query.data());
    t.push_back(target.data());
    ql.push_back(uint32_t(query.size()));
    tl.push_back(uint32_t(target.size()));
  }
  std::vector<sluice_align_result_t> out(pairs.size());
  sluice_error_t error;
  EXPECT_EQ(sluice_align_batch(q.data(), ql.data(), t.data(), tl.data(),
                               pairs.size(), &sc, kernel, threads, out.data(),
                               &error),
            SLUICE_STATUS_OK)
      << error.message;
  return out;
}

sluice_align_result_t alignOne(const std::string &query,
                               const std::string &target,
                               const sluice_align_scoring_t &sc) {
  auto wave = runKernel({{query, target}}, sc, SLUICE_ALIGN_WAVEFRONT, 1);
  auto serial = runKernel({{query, target}}, sc, SLUICE_ALIGN_SERIAL, 1);
  expectSame(serial[0], wave[0],
             "serial vs wavefront: " + query + " / " + target);
  return wave[0];
}

// Hand-checked: match 2, mismatch 4, open 4, extend 2.
TEST(AlignKernel, IdenticalSequences) {
  sluice_align_result_t r = alignOne("ACGTACGT", "ACGTACGT", kMinimap2);
  EXPECT_EQ(r.max_score, 16);
  EXPECT_EQ(r.max_query_end, 7);
  EXPECT_EQ(r.max_target_end, 7);
  EXPECT_EQ(r.query_end_score, 16);
  EXPECT_EQ(r.query_end_target, 7);
  EXPECT_EQ(r.global_score, 16);
  EXPECT_EQ(r.zdropped, 0);
}

TEST(AlignKernel, OneMismatch) {
  // ACGTTCGT vs ACGTACGT: 7 matches, one mismatch: 14 - 4 = 10.
  sluice_align_result_t r = alignOne("ACGTTCGT", "ACGTACGT", kMinimap2);
  EXPECT_EQ(r.global_score, 10);
  EXPECT_EQ(r.max_score, 10);
  EXPECT_EQ(r.max_query_end, 7);
}

TEST(AlignKernel, DeletionInQuery) {
  // Query ACGTGTACGTAC lacks the target's "AC" at 4: 12 matches (24) minus
  // a gap of 2 (4 + 2 * 2 = 8) = 16; mismatches instead would cost more.
  sluice_align_result_t r =
      alignOne("ACGTGTACGTAC", "ACGTACGTACGTAC", kMinimap2);
  EXPECT_EQ(r.global_score, 16);
  EXPECT_EQ(r.max_score, 16);
  EXPECT_EQ(r.max_query_end, 11);
  EXPECT_EQ(r.max_target_end, 13);
}

TEST(AlignKernel, AllMismatchesKeepZeroAtNoCell) {
  // Every cell is negative: the best stays 0 on no cell, as in ksw_extz2.
  sluice_align_result_t r = alignOne("AAAA", "CCCC", kMinimap2);
  EXPECT_EQ(r.max_score, 0);
  EXPECT_EQ(r.max_query_end, -1);
  EXPECT_EQ(r.max_target_end, -1);
  EXPECT_EQ(r.global_score, -16);
}

TEST(AlignKernel, NIsAlwaysAMismatch) {
  sluice_align_result_t r = alignOne("ANGT", "ANGT", kMinimap2);
  EXPECT_EQ(r.global_score, 2 - 4 + 2 + 2);
}

TEST(AlignKernel, ZDropStopsAChimera) {
  // 20 matches (40), then unrelated bases: the Z-drop of 10 stops it.
  std::string common = "ACGTTGCAACGTTGCAACGT";
  sluice_align_scoring_t sc = kMinimap2;
  sc.zdrop = 10;
  sluice_align_result_t r = alignOne(common + "CCCCCCCCCCCCCCCCCCCC",
                                     common + "GGGGGGGGGGGGGGGGGGGG", sc);
  EXPECT_EQ(r.max_score, 40);
  EXPECT_EQ(r.max_query_end, 19);
  EXPECT_EQ(r.max_target_end, 19);
  EXPECT_EQ(r.zdropped, 1);
  EXPECT_EQ(r.global_score, SLUICE_ALIGN_NEG_INF);
  sc.zdrop = -1; // off: the whole matrix, 40 - 20 * 4
  r = alignOne(common + "CCCCCCCCCCCCCCCCCCCC", common + "GGGGGGGGGGGGGGGGGGGG",
               sc);
  EXPECT_EQ(r.zdropped, 0);
  EXPECT_EQ(r.global_score, 40 - 80);
}

TEST(AlignKernel, LengthsFurtherApartThanTheBandStop) {
  sluice_align_scoring_t sc = kMinimap2;
  sc.band = 3;
  sluice_align_result_t r = alignOne("ACGTACGTACGTACGT", "ACGT", sc);
  EXPECT_EQ(r.zdropped, 1);
  EXPECT_EQ(r.global_score, SLUICE_ALIGN_NEG_INF);
  EXPECT_EQ(r.max_score, 8);
}

TEST(AlignKernel, EmptySequences) {
  sluice_align_result_t r = alignOne("", "ACGT", kMinimap2);
  EXPECT_EQ(r.max_score, 0);
  EXPECT_EQ(r.global_score, SLUICE_ALIGN_NEG_INF);
}

TEST(AlignKernel, HandCasesMatchTheReference) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ACGTACGT", "ACGTACGT"},
      {"ACGTTCGT", "ACGTACGT"},
      {"ACGTGTACGTAC", "ACGTACGTACGTAC"},
      {"AAAA", "CCCC"},
      {"A", "A"},
      {"A", "C"},
      {"ACCGT", "ACGT"},
      {"ACGT", "ACCGT"}};
  for (int band : {1, 2, 3, 100}) {
    for (const auto &[q, t] : cases) {
      sluice_align_scoring_t sc = kMinimap2;
      sc.band = band;
      expectSame(referenceAlign(q, t, sc), alignOne(q, t, sc),
                 q + " / " + t + " band " + std::to_string(band));
    }
  }
}

/// Generated reads with known mutations: every result field of both
/// kernels, on 1 and 3 threads, equals the row-by-row reference.
void checkGenerated(uint64_t seed, size_t pairs, size_t length,
                    const sluice_align_scoring_t &sc, double sub, double indel,
                    size_t junk) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::string, std::string>> input;
  std::uniform_int_distribution<size_t> len(length / 2, length);
  for (size_t k = 0; k < pairs; ++k) {
    std::string target = randomSequence(len(rng), rng);
    std::string query =
        mutateRead(target, sub, indel, k % 3 == 0 ? junk : 0, rng);
    if (k % 2)
      std::swap(query, target); // insertions in either sequence
    input.emplace_back(query, target);
  }
  auto wave1 = runKernel(input, sc, SLUICE_ALIGN_WAVEFRONT, 1);
  auto wave3 = runKernel(input, sc, SLUICE_ALIGN_WAVEFRONT, 3);
  auto serial = runKernel(input, sc, SLUICE_ALIGN_SERIAL, 2);
  size_t zdropped = 0;
  for (size_t k = 0; k < pairs; ++k) {
    sluice_align_result_t want =
        referenceAlign(input[k].first, input[k].second, sc);
    std::string what =
        "seed " + std::to_string(seed) + " pair " + std::to_string(k);
    expectSame(want, wave1[k], what + " (wavefront)");
    expectSame(want, wave3[k], what + " (wavefront, 3 threads)");
    expectSame(want, serial[k], what + " (serial)");
    zdropped += want.zdropped;
  }
  // The junk tails are there to exercise the Z-drop.
  if (junk > 0 && sc.zdrop >= 0 && sc.zdrop < 100) {
    EXPECT_GT(zdropped, 0u) << "seed " << seed;
  }
}

TEST(AlignKernel, GeneratedReadsMinimap2Scoring) {
  for (uint64_t seed : {1, 2, 3})
    checkGenerated(seed, 40, 300, kMinimap2, 0.03, 0.02, 0);
}

TEST(AlignKernel, GeneratedReadsNarrowBand) {
  for (int band : {1, 2, 5, 17}) {
    sluice_align_scoring_t sc = kMinimap2;
    sc.band = band;
    checkGenerated(10 + band, 30, 200, sc, 0.05, 0.04, 0);
  }
}

TEST(AlignKernel, GeneratedReadsZDrop) {
  for (int zdrop : {0, 5, 20, 50}) {
    sluice_align_scoring_t sc = {1, 4, 6, 1, 30, zdrop};
    checkGenerated(20 + zdrop, 30, 250, sc, 0.04, 0.03, 60);
  }
}

TEST(AlignKernel, GeneratedReadsNoisyAndGapHeavy) {
  sluice_align_scoring_t sc = {3, 2, 0, 1, 40, 200};
  checkGenerated(77, 30, 300, sc, 0.15, 0.10, 30);
  sc = {1, 1, 10, 3, 8, -1};
  checkGenerated(78, 30, 300, sc, 0.15, 0.10, 30);
}

TEST(AlignKernel, ScoringIsChecked) {
  sluice_error_t error;
  sluice_align_scoring_t sc = kMinimap2;
  sc.band = 0;
  EXPECT_EQ(sluice_align_check_scoring(&sc, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "band must be in [1, 1048576], got 0");
  sc = kMinimap2;
  sc.mismatch = 300;
  EXPECT_EQ(sluice_align_check_scoring(&sc, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "mismatch must be in [1, 255], got 300");
}

} // namespace

/// The band cells of a pair counted cell by cell: every (i, j) with
/// |i - j| <= band, anti-diagonal by anti-diagonal until one has none.
static uint64_t bruteBandCells(int64_t qlen, int64_t tlen, int64_t band) {
  uint64_t cells = 0;
  for (int64_t r = 0; r <= qlen + tlen - 2; ++r) {
    uint64_t here = 0;
    for (int64_t i = 0; i < tlen; ++i) {
      int64_t j = r - i;
      here += j >= 0 && j < qlen && std::llabs(i - j) <= band;
    }
    if (here == 0)
      break;
    cells += here;
  }
  return cells;
}

TEST(AlignKernel, BandCellsCountTheBand) {
  // Hand-checked: 4 x 4, band 100: all 16 cells; band 0: cell (0, 0),
  // then anti-diagonal 1 has no cell in the band (the alignment stops);
  // band 1: the diagonal and its two neighbours (4 + 3 + 3).
  EXPECT_EQ(sluice_align_band_cells(4, 4, 100), 16u);
  EXPECT_EQ(sluice_align_band_cells(4, 4, 0), 1u);
  EXPECT_EQ(sluice_align_band_cells(4, 4, 1), 10u);
  EXPECT_EQ(sluice_align_band_cells(0, 4, 5), 0u);
  for (int64_t q : {1, 2, 7, 30, 64})
    for (int64_t t : {1, 3, 7, 31, 70})
      for (int64_t band : {0, 1, 2, 5, 32, 100})
        EXPECT_EQ(
            sluice_align_band_cells(uint32_t(q), uint32_t(t), int32_t(band)),
            bruteBandCells(q, t, band))
            << q << " x " << t << " band " << band;
}
