//===- DisDPTest.cpp - DisDP against serialised ZeRO-3 --------------------===//
//
// The two timelines of DisDP.h against closed forms worked out by hand
// (compute-, network- and parameter-server-bound), and the durations
// DisDPCosts.h derives from a star topology against the alpha-beta formulas
// (ring all-gather (n-1)/n N/B, in-network N/B, the PS's N over its link).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/DisDP.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "compiler/Analysis/Parallel/DisDPCosts.h"
#include "support/Units.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace sluice;
using namespace sluice::parallel;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

DisdpProblem problem(int64_t L, int64_t m, double f, double b, double ag,
                     double rs, double net, double netRs, double u) {
  DisdpProblem p;
  p.gpus = 4;
  p.layers = L;
  p.microBatches = m;
  p.forward = f;
  p.backward = b;
  p.ringAllGather = ag;
  p.ringReduceScatter = rs;
  p.baselineOptimizer = 0.5;
  p.paramFetch = 0.25;
  p.netAllGather = net;
  p.netReduceScatter = netRs;
  p.psUpdate = u;
  return p;
}

// ZeRO-3 serialises everything: m L (2 fetch + 2 AG + F + B + RS) + L step.
TEST(DisDP, Zero3IsTheSumOfItsParts) {
  DisdpProblem p = problem(5, 3, 1, 2, 0.7, 0.6, 0.1, 0.1, 0.1);
  DisdpTimeline t = simulateZero3(p);
  EXPECT_DOUBLE_EQ(t.iteration,
                   3 * 5 * (2 * 0.25 + 2 * 0.7 + 1 + 2 + 0.6) + 5 * 0.5);
  EXPECT_DOUBLE_EQ(t.compute, 3 * 5 * 3.0);
  EXPECT_DOUBLE_EQ(t.optimizer, 5 * 0.5);
  // Nothing overlaps: the busy times add up to the iteration.
  EXPECT_NEAR(t.compute + t.down + t.up + t.optimizer, t.iteration, 1e-9);
}

// Compute-bound (a <= f, a, r, u <= b): only the first gather, the last
// layer's reduce-scatter and its update stick out of m L (F + B).
TEST(DisDP, ComputeBoundHidesTheNetwork) {
  for (int64_t m : {1, 2, 4}) {
    DisdpProblem p = problem(6, m, 1, 2, 0.7, 0.6, 0.3, 0.4, 0.5);
    DisdpTimeline t = simulateDisdp(p);
    EXPECT_DOUBLE_EQ(t.iteration, 0.3 + m * 6 * 3.0 + 0.4 + 0.5) << m;
    EXPECT_DOUBLE_EQ(t.compute, m * 6 * 3.0);
  }
}

// Network-bound (f, b < a; r, u <= a): the downlink streams 2 m L gathers
// back to back; the last backward, its reduce-scatter and update follow.
TEST(DisDP, NetworkBoundStreamsTheGathers) {
  DisdpProblem p = problem(4, 2, 0.2, 0.5, 0.7, 0.6, 1.0, 0.8, 0.9);
  DisdpTimeline t = simulateDisdp(p);
  EXPECT_DOUBLE_EQ(t.iteration, 2 * 4 * 2 * 1.0 + 0.5 + 0.8 + 0.9);
  EXPECT_DOUBLE_EQ(t.down, 2 * 4 * 2 * 1.0);
}

// PS-bound (u >= b, one micro-batch): the updates queue behind the first
// backward's reduce-scatter: a + L f + b + r + L u.
TEST(DisDP, ParameterServerBound) {
  DisdpProblem p = problem(5, 1, 1, 2, 0.7, 0.6, 0.3, 0.4, 3.0);
  DisdpTimeline t = simulateDisdp(p);
  EXPECT_DOUBLE_EQ(t.iteration, 0.3 + 5 * 1 + 2 + 0.4 + 5 * 3.0);
  EXPECT_DOUBLE_EQ(t.optimizer, 5 * 3.0);
}

// Two buffers: a gather never starts before the compute two ops back ends,
// and every compute starts after its gather.
TEST(DisDP, DependenciesHold) {
  DisdpProblem p = problem(3, 2, 0.5, 1.5, 0.7, 0.6, 0.9, 0.4, 0.2);
  DisdpTimeline t = simulateDisdp(p);
  std::vector<const DisdpSpan *> gathers, computes;
  for (const DisdpSpan &s : t.spans)
    (s.lane == DisdpSpan::Lane::Down ? gathers : computes).push_back(&s);
  computes.erase(std::remove_if(computes.begin(), computes.end(),
                                [](const DisdpSpan *s) {
                                  return s->lane != DisdpSpan::Lane::Compute;
                                }),
                 computes.end());
  ASSERT_EQ(gathers.size(), 12u);
  ASSERT_EQ(computes.size(), 12u);
  for (size_t q = 0; q < gathers.size(); ++q) {
    EXPECT_GE(computes[q]->start, gathers[q]->end - 1e-12);
    if (q >= 2) {
      EXPECT_GE(gathers[q]->start, computes[q - 2]->end - 1e-12);
    }
  }
  DisdpResult r = planDisdp(p);
  EXPECT_GT(r.speedup(), 1.0);
}

TEST(DisDP, ValidateNamesTheProblem) {
  DisdpProblem p = problem(3, 1, 1, 2, 0.7, 0.6, 0.3, 0.4, 0.5);
  EXPECT_EQ(p.validate(), "");
  p.microBatches = 0;
  EXPECT_EQ(p.validate(), "need at least one micro-batch, got 0");
  p.microBatches = 1;
  p.psUpdate = -1;
  EXPECT_EQ(p.validate(), "durations must be finite and non-negative");
}

// A star: 4 one-GPU nodes and a PS on a reducing switch; GPU links B, PS
// link Bps. Small GPT so the GPUs hold everything.
struct Star {
  analysis::TopoGraph g;
  unsigned ps = 0;
  Star(double B, double Bps, double psMemory, bool reduce = true) {
    unsigned sw = g.addDevice("leaf", "switch");
    if (reduce)
      g.addBool(sw, "reduce", true);
    for (int i = 0; i < 4; ++i) {
      unsigned d = g.addDevice("node[" + std::to_string(i) + "].gpu", "gpu");
      g.addQuantity(d, "memory", 80 * GiB, Dim::bytes());
      g.addQuantity(d, "compute", 312e12, Dim::compute());
      g.addQuantity(d, "memory_bandwidth", 2e12, Dim::bandwidth());
      g.addLink(d, sw, B, 0, true);
    }
    ps = g.addDevice("ps", "cpu");
    g.addQuantity(ps, "memory", psMemory, Dim::bytes());
    g.addQuantity(ps, "memory_bandwidth", 400e9, Dim::bandwidth());
    g.addLink(ps, sw, Bps, 0, true);
  }
};

TrainJob smallGpt() {
  TrainJob j;
  j.model = model::TransformerConfig::gpt(8, 1024, 16, 1024, 51200);
  j.globalBatch = 8;
  j.microBatch = 1;
  return j;
}

TEST(DisDPCosts, StarMatchesAlphaBeta) {
  const double B = 12.5e9, Bps = 25e9;
  Star s(B, Bps, 1024 * GiB);
  TrainJob j = smallGpt();
  auto plan = planDisdpOnTopology(s.g, "star", j, "ps");
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const DisdpProblem &p = plan->problem;
  const double N = static_cast<double>(model::countParameters(j.model).total());
  const double layerBytes = 2 * N / 8, eff = 0.85;
  EXPECT_EQ(p.gpus, 4);
  EXPECT_EQ(p.microBatches, 2);
  EXPECT_NEAR(p.ringAllGather, 0.75 * layerBytes / B / eff, 1e-9);
  EXPECT_NEAR(p.ringReduceScatter, 0.75 * layerBytes / B / eff, 1e-9);
  // In the network each GPU receives (sends) the whole layer once; the PS
  // link is twice as fast, so the GPU links bind.
  EXPECT_NEAR(p.netAllGather, layerBytes / B / eff, 1e-9);
  EXPECT_NEAR(p.netReduceScatter, layerBytes / B / eff, 1e-9);
  EXPECT_NEAR(p.psUpdate,
              N / 8 /
                  (400e9 * offload::kDefaultAdamBandwidthFraction /
                   offload::kAdamHostBytesPerParam),
              1e-12);
  // No host CPUs: ZeRO-3's step on the GPU, 2 x 16 B/param of its shard.
  EXPECT_FALSE(plan->baselineOffloadsOptimizer);
  EXPECT_NEAR(p.baselineOptimizer, 32 * N / 8 / 4 / 2e12, 1e-12);
  EXPECT_EQ(plan->reducers, std::vector<std::string>{"leaf"});
  // One CPU updating every parameter is slower than four GPUs updating
  // their shards at 2 TB/s: the PS lane binds and DisDP loses here.
  EXPECT_DOUBLE_EQ(plan->result.disdp.optimizer, 8 * p.psUpdate);
  EXPECT_LT(plan->result.speedup(), 1.0);

  // A PS behind a link a quarter of a GPU's: every layer crosses it once.
  Star slow(B, B / 4, 1024 * GiB);
  auto plan2 = planDisdpOnTopology(slow.g, "star", j, "ps");
  ASSERT_TRUE(static_cast<bool>(plan2));
  EXPECT_NEAR(plan2->problem.netAllGather, layerBytes / (B / 4) / eff, 1e-9);
}

TEST(DisDPCosts, Errors) {
  TrainJob j = smallGpt();
  {
    Star s(12.5e9, 25e9, 1024 * GiB, /*reduce=*/false);
    auto plan = planDisdpOnTopology(s.g, "star", j, "ps");
    ASSERT_FALSE(static_cast<bool>(plan));
    EXPECT_EQ(llvm::toString(plan.takeError()),
              "topology 'star' has no switch with `reduce: true` to run the "
              "collectives in the network");
  }
  {
    Star s(12.5e9, 25e9, 1024 * GiB);
    auto plan = planDisdpOnTopology(s.g, "star", j, "node[0].gpu");
    ASSERT_FALSE(static_cast<bool>(plan));
    EXPECT_EQ(llvm::toString(plan.takeError()),
              "parameter server 'node[0].gpu' must be a cpu with memory and "
              "memory_bandwidth (it holds the optimizer states and updates "
              "them), got a gpu");
    auto missing = planDisdpOnTopology(s.g, "star", j, "nas");
    ASSERT_FALSE(static_cast<bool>(missing));
    EXPECT_EQ(llvm::toString(missing.takeError()),
              "parameter server 'nas' is not a device of 'star'");
  }
  {
    Star s(12.5e9, 25e9, 1 * GiB);
    auto plan = planDisdpOnTopology(s.g, "star", j, "ps");
    ASSERT_FALSE(static_cast<bool>(plan));
    EXPECT_NE(
        llvm::toString(plan.takeError()).find("parameter server 'ps' holds "),
        std::string::npos);
  }
  {
    Star s(12.5e9, 25e9, 1024 * GiB);
    j.globalBatch = 6;
    auto plan = planDisdpOnTopology(s.g, "star", j, "ps");
    ASSERT_FALSE(static_cast<bool>(plan));
    EXPECT_EQ(llvm::toString(plan.takeError()),
              "batch 6 is not a multiple of 4 gpus x micro-batch 1");
  }
}

} // namespace
