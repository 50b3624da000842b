//===- TopoAnalysisTest.cpp - Topology analyses against brute force -------===//
//
// Widest paths, hop counts, components, min cuts and totals on hand-built
// topologies and on many small random graphs (fixed seeds), each checked
// against an exhaustive enumeration.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/TopoAnalysis.h"

#include "gtest/gtest.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace sluice;
using namespace sluice::analysis;

namespace {

constexpr double GBps = 1e9;
constexpr double us = 1e-6;

/// A random graph on `n` devices: links drawn from a few bandwidth classes
/// (so ties are common), some one-way, some bidirectional, plus a few
/// measured arcs that the structural analyses must ignore.
TopoGraph randomGraph(std::mt19937 &rng, unsigned n, unsigned numLinks) {
  static const char *kinds[] = {"gpu", "cpu", "nic", "switch"};
  TopoGraph g;
  for (unsigned i = 0; i < n; ++i)
    g.addDevice("node[" + std::to_string(i / 3) + "].dev[" + std::to_string(i) +
                    "]",
                kinds[rng() % 4]);
  static const double classes[] = {1, 2, 3, 5, 8};
  for (unsigned l = 0; l < numLinks; ++l) {
    unsigned a = rng() % n, b = rng() % n;
    double bw = classes[rng() % 5] * GBps;
    double lat = static_cast<double>(1 + rng() % 4) * us;
    bool bidir = rng() % 2 == 0;
    g.addLink(a, b, bw, lat, bidir, l);
  }
  for (unsigned m = 0, e = rng() % 3; m < e; ++m) {
    unsigned from = rng() % n;
    unsigned to = rng() % n;
    g.addMeasured(from, to, 100 * GBps);
  }
  return g;
}

/// Every simple path from `s` to `t` over modeled arcs, as arc lists.
void allSimplePaths(const TopoGraph &g, unsigned u, unsigned t,
                    std::vector<bool> &onPath, std::vector<unsigned> &path,
                    std::vector<std::vector<unsigned>> &out) {
  if (u == t) {
    out.push_back(path);
    return;
  }
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const TopoArc &a = g.arcs[i];
    if (a.measured || a.from != u || onPath[a.to])
      continue;
    onPath[a.to] = true;
    path.push_back(i);
    allSimplePaths(g, a.to, t, onPath, path, out);
    path.pop_back();
    onPath[a.to] = false;
  }
}

struct BruteForcePair {
  bool reachable = false;
  double widest = 0;
  unsigned minHops = kUnreachable;
  double minLatencyAmongWidest = std::numeric_limits<double>::infinity();
};

BruteForcePair bruteForce(const TopoGraph &g, unsigned s, unsigned t) {
  std::vector<std::vector<unsigned>> paths;
  std::vector<bool> onPath(g.devices.size(), false);
  std::vector<unsigned> path;
  onPath[s] = true;
  allSimplePaths(g, s, t, onPath, path, paths);
  BruteForcePair r;
  for (const auto &p : paths) {
    r.reachable = true;
    double bottleneck = std::numeric_limits<double>::infinity();
    double latency = 0;
    for (unsigned ai : p) {
      bottleneck = std::min(bottleneck, g.arcs[ai].bandwidth);
      latency += g.arcs[ai].latency;
    }
    r.minHops = std::min<unsigned>(r.minHops, p.size());
    if (bottleneck > r.widest) {
      r.widest = bottleneck;
      r.minLatencyAmongWidest = latency;
    } else if (bottleneck == r.widest) {
      r.minLatencyAmongWidest = std::min(r.minLatencyAmongWidest, latency);
    }
  }
  return r;
}

/// Minimum over all cuts (S with A inside and B outside) of the arc capacity
/// leaving S; also the intersection of every minimizing S.
struct BruteForceCut {
  double capacity = std::numeric_limits<double>::infinity();
  std::vector<bool> minimalSourceSide;
};

double cutCapacity(const TopoGraph &g, const std::vector<bool> &side) {
  double c = 0;
  for (const TopoArc &a : g.arcs)
    if (!a.measured && side[a.from] && !side[a.to])
      c += a.bandwidth;
  return c;
}

BruteForceCut bruteForceCut(const TopoGraph &g, const std::vector<unsigned> &a,
                            const std::vector<unsigned> &b) {
  unsigned n = g.devices.size();
  std::vector<int> fixed(n, -1);
  for (unsigned d : a)
    fixed[d] = 1;
  for (unsigned d : b)
    fixed[d] = 0;
  std::vector<unsigned> freeDevs;
  for (unsigned v = 0; v < n; ++v)
    if (fixed[v] < 0)
      freeDevs.push_back(v);
  BruteForceCut r;
  r.minimalSourceSide.assign(n, true);
  for (uint32_t mask = 0; mask < (1u << freeDevs.size()); ++mask) {
    std::vector<bool> side(n);
    for (unsigned v = 0; v < n; ++v)
      side[v] = fixed[v] == 1;
    for (unsigned i = 0; i < freeDevs.size(); ++i)
      side[freeDevs[i]] = (mask >> i) & 1;
    double c = cutCapacity(g, side);
    if (c < r.capacity) {
      r.capacity = c;
      r.minimalSourceSide = side;
    } else if (c == r.capacity) {
      for (unsigned v = 0; v < n; ++v)
        r.minimalSourceSide[v] = r.minimalSourceSide[v] && side[v];
    }
  }
  return r;
}

/// Two servers, each with two GPUs on NVLink, a NIC on PCIe to each GPU,
/// the NICs on a top-level switch; plus an NVMe drive on server 0.
TopoGraph twoServers() {
  TopoGraph g;
  unsigned gpu[2][2], nic[2];
  for (unsigned s = 0; s < 2; ++s) {
    std::string server = "server[" + std::to_string(s) + "]";
    for (unsigned i = 0; i < 2; ++i) {
      gpu[s][i] =
          g.addDevice(server + ".gpu[" + std::to_string(i) + "]", "gpu");
      g.addQuantity(gpu[s][i], "memory", 80.0 * (1ull << 30), Dim::bytes());
      g.addQuantity(gpu[s][i], "compute", 989e12, Dim::compute());
      g.addInt(gpu[s][i], "sms", 132);
      g.addString(gpu[s][i], "model", "H100");
    }
    nic[s] = g.addDevice(server + ".nic[0]", "nic");
    g.addQuantity(nic[s], "bandwidth", 50 * GBps, Dim::bandwidth());
    g.addBool(nic[s], "rdma", true);
  }
  unsigned sw = g.addDevice("spine", "switch");
  unsigned nvme = g.addDevice("server[0].nvme[0]", "nvme");
  g.addQuantity(nvme, "capacity", 4e12, Dim::bytes());
  unsigned link = 0;
  for (unsigned s = 0; s < 2; ++s) {
    g.addLink(gpu[s][0], gpu[s][1], 450 * GBps, 1 * us, true, link++,
              "nvlink4");
    for (unsigned i = 0; i < 2; ++i)
      g.addLink(gpu[s][i], nic[s], 32 * GBps, 2 * us, true, link++, "pcie5x16");
    g.addLink(nic[s], sw, 50 * GBps, 3 * us, true, link++, "ib");
  }
  g.addLink(nvme, gpu[0][0], 7 * GBps, 10 * us, false, link++, "pcie4x4");
  // Measured end-to-end GPU bandwidth across servers.
  g.addMeasured(gpu[0][0], gpu[1][0], 20 * GBps);
  g.addMeasured(gpu[0][0], gpu[1][0], 22 * GBps);
  return g;
}

//===----------------------------------------------------------------------===//
// Graph basics
//===----------------------------------------------------------------------===//

TEST(TopoGraph, GroupsKindsAndLinks) {
  EXPECT_EQ(TopoGraph::groupOf("server[3].gpu[2]"), "server[3]");
  EXPECT_EQ(TopoGraph::groupOf("pod[0].server[3].gpu[2]"), "pod[0]");
  EXPECT_EQ(TopoGraph::groupOf("spine"), "");

  TopoGraph g = twoServers();
  EXPECT_EQ(g.groups(), (std::vector<std::string>{"server[0]", "server[1]"}));
  EXPECT_EQ(g.kinds(),
            (std::vector<std::string>{"gpu", "nic", "switch", "nvme"}));
  EXPECT_EQ(g.numLinks(), 9u);
  EXPECT_EQ(g.numModeledArcs(), 17u);
  EXPECT_EQ(g.numMeasuredArcs(), 2u);
  EXPECT_EQ(g.findDevice("server[1].nic[0]"), std::optional<unsigned>(5));
  EXPECT_EQ(g.findDevice("server[2].nic[0]"), std::nullopt);
  ASSERT_NE(g.devices[0].findQuantity("memory"), nullptr);
  EXPECT_EQ(g.devices[0].findQuantity("memory")->display, "80 GiB");
  EXPECT_EQ(g.devices[0].findQuantity("latency"), nullptr);
}

TEST(TopoGraph, Selection) {
  TopoGraph g = twoServers();
  EXPECT_EQ(devicesOfKind(g, "gpu"), (std::vector<unsigned>{0, 1, 3, 4}));
  EXPECT_EQ(devicesInGroup(g, "server[0]"),
            (std::vector<unsigned>{0, 1, 2, 7}));
  EXPECT_EQ(devicesInGroup(g, ""), (std::vector<unsigned>{6}));
  EXPECT_EQ(devicesUnder(g, "server[1]"), (std::vector<unsigned>{3, 4, 5}));
  EXPECT_EQ(devicesUnder(g, "server"),
            (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 7}));
  EXPECT_EQ(devicesUnder(g, "server[0].gpu"), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(devicesUnder(g, "spine"), (std::vector<unsigned>{6}));
  EXPECT_EQ(devicesUnder(g, "spin"), (std::vector<unsigned>{}));
  EXPECT_EQ(selectDevices(g, "kind:nic"), (std::vector<unsigned>{2, 5}));
  EXPECT_EQ(selectDevices(g, "group:server[1]"),
            (std::vector<unsigned>{3, 4, 5}));
  EXPECT_EQ(selectDevices(g, "under:server[0].nvme[0]"),
            (std::vector<unsigned>{7}));
  EXPECT_EQ(selectDevices(g, "all")->size(), 8u);
  EXPECT_EQ(selectDevices(g, "gpu"), std::nullopt);
  EXPECT_EQ(selectDevices(g, "color:red"), std::nullopt);
}

//===----------------------------------------------------------------------===//
// Connectivity and paths on a known topology
//===----------------------------------------------------------------------===//

TEST(TopoAnalysis, ComponentsOfKnownTopology) {
  TopoGraph g = twoServers();
  unsigned lonely = g.addDevice("server[1].cpu[0]", "cpu");
  Components c = computeComponents(g);
  ASSERT_EQ(c.count(), 2u);
  EXPECT_EQ(c.members[0], (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.members[1], (std::vector<unsigned>{lonely}));
  EXPECT_TRUE(c.sameComponent(0, 7));
  EXPECT_FALSE(c.sameComponent(0, lonely));

  // The NVMe drive only sends: nothing reaches it.
  std::vector<bool> reach = computeReachable(g, 0);
  EXPECT_FALSE(reach[7]);
  EXPECT_FALSE(reach[lonely]);
  EXPECT_TRUE(reach[4]);
  EXPECT_TRUE(computeReachable(g, 7)[4]);
}

TEST(TopoAnalysis, WidestPathOnKnownTopology) {
  TopoGraph g = twoServers();
  WidestPathTree t = computeWidestPaths(g, 0);
  EXPECT_TRUE(std::isinf(t.bandwidth[0]));
  EXPECT_EQ(t.pathHops[0], 0u);
  EXPECT_EQ(t.bandwidth[1], 450 * GBps);
  EXPECT_DOUBLE_EQ(t.latency[1], 1 * us);
  // gpu0 -> nic (32) -> spine (50) -> nic (50) -> gpu (32).
  EXPECT_EQ(t.bandwidth[3], 32 * GBps);
  EXPECT_EQ(t.pathHops[3], 4u);
  EXPECT_DOUBLE_EQ(t.latency[3], 2 * us + 3 * us + 3 * us + 2 * us);
  EXPECT_FALSE(t.reachable(7));
  EXPECT_EQ(t.bandwidth[7], 0);
  EXPECT_TRUE(t.pathTo(g, 7).empty());
  std::vector<unsigned> path = t.pathTo(g, 3);
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(g.arcs[path.front()].from, 0u);
  EXPECT_EQ(g.arcs[path.back()].to, 3u);

  std::vector<unsigned> hops = computeHopCounts(g, 7);
  EXPECT_EQ(hops, (std::vector<unsigned>{1, 2, 2, 5, 5, 4, 3, 0}));
}

TEST(TopoAnalysis, PairMatrixWithAttained) {
  TopoGraph g = twoServers();
  std::vector<unsigned> gpus = devicesOfKind(g, "gpu");
  PairMatrix m = computePairMatrix(g, gpus);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_TRUE(m.hasAttained());
  const PairMetrics &diag = m.at(1, 1);
  EXPECT_TRUE(diag.reachable);
  EXPECT_TRUE(std::isinf(diag.bandwidth));
  EXPECT_EQ(diag.hops, 0u);
  const PairMetrics &cross = m.at(0, 2);
  EXPECT_EQ(cross.bandwidth, 32 * GBps);
  EXPECT_EQ(cross.hops, 4u);
  EXPECT_EQ(cross.pathHops, 4u);
  // The later of the two measurements wins.
  ASSERT_TRUE(cross.attained.has_value());
  EXPECT_EQ(*cross.attained, 22 * GBps);
  EXPECT_FALSE(m.at(2, 0).attained.has_value());
  EXPECT_EQ(m.at(0, 1).bandwidth, 450 * GBps);

  // Measured arcs take no part in the modeled paths.
  TopoGraph h;
  h.addDevice("a", "gpu");
  h.addDevice("b", "gpu");
  h.addMeasured(0, 1, 5 * GBps);
  PairMatrix hm = computePairMatrix(h, {0, 1});
  EXPECT_FALSE(hm.at(0, 1).reachable);
  EXPECT_EQ(hm.at(0, 1).bandwidth, 0);
  EXPECT_EQ(hm.at(0, 1).hops, kUnreachable);
  EXPECT_EQ(hm.at(0, 1).attained, std::optional<double>(5 * GBps));
}

TEST(TopoAnalysis, WidestPathPrefersLowLatencyOnTies) {
  // Two 10 GB/s routes a -> d: via b (latency 5) and via c (latency 2).
  TopoGraph g;
  for (const char *n : {"a", "b", "c", "d"})
    g.addDevice(n, "gpu");
  g.addLink(0, 1, 10 * GBps, 1 * us, false);
  g.addLink(1, 3, 10 * GBps, 4 * us, false);
  g.addLink(0, 2, 10 * GBps, 1 * us, false);
  g.addLink(2, 3, 10 * GBps, 1 * us, false);
  WidestPathTree t = computeWidestPaths(g, 0);
  EXPECT_EQ(t.bandwidth[3], 10 * GBps);
  EXPECT_DOUBLE_EQ(t.latency[3], 2 * us);
  EXPECT_EQ(g.arcs[t.predArc[3]].from, 2u);
}

TEST(TopoAnalysis, WidestPathLatencyIsThatOfTheKeptPath) {
  // The example of docs/analysis.md: at v the wider direct route wins, so
  // t inherits its latency although s -> u -> v -> t is as wide and faster.
  TopoGraph g;
  for (const char *n : {"s", "u", "v", "t"})
    g.addDevice(n, "gpu");
  g.addLink(0, 2, 10 * GBps, 100 * us, false);
  g.addLink(0, 1, 5 * GBps, 1 * us, false);
  g.addLink(1, 2, 5 * GBps, 1 * us, false);
  g.addLink(2, 3, 1 * GBps, 0, false);
  WidestPathTree t = computeWidestPaths(g, 0);
  EXPECT_EQ(t.bandwidth[2], 10 * GBps);
  EXPECT_EQ(t.bandwidth[3], 1 * GBps);
  EXPECT_DOUBLE_EQ(t.latency[3], 100 * us);
  EXPECT_EQ(t.pathHops[3], 2u);
  EXPECT_EQ(t.pathTo(g, 3), (std::vector<unsigned>{0, 3}));
}

//===----------------------------------------------------------------------===//
// Random graphs against brute force
//===----------------------------------------------------------------------===//

TEST(TopoAnalysisRandom, WidestPathAndHopsMatchBruteForce) {
  unsigned checkedPairs = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    unsigned n = 2 + rng() % 6;
    TopoGraph g = randomGraph(rng, n, rng() % (2 * n + 2));
    std::vector<unsigned> all = *selectDevices(g, "all");
    PairMatrix m = computePairMatrix(g, all);
    for (unsigned s = 0; s < n; ++s) {
      WidestPathTree t = computeWidestPaths(g, s);
      std::vector<unsigned> hops = computeHopCounts(g, s);
      for (unsigned d = 0; d < n; ++d) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " pair " +
                     std::to_string(s) + " -> " + std::to_string(d));
        const PairMetrics &cell = m.at(s, d);
        EXPECT_EQ(cell.bandwidth, t.bandwidth[d]);
        EXPECT_EQ(cell.latency, t.latency[d]);
        EXPECT_EQ(cell.hops, hops[d]);
        if (s == d) {
          EXPECT_TRUE(cell.reachable);
          EXPECT_EQ(cell.hops, 0u);
          continue;
        }
        ++checkedPairs;
        BruteForcePair bf = bruteForce(g, s, d);
        ASSERT_EQ(cell.reachable, bf.reachable);
        EXPECT_EQ(hops[d], bf.minHops);
        if (!bf.reachable) {
          EXPECT_EQ(t.bandwidth[d], 0);
          EXPECT_TRUE(t.pathTo(g, d).empty());
          continue;
        }
        EXPECT_EQ(t.bandwidth[d], bf.widest);
        // The kept path is a real simple widest path whose latency and
        // length are the ones reported.
        std::vector<unsigned> path = t.pathTo(g, d);
        ASSERT_EQ(path.size(), t.pathHops[d]);
        unsigned at = s;
        double bottleneck = std::numeric_limits<double>::infinity();
        double latency = 0;
        std::vector<bool> visited(n, false);
        visited[s] = true;
        for (unsigned ai : path) {
          const TopoArc &a = g.arcs[ai];
          EXPECT_FALSE(a.measured);
          ASSERT_EQ(a.from, at);
          EXPECT_FALSE(visited[a.to]);
          visited[a.to] = true;
          bottleneck = std::min(bottleneck, a.bandwidth);
          latency += a.latency;
          at = a.to;
        }
        EXPECT_EQ(at, d);
        EXPECT_EQ(bottleneck, bf.widest);
        EXPECT_EQ(latency, t.latency[d]);
        EXPECT_GE(t.latency[d], bf.minLatencyAmongWidest);
        EXPECT_GE(t.pathHops[d], bf.minHops);
      }
    }
  }
  EXPECT_GT(checkedPairs, 3000u);
}

TEST(TopoAnalysisRandom, ComponentsMatchUnionFind) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    unsigned n = 1 + rng() % 9;
    TopoGraph g = randomGraph(rng, n, rng() % (n + 2));
    std::vector<unsigned> parent(n);
    for (unsigned i = 0; i < n; ++i)
      parent[i] = i;
    auto find = [&](unsigned x) {
      while (parent[x] != x)
        x = parent[x];
      return x;
    };
    for (const TopoArc &a : g.arcs)
      if (!a.measured)
        parent[find(a.from)] = find(a.to);
    Components c = computeComponents(g);
    SCOPED_TRACE("seed " + std::to_string(seed));
    unsigned total = 0;
    for (unsigned id = 0; id < c.count(); ++id) {
      const auto &members = c.members[id];
      ASSERT_FALSE(members.empty());
      EXPECT_TRUE(std::is_sorted(members.begin(), members.end()));
      if (id > 0) {
        EXPECT_LT(c.members[id - 1].front(), members.front());
      }
      total += members.size();
    }
    EXPECT_EQ(total, n);
    for (unsigned a = 0; a < n; ++a)
      for (unsigned b = 0; b < n; ++b)
        EXPECT_EQ(c.sameComponent(a, b), find(a) == find(b));
  }
}

TEST(TopoAnalysisRandom, MinCutMatchesBruteForce) {
  unsigned nontrivial = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    std::mt19937 rng(seed);
    unsigned n = 2 + rng() % 7;
    TopoGraph g = randomGraph(rng, n, rng() % (3 * n));
    // Disjoint random A and B, each non-empty.
    std::vector<unsigned> perm(n);
    for (unsigned i = 0; i < n; ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    unsigned na = 1 + rng() % (n - 1);
    unsigned nb = 1 + rng() % (n - na);
    std::vector<unsigned> a(perm.begin(), perm.begin() + na);
    std::vector<unsigned> b(perm.begin() + na, perm.begin() + na + nb);

    SCOPED_TRACE("seed " + std::to_string(seed));
    CutResult cut = computeMinCut(g, a, b, "random");
    BruteForceCut bf = bruteForceCut(g, a, b);
    EXPECT_EQ(cut.label, "random");
    EXPECT_EQ(cut.capacity, bf.capacity);
    EXPECT_EQ(cut.capacity, cutCapacity(g, cut.sourceSide));
    // The reported source side is the cut closest to A.
    EXPECT_EQ(cut.sourceSide, bf.minimalSourceSide);
    for (unsigned d : a)
      EXPECT_TRUE(cut.sourceSide[d]);
    for (unsigned d : b)
      EXPECT_FALSE(cut.sourceSide[d]);
    std::vector<unsigned> crossing;
    for (unsigned i = 0; i < g.arcs.size(); ++i)
      if (!g.arcs[i].measured && cut.sourceSide[g.arcs[i].from] &&
          !cut.sourceSide[g.arcs[i].to])
        crossing.push_back(i);
    EXPECT_EQ(cut.cutArcs, crossing);
    if (cut.capacity > 0)
      ++nontrivial;
  }
  EXPECT_GT(nontrivial, 100u);
}

/// Gives each "nic" of `g` a random line rate from the bandwidth classes
/// (or none), so that some paths are limited by a NIC.
void addNicRates(std::mt19937 &rng, TopoGraph &g) {
  static const double classes[] = {1, 2, 3, 5, 8};
  for (unsigned v = 0, n = g.devices.size(); v < n; ++v)
    if (g.devices[v].kind == "nic" && rng() % 4 != 0)
      g.addQuantity(v, "bandwidth", classes[rng() % 5] * GBps,
                    Dim::bandwidth());
}

/// `g` with every device that has a through-rate split into "in" (the
/// device's index) and "out" (appended) joined by an arc of that rate:
/// the textbook reduction of node capacities to arc capacities, built by
/// hand as the oracle for computeMaxFlowRow.
TopoGraph splitNics(const TopoGraph &g, std::vector<unsigned> &outHalf) {
  TopoGraph h;
  unsigned n = g.devices.size();
  for (unsigned v = 0; v < n; ++v)
    h.addDevice(g.devices[v].name, "gpu");
  outHalf.resize(n);
  for (unsigned v = 0; v < n; ++v) {
    outHalf[v] = v;
    if (std::optional<double> rate = g.devices[v].throughRate()) {
      outHalf[v] = h.addDevice(g.devices[v].name + ".out", "gpu");
      h.addLink(v, outHalf[v], *rate, 0, false);
    }
  }
  for (const TopoArc &a : g.arcs)
    if (!a.measured && a.from != a.to)
      h.addLink(outHalf[a.from], a.to, a.bandwidth, 0, false);
  return h;
}

TEST(TopoAnalysisRandom, PairMaxFlowMatchesBruteForceCut) {
  unsigned limited = 0, wider = 0;
  for (unsigned seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    unsigned n = 2 + rng() % 6;
    TopoGraph g = randomGraph(rng, n, rng() % (3 * n));
    addNicRates(rng, g);
    std::vector<unsigned> outHalf;
    TopoGraph h = splitNics(g, outHalf);
    std::vector<unsigned> all(n);
    for (unsigned i = 0; i < n; ++i)
      all[i] = i;
    SCOPED_TRACE("seed " + std::to_string(seed));
    PairMatrix m = computePairMatrix(g, all, /*maxFlow=*/true);
    ASSERT_TRUE(m.hasMaxFlow);
    for (unsigned s = 0; s < n; ++s)
      for (unsigned t = 0; t < n; ++t) {
        const PairMetrics &cell = m.at(s, t);
        ASSERT_TRUE(cell.maxFlow.has_value());
        if (s == t) {
          EXPECT_TRUE(std::isinf(*cell.maxFlow));
          continue;
        }
        // The flow starts at the source's in-half, ends at the sink's
        // out-half: both rates count.
        double expected = bruteForceCut(h, {s}, {outHalf[t]}).capacity;
        EXPECT_NEAR(*cell.maxFlow, expected, 1e-6 * (1 + expected))
            << s << " -> " << t;
        // Without NICs in the way the max flow is the single-pair min cut.
        if (outHalf == all) {
          EXPECT_EQ(*cell.maxFlow, computeMinCut(g, {s}, {t}).capacity);
        }
        // Never below the widest path, which is one of its routes.
        if (cell.reachable) {
          EXPECT_GE(*cell.maxFlow, cell.bandwidth * (1 - 1e-12));
        }
        limited += outHalf != all && expected > 0;
        wider += *cell.maxFlow > cell.bandwidth * (1 + 1e-9);
      }
  }
  EXPECT_GT(limited, 50u);
  EXPECT_GT(wider, 50u);
}

TEST(TopoAnalysisRandom, WidestPathRespectsNicRates) {
  unsigned capped = 0;
  for (unsigned seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    unsigned n = 2 + rng() % 6;
    TopoGraph g = randomGraph(rng, n, rng() % (3 * n));
    addNicRates(rng, g);
    auto rate = [&](unsigned v) {
      return g.devices[v].throughRate().value_or(
          std::numeric_limits<double>::infinity());
    };
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (unsigned s = 0; s < n; ++s) {
      WidestPathTree t = computeWidestPaths(g, s);
      for (unsigned d = 0; d < n; ++d) {
        if (d == s)
          continue;
        // Every simple path's bottleneck over its arcs and its devices.
        std::vector<std::vector<unsigned>> paths;
        std::vector<bool> onPath(n, false);
        std::vector<unsigned> path;
        onPath[s] = true;
        allSimplePaths(g, s, d, onPath, path, paths);
        double widest = 0;
        for (const auto &p : paths) {
          double b = rate(s);
          for (unsigned ai : p)
            b = std::min({b, g.arcs[ai].bandwidth, rate(g.arcs[ai].to)});
          widest = std::max(widest, b);
        }
        EXPECT_EQ(t.bandwidth[d], widest) << s << " -> " << d;
        capped += bruteForce(g, s, d).widest > widest;
      }
    }
  }
  EXPECT_GT(capped, 20u);
}

TEST(TopoAnalysis, MaxFlowCountsParallelSwitches) {
  // Two GPUs, each with 112.5 GB/s to each of four switch chips (a DGX
  // H100 drawn with its NVSwitches): one path carries 112.5 GB/s, all four
  // 450 GB/s.
  TopoGraph g;
  unsigned g0 = g.addDevice("gpu[0]", "gpu");
  unsigned g1 = g.addDevice("gpu[1]", "gpu");
  for (unsigned k = 0; k < 4; ++k) {
    unsigned sw = g.addDevice("nvswitch[" + std::to_string(k) + "]", "switch");
    g.addLink(g0, sw, 112.5 * GBps, 0, true, 2 * k);
    g.addLink(g1, sw, 112.5 * GBps, 0, true, 2 * k + 1);
  }
  PairMatrix m = computePairMatrix(g, {g0, g1}, /*maxFlow=*/true);
  EXPECT_EQ(m.at(0, 1).bandwidth, 112.5 * GBps);
  EXPECT_EQ(m.at(0, 1).maxFlow, std::optional<double>(450 * GBps));
  EXPECT_EQ(m.at(1, 0).maxFlow, std::optional<double>(450 * GBps));
  // Without the flag the cells carry no max-flow.
  PairMatrix plain = computePairMatrix(g, {g0, g1});
  EXPECT_FALSE(plain.hasMaxFlow);
  EXPECT_FALSE(plain.at(0, 1).maxFlow.has_value());
}

TEST(TopoAnalysis, NicRateLimitsPathsThroughIt) {
  // gpu -> nic -> switch -> nic -> gpu over 100 GB/s links, NICs at
  // 25 GB/s (200 Gb/s): both the widest path and the max flow are 25 GB/s.
  TopoGraph g;
  unsigned a = g.addDevice("a.gpu", "gpu");
  unsigned na = g.addDevice("a.nic", "nic");
  unsigned sw = g.addDevice("leaf", "switch");
  unsigned nb = g.addDevice("b.nic", "nic");
  unsigned b = g.addDevice("b.gpu", "gpu");
  g.addQuantity(na, "bandwidth", 25 * GBps, Dim::bandwidth());
  g.addQuantity(nb, "bandwidth", 25 * GBps, Dim::bandwidth());
  g.addLink(a, na, 100 * GBps, 0, true, 0);
  g.addLink(na, sw, 100 * GBps, 0, true, 1);
  g.addLink(sw, nb, 100 * GBps, 0, true, 2);
  g.addLink(nb, b, 100 * GBps, 0, true, 3);
  PairMatrix m = computePairMatrix(g, {a, b}, /*maxFlow=*/true);
  EXPECT_EQ(m.at(0, 1).bandwidth, 25 * GBps);
  EXPECT_EQ(m.at(0, 1).maxFlow, std::optional<double>(25 * GBps));
  // A NIC as an endpoint is limited by its own rate too.
  EXPECT_EQ(computeMaxFlowRow(g, na, {sw}), std::vector<double>{25 * GBps});
  EXPECT_EQ(computeWidestPaths(g, na).bandwidth[sw], 25 * GBps);
}

TEST(TopoAnalysis, UnknownLatencyPropagatesAlongThePath) {
  TopoGraph g;
  for (unsigned i = 0; i < 3; ++i)
    g.addDevice("gpu[" + std::to_string(i) + "]", "gpu");
  g.addLink(0, 1, 10 * GBps, 1 * us, true, 0);
  unsigned unknown = g.addLink(1, 2, 10 * GBps, 0, true, 1);
  g.arcs[unknown].latencyKnown = g.arcs[unknown + 1].latencyKnown = false;
  PairMatrix m = computePairMatrix(g, {0, 1, 2});
  EXPECT_TRUE(m.at(0, 0).latencyKnown);
  EXPECT_TRUE(m.at(0, 1).latencyKnown);
  EXPECT_EQ(m.at(0, 1).latency, 1 * us);
  EXPECT_FALSE(m.at(0, 2).latencyKnown);
  EXPECT_FALSE(m.at(1, 2).latencyKnown);
  EXPECT_FALSE(m.at(2, 0).latencyKnown);
}

//===----------------------------------------------------------------------===//
// Cuts and totals on a known topology
//===----------------------------------------------------------------------===//

TEST(TopoAnalysis, BisectionOfGpus) {
  TopoGraph g = twoServers();
  BisectionResult b = computeBisection(g, {4, 3, 1, 0, 0});
  EXPECT_EQ(b.firstHalf, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(b.secondHalf, (std::vector<unsigned>{3, 4}));
  // Server 0's GPUs reach the rest only through the NIC's 50 GB/s uplink.
  EXPECT_EQ(b.forward.capacity, 50 * GBps);
  EXPECT_EQ(b.backward.capacity, 50 * GBps);
  EXPECT_EQ(b.bandwidth, 50 * GBps);
  ASSERT_EQ(b.forward.cutArcs.size(), 1u);
  const TopoArc &arc = g.arcs[b.forward.cutArcs[0]];
  EXPECT_EQ(g.devices[arc.from].name, "server[0].nic[0]");
  EXPECT_EQ(g.devices[arc.to].name, "spine");
  // Closest to the sources: server 0's NIC sits on the source side, and
  // the drive (which nothing reaches) stays out.
  EXPECT_TRUE(b.forward.sourceSide[2]);
  EXPECT_FALSE(b.forward.sourceSide[6]);
  EXPECT_FALSE(b.forward.sourceSide[7]);
}

TEST(TopoAnalysis, CutEdgeCases) {
  TopoGraph g = twoServers();
  CutResult empty = computeMinCut(g, {}, {3});
  EXPECT_EQ(empty.capacity, 0);
  EXPECT_TRUE(empty.cutArcs.empty());
  EXPECT_EQ(std::count(empty.sourceSide.begin(), empty.sourceSide.end(), true),
            0);

  CutResult overlap = computeMinCut(g, {0, 1}, {1, 3});
  EXPECT_TRUE(std::isinf(overlap.capacity));
  EXPECT_TRUE(overlap.cutArcs.empty());

  // Nothing reaches the drive: the cut into it is empty.
  CutResult toDrive = computeMinCut(g, {0}, {7});
  EXPECT_EQ(toDrive.capacity, 0);
  EXPECT_TRUE(toDrive.cutArcs.empty());

  // Out of the drive, the one-way 7 GB/s link is the bottleneck.
  CutResult fromDrive = computeMinCut(g, {7}, {0, 1});
  EXPECT_EQ(fromDrive.capacity, 7 * GBps);

  BisectionResult single = computeBisection(g, {0});
  EXPECT_TRUE(single.firstHalf.empty());
  EXPECT_EQ(single.bandwidth, 0);
}

TEST(TopoAnalysis, Totals) {
  TopoGraph g = twoServers();
  GraphTotals t = computeTotals(g);
  EXPECT_EQ(t.devices, 8u);
  EXPECT_EQ(t.links, 9u);
  EXPECT_EQ(t.modeledArcs, 17u);
  EXPECT_EQ(t.measuredArcs, 2u);
  EXPECT_EQ(t.arcBandwidth, (2 * (2 * 450 + 4 * 32 + 2 * 50) + 7) * GBps);
  ASSERT_EQ(t.kinds.size(), 4u);
  const KindTotals &gpu = t.kinds[0];
  EXPECT_EQ(gpu.kind, "gpu");
  EXPECT_EQ(gpu.count, 4u);
  ASSERT_EQ(gpu.quantities.size(), 2u);
  EXPECT_EQ(gpu.quantities[0].name, "memory");
  EXPECT_EQ(gpu.quantities[0].dim, Dim::bytes());
  EXPECT_EQ(gpu.quantities[0].value, 320.0 * (1ull << 30));
  EXPECT_EQ(gpu.quantities[0].count, 4u);
  EXPECT_EQ(gpu.quantities[1].name, "compute");
  EXPECT_DOUBLE_EQ(gpu.quantities[1].value, 4 * 989e12);
  ASSERT_EQ(gpu.ints.size(), 1u);
  EXPECT_EQ(gpu.ints[0].name, "sms");
  EXPECT_EQ(gpu.ints[0].value, 528);
  // Each GPU: NVLink (450) + PCIe (32) out; GPU 0 of server 0 also gets
  // the drive's 7 in.
  EXPECT_EQ(gpu.arcsOut, 8u);
  EXPECT_EQ(gpu.egressBandwidth, 4 * (450 + 32) * GBps);
  EXPECT_EQ(gpu.arcsIn, 9u);
  EXPECT_EQ(gpu.ingressBandwidth, 4 * (450 + 32) * GBps + 7 * GBps);
  const KindTotals &nic = t.kinds[1];
  EXPECT_EQ(nic.kind, "nic");
  EXPECT_EQ(nic.quantities[0].value, 100 * GBps);
  EXPECT_EQ(nic.egressBandwidth, 2 * (2 * 32 + 50) * GBps);
  EXPECT_EQ(t.kinds[2].kind, "switch");
  EXPECT_EQ(t.kinds[2].egressBandwidth, 100 * GBps);
  EXPECT_EQ(t.kinds[3].kind, "nvme");
  EXPECT_EQ(t.kinds[3].quantities[0].value, 4e12);
  EXPECT_EQ(t.kinds[3].arcsIn, 0u);
}

TEST(TopoAnalysis, AnalyzeTopologyIsDeterministic) {
  TopoGraph g = twoServers();
  TopoAnalysisOptions opts;
  opts.cuts.push_back(
      {"drive to server 1", {7}, devicesInGroup(g, "server[1]")});
  TopoAnalysisResult a = analyzeTopology(g, opts);
  TopoAnalysisResult b = analyzeTopology(TopoGraph(g), opts);
  EXPECT_EQ(a.matrixKind, "gpu");
  EXPECT_EQ(a.matrix.devices, b.matrix.devices);
  ASSERT_TRUE(a.bisection && b.bisection);
  EXPECT_EQ(a.bisection->forward.sourceSide, b.bisection->forward.sourceSide);
  ASSERT_EQ(a.cuts.size(), 1u);
  EXPECT_EQ(a.cuts[0].label, "drive to server 1");
  EXPECT_EQ(a.cuts[0].capacity, 7 * GBps);
  EXPECT_EQ(a.cuts[0].cutArcs, b.cuts[0].cutArcs);

  TopoAnalysisOptions all;
  all.matrixKind = "";
  all.bisection = false;
  TopoAnalysisResult c = analyzeTopology(g, all);
  EXPECT_EQ(c.matrix.size(), 8u);
  EXPECT_FALSE(c.bisection.has_value());
}

} // namespace
