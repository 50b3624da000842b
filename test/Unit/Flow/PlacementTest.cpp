//===- PlacementTest.cpp - Data placement for gathers ---------------------===//
//
// placeForMakespan against an exhaustive grid of placements (each evaluated
// with the flow solver): never beaten by a grid point (it is the continuous
// optimum), within 1% of the best one, never worse than the density greedy;
// capacities respected; deterministic.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Placement.h"
#include "FlowTestUtils.h"
#include <functional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

/// Two GPUs (g0, g1) joined by NVLink, both on a PCIe switch with host
/// memory and two SSDs behind it.
FlowNetwork smallMachine(double nvlink = 20 * GBps, double gpuPcie = 16 * GBps,
                         double hostPcie = 32 * GBps, double ssd = 4 * GBps) {
  FlowNetwork net;
  for (const char *name : {"g0", "g1", "sw", "cpu", "ssd0", "ssd1"})
    net.addNode(name);
  auto link = [&](unsigned a, unsigned b, double bw) {
    net.addArc(a, b, bw);
    net.addArc(b, a, bw);
  };
  link(0, 1, nvlink);
  link(0, 2, gpuPcie);
  link(1, 2, gpuPcie);
  link(3, 2, hostPcie);
  link(4, 2, ssd);
  link(5, 2, ssd);
  return net;
}

PlacementProblem threeTiers(double gpuCap, double hostCap, double ssdCap) {
  PlacementProblem p;
  p.destinations = {0, 1};
  p.tiers = {{"gpu", {0, 1}, gpuCap}, {"host", {3}, hostCap},
             {"ssd", {4, 5}, ssdCap}};
  return p;
}

/// All placements with each class split over the tiers in multiples of
/// 1/steps; returns the smallest feasible makespan.
double gridBest(const FlowNetwork &net, const PlacementProblem &p,
                unsigned steps) {
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  // The compositions of `steps` into numT parts.
  std::vector<std::vector<unsigned>> splits;
  std::vector<unsigned> cur(numT, 0);
  std::function<void(unsigned, unsigned)> rec = [&](unsigned t,
                                                    unsigned left) {
    if (t + 1 == numT) {
      cur[t] = left;
      splits.push_back(cur);
      return;
    }
    for (unsigned k = 0; k <= left; ++k) {
      cur[t] = k;
      rec(t + 1, left - k);
    }
  };
  rec(0, steps);
  double best = std::numeric_limits<double>::infinity();
  std::vector<unsigned> pick(numC, 0);
  while (true) {
    std::vector<std::vector<double>> items(numC, std::vector<double>(numT));
    std::vector<double> used(numT, 0);
    bool fits = true;
    for (unsigned c = 0; c != numC && fits; ++c)
      for (unsigned t = 0; t != numT; ++t) {
        items[c][t] = p.classes[c].itemCount * splits[pick[c]][t] / steps;
        used[t] += items[c][t] * p.classes[c].bytesPerItem;
      }
    for (unsigned t = 0; t != numT; ++t)
      fits = fits && used[t] <= p.tiers[t].capacityBytes * (1 + 1e-12);
    if (fits) {
      auto r = evaluatePlacement(net, p, items);
      if (r)
        best = std::min(best, r->makespan);
      else
        llvm::consumeError(r.takeError());
    }
    unsigned c = 0;
    while (c != numC && ++pick[c] == splits.size())
      pick[c++] = 0;
    if (c == numC)
      break;
  }
  return best;
}

void checkCapacities(const PlacementProblem &p, const PlacementResult &r) {
  ASSERT_EQ(r.items.size(), p.classes.size());
  for (unsigned t = 0; t != p.tiers.size(); ++t)
    EXPECT_LE(r.tierBytes[t], p.tiers[t].capacityBytes * (1 + 1e-7));
  for (unsigned c = 0; c != p.classes.size(); ++c) {
    double sum = 0;
    for (double x : r.items[c]) {
      EXPECT_GE(x, 0);
      sum += x;
    }
    EXPECT_NEAR(sum, p.classes[c].itemCount, 1e-9 * p.classes[c].itemCount);
  }
}

/// The solver against the greedy and the grid.
void checkAgainstGrid(const FlowNetwork &net, const PlacementProblem &p,
                      unsigned steps) {
  auto best = placeForMakespan(net, p);
  ASSERT_TRUE(static_cast<bool>(best)) << llvm::toString(best.takeError());
  auto greedy = placeGreedyByDensity(net, p);
  ASSERT_TRUE(static_cast<bool>(greedy)) << llvm::toString(greedy.takeError());
  checkCapacities(p, *best);
  checkCapacities(p, *greedy);
  EXPECT_LE(best->makespan, greedy->makespan);
  double grid = gridBest(net, p, steps);
  ASSERT_TRUE(std::isfinite(grid));
  EXPECT_LE(best->makespan, grid * 1.01);
  // The LP optimum is continuous: no grid point may beat it.
  EXPECT_GE(grid, best->makespan * (1 - 1e-6));
}

TEST(FlowPlacement, GreedyFillsFastestTierFirst) {
  FlowNetwork net = smallMachine();
  PlacementProblem p = threeTiers(10 * GB, 20 * GB, 100 * GB);
  // Class 1 is the denser: it goes to the GPUs first.
  p.classes = {{1e3, 4e6, {4e6, 4e6}}, {1e3, 6e6, {3e7, 3e7}}};
  auto g = placeGreedyByDensity(net, p);
  ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
  EXPECT_EQ(g->method, PlacementMethod::GreedyDensity);
  EXPECT_DOUBLE_EQ(g->items[1][0], 6e6);
  EXPECT_DOUBLE_EQ(g->items[0][0], 4e6);
  EXPECT_DOUBLE_EQ(g->tierBytes[0], 10 * GB);
  checkCapacities(p, *g);
}

TEST(FlowPlacement, BeatsGreedyWhenTiersRunInParallel) {
  // Host memory can hold everything, so the greedy puts it all there and
  // the SSDs idle; reading from both tiers at once is twice as fast.
  FlowNetwork net = smallMachine(20 * GBps, 16 * GBps, /*hostPcie=*/8 * GBps,
                                 /*ssd=*/4 * GBps);
  PlacementProblem p;
  p.destinations = {0, 1};
  p.tiers = {{"host", {3}, 100 * GB}, {"ssd", {4, 5}, 100 * GB}};
  p.classes = {{1e3, 1e6, {1e7, 1e7}}, {1e3, 1e6, {5e6, 5e6}}};
  auto best = placeForMakespan(net, p);
  ASSERT_TRUE(static_cast<bool>(best)) << llvm::toString(best.takeError());
  auto greedy = placeGreedyByDensity(net, p);
  ASSERT_TRUE(static_cast<bool>(greedy)) << llvm::toString(greedy.takeError());
  // 30 GB: 8 GB/s from host alone, 16 GB/s from host and SSDs together.
  EXPECT_NEAR(greedy->makespan, 30.0 / 8, 1e-9);
  EXPECT_EQ(best->method, PlacementMethod::JointLP);
  EXPECT_NEAR(best->makespan, 30.0 / 16, 1e-6);
  checkAgainstGrid(net, p, 10);
}

TEST(FlowPlacement, TightCapacitiesTwoClasses) {
  FlowNetwork net = smallMachine();
  PlacementProblem p = threeTiers(4 * GB, 6 * GB, 20 * GB);
  p.classes = {{2e3, 2e6, {2e7, 1e7}}, {1e3, 8e6, {8e6, 1.6e7}}};
  checkAgainstGrid(net, p, 10);
}

TEST(FlowPlacement, ThreeClassesThreeTiers) {
  FlowNetwork net = smallMachine();
  PlacementProblem p = threeTiers(3 * GB, 4 * GB, 20 * GB);
  p.classes = {{1e3, 2e6, {2e7, 2e7}},
               {1e3, 4e6, {8e6, 4e6}},
               {2e3, 3e6, {1e6, 3e6}}};
  checkAgainstGrid(net, p, 4);
}

TEST(FlowPlacement, SingleDestinationTwoTiers) {
  FlowNetwork net = smallMachine();
  PlacementProblem p;
  p.destinations = {0};
  p.tiers = {{"host", {3}, 5 * GB}, {"ssd", {4, 5}, 50 * GB}};
  p.classes = {{1e3, 4e6, {4e7}}, {1e3, 6e6, {6e6}}};
  checkAgainstGrid(net, p, 20);
}

TEST(FlowPlacement, RandomSmallInstances) {
  std::mt19937 rng(20261129);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (unsigned iter = 0; iter != 6; ++iter) {
    FlowNetwork net = smallMachine(u(rng) * 10 * GBps, u(rng) * 8 * GBps,
                                   u(rng) * 16 * GBps, u(rng) * 3 * GBps);
    PlacementProblem p =
        threeTiers(u(rng) * 3 * GB, u(rng) * 5 * GB, 40 * GB);
    for (unsigned c = 0; c != 2; ++c)
      p.classes.push_back({1e3 * std::round(u(rng) * 2), u(rng) * 3e6,
                           {u(rng) * 1e7, u(rng) * 1e7}});
    SCOPED_TRACE(iter);
    checkAgainstGrid(net, p, 8);
  }
}

TEST(FlowPlacement, Deterministic) {
  FlowNetwork net = smallMachine(3 * GBps);
  PlacementProblem p = threeTiers(3 * GB, 4 * GB, 20 * GB);
  p.classes = {{1e3, 2e6, {2e7, 2e7}}, {1e3, 4e6, {8e6, 4e6}}};
  auto a = placeForMakespan(net, p);
  auto b = placeForMakespan(net, p);
  ASSERT_TRUE(static_cast<bool>(a)) << llvm::toString(a.takeError());
  ASSERT_TRUE(static_cast<bool>(b)) << llvm::toString(b.takeError());
  EXPECT_EQ(a->items, b->items);
  EXPECT_EQ(a->demands, b->demands);
  EXPECT_EQ(a->makespan, b->makespan);
  EXPECT_EQ(a->method, b->method);
}

TEST(FlowPlacement, RejectsBadInput) {
  FlowNetwork net = smallMachine();
  PlacementProblem p = threeTiers(1 * GB, 1 * GB, 1 * GB);
  p.classes = {{1e3, 4e6, {1, 1}}}; // 4 GB in 3 GB of tiers
  auto r = placeForMakespan(net, p);
  EXPECT_FALSE(static_cast<bool>(r));
  llvm::consumeError(r.takeError());
  p = threeTiers(10 * GB, 1 * GB, 1 * GB);
  p.classes = {{1e3, 4e6, {1}}}; // one access count for two destinations
  r = placeForMakespan(net, p);
  EXPECT_FALSE(static_cast<bool>(r));
  llvm::consumeError(r.takeError());
  p.tiers[0].devices = {17};
  p.classes = {{1e3, 4e6, {1, 1}}};
  r = placeForMakespan(net, p);
  EXPECT_FALSE(static_cast<bool>(r));
  llvm::consumeError(r.takeError());
}

} // namespace
