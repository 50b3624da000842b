//===- MultiCommodityTest.cpp - The LP on hand-built and random demands ---===//
//
// The multi-commodity LP: a hand-built case where splitting beats direct
// paths, and many small random topologies (fixed seeds) where every
// grouping of commodities gives the same optimum, each commodity's flow
// conserves and respects capacities (checkSchedule), the optimum lies
// between the exhaustive cut bound and the direct-path baseline, and the
// exact rational simplex agrees.
//
//===----------------------------------------------------------------------===//
#include "FlowTestUtils.h"

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

SolveOptions withGrouping(CommodityGrouping g) {
  SolveOptions o;
  o.grouping = g;
  return o;
}

/// Two sources and two sinks whose widest paths share the middle arc
/// m -> n (10 GB/s); each pair also has a 5 GB/s bypass.
FlowNetwork butterfly() {
  FlowNetwork net;
  for (const char *name : {"s1", "s2", "m", "n", "t1", "t2"})
    net.addNode(name);
  net.addArc(0, 2, 10 * GBps); // 0: s1 -> m
  net.addArc(1, 2, 10 * GBps); // 1: s2 -> m
  net.addArc(2, 3, 10 * GBps); // 2: m -> n
  net.addArc(3, 4, 10 * GBps); // 3: n -> t1
  net.addArc(3, 5, 10 * GBps); // 4: n -> t2
  net.addArc(0, 4, 5 * GBps);  // 5: s1 -> t1
  net.addArc(1, 5, 5 * GBps);  // 6: s2 -> t2
  return net;
}

/// A bidirectional ring of four nodes, 10 GB/s per direction.
FlowNetwork ring4() {
  FlowNetwork net;
  for (const char *name : {"a", "b", "c", "d"})
    net.addNode(name);
  for (unsigned v = 0; v < 4; ++v) {
    net.addArc(v, (v + 1) % 4, 10 * GBps);
    net.addArc((v + 1) % 4, v, 10 * GBps);
  }
  return net;
}

/// Per source (a commodity of the default grouping), the routed bytes on
/// each arc conserve at every node: out - in = what the node sends as a
/// source - what it receives as a destination.
void checkConservation(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                       const FlowSchedule &s) {
  std::map<unsigned, std::vector<double>> flowOf;
  std::map<unsigned, std::vector<double>> balanceOf;
  double scale = 0;
  for (const DemandRoute &r : s.routes) {
    const Demand &d = r.demand;
    if (d.isLocal() || d.bytes == 0)
      continue;
    scale = std::max(scale, d.bytes);
    std::vector<double> &f = flowOf[d.source];
    std::vector<double> &b = balanceOf[d.source];
    f.resize(net.numArcs(), 0);
    b.resize(net.numNodes(), 0);
    b[d.source] += d.bytes;
    b[d.destination] -= d.bytes;
    for (const PathFlow &p : r.paths)
      for (unsigned a : p.arcs)
        f[a] += p.bytes;
  }
  for (const auto &[source, f] : flowOf) {
    std::vector<double> balance(net.numNodes(), 0);
    for (unsigned a = 0; a < net.numArcs(); ++a) {
      balance[net.arcs[a].from] += f[a];
      balance[net.arcs[a].to] -= f[a];
      EXPECT_LE(f[a], net.arcs[a].capacity * s.makespan * (1 + 1e-12));
    }
    for (unsigned v = 0; v < net.numNodes(); ++v)
      EXPECT_NEAR(balance[v], balanceOf[source][v], 1e-9 * scale)
          << "source " << source << " node " << v;
  }
}

TEST(FlowMultiCommodity, SplittingBeatsDirectPaths) {
  FlowNetwork net = butterfly();
  std::vector<Demand> demands = {{0, 4, 10 * GB}, {1, 5, 10 * GB}};
  auto lp = solveMultiCommodity(net, demands);
  ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
  // Each demand: 5 GB/s over its bypass, 5 GB/s over the shared arc.
  EXPECT_NEAR(lp->makespan, 1.0, 1e-9);
  EXPECT_NEAR(*lp->lowerBound, 1.0, 1e-9);
  EXPECT_EQ(lp->method, ScheduleMethod::MultiCommodityLP);
  checkSchedule(net, demands, *lp);
  checkConservation(net, demands, *lp);
  ASSERT_EQ(lp->routes[0].paths.size(), 2u);
  ASSERT_EQ(lp->routes[1].paths.size(), 2u);
  EXPECT_NEAR(lp->routes[0].paths[0].rate + lp->routes[0].paths[1].rate,
              10 * GBps, 1e-3);
  EXPECT_EQ(lp->saturatedArcs, (std::vector<unsigned>{2, 5, 6}));
  EXPECT_NEAR(lp->arcs[0].utilisation, 0.5, 1e-9);
  EXPECT_FALSE(lp->bindingCut.has_value());
  EXPECT_EQ(lp->stats.commodities, 2u);
  EXPECT_GT(lp->stats.lpRows, 0u);
  EXPECT_GT(lp->stats.lpColumns, 0u);
  EXPECT_NEAR(bruteForceCutBound(net, demands), 1.0, 1e-12);

  // Direct: both take the widest route through m -> n and share it.
  auto direct = solveDirectPaths(net, demands);
  ASSERT_TRUE(static_cast<bool>(direct));
  EXPECT_NEAR(direct->makespan, 2.0, 1e-12);
  EXPECT_EQ(direct->routes[0].paths[0].arcs, (std::vector<unsigned>{0, 2, 3}));
  EXPECT_EQ(direct->routes[1].paths[0].arcs, (std::vector<unsigned>{1, 2, 4}));
}

TEST(FlowMultiCommodity, RingOptimumIsTheCut) {
  FlowNetwork net = ring4();
  std::vector<Demand> demands = {{0, 2, 10 * GB}, {1, 3, 10 * GB}};
  auto lp = solveMultiCommodity(net, demands);
  ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
  // The cut {a, b} carries both demands over a -> d and b -> c.
  EXPECT_NEAR(lp->makespan, 1.0, 1e-9);
  EXPECT_NEAR(bruteForceCutBound(net, demands), 1.0, 1e-12);
  checkSchedule(net, demands, *lp);
}

TEST(FlowMultiCommodity, TinyNextToHugeDemands) {
  // One byte next to ten terabytes, in one commodity: both get paths.
  FlowNetwork net = butterfly();
  std::vector<Demand> demands = {{0, 4, 1e13}, {0, 5, 1}, {1, 5, 1e13}};
  for (CommodityGrouping g :
       {CommodityGrouping::PerSource, CommodityGrouping::PerDestination}) {
    auto lp = solveMultiCommodity(net, demands, withGrouping(g));
    ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
    checkSchedule(net, demands, *lp);
  }
  std::vector<Demand> gather = {{0, 4, 1e13}, {1, 4, 1}};
  auto sc = solveSingleCommodity(net, gather);
  ASSERT_TRUE(static_cast<bool>(sc)) << llvm::toString(sc.takeError());
  checkSchedule(net, gather, *sc);
}

TEST(FlowMultiCommodity, DispatchPicksTheSolver) {
  FlowNetwork net = ring4();
  auto single = solveMinMakespan(net, {{0, 2, GB}, {1, 2, GB}});
  ASSERT_TRUE(static_cast<bool>(single));
  EXPECT_EQ(single->method, ScheduleMethod::SingleCommodityParametric);
  auto multi = solveMinMakespan(net, {{0, 2, GB}, {1, 3, GB}});
  ASSERT_TRUE(static_cast<bool>(multi));
  EXPECT_EQ(multi->method, ScheduleMethod::MultiCommodityLP);
}

TEST(FlowMultiCommodity, EmptyAndErrors) {
  FlowNetwork net = ring4();
  auto empty = solveMultiCommodity(net, {{2, 2, GB}});
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->makespan, 0);
  ASSERT_EQ(empty->routes.size(), 1u);
  FlowNetwork oneWay;
  oneWay.addNode("x");
  oneWay.addNode("y");
  oneWay.addArc(0, 1, GBps);
  auto bad = solveMultiCommodity(oneWay, {{0, 1, GB}, {1, 0, GB}});
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "demand 1: no path from 1 (y) to 0 (x)");
}

TEST(FlowMultiCommodity, RandomAgainstBoundsAndBaseline) {
  std::mt19937 rng(77);
  unsigned checked = 0;
  for (unsigned iter = 0; iter < 400; ++iter) {
    unsigned n = 3 + rng() % 8; // 3..10 nodes
    FlowNetwork net = randomNetwork(rng, n, n + rng() % (2 * n));
    std::vector<Demand> demands = randomDemands(rng, net, 1 + rng() % 6);
    if (demands.empty())
      continue;
    ++checked;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    auto lp = solveMultiCommodity(net, demands);
    ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());
    checkSchedule(net, demands, *lp);
    checkConservation(net, demands, *lp);
    ASSERT_TRUE(lp->lowerBound.has_value());
    double opt = *lp->lowerBound;
    EXPECT_TRUE(nearRel(lp->makespan, opt, 1e-6))
        << lp->makespan << " vs LP " << opt;
    // Between the cut bound and the direct-path baseline.
    double cut = bruteForceCutBound(net, demands);
    EXPECT_GE(opt, cut * (1 - 1e-6));
    auto direct = solveDirectPaths(net, demands);
    ASSERT_TRUE(static_cast<bool>(direct));
    EXPECT_LE(opt, direct->makespan * (1 + 1e-6));
    // Every grouping is the same LP in a different shape.
    for (CommodityGrouping g :
         {CommodityGrouping::PerSource, CommodityGrouping::PerDestination,
          CommodityGrouping::PerDemand}) {
      auto other = solveMultiCommodity(net, demands, withGrouping(g));
      ASSERT_TRUE(static_cast<bool>(other));
      EXPECT_TRUE(nearRel(*other->lowerBound, opt, 1e-6))
          << *other->lowerBound << " vs " << opt;
      checkSchedule(net, demands, *other);
    }
    // Single-commodity instances: the max-flow answer is the LP's.
    if (isSingleCommodity(demands)) {
      auto sc = solveSingleCommodity(net, demands);
      ASSERT_TRUE(static_cast<bool>(sc));
      EXPECT_TRUE(nearRel(sc->makespan, opt, 1e-6));
    }
  }
  EXPECT_GT(checked, 350u);
  RecordProperty("checked", checked);
}

TEST(FlowMultiCommodity, ExactSimplexAgrees) {
  std::mt19937 rng(5);
  SolveOptions exact;
  exact.exactLP = true;
  for (unsigned iter = 0; iter < 10; ++iter) {
    FlowNetwork net = randomNetwork(rng, 6, 10);
    std::vector<Demand> demands = randomDemands(rng, net, 4);
    if (demands.empty())
      continue;
    auto fp = solveMultiCommodity(net, demands);
    auto ex = solveMultiCommodity(net, demands, exact);
    ASSERT_TRUE(fp && ex);
    EXPECT_TRUE(nearRel(*fp->lowerBound, *ex->lowerBound, 1e-9))
        << *fp->lowerBound << " vs exact " << *ex->lowerBound;
    checkSchedule(net, demands, *ex);
  }
}

} // namespace
