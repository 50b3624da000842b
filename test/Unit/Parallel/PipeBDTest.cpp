//===- PipeBDTest.cpp - Pipe-BD's split and GPU allocation ----------------===//
//
// planPipeBD against exhaustive enumeration of every contiguous block split
// and every GPU allocation on small clusters with uneven links, the
// baseline against its formula, and the errors of bad jobs.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/PipeBD.h"

#include "gtest/gtest.h"

#include <functional>
#include <limits>
#include <random>

using namespace sluice::parallel;

namespace {

ParallelCluster unevenCluster(int64_t hosts, int64_t perHost, uint64_t seed) {
  ParallelCluster c =
      ParallelCluster::uniform(hosts, perHost, 80e9, 300e12, 2e12, 200e9, 25e9);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> scale(0.3, 1.0);
  for (int64_t a = 0; a < c.gpus(); ++a)
    for (int64_t b = a + 1; b < c.gpus(); ++b) {
      float bw = static_cast<float>(c.bw(a, b) * scale(rng));
      c.link(a, b).bandwidth = bw;
      c.link(b, a).bandwidth = bw;
    }
  return c;
}

DistillJob randomJob(int64_t blocks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.2, 3.0);
  DistillJob job;
  job.batch = 64;
  for (int64_t j = 0; j < blocks; ++j)
    job.blocks.push_back(
        {u(rng) * 4e9, u(rng) * 6e9, u(rng) * 50e6, u(rng) * 2e6});
  return job;
}

/// The best slowest-stage time over every split of the blocks into
/// contiguous stages and every allocation of consecutive GPUs to them whose
/// stages fit in memory.
double bruteForce(const DistillJob &job, const ParallelCluster &c) {
  const int64_t n = static_cast<int64_t>(job.blocks.size()), N = c.gpus();
  const double available = c.gpuMemory - job.memoryReserve;
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int64_t, int64_t, double)> go = [&](int64_t b, int64_t g,
                                                         double slowest) {
    if (b == n) {
      best = std::min(best, slowest);
      return;
    }
    for (int64_t nb = 1; b + nb <= n; ++nb)
      for (int64_t k = 1; g + k <= N; ++k) {
        PipeBDStage s = pipeBDStage(job, c, b, nb, g, k);
        if (s.memory <= available)
          go(b + nb, g + k, std::max(slowest, s.time()));
      }
  };
  go(0, 0, 0.0);
  return best;
}

TEST(PipeBD, DynamicProgramEqualsExhaustiveSearch) {
  for (int64_t blocks = 1; blocks <= 5; ++blocks)
    for (auto [hosts, per] :
         {std::pair{1, 4}, std::pair{2, 2}, std::pair{2, 3}, std::pair{1, 6}})
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        ParallelCluster c = unevenCluster(hosts, per, seed);
        DistillJob job = randomJob(blocks, seed * 7 + blocks);
        auto plan = planPipeBD(job, c);
        ASSERT_TRUE(static_cast<bool>(plan))
            << llvm::toString(plan.takeError());
        const double want = bruteForce(job, c);
        EXPECT_NEAR(plan->batchTime, want, 1e-12 * want)
            << blocks << " blocks, " << hosts << "x" << per;
        // The stages tile the blocks and use consecutive GPUs.
        int64_t b = 0, g = 0;
        double slowest = 0;
        for (const PipeBDStage &s : plan->stages) {
          EXPECT_EQ(s.firstBlock, b);
          EXPECT_EQ(s.firstGpu, g);
          b += s.blocks;
          g += s.gpus;
          slowest = std::max(slowest, s.time());
        }
        EXPECT_EQ(b, blocks);
        EXPECT_LE(g, c.gpus());
        EXPECT_DOUBLE_EQ(slowest, plan->batchTime);
      }
}

TEST(PipeBD, BeatsTheBlockByBlockBaselineOnUniformBlocks) {
  // Eight equal blocks on four GPUs of one host: the baseline runs the
  // teacher's prefix again for every block (36 teacher blocks per batch
  // instead of 8) and all-reduces over all four GPUs.
  ParallelCluster c =
      ParallelCluster::uniform(1, 4, 80e9, 300e12, 2e12, 200e9, 25e9);
  DistillJob job;
  job.batch = 64;
  for (int i = 0; i < 8; ++i)
    job.blocks.push_back({4e9, 8e9, 20e6, 1e6});
  auto plan = planPipeBD(job, c);
  ASSERT_TRUE(static_cast<bool>(plan));
  const double rate = 300e12 * job.efficiency;
  // The baseline: sum_j (j + 1) teacher blocks + one student block on 16
  // samples per GPU, plus eight all-reduces of 20 MB on 4 GPUs.
  const double ar = 2.0 * 3 / 4 * 20e6 / (200e9 * 0.85) + 2.0 * 3 * 2e-6;
  EXPECT_NEAR(plan->baselineTime, (36 * 4e9 + 8 * 8e9) * 16 / rate + 8 * ar,
              1e-9);
  EXPECT_GT(plan->speedup(), 2.0);
  EXPECT_GE(plan->stages.size(), 2u);
}

TEST(PipeBD, StagesThatDoNotFitAreNeverChosen) {
  // Each block's teacher and student need 30 GiB; with 80 GB GPUs, 2 GiB
  // reserved and calibration 1.1, a stage holds at most two blocks.
  constexpr double GiB = 1024.0 * 1024 * 1024;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    ParallelCluster c = unevenCluster(1, 4, seed);
    DistillJob job = randomJob(5, seed);
    for (DistillBlock &b : job.blocks) {
      b.teacherParamBytes = 10 * GiB;
      b.studentStateBytes = 20 * GiB;
      b.activationBytes = 0.01 * GiB; // x 16 samples per GPU at most
    }
    auto plan = planPipeBD(job, c);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    EXPECT_NEAR(plan->batchTime, bruteForce(job, c), 1e-12 * plan->batchTime);
    for (const PipeBDStage &s : plan->stages) {
      EXPECT_LE(s.blocks, 2);
      EXPECT_LE(s.memory, plan->memoryAvailable);
    }
    EXPECT_DOUBLE_EQ(plan->memoryAvailable, 80e9 - 2 * GiB);
    // The baseline's last block holds all five teacher blocks.
    EXPECT_NEAR(plan->baselineMemory, (50 + 20 + 0.16) * GiB * 1.1, 1.0);
    EXPECT_FALSE(plan->baselineFits());
  }
  // Four such blocks on a single GPU cannot fit at all.
  ParallelCluster one =
      ParallelCluster::uniform(1, 1, 80e9, 300e12, 2e12, 200e9, 25e9);
  DistillJob big = randomJob(4, 1);
  for (DistillBlock &b : big.blocks)
    b.studentStateBytes = 40 * GiB;
  big.blocks[2].studentStateBytes = 90 * GiB;
  auto none = planPipeBD(big, one);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "no split fits in GPU memory: block 2 alone on all 1 GPUs needs "
            "99.00 GiB per GPU, 72.51 GiB are usable");
}

TEST(PipeBD, BadJobsAreRefused) {
  ParallelCluster c =
      ParallelCluster::uniform(1, 2, 80e9, 300e12, 2e12, 200e9, 25e9);
  DistillJob job;
  job.batch = 8;
  EXPECT_EQ(llvm::toString(planPipeBD(job, c).takeError()),
            "a distillation needs at least one block");
  job.blocks.push_back({1, 1, 1, 1});
  job.batch = 0;
  EXPECT_EQ(llvm::toString(planPipeBD(job, c).takeError()),
            "the batch must have at least one sample");
  job.batch = 8;
  job.blocks[0].studentFlops = -1;
  EXPECT_EQ(llvm::toString(planPipeBD(job, c).takeError()),
            "block costs must be finite and not negative");
}

} // namespace
