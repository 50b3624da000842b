//===- CollectivesTest.cpp - Ring, tree and in-network collectives --------===//
//
// Ring orders against brute force over all orders; ring, tree and
// in-network times against the analytic optima of rings and stars
// (2 (n-1)/n N / B for the ring all-reduce, N / B in the network) and
// against the endpoint bound on random networks and DGX-like machines.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Collectives.h"
#include "FlowTestUtils.h"

#include <numeric>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::test;

namespace {
FlowNetwork ringNetwork(unsigned n, double bw, bool bidirectional) {
  analysis::TopoGraph g;
  for (unsigned i = 0; i < n; ++i)
    g.addDevice("gpu[" + std::to_string(i) + "]", "gpu");
  for (unsigned i = 0; i < n; ++i)
    g.addLink(i, (i + 1) % n, bw, 0, bidirectional);
  return buildNetwork(g);
}

/// n GPUs on one switch (node n) that can reduce.
analysis::TopoGraph starTopo(unsigned n, double bw) {
  analysis::TopoGraph g;
  for (unsigned i = 0; i < n; ++i)
    g.addDevice("gpu[" + std::to_string(i) + "]", "gpu");
  unsigned sw = g.addDevice("switch", "switch");
  g.addBool(sw, "reduce", true);
  for (unsigned i = 0; i < n; ++i)
    g.addLink(i, sw, bw, 0, true);
  return g;
}

std::vector<unsigned> iota(unsigned n) {
  std::vector<unsigned> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}
} // namespace

TEST(FlowCollectives, RingAllReduceMeetsTheBoundOnARing) {
  const double N = 1e9, B = 10 * GBps;
  for (unsigned n : {2u, 3u, 5u, 8u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // One direction: one ring, 2 (n-1)/n N / B.
    FlowNetwork one = ringNetwork(n, B, false);
    CollectiveOptions o;
    o.maxRings = 1;
    auto r = planRingCollective(one, iota(n), CollectiveKind::AllReduce, N, o);
    ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
    double expect = 2.0 * (n - 1) / n * N / B;
    EXPECT_TRUE(nearRel(r->flowTime, expect, 1e-6)) << r->flowTime;
    EXPECT_TRUE(nearRel(r->alphaBetaTime, expect, 1e-6));
    EXPECT_TRUE(nearRel(r->endpointBound, expect, 1e-9));
    // Both directions: two rings halve it, again the bound.
    FlowNetwork two = ringNetwork(n, B, true);
    auto r2 = planRingCollective(two, iota(n), CollectiveKind::AllReduce, N);
    ASSERT_TRUE(static_cast<bool>(r2));
    // (n = 2: the two links are parallel, one ring uses both.)
    double expect2 = expect / 2;
    EXPECT_TRUE(nearRel(r2->flowTime, expect2, 1e-4)) << r2->flowTime;
    EXPECT_EQ(r2->rings.size(), n > 2 ? 2u : 1u);
    EXPECT_GE(r2->flowTime, r2->endpointBound * (1 - 1e-9));
    // All-gather and reduce-scatter: half the steps.
    for (CollectiveKind k :
         {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
      auto h = planRingCollective(one, iota(n), k, N, o);
      ASSERT_TRUE(static_cast<bool>(h));
      EXPECT_TRUE(nearRel(h->flowTime, expect / 2, 1e-6));
      EXPECT_TRUE(nearRel(h->endpointBound, expect / 2, 1e-9));
    }
  }
}

TEST(FlowCollectives, AlphaCountsPerStep) {
  FlowNetwork net = ringNetwork(4, 10 * GBps, false);
  CollectiveOptions o;
  o.maxRings = 1;
  o.alpha = 1e-5;
  auto r = planRingCollective(net, iota(4), CollectiveKind::AllReduce, 1e9, o);
  ASSERT_TRUE(static_cast<bool>(r));
  EXPECT_TRUE(nearRel(r->flowTime, 6 * 1e-5 + 1.5e9 / 1e10, 1e-6));
  EXPECT_TRUE(nearRel(r->alphaBetaTime, r->flowTime, 1e-6));
}

TEST(FlowCollectives, InNetworkBeatsTheRingOnAStar) {
  const double N = 1e9, B = 25 * GBps;
  for (unsigned n : {2u, 4u, 8u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    analysis::TopoGraph g = starTopo(n, B);
    FlowNetwork net = buildNetwork(g);
    std::vector<unsigned> reducers = findReducers(g);
    ASSERT_EQ(reducers, std::vector<unsigned>{n});
    auto plans = planCollectives(net, iota(n), CollectiveKind::AllReduce, N,
                                 reducers);
    ASSERT_TRUE(static_cast<bool>(plans)) << llvm::toString(plans.takeError());
    ASSERT_EQ(plans->size(), 3u);
    const CollectivePlan &ring = (*plans)[0], &tree = (*plans)[1],
                         &inNet = (*plans)[2];
    EXPECT_EQ(inNet.algorithm, CollectiveAlgorithm::InNetwork);
    EXPECT_TRUE(nearRel(ring.flowTime, 2.0 * (n - 1) / n * N / B, 1e-4));
    EXPECT_TRUE(nearRel(inNet.flowTime, N / B, 1e-4));
    EXPECT_TRUE(nearRel(inNet.alphaBetaTime, N / B, 1e-9));
    EXPECT_GE(tree.flowTime, tree.endpointBound * (1 - 1e-9));
    EXPECT_GE(ring.flowTime, ring.endpointBound * (1 - 1e-9));
    if (n > 2) {
      EXPECT_LT(inNet.flowTime, inNet.endpointBound);
    }
    // Reduce-scatter in the network: N up, N/n down.
    auto rs = planInNetworkCollective(net, iota(n),
                                      CollectiveKind::ReduceScatter, N,
                                      reducers);
    ASSERT_TRUE(static_cast<bool>(rs));
    EXPECT_TRUE(nearRel(rs->flowTime, N / B, 1e-4));
    auto ag = planInNetworkCollective(net, iota(n), CollectiveKind::AllGather,
                                      N, reducers);
    ASSERT_TRUE(static_cast<bool>(ag));
    EXPECT_TRUE(nearRel(ag->flowTime, N / B, 1e-4));
  }
}

namespace {
/// Max over all orders (member 0 first) of the bottleneck hop bandwidth.
double bruteBottleneck(const std::vector<std::vector<double>> &bw) {
  std::vector<unsigned> o = iota(bw.size());
  double best = 0;
  do {
    double b = std::numeric_limits<double>::infinity();
    for (unsigned i = 0; i < o.size(); ++i)
      b = std::min(b, bw[o[i]][o[(i + 1) % o.size()]]);
    best = std::max(best, b);
  } while (std::next_permutation(o.begin() + 1, o.end()));
  return best;
}

/// A random connected network: a bidirectional spanning path plus extras.
FlowNetwork connectedNetwork(std::mt19937 &rng, unsigned n) {
  analysis::TopoGraph g;
  for (unsigned i = 0; i < n; ++i)
    g.addDevice("n[" + std::to_string(i) + "]", "gpu");
  static const double classes[] = {1, 2, 3, 5, 8};
  for (unsigned i = 1; i < n; ++i)
    g.addLink(rng() % i, i, classes[rng() % 5] * GBps, 0, true);
  for (unsigned e = 0; e < n; ++e) {
    unsigned a = rng() % n, b = rng() % n;
    if (a != b)
      g.addLink(a, b, classes[rng() % 5] * GBps, 0, rng() % 2);
  }
  return buildNetwork(g);
}
} // namespace

TEST(FlowCollectives, RingOrderAgainstBruteForce) {
  std::mt19937 rng(99);
  for (unsigned iter = 0; iter < 40; ++iter) {
    SCOPED_TRACE("iteration " + std::to_string(iter));
    unsigned n = 5 + rng() % 4;
    FlowNetwork net = connectedNetwork(rng, n);
    unsigned m = 3 + rng() % 3;
    std::vector<unsigned> group = iota(n);
    std::shuffle(group.begin(), group.end(), rng);
    group.resize(m);
    auto bw = hopBandwidths(net, group);
    ASSERT_TRUE(static_cast<bool>(bw)) << llvm::toString(bw.takeError());
    std::vector<unsigned> order = bestRingOrder(*bw, 9);
    double got = std::numeric_limits<double>::infinity();
    for (unsigned i = 0; i < m; ++i)
      got = std::min(got, (*bw)[order[i]][order[(i + 1) % m]]);
    EXPECT_EQ(got, bruteBottleneck(*bw));
    // The local search (exhaustive limit 0) never beats brute force.
    std::vector<unsigned> local = bestRingOrder(*bw, 0);
    double lb = std::numeric_limits<double>::infinity();
    for (unsigned i = 0; i < m; ++i)
      lb = std::min(lb, (*bw)[local[i]][local[(i + 1) % m]]);
    EXPECT_LE(lb, got);

    // Evaluating every order: the plan is the fastest routed single ring
    // (or better, with two rings), each routed exactly by the arc LP.
    CollectiveOptions all;
    all.candidateOrders = 1000;
    all.relativeGap = 0;
    auto plan = planRingCollective(net, group, CollectiveKind::AllGather, 1e9,
                                   all);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    std::vector<unsigned> o = iota(m);
    double bestTime = std::numeric_limits<double>::infinity();
    do {
      std::vector<Demand> d;
      for (unsigned i = 0; i < m; ++i)
        d.push_back({group[o[i]], group[o[(i + 1) % m]], 1e9 / m});
      auto s = solveMultiCommodity(net, d);
      ASSERT_TRUE(static_cast<bool>(s));
      bestTime = std::min(bestTime, (m - 1) * s->makespan);
    } while (std::next_permutation(o.begin() + 1, o.end()));
    EXPECT_LE(plan->flowTime, bestTime * (1 + 1e-6));
    EXPECT_GE(plan->flowTime, plan->endpointBound * (1 - 1e-9));
    EXPECT_LE(plan->scheduleBound, plan->flowTime * (1 + 1e-9));
    for (const CollectivePhase &p : plan->phases)
      checkSchedule(net, p.demands, p.schedule);
  }
}

TEST(FlowCollectives, DgxA100AndPcieSwitchServer) {
  const double N = 1e9;
  {
    analysis::TopoGraph g;
    DgxIndices d = addDgxA100(g, "dgx");
    FlowNetwork net = buildNetwork(g);
    auto plans = planCollectives(net, d.gpus, CollectiveKind::AllReduce, N, {});
    ASSERT_TRUE(static_cast<bool>(plans)) << llvm::toString(plans.takeError());
    const CollectivePlan &ring = (*plans)[0];
    // Every GPU has 6 x 50 GB/s NVLink + 25 GB/s PCIe each way: the two
    // rings use all of it, so the ring meets the endpoint bound.
    EXPECT_TRUE(nearRel(ring.endpointBound, 2.0 * 7 * N / (8 * 325 * GBps),
                        1e-9));
    EXPECT_TRUE(nearRel(ring.flowTime, ring.endpointBound, 1e-3))
        << ring.flowTime << " vs " << ring.endpointBound;
    for (const CollectivePlan &p : *plans) {
      EXPECT_GE(p.flowTime, p.endpointBound * (1 - 1e-9));
      EXPECT_LE(p.scheduleBound, p.flowTime * (1 + 1e-9));
    }
  }
  {
    // examples/machines/pcie-switch-server.sluice (defaults): 2 sockets
    // (67.2 GB/s UPI), 2 PCIe switches with 25 GB/s uplinks, 2 GPUs each.
    analysis::TopoGraph g;
    unsigned s0 = g.addDevice("socket[0]", "cpu"),
             s1 = g.addDevice("socket[1]", "cpu");
    g.addLink(s0, s1, 67.2 * GBps, 0, true);
    std::vector<unsigned> gpus;
    for (unsigned k = 0; k < 2; ++k) {
      unsigned sw = g.addDevice("pcie[" + std::to_string(k) + "]", "switch");
      g.addLink(k ? s1 : s0, sw, 25 * GBps, 0, true);
      for (unsigned j = 0; j < 2; ++j) {
        gpus.push_back(
            g.addDevice("gpu[" + std::to_string(2 * k + j) + "]", "gpu"));
        g.addLink(sw, gpus.back(), 25 * GBps, 0, true);
      }
    }
    FlowNetwork net = buildNetwork(g);
    auto ring = planRingCollective(net, gpus, CollectiveKind::AllReduce, N);
    ASSERT_TRUE(static_cast<bool>(ring));
    // The switch uplink is the bottleneck: a ring crosses it once each way
    // per step (both rings together), 2 x 3 steps x N/4 / 25 GB/s... and
    // no ordering avoids two crossings per ring.
    EXPECT_GE(ring->flowTime, ring->endpointBound);
    EXPECT_TRUE(nearRel(ring->flowTime, 6 * (N / 4) / (25 * GBps), 1e-4))
        << ring->flowTime;
    // The best order keeps the pairs under one switch adjacent.
    const std::vector<unsigned> &o = ring->rings[0];
    unsigned crossings = 0;
    auto sw = [&](unsigned v) {
      return (std::find(gpus.begin(), gpus.end(), v) - gpus.begin()) / 2;
    };
    for (unsigned i = 0; i < 4; ++i)
      crossings += sw(o[i]) != sw(o[(i + 1) % 4]);
    EXPECT_EQ(crossings, 2u);
  }
}

TEST(FlowCollectives, Errors) {
  analysis::TopoGraph g = starTopo(3, GBps);
  FlowNetwork net = buildNetwork(g);
  auto expectError = [](auto r, const char *text) {
    ASSERT_FALSE(static_cast<bool>(r));
    std::string msg = llvm::toString(r.takeError());
    EXPECT_NE(msg.find(text), std::string::npos) << msg;
  };
  expectError(planRingCollective(net, {0}, CollectiveKind::AllReduce, 1),
              "at least two members");
  expectError(planRingCollective(net, {0, 0}, CollectiveKind::AllReduce, 1),
              "twice");
  expectError(planRingCollective(net, {0, 9}, CollectiveKind::AllReduce, 1),
              "out of range");
  expectError(planRingCollective(net, {0, 1}, CollectiveKind::AllReduce, -1),
              "finite and positive");
  expectError(planTreeCollective(net, {0, 1}, CollectiveKind::AllGather, 1),
              "use a ring");
  expectError(
      planInNetworkCollective(net, {0, 1}, CollectiveKind::AllReduce, 1, {}),
      "no reduce-capable device");
  expectError(
      planInNetworkCollective(net, {0, 1}, CollectiveKind::AllReduce, 1, {1}),
      "also a group member");
  // An unreachable member.
  FlowNetwork cut = net;
  unsigned lone = cut.addNode("lone");
  cut.addArc(lone, 3, GBps);
  expectError(planRingCollective(cut, {0, lone}, CollectiveKind::AllReduce, 1),
              "no path");
  // JSON of a plan names the devices.
  auto plans = planCollectives(net, {0, 1, 2}, CollectiveKind::AllReduce, 1e9,
                               findReducers(g));
  ASSERT_TRUE(static_cast<bool>(plans));
  std::string json = collectivesToJSON(net, *plans);
  EXPECT_NE(json.find("\"in-network\""), std::string::npos);
  EXPECT_NE(json.find("\"switch\""), std::string::npos);
}

TEST(FlowCollectives, ClusterInNetworkAgainstTheNicBound) {
  // Two DGX A100s of examples/machines/cluster-16x8.sluice: NIC r of each
  // server on leaf r; leaves and spines reduce (SHARP).
  analysis::TopoGraph g;
  std::vector<unsigned> leaves, spines, gpus;
  for (unsigned r = 0; r < 8; ++r) {
    leaves.push_back(g.addDevice("leaf[" + std::to_string(r) + "]", "switch"));
    g.addBool(leaves.back(), "reduce", true);
  }
  for (unsigned s = 0; s < 4; ++s) {
    spines.push_back(g.addDevice("spine[" + std::to_string(s) + "]", "switch"));
    g.addBool(spines.back(), "reduce", true);
  }
  for (unsigned l : leaves)
    for (unsigned s : spines)
      g.addLink(l, s, 4 * 25 * GBps, 0, true);
  for (unsigned s = 0; s < 2; ++s) {
    DgxIndices d = addDgxA100(g, "server[" + std::to_string(s) + "]");
    for (unsigned r = 0; r < 8; ++r)
      g.addLink(d.nics[r], leaves[r], 25 * GBps, 0, true);
    gpus.insert(gpus.end(), d.gpus.begin(), d.gpus.end());
  }
  FlowNetwork net = buildNetwork(g);
  std::vector<unsigned> reducers = findReducers(g);
  EXPECT_EQ(reducers.size(), 12u);
  const double N = 256e6;
  auto plans =
      planCollectives(net, gpus, CollectiveKind::AllReduce, N, reducers);
  ASSERT_TRUE(static_cast<bool>(plans)) << llvm::toString(plans.takeError());
  // Ring, tree, in-network, hierarchical (ring across, in the network).
  ASSERT_EQ(plans->size(), 5u);
  // In the network, each server's eight GPUs push 8N out (and pull 8N in)
  // through eight 25 GB/s NICs: N / 25 GB/s, which the equal split over
  // the reducers reaches.
  const CollectivePlan &inNet = (*plans)[2];
  EXPECT_GE(inNet.flowTime, N / (25 * GBps) * (1 - 1e-6));
  EXPECT_LE(inNet.flowTime, N / (25 * GBps) * 1.01) << inNet.flowTime;
  // Reducing inside the servers first sends only N/8 per GPU through the
  // NICs: the hierarchical in-network plan needs at least N / 200 GB/s
  // across and beats the flat one.
  const CollectivePlan &hier = (*plans)[4];
  EXPECT_EQ(hier.algorithm, CollectiveAlgorithm::Hierarchical);
  EXPECT_FALSE(hier.reducers.empty());
  EXPECT_GE(hier.flowTime, N / (200 * GBps));
  EXPECT_LT(hier.flowTime, inNet.flowTime);
  std::printf("[ 2 x DGX A100, all-reduce 256 MB ] ring %.3f ms, tree %.3f "
              "ms, in-network %.3f ms, hierarchical ring %.3f ms, "
              "hierarchical in-network %.3f ms, endpoint bound %.3f ms\n",
              (*plans)[0].flowTime * 1e3, (*plans)[1].flowTime * 1e3,
              inNet.flowTime * 1e3, (*plans)[3].flowTime * 1e3,
              hier.flowTime * 1e3, hier.endpointBound * 1e3);
  for (const CollectivePlan &p : *plans) {
    EXPECT_LE(p.scheduleBound, p.flowTime * (1 + 1e-9));
    if (p.algorithm != CollectiveAlgorithm::InNetwork) {
      EXPECT_GE(p.flowTime, p.endpointBound * (1 - 1e-9));
    }
    for (const CollectivePhase &ph : p.phases)
      checkSchedule(net, ph.demands, ph.schedule);
  }
}

TEST(FlowCollectives, HierarchicalOnAStarOfStars) {
  // Two servers of two GPUs on a 100 GB/s local switch; the local switches
  // reach a reducing core switch over 10 GB/s.
  analysis::TopoGraph g;
  std::vector<unsigned> gpus;
  unsigned core = g.addDevice("core", "switch");
  g.addBool(core, "reduce", true);
  for (unsigned s = 0; s < 2; ++s) {
    std::string p = "server[" + std::to_string(s) + "]";
    unsigned sw = g.addDevice(p + ".sw", "switch");
    g.addLink(sw, core, 10 * GBps, 0, true);
    for (unsigned j = 0; j < 2; ++j) {
      gpus.push_back(g.addDevice(p + ".gpu[" + std::to_string(j) + "]", "gpu"));
      g.addLink(gpus.back(), sw, 100 * GBps, 0, true);
    }
  }
  FlowNetwork net = buildNetwork(g);
  auto sub = subgroupsByPrefix(net, gpus);
  ASSERT_EQ(sub.size(), 2u);
  EXPECT_EQ(sub[0], (std::vector<unsigned>{gpus[0], gpus[1]}));
  const double N = 1e9;
  // Reduce-scatter and all-gather inside: N/2 over 100 GB/s each; across:
  // both GPUs' N/2 shards over the 10 GB/s uplink, each way at once.
  double expect = 2 * (N / 2) / (100 * GBps) + N / (10 * GBps);
  for (bool inNetwork : {false, true}) {
    SCOPED_TRACE(inNetwork ? "in the network" : "ring across");
    auto h = planHierarchicalAllReduce(
        net, sub, N, inNetwork ? std::vector<unsigned>{core}
                               : std::vector<unsigned>{});
    ASSERT_TRUE(static_cast<bool>(h)) << llvm::toString(h.takeError());
    EXPECT_EQ(h->algorithm, CollectiveAlgorithm::Hierarchical);
    EXPECT_EQ(h->phases.size(), 3u);
    EXPECT_TRUE(nearRel(h->flowTime, expect, 1e-4)) << h->flowTime;
    EXPECT_LE(h->scheduleBound, h->flowTime * (1 + 1e-9));
    for (const CollectivePhase &p : h->phases)
      checkSchedule(net, p.demands, p.schedule);
  }
  // The flat in-network plan pushes all of N per GPU over the uplinks.
  auto plans = planCollectives(net, gpus, CollectiveKind::AllReduce, N, {core});
  ASSERT_TRUE(static_cast<bool>(plans)) << llvm::toString(plans.takeError());
  ASSERT_EQ(plans->size(), 5u);
  EXPECT_TRUE(nearRel((*plans)[2].flowTime, 2 * N / (10 * GBps), 1e-4));
  EXPECT_LT((*plans)[4].flowTime, (*plans)[2].flowTime);
  // Unequal subgroups are refused.
  auto bad = planHierarchicalAllReduce(net, {{gpus[0]}, {gpus[1], gpus[2]}},
                                       N, {});
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("equal"), std::string::npos);
}
