//===- PathLPTest.cpp - Column-generation LP against the arc LP -----------===//
//
// solveMultiCommodityPaths against solveMultiCommodity (the arc-form LP,
// exact) on random small networks and on DGX-like clusters: the certified
// lower bound never exceeds the LP optimum, the schedule's makespan is within
// the gap of it, and with gap 0 both agree.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/PathLP.h"
#include "FlowTestUtils.h"

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

TEST(FlowPathLP, RandomAgainstArcLP) {
  std::mt19937 rng(4242);
  unsigned checked = 0;
  for (unsigned iter = 0; iter < 300; ++iter) {
    unsigned n = 3 + rng() % 9;
    FlowNetwork net = randomNetwork(rng, n, n + rng() % (2 * n));
    std::vector<Demand> demands = randomDemands(rng, net, 1 + rng() % 8);
    if (demands.empty())
      continue;
    ++checked;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    auto arc = solveMultiCommodity(net, demands);
    ASSERT_TRUE(static_cast<bool>(arc)) << llvm::toString(arc.takeError());
    double opt = *arc->lowerBound;
    for (double gap : {0.0, 1e-2}) {
      PathLPOptions o;
      o.relativeGap = gap;
      PathLPInfo info;
      auto p = solveMultiCommodityPaths(net, demands, o, &info);
      ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
      checkSchedule(net, demands, *p);
      EXPECT_TRUE(info.converged);
      ASSERT_TRUE(p->lowerBound.has_value());
      EXPECT_LE(*p->lowerBound, opt * (1 + 1e-7));
      EXPECT_GE(p->makespan, opt * (1 - 1e-7));
      EXPECT_LE(p->makespan, opt * (1 + gap + 1e-6))
          << "gap " << gap << ": " << p->makespan << " vs LP " << opt;
      EXPECT_LE(p->makespan, *p->lowerBound * (1 + gap + 1e-6));
    }
  }
  EXPECT_GT(checked, 250u);
}

namespace {
/// `servers` DGX A100s, NIC r of every server on leaf r, leaves joined by
/// one spine per rail (2 x HDR per leaf-spine), like cluster-16x8.
struct Cluster {
  FlowNetwork net;
  std::vector<std::vector<unsigned>> gpus;
};
Cluster makeCluster(unsigned servers) {
  analysis::TopoGraph g;
  Cluster c;
  std::vector<unsigned> leaves, spines;
  for (unsigned r = 0; r < 8; ++r)
    leaves.push_back(g.addDevice("leaf[" + std::to_string(r) + "]", "switch"));
  for (unsigned s = 0; s < 2; ++s)
    spines.push_back(g.addDevice("spine[" + std::to_string(s) + "]", "switch"));
  for (unsigned l : leaves)
    for (unsigned s : spines)
      g.addLink(l, s, 4 * 25 * GBps, 0, true);
  for (unsigned s = 0; s < servers; ++s) {
    DgxIndices d = addDgxA100(g, "server[" + std::to_string(s) + "]");
    for (unsigned r = 0; r < 8; ++r)
      g.addLink(d.nics[r], leaves[r], 25 * GBps, 0, true);
    c.gpus.push_back(d.gpus);
  }
  c.net = buildNetwork(g);
  return c;
}
} // namespace

TEST(FlowPathLP, ClusterShapesWithinOnePercent) {
  Cluster c = makeCluster(3);
  std::vector<std::vector<Demand>> cases;
  // Ring shift to the same GPU of the next server.
  std::vector<Demand> ring;
  for (unsigned s = 0; s < 3; ++s)
    for (unsigned j = 0; j < 8; ++j)
      ring.push_back({c.gpus[s][j], c.gpus[(s + 1) % 3][j], 64e6});
  cases.push_back(ring);
  // All-to-all between the GPUs of two servers, uneven sizes.
  std::vector<Demand> a2a;
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = 0; j < 8; ++j)
      a2a.push_back({c.gpus[0][i], c.gpus[1][j], (1 + (i * 3 + j) % 5) * 1e7});
  cases.push_back(a2a);
  for (unsigned i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    auto arc = solveMultiCommodity(c.net, cases[i]);
    ASSERT_TRUE(static_cast<bool>(arc)) << llvm::toString(arc.takeError());
    PathLPOptions o;
    o.relativeGap = 1e-2;
    auto p = solveMultiCommodityPaths(c.net, cases[i], o);
    ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
    checkSchedule(c.net, cases[i], *p);
    double opt = *arc->lowerBound;
    EXPECT_LE(*p->lowerBound, opt * (1 + 1e-7));
    EXPECT_LE(p->makespan, opt * 1.01 + 1e-12);
  }
}

TEST(FlowPathLP, Errors) {
  FlowNetwork net;
  net.addNode("a");
  net.addNode("b");
  net.addArc(0, 1, 1e9);
  PathLPOptions bad;
  bad.relativeGap = 1;
  auto r = solveMultiCommodityPaths(net, {{0, 1, 1e9}}, bad);
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("relative gap"),
            std::string::npos);
  auto r2 = solveMultiCommodityPaths(net, {{1, 0, 1e9}});
  ASSERT_FALSE(static_cast<bool>(r2));
  EXPECT_NE(llvm::toString(r2.takeError()).find("no path"), std::string::npos);
  auto empty = solveMultiCommodityPaths(net, {{0, 0, 5}});
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->makespan, 0);
}
