//===- MicroBatchSearchTest.cpp - Micro-batch and recompute search --------===//
//
// The fine-tune planner searches the micro-batch (divisors of the batch) and
// the recomputation jointly with the placement. Checked against a brute
// force over the pinned sub-searches (every micro-batch x parameter home x
// optimizer home planned on its own), for the reasons it gives for the
// candidates it rejects, and for the pins (micro_batch, recompute).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace sluice;
using namespace sluice::offload;

namespace {

FinetunePlan plan(const FinetuneJob &job, const Machine &m,
                  const FinetuneOptions &o = {}) {
  auto p = planFinetune(job, m, o);
  EXPECT_TRUE(static_cast<bool>(p));
  if (!p) {
    llvm::consumeError(p.takeError());
    return {};
  }
  return *p;
}

FinetuneJob job13b(int64_t batch, int64_t micro = 0) {
  return FinetuneJob{*modelPreset("gpt3-13b"), batch, micro};
}

TEST(MicroBatchSearch, CandidatesAreTheDivisorsFromTheLargest) {
  EXPECT_EQ(microBatchCandidates(job13b(12)),
            (std::vector<int64_t>{12, 6, 4, 3, 2, 1}));
  EXPECT_EQ(microBatchCandidates(job13b(48)),
            (std::vector<int64_t>{48, 24, 16, 12, 8, 6, 4, 3, 2, 1}));
  EXPECT_EQ(microBatchCandidates(job13b(7)), (std::vector<int64_t>{7, 1}));
  EXPECT_EQ(microBatchCandidates(job13b(64, 8)), (std::vector<int64_t>{8}));
}

// The case: batch 64 does not fit as one micro-batch on the RTX
// 4090 (the working set of one layer alone), so the planner accumulates.
TEST(MicroBatchSearch, Batch64WithoutMicroBatchChoosesOne) {
  FinetunePlan p = plan(job13b(64), Machine::rtx4090With12Nvme());
  ASSERT_TRUE(p.feasible) << p.infeasibleReason;
  EXPECT_TRUE(p.microBatchSearched);
  EXPECT_LT(p.microBatch, 64);
  EXPECT_EQ(p.microBatch * p.accumulationSteps, 64);
  // The whole batch was tried and rejected for GPU memory.
  bool sawWhole = false;
  for (const CandidateReport &c : p.candidates)
    if (c.microBatch == 64) {
      sawWhole = true;
      EXPECT_FALSE(c.feasible);
      EXPECT_EQ(c.rejection.rfind("GPU memory: need ", 0), 0u) << c.str();
      EXPECT_GT(c.need, c.have);
    }
  EXPECT_TRUE(sawWhole);
  std::vector<std::string> lines = finetuneSearchLines(p);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().rfind("micro-batch 64 x 1: infeasible, smallest "
                                "need GPU memory: need ",
                                0),
            0u)
      << lines.front();
}

// Brute force: the searched plan is the fastest of the plans pinned to each
// micro-batch and pair of homes (each an independent, smaller search), and
// the first of the fastest in search order.
TEST(MicroBatchSearch, ChosenPlanIsTheBestFeasibleOfAllCandidates) {
  struct Case {
    const char *model;
    int64_t batch;
    Machine machine;
  };
  Machine small = Machine::rtx4090With12Nvme();
  small.hostMemory = 96.0 * (1ull << 30); // forces NVMe homes for 13B
  const Case cases[] = {{"gpt3-13b", 64, Machine::rtx4090With12Nvme()},
                        {"gpt3-13b", 24, small},
                        {"gpt3-175b", 16, Machine::rtx4090With12Nvme()}};
  for (const Case &c : cases) {
    FinetuneJob job{*modelPreset(c.model), c.batch, 0};
    FinetunePlan searched = plan(job, c.machine);
    double bestTime = std::numeric_limits<double>::infinity();
    int64_t bestMicro = 0;
    Tier bestParam = Tier::Host, bestOpt = Tier::Host;
    for (int64_t micro : microBatchCandidates(job))
      for (Tier ph : {Tier::Gpu, Tier::Host, Tier::Nvme})
        for (Tier oh : {Tier::Host, Tier::Nvme}) {
          FinetuneJob pinned = job;
          pinned.microBatch = micro;
          FinetuneOptions o;
          o.paramHome = ph;
          o.optimizerHome = oh;
          FinetunePlan p = plan(pinned, c.machine, o);
          if (p.feasible && p.iterationTime < bestTime * (1 - 1e-9)) {
            bestTime = p.iterationTime;
            bestMicro = micro;
            bestParam = ph;
            bestOpt = oh;
          }
        }
    ASSERT_TRUE(searched.feasible) << c.model << " bs " << c.batch;
    EXPECT_NEAR(searched.iterationTime, bestTime, 1e-9 * bestTime)
        << c.model << " bs " << c.batch;
    EXPECT_EQ(searched.microBatch, bestMicro) << c.model;
    EXPECT_EQ(searched.paramHome, bestParam) << c.model;
    EXPECT_EQ(searched.optimizerHome, bestOpt) << c.model;
  }
}

// Every candidate but the chosen one says why it lost, and the reasons are
// true: memory above the usable, a time above the chosen one's.
TEST(MicroBatchSearch, EveryRejectionHasATrueReason) {
  FinetunePlan p = plan(job13b(32), Machine::rtx4090With12Nvme());
  ASSERT_TRUE(p.feasible);
  size_t chosen = 0;
  for (const CandidateReport &c : p.candidates) {
    if (c.feasible && c.rejection.empty()) {
      ++chosen;
      EXPECT_DOUBLE_EQ(c.iterationTime, p.iterationTime);
      EXPECT_EQ(c.microBatch, p.microBatch);
      continue;
    }
    ASSERT_FALSE(c.rejection.empty()) << c.str();
    if (!c.feasible) {
      EXPECT_GT(c.need, c.have) << c.str();
      EXPECT_NE(c.rejection.find(": need "), std::string::npos) << c.str();
    } else if (c.iterationTime > 0) {
      EXPECT_GE(c.iterationTime, p.iterationTime * (1 - 1e-9)) << c.str();
      EXPECT_EQ(c.rejection.rfind("slower: ", 0), 0u) << c.str();
    } else {
      EXPECT_EQ(c.rejection.rfind("slower: at least ", 0), 0u) << c.str();
    }
  }
  EXPECT_EQ(chosen, 1u);
}

// A lower bound only prunes what could not win: pruned candidates, planned
// alone (pinned), are no faster than the chosen plan.
TEST(MicroBatchSearch, PrunedCandidatesAreIndeedSlower) {
  const Machine m = Machine::rtx4090With12Nvme();
  FinetunePlan p = plan(job13b(16), m);
  ASSERT_TRUE(p.feasible);
  size_t pruned = 0;
  for (const CandidateReport &c : p.candidates) {
    if (!c.feasible || c.iterationTime > 0 || c.rejection.empty())
      continue;
    ++pruned;
    FinetuneOptions o;
    o.paramHome = c.paramHome;
    o.optimizerHome = c.optimizerHome;
    FinetunePlan alone = plan(job13b(16, c.microBatch), m, o);
    ASSERT_TRUE(alone.feasible);
    EXPECT_GE(alone.iterationTime, p.iterationTime * (1 - 1e-9)) << c.str();
  }
  EXPECT_GT(pruned, 0u);
}

TEST(MicroBatchSearch, PinnedMicroBatchStaysPinned) {
  const Machine m = Machine::rtx4090With12Nvme();
  FinetunePlan p = plan(job13b(64, 16), m);
  ASSERT_TRUE(p.feasible);
  EXPECT_FALSE(p.microBatchSearched);
  EXPECT_EQ(p.microBatch, 16);
  EXPECT_EQ(p.accumulationSteps, 4);
  for (const CandidateReport &c : p.candidates)
    EXPECT_EQ(c.microBatch, 16);
  // Pinned to a micro-batch that does not fit: the binding constraint,
  // without a search to report on.
  FinetunePlan whole = plan(job13b(64, 64), m);
  EXPECT_FALSE(whole.feasible);
  EXPECT_EQ(whole.infeasibleReason.rfind("GPU memory: need ", 0), 0u);
  EXPECT_EQ(whole.infeasibleReason.find("smallest need"), std::string::npos)
      << whole.infeasibleReason;
}

TEST(MicroBatchSearch, NothingFitsNamesTheSmallestNeedAndWhere) {
  Machine m = Machine::rtx4090With12Nvme();
  m.gpuMemory = 1.0 * (1ull << 30);
  FinetunePlan p = plan(job13b(8), m);
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.infeasibleReason.rfind("GPU memory: need ", 0), 0u)
      << p.infeasibleReason;
  EXPECT_NE(p.infeasibleReason.find("(the smallest relative need among " +
                                    std::to_string(p.candidates.size()) +
                                    " candidates over micro-batches 1 to 8: "
                                    "micro-batch 1 "),
            std::string::npos)
      << p.infeasibleReason;
  // It is the smallest: no candidate needs less of its binding tier.
  double least = std::numeric_limits<double>::infinity();
  for (const CandidateReport &c : p.candidates)
    least = std::min(least, c.need / c.have);
  EXPECT_NEAR(p.peak.gpu / p.capacity.gpu, least, 1e-9);
}

TEST(RecomputeSearch, PinsRestrictTheSwapSets) {
  const Machine m = Machine::rtx4090With12Nvme();
  FinetuneOptions full;
  full.recompute = true;
  FinetunePlan p = plan(job13b(16), m, full);
  ASSERT_TRUE(p.feasible);
  for (const CandidateReport &c : p.candidates)
    EXPECT_EQ(c.swapCount, 0u);
  for (bool s : p.activations.swapped)
    EXPECT_FALSE(s);
  EXPECT_GT(p.hardwareFlops, p.modelFlops);

  FinetuneOptions none;
  none.recompute = false;
  FinetunePlan q = plan(job13b(16), m, none);
  ASSERT_TRUE(q.feasible);
  EXPECT_DOUBLE_EQ(q.hardwareFlops, q.modelFlops);
  for (const CandidateReport &c : q.candidates)
    EXPECT_EQ(c.swapCount, kNumSwappable);

  // Searched: never slower than either pin.
  FinetunePlan s = plan(job13b(16), m);
  EXPECT_LE(s.iterationTime, p.iterationTime * (1 + 1e-9));
  EXPECT_LE(s.iterationTime, q.iterationTime * (1 + 1e-9));
}

TEST(RecomputeSearch, NoRecomputationWhereSwapsCannotHide) {
  // A link too slow to hide any swap-out under the forward pass: every
  // plan recomputes, which `recompute: false` forbids.
  Machine m = Machine::rtx4090With12Nvme();
  m.d2hBandwidth = 1e6;
  FinetuneOptions none;
  none.recompute = false;
  FinetunePlan p = plan(job13b(8), m, none);
  EXPECT_FALSE(p.feasible) << p.activations.recomputeFlopsPerLayer;
  EXPECT_EQ(p.infeasibleReason.rfind("no plan fits without recomputation (", 0),
            0u)
      << p.infeasibleReason;
  EXPECT_NE(p.infeasibleReason.find("but recompute is pinned to false"),
            std::string::npos)
      << p.infeasibleReason;
}

} // namespace

namespace {

// Pinned gradient homes restrict where the update runs: the CPU (optimizer
// states in host memory or on NVMe) or computational storage.
TEST(TierPins, GradientsFollowTheOptimizer) {
  const Machine m = Machine::a5000SmartSsd(10);
  FinetuneJob job{*modelPreset("gpt3-13b"), 4, 0};
  FinetuneOptions cpu;
  cpu.gradHome = Tier::Host;
  FinetunePlan p = plan(job, m, cpu);
  ASSERT_TRUE(p.feasible) << p.infeasibleReason;
  EXPECT_FALSE(p.updateOnCsd);
  for (const CandidateReport &c : p.candidates)
    EXPECT_NE(c.optimizerHome, Tier::Csd) << c.str();
  FinetuneOptions csd;
  csd.gradHome = Tier::Csd;
  FinetunePlan q = plan(job, m, csd);
  ASSERT_TRUE(q.feasible) << q.infeasibleReason;
  EXPECT_TRUE(q.updateOnCsd);
  EXPECT_EQ(q.gradHome, Tier::Csd);

  FinetuneOptions bad = csd;
  bad.optimizerHome = Tier::Nvme;
  auto e = planFinetune(job, m, bad);
  ASSERT_FALSE(static_cast<bool>(e));
  EXPECT_EQ(llvm::toString(e.takeError()),
            "gradients in csd and optimizer states in nvme: the update runs "
            "where the optimizer states live");
  auto e2 = planFinetune(job, Machine::rtx4090With12Nvme(), csd);
  ASSERT_FALSE(static_cast<bool>(e2));
  EXPECT_EQ(llvm::toString(e2.takeError()),
            "gradients on CSD requested, but the machine has no csd");
}

} // namespace
