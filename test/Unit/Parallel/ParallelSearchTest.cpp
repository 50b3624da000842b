//===- ParallelSearchTest.cpp - The 3D-parallel search against oracles ----===//
#include "compiler/Analysis/Parallel/ParallelSearch.h"

#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::parallel;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

ParallelCluster cluster(int64_t hosts, int64_t perHost, double memGiB,
                        double intra, double inter) {
  return ParallelCluster::uniform(hosts, perHost, memGiB * GiB, 312e12, 2039e9,
                                  intra, inter);
}

/// `cl` with hosts of 512 GiB whose CPUs update 1.1 G parameters/s, each
/// GPU with 25 GB/s to its host.
ParallelCluster offloadable(ParallelCluster cl) {
  cl.hostMemory = 512 * GiB;
  cl.hostAdamRate = 1.1e9;
  cl.hostLinkBandwidth = 25e9;
  return cl;
}

TrainJob gpt(int64_t layers, int64_t hidden, int64_t heads, int64_t batch) {
  TrainJob j;
  j.model = model::TransformerConfig::gpt(layers, hidden, heads, 2048, 51200);
  j.globalBatch = batch;
  return j;
}

// Branch and bound returns what plain enumeration returns, on small
// clusters with fast and slow fabrics, memory that binds and memory that
// does not.
TEST(ParallelSearch, SameOptimumAsExhaustive) {
  struct Case {
    TrainJob job;
    ParallelCluster cl;
  } cases[] = {
      {gpt(8, 2048, 16, 32), cluster(1, 4, 80, 300e9, 25e9)},
      {gpt(8, 2048, 16, 32), cluster(2, 4, 80, 300e9, 12.5e9)},
      {gpt(16, 4096, 32, 64), cluster(2, 4, 24, 25e9, 12.5e9)},
      {gpt(24, 5120, 40, 16), cluster(4, 2, 40, 100e9, 25e9)},
      {gpt(12, 1024, 16, 8), cluster(2, 2, 16, 50e9, 5e9)},
      // Hosts that take the optimizer states: offload is searched too.
      {gpt(16, 4096, 32, 64), offloadable(cluster(2, 4, 24, 25e9, 12.5e9))},
      {gpt(40, 5120, 40, 32), offloadable(cluster(1, 4, 24, 25e9, 25e9))},
  };
  SearchOptions opts;
  opts.searchPlacement = false;
  for (const Case &c : cases) {
    auto plan = planParallel(c.job, c.cl, opts);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    auto oracle = exhaustiveBest(c.job, c.cl, opts);
    ASSERT_EQ(plan->feasible, oracle.has_value());
    if (!oracle)
      continue;
    EXPECT_EQ(plan->config.str(), oracle->first.str());
    EXPECT_DOUBLE_EQ(plan->estimate.time.iteration, oracle->second);
    // The bound pruned something, and the counts add up.
    EXPECT_LT(plan->evaluated, plan->configurations);
    int64_t rejected = 0;
    for (int64_t r : plan->rejected)
      rejected += r;
    EXPECT_LE(rejected + plan->evaluated, plan->configurations);
  }
}

/// Four hosts of two GPUs where hosts 0-1 and 2-3 share a fast switch and
/// host pairs (0, 2), (1, 3) a fast cable; 1-2 and 0-3 are slow. Megatron's
/// order puts pipeline stages 1 and 2 across the slow pair.
ParallelCluster unevenCluster() {
  ParallelCluster cl = cluster(4, 2, 80, 300e9, 25e9);
  auto setHosts = [&](int64_t a, int64_t b, double bw) {
    for (int64_t x = 0; x < 2; ++x)
      for (int64_t y = 0; y < 2; ++y) {
        cl.link(a * 2 + x, b * 2 + y).bandwidth = static_cast<float>(bw);
        cl.link(b * 2 + y, a * 2 + x).bandwidth = static_cast<float>(bw);
      }
  };
  setHosts(1, 2, 1e9);
  setHosts(0, 3, 1e9);
  // One slow NVLink pair inside host 2.
  cl.link(4, 5).bandwidth = 20e9;
  cl.link(5, 4).bandwidth = 20e9;
  return cl;
}

ParallelConfig pipeline4() {
  ParallelConfig c;
  c.tp = 2;
  c.pp = 4;
  c.dp = 1;
  c.microBatch = 1;
  return c;
}

// Simulated annealing finds the exact optimum over all 4! x (2!)^4 = 384
// placements, and it beats Megatron's default order.
TEST(ParallelPlacement, AnnealingMatchesExact) {
  TrainJob job = gpt(8, 4096, 32, 16);
  ParallelCluster cl = unevenCluster();
  ASSERT_EQ(placementCount(cl), 384);
  SearchOptions opts;
  PlacementResult exact = exactPlacement(job, cl, pipeline4(), opts);
  EXPECT_EQ(exact.evaluated, 384);
  opts.annealIterations = 2000;
  PlacementResult sa = annealPlacement(job, cl, pipeline4(), opts);
  EXPECT_DOUBLE_EQ(sa.time, exact.time);
  EXPECT_GT(exact.gain(), 1.1);
  EXPECT_DOUBLE_EQ(exact.defaultTime, sa.defaultTime);
  Estimate e = evaluate(job, cl, pipeline4(), exact.placement);
  EXPECT_DOUBLE_EQ(e.time.iteration, exact.time);
  // The optimum avoids the slow host pairs between consecutive stages
  // (Megatron's order has one: hosts 1 and 2).
  const std::vector<int64_t> &g = exact.placement.gpuOfRank;
  for (size_t s = 0; s + 1 < 4; ++s)
    EXPECT_GT(cl.bw(g[s * 2], g[(s + 1) * 2]), 1e9) << "stage " << s;
  EXPECT_EQ(cl.bw(2, 4), 1e9f);
}

TEST(ParallelPlacement, PlacementsAreRankPermutations) {
  ParallelCluster cl = cluster(3, 2, 80, 300e9, 25e9);
  Placement p = makePlacement(cl, {2, 0, 1}, {{0, 1}, {1, 0}, {0, 1}});
  EXPECT_EQ(p.gpuOfRank, (std::vector<int64_t>{4, 5, 0, 1, 3, 2}));
}

// Uniform links: every placement costs the same, the search says so.
TEST(ParallelPlacement, UniformLinksSkipSearch) {
  TrainJob job = gpt(8, 4096, 32, 16);
  ParallelCluster cl = cluster(4, 2, 80, 300e9, 25e9);
  PlacementResult r = searchPlacement(job, cl, pipeline4());
  EXPECT_EQ(r.method, PlacementResult::Method::Uniform);
  EXPECT_DOUBLE_EQ(r.time, r.defaultTime);
}

TEST(ParallelSearch, PlansPlacementWhenLinksDiffer) {
  TrainJob job = gpt(8, 4096, 32, 16);
  ParallelCluster cl = unevenCluster();
  auto plan = planParallel(job, cl);
  ASSERT_TRUE(static_cast<bool>(plan));
  ASSERT_TRUE(plan->feasible);
  EXPECT_EQ(plan->placement.method, PlacementResult::Method::Exact);
  EXPECT_LE(plan->estimate.time.iteration,
            plan->defaultEstimate.time.iteration);
  // Deterministic.
  auto again = planParallel(job, cl);
  EXPECT_EQ(again->config.str(), plan->config.str());
  EXPECT_EQ(again->placement.placement.gpuOfRank,
            plan->placement.placement.gpuOfRank);
}

// A model that fits nowhere names GPU memory with numbers.
TEST(ParallelSearch, InfeasibleNamesMemory) {
  TrainJob job = gpt(96, 12288, 96, 64); // GPT-3 175B on 4 x 24 GiB
  ParallelCluster cl = cluster(1, 4, 24, 25e9, 25e9);
  auto plan = planParallel(job, cl);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_FALSE(plan->feasible);
  EXPECT_EQ(plan->binding, Constraint::Memory);
  EXPECT_NE(plan->infeasibleReason.find(
                "GPU memory: the configuration needing the least (tp 2 pp 1 "
                "dp 2 b 1 full sp zero 3)"),
            std::string::npos)
      << plan->infeasibleReason;
  EXPECT_NE(plan->infeasibleReason.find("have 22 GiB"), std::string::npos)
      << plan->infeasibleReason;
}

TEST(ParallelSearch, InfeasibleShape) {
  TrainJob job = gpt(7, 1024, 16, 3); // batch 3 on 4 GPUs, 7 layers
  job.model.heads = 1;
  ParallelCluster cl = cluster(1, 4, 80, 300e9, 25e9);
  auto plan = planParallel(job, cl);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_FALSE(plan->feasible);
  EXPECT_EQ(plan->binding, Constraint::Divisibility);
  EXPECT_EQ(plan->infeasibleReason,
            "no configuration has a valid shape on 4 gpus (first: tp 1 pp 1 "
            "dp 4 b 1 no-recompute zero 0: dp 4 x micro-batch 1 does not "
            "divide batch 3)");
}

TEST(ParallelSearch, BadInputs) {
  TrainJob job = gpt(8, 1024, 16, 8);
  job.microBatch = 3;
  auto plan = planParallel(job, cluster(1, 4, 80, 300e9, 25e9));
  ASSERT_FALSE(static_cast<bool>(plan));
  EXPECT_EQ(llvm::toString(plan.takeError()),
            "micro_batch 3 must divide batch 8");
}

// GPT-3 13B does not fit four 24 GiB GPUs with every state on them; with
// the optimizer states on the host it does, and the plan says so.
TEST(ParallelSearch, OffloadMakesItFit) {
  TrainJob job = gpt(40, 5120, 40, 32);
  auto onGpus = planParallel(job, cluster(1, 4, 24, 25e9, 25e9));
  ASSERT_TRUE(static_cast<bool>(onGpus));
  EXPECT_FALSE(onGpus->feasible);
  auto plan = planParallel(job, offloadable(cluster(1, 4, 24, 25e9, 25e9)));
  ASSERT_TRUE(static_cast<bool>(plan));
  ASSERT_TRUE(plan->feasible) << plan->infeasibleReason;
  EXPECT_TRUE(plan->config.offloadOptimizer);
  EXPECT_GE(plan->config.zeroStage, 1);
  EXPECT_GT(plan->estimate.memory.hostNeed, 0);
  EXPECT_LE(plan->estimate.memory.hostNeed,
            plan->estimate.memory.hostAvailable);
  // Too little host memory: the host is what binds, with numbers.
  ParallelCluster small = offloadable(cluster(1, 4, 24, 25e9, 25e9));
  small.hostMemory = 100 * GiB; // 145 GiB of states for 4 GPUs
  auto tight = planParallel(job, small);
  ASSERT_TRUE(static_cast<bool>(tight));
  EXPECT_FALSE(tight->feasible);
  EXPECT_EQ(tight->infeasibleReason.rfind("host memory: the configuration "
                                          "needing the least (",
                                          0),
            0u)
      << tight->infeasibleReason;
}

} // namespace
