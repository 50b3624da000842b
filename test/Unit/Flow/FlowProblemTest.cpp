//===- FlowProblemTest.cpp - Capacity graphs and demand builders ----------===//
//
// buildNetwork from a TopoGraph (measured arcs, self-loops, provenance),
// demand validation and merging, and the point-to-point, all-pairs and
// gather builders with their error messages.
//
//===----------------------------------------------------------------------===//
#include "FlowTestUtils.h"

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {

analysis::TopoGraph smallTopo() {
  analysis::TopoGraph g;
  g.addDevice("server[0].gpu[0]", "gpu");     // 0
  g.addDevice("server[0].pcie[0]", "switch"); // 1
  g.addDevice("server[0].ssd[0]", "nvme");    // 2
  g.addDevice("server[0].gpu[1]", "gpu");     // 3
  g.addLink(0, 1, 25 * GBps, 1e-6, true, 0);  // arcs 0, 1
  g.addLink(2, 1, 7 * GBps, 1e-6, false, 1);  // arc 2 (one way)
  g.addLink(3, 1, 25 * GBps, 1e-6, true, 2);  // arcs 3, 4
  g.addMeasured(0, 3, 20 * GBps);             // arc 5
  g.addLink(1, 1, 5 * GBps, 0, false, 3);     // arc 6: self-loop
  g.addLink(0, 3, 0, 0, false, 4);            // arc 7: no bandwidth
  return g;
}

TEST(FlowNetwork, FromTopoGraph) {
  analysis::TopoGraph g = smallTopo();
  FlowNetwork net = buildNetwork(g);
  ASSERT_EQ(net.numNodes(), 4u);
  EXPECT_EQ(net.nodes[1], "server[0].pcie[0]");
  ASSERT_EQ(net.numArcs(), 5u);
  for (unsigned a = 0; a < 5; ++a) {
    EXPECT_EQ(net.arcs[a].topoArc, a);
    EXPECT_EQ(net.arcs[a].from, g.arcs[a].from);
    EXPECT_EQ(net.arcs[a].to, g.arcs[a].to);
    EXPECT_EQ(net.arcs[a].capacity, g.arcs[a].bandwidth);
  }
  NetworkOptions withMeasured;
  withMeasured.includeMeasured = true;
  FlowNetwork measured = buildNetwork(g, withMeasured);
  ASSERT_EQ(measured.numArcs(), 6u);
  EXPECT_EQ(measured.arcs[5].topoArc, 5u);
  EXPECT_EQ(measured.arcs[5].capacity, 20 * GBps);
  EXPECT_EQ(net.findNode("server[0].gpu[1]"), std::optional<unsigned>(3));
  EXPECT_FALSE(net.findNode("server[0].gpu[7]").has_value());
}

TEST(FlowNetwork, MeasuredArcsChangeTheAnswerOnlyWhenAsked) {
  analysis::TopoGraph g = smallTopo();
  std::vector<Demand> demands = {{0, 3, 10 * GB}};
  auto modeled = solveSingleCommodity(buildNetwork(g), demands);
  ASSERT_TRUE(static_cast<bool>(modeled));
  EXPECT_NEAR(modeled->makespan, 10.0 / 25.0, 1e-12);
  NetworkOptions withMeasured;
  withMeasured.includeMeasured = true;
  auto measured = solveSingleCommodity(buildNetwork(g, withMeasured), demands);
  ASSERT_TRUE(static_cast<bool>(measured));
  EXPECT_NEAR(measured->makespan, 10.0 / 45.0, 1e-12);
}

TEST(FlowDemands, MergeAndSingleCommodity) {
  std::vector<Demand> d = {
      {2, 1, GB}, {0, 1, GB}, {2, 1, 2 * GB}, {3, 3, GB}, {0, 1, 0}};
  std::vector<Demand> merged = mergeDemands(d);
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_TRUE((merged[0] == Demand{0, 1, GB}));
  EXPECT_TRUE((merged[1] == Demand{2, 1, 3 * GB}));
  EXPECT_TRUE(isSingleCommodity(d));
  EXPECT_TRUE(isSingleCommodity({{0, 1, GB}, {0, 2, GB}, {5, 5, GB}}));
  EXPECT_FALSE(isSingleCommodity({{0, 1, GB}, {2, 3, GB}}));
  EXPECT_TRUE(isSingleCommodity({}));
}

TEST(FlowDemands, PointToPointAndAllPairs) {
  std::vector<Demand> p2p = pointToPointDemands({{0, 1}, {2, 3}}, GB);
  ASSERT_EQ(p2p.size(), 2u);
  EXPECT_TRUE((p2p[1] == Demand{2, 3, GB}));
  std::vector<Demand> all = allPairsDemands({0, 1, 2}, {1, 2}, GB);
  // 0->1, 0->2, 1->2, 2->1 (self pairs skipped).
  ASSERT_EQ(all.size(), 4u);
  EXPECT_TRUE((all[0] == Demand{0, 1, GB}));
  EXPECT_TRUE((all[2] == Demand{1, 2, GB}));
  EXPECT_TRUE((all[3] == Demand{2, 1, GB}));
}

TEST(FlowDemands, Validation) {
  FlowNetwork net = buildNetwork(smallTopo());
  EXPECT_FALSE(static_cast<bool>(validateDemands(net, {{0, 3, GB}})));
  // The SSD link is one way: nothing reaches the SSD.
  llvm::Error e = validateDemands(net, {{0, 3, GB}, {0, 2, GB}});
  EXPECT_EQ(llvm::toString(std::move(e)),
            "demand 1: no path from 0 (server[0].gpu[0]) to 2 "
            "(server[0].ssd[0])");
  // Local and zero-byte demands need no path.
  EXPECT_FALSE(
      static_cast<bool>(validateDemands(net, {{2, 2, GB}, {0, 2, 0}})));
  llvm::Error nan =
      validateDemands(net, {{0, 3, std::numeric_limits<double>::quiet_NaN()}});
  EXPECT_EQ(llvm::toString(std::move(nan)),
            "demand 0: bytes must be finite and non-negative, got nan");
  llvm::Error src = validateDemands(net, {{7, 3, GB}});
  EXPECT_EQ(llvm::toString(std::move(src)),
            "demand 0: source 7 out of range (network has 4 nodes)");
}

TEST(FlowNetwork, Validation) {
  FlowNetwork net = buildNetwork(smallTopo());
  EXPECT_FALSE(static_cast<bool>(validateNetwork(net)));
  FlowNetwork zero = net;
  zero.arcs[2].capacity = 0;
  EXPECT_EQ(llvm::toString(validateNetwork(zero)),
            "arc 2: capacity must be finite and positive, got 0");
  // Every solver checks the network first.
  auto s = solveMultiCommodity(zero, {{0, 3, GB}});
  ASSERT_FALSE(static_cast<bool>(s));
  EXPECT_EQ(llvm::toString(s.takeError()),
            "arc 2: capacity must be finite and positive, got 0");
  FlowNetwork loop = net;
  loop.arcs[0].to = loop.arcs[0].from;
  EXPECT_EQ(llvm::toString(validateNetwork(loop)),
            "arc 0: a self-loop at node 0");
  FlowNetwork range = net;
  range.arcs[4].to = 9;
  EXPECT_EQ(llvm::toString(validateNetwork(range)),
            "arc 4: endpoint out of range (1 -> 9, network has 4 nodes)");
  MomentProblem p;
  p.tiers = {{"all", {0}}};
  p.needs = {{3, GB}};
  auto m = solveMomentGreedy(range, p);
  ASSERT_FALSE(static_cast<bool>(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "arc 4: endpoint out of range (1 -> 9, network has 4 nodes)");
}

/// Two GPUs read three item classes from an SSD tier (two drives) and a CPU
/// tier (one socket).
GatherSpec smallGather(FlowNetwork &net) {
  for (const char *name : {"gpu[0]", "gpu[1]", "ssd[0]", "ssd[1]", "cpu[0]"})
    net.addNode(name);
  GatherSpec spec;
  spec.destinations = {0, 1};
  spec.tiers = {{"ssd", {2, 3}}, {"cpu", {4}}};
  spec.items = {{4096, 0, {100, 50}},  // hot, on SSDs
                {4096, 0, {10, 30}},   // warm, on SSDs
                {1024, 1, {1000, 0}}}; // small, in CPU memory
  return spec;
}

TEST(FlowDemands, GatherStriped) {
  FlowNetwork net;
  GatherSpec spec = smallGather(net);
  auto d = buildGatherDemands(net, spec);
  ASSERT_TRUE(static_cast<bool>(d)) << llvm::toString(d.takeError());
  // Each SSD holds half of every SSD item.
  std::vector<Demand> expected = {{2, 0, (100 + 10) * 4096 / 2.0},
                                  {2, 1, (50 + 30) * 4096 / 2.0},
                                  {3, 0, (100 + 10) * 4096 / 2.0},
                                  {3, 1, (50 + 30) * 4096 / 2.0},
                                  {4, 0, 1000 * 1024.0}};
  ASSERT_EQ(d->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE((*d)[i] == expected[i]) << "demand " << i;
}

TEST(FlowDemands, GatherRoundRobinAndLocal) {
  FlowNetwork net;
  GatherSpec spec = smallGather(net);
  spec.placement = TierPlacement::RoundRobin;
  // GPU 1 also caches the CPU items: its reads of them are local.
  spec.tiers[1].devices = {1};
  spec.items[2].accesses = {1000, 7};
  auto d = buildGatherDemands(net, spec);
  ASSERT_TRUE(static_cast<bool>(d)) << llvm::toString(d.takeError());
  std::vector<Demand> expected = {{1, 0, 1000 * 1024.0},
                                  {2, 0, 100 * 4096.0},
                                  {2, 1, 50 * 4096.0},
                                  {3, 0, 10 * 4096.0},
                                  {3, 1, 30 * 4096.0}};
  ASSERT_EQ(d->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE((*d)[i] == expected[i]) << "demand " << i;

  auto moment = makeMomentProblem(net, spec);
  ASSERT_TRUE(static_cast<bool>(moment));
  ASSERT_EQ(moment->needs.size(), 2u);
  // Local reads count: the Moment flow may serve them from the GPU itself.
  EXPECT_EQ(moment->needs[1].second, 80 * 4096.0 + 7 * 1024.0);
}

TEST(FlowDemands, GatherErrors) {
  FlowNetwork net;
  GatherSpec spec = smallGather(net);
  auto check = [&](const GatherSpec &s, const char *message) {
    auto d = buildGatherDemands(net, s);
    ASSERT_FALSE(static_cast<bool>(d));
    EXPECT_EQ(llvm::toString(d.takeError()), message);
  };
  GatherSpec bad = spec;
  bad.items[1].accesses = {1};
  check(bad, "gather item 1: 1 access counts for 2 destinations");
  bad = spec;
  bad.items[0].tier = 5;
  check(bad, "gather item 0: tier 5 out of range (2 tiers)");
  bad = spec;
  bad.tiers[1].devices.clear();
  check(bad, "gather tier 1 ('cpu') has no devices");
  bad = spec;
  bad.tiers[0].devices.push_back(9);
  check(bad, "gather tier 0 ('ssd'): node 9 out of range (network has 5 "
             "nodes)");
  bad = spec;
  bad.items[2].accesses[0] = -1;
  check(bad, "gather item 2: access count for destination 0 must be finite "
             "and non-negative, got -1");
  bad = spec;
  bad.destinations[1] = 11;
  check(bad, "gather destination 1: node 11 out of range (network has 5 "
             "nodes)");
}

} // namespace
