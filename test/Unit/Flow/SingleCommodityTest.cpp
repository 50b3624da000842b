//===- SingleCommodityTest.cpp - Max-flow makespan against LP and cuts ----===//
//
// The single-commodity solver (both horizon searches) on hand-built gathers
// and scatters with known answers, and on many small random topologies
// (fixed seeds) against the LP optimum and the exhaustive cut bound.
//
//===----------------------------------------------------------------------===//
#include "FlowTestUtils.h"

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

SolveOptions withSearch(HorizonSearch s) {
  SolveOptions o;
  o.search = s;
  return o;
}

/// Three sources behind one switch, 10 GB/s each into it, 20 GB/s from it
/// to the sink, plus a slow 1 GB/s side link from source 2 to the sink.
FlowNetwork gatherTree() {
  FlowNetwork net;
  for (const char *name : {"s0", "s1", "s2", "sw", "t"})
    net.addNode(name);
  net.addArc(0, 3, 10 * GBps); // 0
  net.addArc(1, 3, 10 * GBps); // 1
  net.addArc(2, 3, 10 * GBps); // 2
  net.addArc(3, 4, 20 * GBps); // 3
  net.addArc(2, 4, 1 * GBps);  // 4
  return net;
}

TEST(FlowSingleCommodity, GatherThroughOneSwitch) {
  FlowNetwork net = gatherTree();
  std::vector<Demand> demands = {
      {0, 4, 2 * GB}, {1, 4, 2 * GB}, {2, 4, 2 * GB}};
  for (HorizonSearch search :
       {HorizonSearch::Parametric, HorizonSearch::Bisection}) {
    auto s = solveSingleCommodity(net, demands, withSearch(search));
    ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
    // The cut {s0, s1, s2, sw} has 20 + 1 GB/s out of it for 6 GB.
    double expected = 6 * GB / (21 * GBps);
    EXPECT_NEAR(s->makespan, expected, 1e-9 * expected);
    ASSERT_TRUE(s->lowerBound.has_value());
    EXPECT_NEAR(*s->lowerBound, expected, 1e-9 * expected);
    ASSERT_TRUE(s->bindingCut.has_value());
    EXPECT_EQ(s->bindingCut->arcs, (std::vector<unsigned>{3, 4}));
    EXPECT_EQ(s->bindingCut->sourceSide, (std::vector<unsigned>{0, 1, 2, 3}));
    EXPECT_DOUBLE_EQ(s->bindingCut->capacity, 21 * GBps);
    EXPECT_EQ(s->saturatedArcs, (std::vector<unsigned>{3, 4}));
    checkSchedule(net, demands, *s);
    // Source 2 uses both its paths.
    EXPECT_EQ(s->routes[2].paths.size(), 2u);
    EXPECT_EQ(s->stats.commodities, 1u);
    EXPECT_GT(s->stats.maxFlows, 0u);
  }
}

TEST(FlowSingleCommodity, ParametricNeedsFewMaxFlows) {
  FlowNetwork net = gatherTree();
  std::vector<Demand> demands = {
      {0, 4, 2 * GB}, {1, 4, 2 * GB}, {2, 4, 2 * GB}};
  auto p =
      solveSingleCommodity(net, demands, withSearch(HorizonSearch::Parametric));
  auto b =
      solveSingleCommodity(net, demands, withSearch(HorizonSearch::Bisection));
  ASSERT_TRUE(p && b);
  EXPECT_LE(p->stats.maxFlows, 4u);
  EXPECT_GT(b->stats.maxFlows, 20u);
  EXPECT_EQ(p->method, ScheduleMethod::SingleCommodityParametric);
  EXPECT_EQ(b->method, ScheduleMethod::SingleCommodityBisection);
}

TEST(FlowSingleCommodity, ScatterSplitsOverParallelRoutes) {
  // s -> a -> t and s -> b -> t, 4 and 6 GB/s; s -> u at 2 GB/s.
  FlowNetwork net;
  for (const char *name : {"s", "a", "b", "t", "u"})
    net.addNode(name);
  net.addArc(0, 1, 4 * GBps);
  net.addArc(1, 3, 4 * GBps);
  net.addArc(0, 2, 6 * GBps);
  net.addArc(2, 3, 6 * GBps);
  net.addArc(0, 4, 2 * GBps);
  std::vector<Demand> demands = {{0, 3, 5 * GB}, {0, 4, 1 * GB}};
  auto s = solveSingleCommodity(net, demands);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  // t needs 5 GB over 10 GB/s, u 1 GB over 2 GB/s: both 0.5 s.
  EXPECT_NEAR(s->makespan, 0.5, 1e-12);
  checkSchedule(net, demands, *s);
  ASSERT_EQ(s->routes[0].paths.size(), 2u);
  // The wider route first.
  EXPECT_EQ(s->routes[0].paths[0].arcs, (std::vector<unsigned>{2, 3}));
  EXPECT_NEAR(s->routes[0].paths[0].rate, 6 * GBps, 1e-3);
  EXPECT_NEAR(s->routes[0].paths[1].rate, 4 * GBps, 1e-3);
}

TEST(FlowSingleCommodity, EmptyAndLocalDemands) {
  FlowNetwork net = gatherTree();
  std::vector<Demand> demands = {{4, 4, GB}, {0, 4, 0}};
  auto s = solveSingleCommodity(net, demands);
  ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
  EXPECT_EQ(s->makespan, 0);
  EXPECT_EQ(s->routes.size(), 2u);
  EXPECT_TRUE(s->routes[0].paths.empty());
  EXPECT_TRUE(s->saturatedArcs.empty());
  auto none = solveSingleCommodity(net, {});
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_EQ(none->makespan, 0);
}

TEST(FlowSingleCommodity, Errors) {
  FlowNetwork net = gatherTree();
  auto notSingle = solveSingleCommodity(net, {{0, 3, GB}, {1, 4, GB}});
  ASSERT_FALSE(static_cast<bool>(notSingle));
  EXPECT_EQ(llvm::toString(notSingle.takeError()),
            "demands have 2 sources and 2 destinations; a single commodity "
            "needs one sink or one source");
  auto unreachable = solveSingleCommodity(net, {{4, 0, GB}});
  ASSERT_FALSE(static_cast<bool>(unreachable));
  EXPECT_EQ(llvm::toString(unreachable.takeError()),
            "demand 0: no path from 4 (t) to 0 (s0)");
  auto range = solveSingleCommodity(net, {{0, 9, GB}});
  ASSERT_FALSE(static_cast<bool>(range));
  EXPECT_EQ(llvm::toString(range.takeError()),
            "demand 0: destination 9 out of range (network has 5 nodes)");
  auto negative = solveSingleCommodity(net, {{0, 4, -1}});
  ASSERT_FALSE(static_cast<bool>(negative));
  EXPECT_EQ(llvm::toString(negative.takeError()),
            "demand 0: bytes must be finite and non-negative, got -1");
  SolveOptions bad;
  bad.relativeTolerance = 0;
  auto tol = solveSingleCommodity(net, {{0, 4, GB}}, bad);
  ASSERT_FALSE(static_cast<bool>(tol));
  EXPECT_EQ(llvm::toString(tol.takeError()),
            "relative tolerance must lie in (0, 1), got 0");
}

/// Random gathers and scatters: both searches agree with the LP and with the
/// exhaustive cut bound, and the schedules keep every promise.
TEST(FlowSingleCommodity, RandomAgainstLPAndBruteForceCuts) {
  std::mt19937 rng(20240611);
  unsigned checked = 0, mostNewtonSteps = 0;
  for (unsigned iter = 0; iter < 800; ++iter) {
    unsigned n = 2 + rng() % 9; // 2..10 nodes
    FlowNetwork net = randomNetwork(rng, n, n + rng() % (2 * n));
    std::vector<Demand> demands = randomSingleCommodity(rng, net, iter % 2);
    if (mergeDemands(demands).empty())
      continue;
    ++checked;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    double cut = bruteForceCutBound(net, demands);
    auto p = solveSingleCommodity(net, demands,
                                  withSearch(HorizonSearch::Parametric));
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    mostNewtonSteps = std::max(mostNewtonSteps, p->stats.maxFlows);
    auto b = solveSingleCommodity(net, demands,
                                  withSearch(HorizonSearch::Bisection));
    ASSERT_TRUE(static_cast<bool>(b)) << llvm::toString(b.takeError());
    auto lp = solveMultiCommodity(net, demands);
    ASSERT_TRUE(static_cast<bool>(lp)) << llvm::toString(lp.takeError());

    EXPECT_TRUE(nearRel(p->makespan, cut, 1e-9))
        << p->makespan << " vs cut " << cut;
    EXPECT_TRUE(nearRel(b->makespan, cut, 1e-6))
        << b->makespan << " vs cut " << cut;
    EXPECT_TRUE(nearRel(b->makespan, *lp->lowerBound, 1e-6))
        << b->makespan << " vs LP " << *lp->lowerBound;
    EXPECT_TRUE(nearRel(p->makespan, *lp->lowerBound, 1e-6))
        << p->makespan << " vs LP " << *lp->lowerBound;
    // The binding cut proves the bound, and is a real cut of that ratio.
    for (const FlowSchedule *s : {&*p, &*b}) {
      ASSERT_TRUE(s->bindingCut.has_value());
      EXPECT_LE(s->bindingCut->bound(), cut * (1 + 1e-12));
      EXPECT_GE(s->makespan, s->bindingCut->bound() * (1 - 1e-12));
      EXPECT_GE(s->bindingCut->bound(), s->makespan * (1 - 1e-6));
      double bytes = 0, cap = 0;
      std::vector<bool> in(net.numNodes(), false);
      for (unsigned v : s->bindingCut->sourceSide)
        in[v] = true;
      for (const Demand &d : demands)
        if (in[d.source] && !in[d.destination])
          bytes += d.bytes;
      for (const FlowArc &a : net.arcs)
        if (in[a.from] && !in[a.to])
          cap += a.capacity;
      EXPECT_TRUE(nearRel(s->bindingCut->bytes, bytes, 1e-12));
      EXPECT_TRUE(nearRel(s->bindingCut->capacity, cap, 1e-12));
      // The cut's arcs are saturated.
      for (unsigned a : s->bindingCut->arcs) {
        EXPECT_GE(s->arcs[a].utilisation, 1 - 1e-6) << "arc " << a;
      }
      checkSchedule(net, demands, *s);
    }
  }
  EXPECT_GT(checked, 550u);
  RecordProperty("checked", checked);
  RecordProperty("most_newton_steps", mostNewtonSteps);
  // Newton's method converges in a handful of max flows.
  EXPECT_LE(mostNewtonSteps, 8u);
}

} // namespace
