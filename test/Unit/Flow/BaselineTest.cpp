//===- BaselineTest.cpp - Direct paths and Moment's greedy ----------------===//
//
// The baselines: fair sharing on direct widest paths against hand-computed
// event timelines, and Moment's tiered max flow against an exhaustive cut
// bound over the sets that hold every tier device, with the preferred tier
// supplying exactly its own max flow.
//
//===----------------------------------------------------------------------===//
#include "FlowTestUtils.h"

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

TEST(FlowDirectPaths, FairShareThenFullRate) {
  FlowNetwork net;
  for (const char *name : {"a", "b", "c"})
    net.addNode(name);
  net.addArc(0, 1, 10 * GBps);
  net.addArc(1, 2, 10 * GBps);
  std::vector<Demand> demands = {{0, 2, 10 * GB}, {0, 2, 30 * GB}};
  auto s = solveDirectPaths(net, demands);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  // 5 GB/s each until the first is done at 2 s, then 10 GB/s for 20 GB.
  EXPECT_DOUBLE_EQ(s->makespan, 4);
  EXPECT_DOUBLE_EQ(s->routes[0].finish, 2);
  EXPECT_DOUBLE_EQ(s->routes[1].finish, 4);
  const PathFlow &p1 = s->routes[1].paths.front();
  ASSERT_EQ(p1.segments.size(), 2u);
  EXPECT_DOUBLE_EQ(p1.segments[0].rate, 5 * GBps);
  EXPECT_DOUBLE_EQ(p1.segments[0].end, 2);
  EXPECT_DOUBLE_EQ(p1.segments[1].rate, 10 * GBps);
  EXPECT_DOUBLE_EQ(p1.rate, 7.5 * GBps);
  EXPECT_EQ(s->stats.events, 2u);
  EXPECT_EQ(s->method, ScheduleMethod::DirectPath);
  EXPECT_FALSE(s->lowerBound.has_value());
  EXPECT_EQ(s->saturatedArcs, (std::vector<unsigned>{0, 1}));
  checkSchedule(net, demands, *s);
}

TEST(FlowDirectPaths, MaxMinFairRates) {
  // X uses a wide arc alone and a narrow one with Y; Z uses the narrow one.
  FlowNetwork net;
  for (const char *name : {"x", "m", "y", "z", "w"})
    net.addNode(name);
  net.addArc(0, 1, 10 * GBps); // 0: x -> m
  net.addArc(1, 2, 2 * GBps);  // 1: m -> y
  net.addArc(3, 1, 10 * GBps); // 2: z -> m
  net.addArc(1, 4, 10 * GBps); // 3: m -> w
  std::vector<Demand> demands = {{0, 4, 9 * GB}, {0, 2, GB}, {3, 2, GB}};
  auto s = solveDirectPaths(net, demands);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  // m -> y gives 1 GB/s to each of its two users; x -> m has 9 GB/s left.
  EXPECT_DOUBLE_EQ(s->routes[0].paths[0].segments[0].rate, 9 * GBps);
  EXPECT_DOUBLE_EQ(s->routes[1].paths[0].segments[0].rate, 1 * GBps);
  EXPECT_DOUBLE_EQ(s->routes[2].paths[0].segments[0].rate, 1 * GBps);
  EXPECT_DOUBLE_EQ(s->makespan, 1);
  checkSchedule(net, demands, *s);
}

TEST(FlowDirectPaths, WidestThenFewestHopsThenLowerArcs) {
  FlowNetwork net;
  for (const char *name : {"s", "a", "b", "c", "t"})
    net.addNode(name);
  net.addArc(0, 1, 5 * GBps); // 0: s -> a
  net.addArc(1, 4, 5 * GBps); // 1: a -> t
  net.addArc(0, 2, 5 * GBps); // 2: s -> b
  net.addArc(2, 3, 5 * GBps); // 3: b -> c
  net.addArc(3, 4, 5 * GBps); // 4: c -> t
  net.addArc(0, 4, 4 * GBps); // 5: s -> t (narrower)
  net.addArc(0, 3, 5 * GBps); // 6: s -> c
  auto s = solveDirectPaths(net, {{0, 4, GB}});
  ASSERT_TRUE(static_cast<bool>(s));
  // Two-hop routes s-a-t and s-c-t tie; node a settles first.
  EXPECT_EQ(s->routes[0].paths[0].arcs, (std::vector<unsigned>{0, 1}));
}

TEST(FlowDirectPaths, RandomKeepPromisesAndLoseToOptimum) {
  std::mt19937 rng(4242);
  for (unsigned iter = 0; iter < 300; ++iter) {
    unsigned n = 3 + rng() % 8;
    FlowNetwork net = randomNetwork(rng, n, n + rng() % (2 * n));
    std::vector<Demand> demands = randomDemands(rng, net, 1 + rng() % 8);
    if (demands.empty())
      continue;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    auto direct = solveDirectPaths(net, demands);
    ASSERT_TRUE(static_cast<bool>(direct))
        << llvm::toString(direct.takeError());
    checkSchedule(net, demands, *direct);
    EXPECT_GE(direct->makespan, bruteForceCutBound(net, demands) * (1 - 1e-9));
    for (const DemandRoute &r : direct->routes)
      EXPECT_EQ(r.paths.size(), 1u);
  }
}

//===----------------------------------------------------------------------===//
// Moment
//===----------------------------------------------------------------------===//

/// Two SSDs (3 GB/s each) and a CPU (20 GB/s) feed a PCIe switch, which
/// feeds two GPUs at 16 GB/s and 4 GB/s.
struct SmallServer {
  FlowNetwork net;
  unsigned ssd0, ssd1, cpu, sw, gpu0, gpu1;
  SmallServer() {
    ssd0 = net.addNode("ssd[0]");
    ssd1 = net.addNode("ssd[1]");
    cpu = net.addNode("cpu[0]");
    sw = net.addNode("pcie[0]");
    gpu0 = net.addNode("gpu[0]");
    gpu1 = net.addNode("gpu[1]");
    net.addArc(ssd0, sw, 3 * GBps);
    net.addArc(ssd1, sw, 3 * GBps);
    net.addArc(cpu, sw, 20 * GBps);
    net.addArc(sw, gpu0, 16 * GBps);
    net.addArc(sw, gpu1, 4 * GBps);
  }
  MomentProblem problem(double need0, double need1) const {
    MomentProblem p;
    p.tiers = {{"ssd", {ssd0, ssd1}}, {"cpu", {cpu}}};
    p.needs = {{gpu0, need0}, {gpu1, need1}};
    return p;
  }
};

TEST(FlowMomentGreedy, SsdsFirstThenCpu) {
  SmallServer m;
  MomentProblem p = m.problem(12 * GB, 1 * GB);
  auto s = solveMomentGreedy(m.net, p);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  // 13 GB through 26 GB/s into the switch: 0.5 s (gpu0 needs 0.75 s at
  // 16 GB/s!). So the GPU arc binds: 12 GB / 16 GB/s = 0.75 s.
  EXPECT_NEAR(s->makespan, 0.75, 1e-9 * 0.75);
  EXPECT_EQ(s->method, ScheduleMethod::MomentGreedy);
  ASSERT_EQ(s->tiers.size(), 2u);
  EXPECT_EQ(s->tiers[0].name, "ssd");
  // The SSDs run flat out for the whole window: 2 x 3 GB/s x 0.75 s.
  EXPECT_NEAR(s->tiers[0].bytes, 4.5 * GB, 1e-6 * GB);
  EXPECT_NEAR(s->tiers[1].bytes, 8.5 * GB, 1e-6 * GB);
  EXPECT_NEAR(s->tiers[0].bytes + s->tiers[1].bytes, 13 * GB, 1e-3);
  std::vector<Demand> synthesized;
  for (const DemandRoute &r : s->routes)
    synthesized.push_back(r.demand);
  checkSchedule(m.net, synthesized, *s);
  // Per destination, exactly the needs arrive.
  double toGpu0 = 0;
  for (const Demand &d : synthesized)
    if (d.destination == m.gpu0)
      toGpu0 += d.bytes;
  EXPECT_NEAR(toGpu0, 12 * GB, 1e-3);

  // The aggregate sink ignores which GPU needs what: 13 GB over 20 GB/s
  // into the GPUs.
  p.aggregateSink = true;
  auto agg = solveMomentGreedy(m.net, p);
  ASSERT_TRUE(static_cast<bool>(agg));
  EXPECT_NEAR(agg->makespan, 0.65, 1e-9);
}

TEST(FlowMomentGreedy, NoMoreThanFixedPlacement) {
  SmallServer m;
  // The same needs with the data striped over the SSDs only.
  std::vector<Demand> fixed = {{m.ssd0, m.gpu0, 6 * GB},
                               {m.ssd1, m.gpu0, 6 * GB},
                               {m.ssd0, m.gpu1, 0.5 * GB},
                               {m.ssd1, m.gpu1, 0.5 * GB}};
  auto lp = solveMultiCommodity(m.net, fixed);
  ASSERT_TRUE(static_cast<bool>(lp));
  EXPECT_NEAR(lp->makespan, 13.0 / 6.0, 1e-6);
  auto moment = solveMomentGreedy(
      m.net,
      makeMomentProblem(fixed, {{"ssd", {m.ssd0, m.ssd1}}, {"cpu", {m.cpu}}}));
  ASSERT_TRUE(static_cast<bool>(moment));
  EXPECT_LE(moment->makespan, lp->makespan);
  // Without tiers, the demands' own sources form the only tier.
  MomentProblem own = makeMomentProblem(fixed);
  ASSERT_EQ(own.tiers.size(), 1u);
  EXPECT_EQ(own.tiers[0].devices, (std::vector<unsigned>{m.ssd0, m.ssd1}));
  auto ssdOnly = solveMomentGreedy(m.net, own);
  ASSERT_TRUE(static_cast<bool>(ssdOnly));
  EXPECT_NEAR(ssdOnly->makespan, 13.0 / 6.0, 1e-6);
}

TEST(FlowMomentGreedy, LocalServiceAndErrors) {
  SmallServer m;
  MomentProblem p;
  p.tiers = {{"gpu", {m.gpu0}}};
  p.needs = {{m.gpu0, GB}};
  auto local = solveMomentGreedy(m.net, p);
  ASSERT_TRUE(static_cast<bool>(local)) << llvm::toString(local.takeError());
  EXPECT_EQ(local->makespan, 0);
  ASSERT_EQ(local->routes.size(), 1u);
  EXPECT_TRUE(local->routes[0].demand.isLocal());
  EXPECT_DOUBLE_EQ(local->tiers[0].bytes, GB);

  p.needs = {{m.ssd0, GB}};
  auto unreachable = solveMomentGreedy(m.net, p);
  ASSERT_FALSE(static_cast<bool>(unreachable));
  EXPECT_EQ(llvm::toString(unreachable.takeError()),
            "moment: node 0 (ssd[0]) is unreachable from every tier device");
  p.tiers = {{"none", {}}};
  auto empty = solveMomentGreedy(m.net, p);
  ASSERT_FALSE(static_cast<bool>(empty));
  EXPECT_EQ(llvm::toString(empty.takeError()),
            "moment tier 0 ('none') has no devices");
}

/// Min over S holding every device of `tier` of (needs inside S + T *
/// capacity out of S): the max flow from that tier alone at horizon T.
double bruteForceTierFlow(const FlowNetwork &net,
                          const std::vector<unsigned> &tier,
                          const MomentProblem &p, double horizon) {
  unsigned n = net.numNodes();
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    auto in = [&](unsigned v) { return (mask >> v) & 1u; };
    if (!std::all_of(tier.begin(), tier.end(), in))
      continue;
    double value = 0;
    for (const auto &[node, need] : p.needs)
      if (in(node))
        value += need;
    for (const FlowArc &a : net.arcs)
      if (in(a.from) && !in(a.to))
        value += a.capacity * horizon;
    best = std::min(best, value);
  }
  return best;
}

TEST(FlowMomentGreedy, RandomAgainstBruteForce) {
  std::mt19937 rng(99);
  unsigned checked = 0;
  for (unsigned iter = 0; iter < 400; ++iter) {
    unsigned n = 3 + rng() % 8;
    FlowNetwork net = randomNetwork(rng, n, n + rng() % (2 * n));
    auto reach = reachability(net);
    MomentProblem p;
    p.tiers.resize(2);
    p.tiers[0].name = "ssd";
    p.tiers[1].name = "cpu";
    std::vector<unsigned> tierOf(n, 2);
    for (unsigned v = 0; v < n; ++v) {
      unsigned t = rng() % 4;
      if (t < 2) {
        p.tiers[t].devices.push_back(v);
        tierOf[v] = t;
      }
    }
    if (p.tiers[0].devices.empty() || p.tiers[1].devices.empty())
      continue;
    for (unsigned v = 0; v < n; ++v) {
      if (tierOf[v] != 2 || rng() % 2)
        continue;
      bool reachable = false;
      for (unsigned u = 0; u < n; ++u)
        reachable |= tierOf[u] != 2 && reach[u][v];
      if (reachable)
        p.needs.push_back({v, randomBytes(rng)});
    }
    if (p.needs.empty())
      continue;
    p.aggregateSink = iter % 3 == 0;
    ++checked;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    auto s = solveMomentGreedy(net, p);
    ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
    std::vector<unsigned> all = p.tiers[0].devices;
    all.insert(all.end(), p.tiers[1].devices.begin(), p.tiers[1].devices.end());
    double bound = bruteForceMomentBound(net, all, p);
    EXPECT_TRUE(nearRel(s->makespan, bound, 1e-6))
        << s->makespan << " vs " << bound;
    ASSERT_TRUE(s->lowerBound.has_value());
    EXPECT_LE(*s->lowerBound, bound * (1 + 1e-12));
    std::vector<Demand> synthesized;
    for (const DemandRoute &r : s->routes)
      synthesized.push_back(r.demand);
    checkSchedule(net, synthesized, *s);
    double total = 0;
    for (const auto &[node, bytes] : p.needs)
      total += bytes;
    EXPECT_NEAR(s->tiers[0].bytes + s->tiers[1].bytes, total, 1e-9 * total);
    if (!p.aggregateSink) {
      // The preferred tier sends all it can on its own.
      double alone =
          bruteForceTierFlow(net, p.tiers[0].devices, p, s->makespan);
      EXPECT_NEAR(s->tiers[0].bytes, alone, 1e-6 * total);
    }
  }
  EXPECT_GT(checked, 130u);
  RecordProperty("checked", checked);
}

} // namespace
