//===- AlignGpuIntegrationTest.cpp - align-to-gpu's kernel on a GPU -------===//
//
// The kernel sluicec compiled at build time (artifacts/align-extend.ptx,
// align-to-gpu's sluice_align_extend) run by sluice_align_batch_gpu on
// generated reads, every field of every pair equal to the CPU wavefront
// kernel's (sluice_align_batch), which test/Unit/Align checks against an
// independent reference. Without a GPU the device half skips with the
// driver's reason; the PTX and the argument checks are tested everywhere.
// Runtime-only: no LLVM/MLIR (docs/gpu-testing.md).
//
//===----------------------------------------------------------------------===//
#include "sluice/align_gpu.h"
#include "sluice/gpu.h"
#include "test/Unit/Align/AlignCases.h"
#include "test/Unit/Align/AlignReference.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace sluice::test;

namespace {

constexpr const char *kKernel = "sluice_align_extend";

std::string ptxPath() {
  const char *dir = std::getenv("SLUICE_GPU_ARTIFACTS");
  return std::string(dir && *dir ? dir : SLUICE_GPU_ALIGN_DIR) +
         "/align-extend.ptx";
}

std::string readPtx() {
  std::ifstream in(ptxPath(), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using Batch = PairArrays;

TEST(AlignGpuArtifacts, ThePtxHasTheWarpKernelForSm90) {
  std::string ptx = readPtx();
  ASSERT_FALSE(ptx.empty()) << "no PTX at " << ptxPath();
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find(".entry sluice_align_extend("), std::string::npos);
  // The butterfly, lane 0's broadcasts, the warp barrier, the work queue.
  EXPECT_NE(ptx.find("shfl.sync.bfly.b32"), std::string::npos);
  EXPECT_NE(ptx.find("shfl.sync.idx.b32"), std::string::npos);
  EXPECT_NE(ptx.find("bar.warp.sync"), std::string::npos);
  EXPECT_NE(ptx.find("atom.add.u32"), std::string::npos);
}

TEST(AlignGpuErrors, ArgumentsAreCheckedBeforeTheDevice) {
  sluice_align_scoring_t sc = {2, 4, 4, 2, 100, 400};
  const char *q[] = {"ACGT"}, *t[] = {"ACGT"};
  uint32_t ql[] = {4}, tl[] = {4};
  sluice_align_result_t r[1];
  sluice_error_t error;
  EXPECT_EQ(sluice_align_batch_gpu(nullptr, kKernel, q, ql, t, tl, 1, &sc, r,
                                   nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "sluice_align_batch_gpu: the PTX or the kernel "
                              "name is NULL or empty");
  EXPECT_EQ(sluice_align_batch_gpu("", kKernel, nullptr, ql, t, tl, 1, &sc, r,
                                   nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "sluice_align_batch_gpu: a sequence, length or "
                              "result array is NULL");
  sluice_align_scoring_t bad = sc;
  bad.band = 0;
  EXPECT_EQ(sluice_align_batch_gpu("", kKernel, q, ql, t, tl, 1, &bad, r,
                                   nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "band must be in [1, 1048576], got 0");
  uint32_t huge[] = {(1u << 20) + 1};
  EXPECT_EQ(sluice_align_batch_gpu("", kKernel, q, huge, t, tl, 1, &sc, r,
                                   nullptr, nullptr, &error),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(error.message,
               "pair 0 has a sequence longer than 1048576 bases");
}

TEST(AlignGpuErrors, WithoutAGpuTheRunIsUnsupported) {
  sluice_error_t reason;
  if (sluice_gpu_available(&reason))
    GTEST_SKIP() << "a GPU is present";
  sluice_align_scoring_t sc = {2, 4, 4, 2, 100, 400};
  const char *q[] = {"ACGT"}, *t[] = {"ACGT"};
  uint32_t ql[] = {4}, tl[] = {4};
  sluice_align_result_t r[1];
  sluice_error_t error;
  EXPECT_EQ(sluice_align_batch_gpu(readPtx().c_str(), kKernel, q, ql, t, tl, 1,
                                   &sc, r, nullptr, nullptr, &error),
            SLUICE_STATUS_UNSUPPORTED);
  EXPECT_STRNE(error.message, "");
  // The stats are all zero when the device could not be opened.
  sluice_align_gpu_stats_t stats;
  std::memset(&stats, 0x5a, sizeof(stats));
  EXPECT_EQ(sluice_align_batch_gpu(readPtx().c_str(), kKernel, q, ql, t, tl, 1,
                                   &sc, r, nullptr, &stats, &error),
            SLUICE_STATUS_UNSUPPORTED);
  const sluice_align_gpu_stats_t zero{};
  EXPECT_EQ(std::memcmp(&stats, &zero, sizeof(stats)), 0);
}

TEST(AlignGpuErrors, StatsAreZeroAfterBadArguments) {
  sluice_align_scoring_t sc = {2, 4, 4, 2, 100, 400};
  const char *q[] = {"ACGT"}, *t[] = {"ACGT"};
  uint32_t ql[] = {4}, tl[] = {4};
  sluice_align_result_t r[1];
  sluice_error_t error;
  sluice_align_gpu_stats_t stats;
  std::memset(&stats, 0x5a, sizeof(stats));
  EXPECT_EQ(sluice_align_batch_gpu(nullptr, kKernel, q, ql, t, tl, 1, &sc, r,
                                   nullptr, &stats, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  const sluice_align_gpu_stats_t zero{};
  EXPECT_EQ(std::memcmp(&stats, &zero, sizeof(stats)), 0);
}

/// Runs `pairs` on the GPU and on the CPU wavefront kernel; every field of
/// every pair must be equal. Returns the GPU's seconds.
double expectGpuEqualsCpu(const Pairs &pairs, const sluice_align_scoring_t &sc,
                          const std::string &what) {
  Batch b(pairs);
  std::vector<sluice_align_result_t> cpu(pairs.size()), gpu(pairs.size());
  sluice_error_t error;
  EXPECT_EQ(sluice_align_batch(b.q.data(), b.ql.data(), b.t.data(), b.tl.data(),
                               pairs.size(), &sc, SLUICE_ALIGN_WAVEFRONT, 0,
                               cpu.data(), &error),
            SLUICE_STATUS_OK)
      << error.message;
  std::string ptx = readPtx();
  char device[128] = "";
  sluice_align_gpu_stats_t stats;
  auto start = std::chrono::steady_clock::now();
  sluice_status_t st = sluice_align_batch_gpu(
      ptx.c_str(), kKernel, b.q.data(), b.ql.data(), b.t.data(), b.tl.data(),
      pairs.size(), &sc, gpu.data(), device, &stats, &error);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(st, SLUICE_STATUS_OK) << error.message;
  size_t differ = 0, zdropped = 0;
  for (size_t k = 0; k < pairs.size(); ++k) {
    zdropped += cpu[k].zdropped;
    if (describe(cpu[k]) != describe(gpu[k]) && ++differ <= 5)
      ADD_FAILURE() << what << " pair " << k << ": cpu " << describe(cpu[k])
                    << ", gpu " << describe(gpu[k]);
  }
  EXPECT_EQ(differ, 0u) << what;
  std::cout << "[ info     ] " << what << ": " << pairs.size() << " pairs ("
            << zdropped << " zdropped) on " << device << " in " << seconds
            << " s (with PTX load); kernel " << stats.kernel_seconds
            << " s on the device (" << stats.cells << " band cells, "
            << (stats.kernel_seconds > 0
                    ? double(stats.cells) / stats.kernel_seconds / 1e9
                    : 0.0)
            << " GCUPS), context " << stats.open_seconds << " s, PTX "
            << stats.load_seconds << " s, copies "
            << stats.copy_to_device_seconds << " + "
            << stats.copy_from_device_seconds << " s\n";
  // The parts are measured and add up to less than the whole call.
  EXPECT_GT(stats.kernel_seconds, 0.0) << what;
  EXPECT_LE(stats.kernel_seconds, stats.launch_seconds) << what;
  EXPECT_LE(stats.open_seconds + stats.load_seconds +
                stats.copy_to_device_seconds + stats.launch_seconds +
                stats.copy_from_device_seconds,
            seconds)
      << what;
  EXPECT_EQ(stats.bytes_from_device,
            pairs.size() * sizeof(sluice_align_result_t));
  return seconds;
}

TEST(AlignGpuDevice, GpuMatchesCpuExactly) {
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  expectGpuEqualsCpu({{"ACGTACGT", "ACGTACGT"},
                      {"AAAA", "CCCC"},
                      {"", "ACGT"},
                      {"ACGTACGTACGTACGT", "ACGT"}},
                     {2, 4, 4, 2, 3, 400}, "hand cases");
  // Widths below, at and above a warp's 32 lanes; Z-drops; noisy reads.
  for (int band : {1, 5, 31, 32, 33, 100})
    expectGpuEqualsCpu(generatePairs(band, 200, 400, 0.03, 0.02, 60),
                       {2, 4, 4, 2, band, 400}, "band " + std::to_string(band));
  for (int zdrop : {0, 20, 50})
    expectGpuEqualsCpu(generatePairs(100 + zdrop, 200, 300, 0.04, 0.03, 60),
                       {1, 4, 6, 1, 30, zdrop},
                       "zdrop " + std::to_string(zdrop));
  expectGpuEqualsCpu(generatePairs(77, 200, 300, 0.15, 0.10, 30),
                     {1, 1, 10, 3, 8, -1}, "gap-heavy, no Z-drop");
  // Plateaus of equal scores (the tie rule, AlignGpuEmulationTest.cpp).
  const std::string m = "ACGTTGCAAC";
  expectGpuEqualsCpu({{m + std::string(46, 'A'), m + std::string(83, 'C')}},
                     {3, 255, 0, 1, 107, 20}, "plateau");
  // Many pairs of mixed lengths (the work queue): 4000 of ~1 kb and 20 of
  // ~10 kb, minimap2's scoring.
  Pairs mixed = generatePairs(7, 4000, 1000, 0.03, 0.01, 200);
  Pairs longReads = generatePairs(8, 20, 10000, 0.03, 0.01, 0);
  mixed.insert(mixed.end(), longReads.begin(), longReads.end());
  expectGpuEqualsCpu(mixed, {2, 4, 4, 2, 100, 400}, "4020 mixed pairs");
}

} // namespace
