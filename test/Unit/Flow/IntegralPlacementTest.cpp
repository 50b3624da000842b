//===- IntegralPlacementTest.cpp - Whole-item placement -------------------===//
//
// placeIntegral against brute force over every whole-item placement (each
// evaluated with the flow solver) on small random instances: equal to the
// best one, never worse than the whole-item greedy, never better than the
// fractional optimum (placeForMakespan) or the LP relaxation.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/IntegralPlacement.h"
#include "FlowTestUtils.h"
#include <functional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {
/// Two GPUs joined by NVLink on a PCIe switch with host memory and two SSDs.
FlowNetwork machine(std::mt19937 &rng) {
  static const double classes[] = {4, 8, 16, 25, 50};
  FlowNetwork net;
  for (const char *name : {"g0", "g1", "sw", "cpu", "ssd0", "ssd1"})
    net.addNode(name);
  auto link = [&](unsigned a, unsigned b) {
    double bw = classes[rng() % 5] * GBps;
    net.addArc(a, b, bw);
    net.addArc(b, a, bw);
  };
  link(0, 1);
  link(0, 2);
  link(1, 2);
  link(3, 2);
  link(4, 2);
  link(5, 2);
  return net;
}

/// The best makespan over all whole-item placements that fit, or infinity.
double bruteForce(const FlowNetwork &net, const PlacementProblem &p,
                  unsigned &feasible) {
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  std::vector<std::vector<std::vector<double>>> splits(numC);
  for (unsigned c = 0; c < numC; ++c) {
    std::vector<double> cur(numT, 0);
    std::function<void(unsigned, unsigned)> rec = [&](unsigned t,
                                                      unsigned left) {
      if (t + 1 == numT) {
        cur[t] = left;
        splits[c].push_back(cur);
        return;
      }
      for (unsigned k = 0; k <= left; ++k) {
        cur[t] = k;
        rec(t + 1, left - k);
      }
    };
    rec(0, static_cast<unsigned>(p.classes[c].itemCount));
  }
  double best = std::numeric_limits<double>::infinity();
  std::vector<unsigned> pick(numC, 0);
  feasible = 0;
  for (;;) {
    std::vector<std::vector<double>> items;
    std::vector<double> used(numT, 0);
    for (unsigned c = 0; c < numC; ++c) {
      items.push_back(splits[c][pick[c]]);
      for (unsigned t = 0; t < numT; ++t)
        used[t] += items[c][t] * p.classes[c].bytesPerItem;
    }
    bool fits = true;
    for (unsigned t = 0; t < numT; ++t)
      fits = fits && used[t] <= p.tiers[t].capacityBytes;
    if (fits) {
      auto r = evaluatePlacement(net, p, items);
      EXPECT_TRUE(static_cast<bool>(r));
      if (r) {
        ++feasible;
        best = std::min(best, r->makespan);
      } else {
        llvm::consumeError(r.takeError());
      }
    }
    unsigned c = 0;
    while (c < numC && ++pick[c] == splits[c].size())
      pick[c++] = 0;
    if (c == numC)
      break;
  }
  return best;
}
} // namespace

TEST(FlowIntegralPlacement, EqualsBruteForce) {
  std::mt19937 rng(2024);
  unsigned checked = 0, beatGreedy = 0;
  for (unsigned iter = 0; iter < 60; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    FlowNetwork net = machine(rng);
    PlacementProblem p;
    p.destinations = {0, 1};
    unsigned numC = 2 + rng() % 2;
    double total = 0;
    for (unsigned c = 0; c < numC; ++c) {
      PlacementClass cl;
      cl.bytesPerItem = (1 + rng() % 4) * 1e9;
      cl.itemCount = 1 + rng() % 4;
      cl.accesses = {double(rng() % 6), double(rng() % 6)};
      total += cl.bytesPerItem * cl.itemCount;
      p.classes.push_back(cl);
    }
    // The GPUs hold a little, the host some, the SSDs everything.
    p.tiers = {{"gpu", {0, 1}, total * (rng() % 4) / 8},
               {"host", {3}, total * (rng() % 4) / 6},
               {"ssd", {4, 5}, total}};
    unsigned feasible = 0;
    double best = bruteForce(net, p, feasible);
    ASSERT_GT(feasible, 0u);
    IntegralPlacementInfo info;
    auto r = placeIntegral(net, p, {}, &info);
    ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
    ++checked;
    EXPECT_TRUE(nearRel(r->makespan, best, 1e-6))
        << r->makespan << " vs brute force " << best;
    for (unsigned c = 0; c < numC; ++c)
      for (double y : r->items[c])
        EXPECT_EQ(y, std::floor(y));
    auto greedy = placeGreedyWhole(net, p);
    if (greedy) {
      EXPECT_LE(r->makespan, greedy->makespan * (1 + 1e-9));
      beatGreedy += r->makespan < greedy->makespan * (1 - 1e-6);
    } else {
      llvm::consumeError(greedy.takeError());
    }
    auto frac = placeForMakespan(net, p);
    ASSERT_TRUE(static_cast<bool>(frac));
    EXPECT_GE(r->makespan, frac->makespan * (1 - 1e-6));
    EXPECT_TRUE(info.provedOptimal);
    EXPECT_LE(info.relaxationBound, r->makespan * (1 + 1e-6));
  }
  EXPECT_EQ(checked, 60u);
  // The instances are not all trivial: the MIP beats the greedy on some.
  EXPECT_GT(beatGreedy, 5u);
  RecordProperty("beat_greedy", beatGreedy);
}

TEST(FlowIntegralPlacement, Errors) {
  std::mt19937 rng(1);
  FlowNetwork net = machine(rng);
  PlacementProblem p;
  p.destinations = {0};
  p.tiers = {{"ssd", {4}, 10e9}};
  p.classes = {{1e9, 2.5, {1}}};
  auto r = placeIntegral(net, p);
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("whole count"),
            std::string::npos);
  // Fits fractionally (1.5 + 1.5 GB in two 2 GB tiers) but not whole.
  p.tiers = {{"a", {4}, 2e9}, {"b", {5}, 2e9}};
  p.classes = {{1.5e9, 2, {1}}};
  auto w = placeIntegral(net, p);
  ASSERT_TRUE(static_cast<bool>(w)) << llvm::toString(w.takeError());
  EXPECT_EQ(w->items[0][0], 1);
  EXPECT_EQ(w->items[0][1], 1);
  p.classes = {{1.5e9, 3, {1}}};
  p.tiers = {{"a", {4}, 2.5e9}, {"b", {5}, 2.5e9}};
  auto none = placeIntegral(net, p);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no whole-item placement"),
            std::string::npos);
}
