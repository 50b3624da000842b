//===- FlowTestUtils.h - Random networks and brute-force checks -*- C++ -*-===//
//
// Shared by the flow tests: random small topologies (fixed seeds), demand
// generators, an exhaustive cut bound over all node subsets, a checker of
// every invariant a FlowSchedule promises, and DGX-A100-like machines built
// after examples/machines/dgx-a100.sluice.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_FLOW_FLOWTESTUTILS_H
#define SLUICE_TEST_UNIT_FLOW_FLOWTESTUTILS_H

#include "compiler/Analysis/Flow/FlowSolvers.h"

#include "gtest/gtest.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace sluice::flow::test {

constexpr double GB = 1e9;
constexpr double GBps = 1e9;

/// A random TopoGraph on `n` devices with links drawn from a few bandwidth
/// classes (ties are common), some one-way, plus measured arcs and a
/// self-loop that buildNetwork must drop.
inline analysis::TopoGraph randomTopo(std::mt19937 &rng, unsigned n,
                                      unsigned numLinks) {
  static const char *kinds[] = {"gpu", "cpu", "nvme", "switch"};
  analysis::TopoGraph g;
  for (unsigned i = 0; i < n; ++i)
    g.addDevice("server[" + std::to_string(i / 4) + "].dev[" +
                    std::to_string(i) + "]",
                kinds[rng() % 4]);
  static const double classes[] = {1, 2, 3, 5, 8, 12.5};
  for (unsigned l = 0; l < numLinks; ++l) {
    unsigned a = rng() % n, b = rng() % n;
    double bw = classes[rng() % 6] * GBps;
    bool bidir = rng() % 3 != 0;
    g.addLink(a, b, bw, 1e-6, bidir, l);
  }
  if (rng() % 2)
    g.addMeasured(rng() % n, rng() % n, 100 * GBps);
  return g;
}

inline FlowNetwork randomNetwork(std::mt19937 &rng, unsigned n,
                                 unsigned numLinks) {
  return buildNetwork(randomTopo(rng, n, numLinks));
}

/// reach[u][v]: a directed path from u to v exists.
inline std::vector<std::vector<bool>> reachability(const FlowNetwork &net) {
  unsigned n = net.numNodes();
  std::vector<std::vector<bool>> r(n, std::vector<bool>(n, false));
  for (unsigned s = 0; s < n; ++s) {
    std::vector<unsigned> stack = {s};
    r[s][s] = true;
    while (!stack.empty()) {
      unsigned u = stack.back();
      stack.pop_back();
      for (const FlowArc &a : net.arcs)
        if (a.from == u && !r[s][a.to]) {
          r[s][a.to] = true;
          stack.push_back(a.to);
        }
    }
  }
  return r;
}

inline double randomBytes(std::mt19937 &rng) {
  static const double classes[] = {0.5, 1, 2, 3, 7};
  return classes[rng() % 5] * GB;
}

/// A gather (sink = true) into one node or a scatter out of one, over the
/// nodes that can reach it (or that it reaches); empty if there are none.
inline std::vector<Demand>
randomSingleCommodity(std::mt19937 &rng, const FlowNetwork &net, bool sink) {
  auto reach = reachability(net);
  unsigned n = net.numNodes();
  unsigned hub = rng() % n;
  std::vector<Demand> out;
  for (unsigned v = 0; v < n; ++v) {
    if (v == hub || rng() % 3 == 0)
      continue;
    if (sink && reach[v][hub])
      out.push_back({v, hub, randomBytes(rng)});
    if (!sink && reach[hub][v])
      out.push_back({hub, v, randomBytes(rng)});
  }
  // Now and then a duplicate pair, a local and a zero-byte demand.
  if (!out.empty() && rng() % 4 == 0)
    out.push_back(
        {out.front().source, out.front().destination, randomBytes(rng)});
  if (rng() % 5 == 0)
    out.push_back({hub, hub, GB});
  if (!out.empty() && rng() % 5 == 0)
    out.push_back({out.back().source, out.back().destination, 0});
  return out;
}

/// Up to `count` demands between random reachable pairs.
inline std::vector<Demand>
randomDemands(std::mt19937 &rng, const FlowNetwork &net, unsigned count) {
  auto reach = reachability(net);
  unsigned n = net.numNodes();
  std::vector<Demand> out;
  for (unsigned tries = 0; tries < 8 * count && out.size() < count; ++tries) {
    unsigned s = rng() % n, t = rng() % n;
    if (s != t && reach[s][t])
      out.push_back({s, t, randomBytes(rng)});
  }
  return out;
}

/// max over node sets S of (demand bytes from S to V \ S) / (capacity of
/// arcs from S to V \ S), over all 2^n sets; +infinity if some S has demand
/// across it and no capacity.
inline double bruteForceCutBound(const FlowNetwork &net,
                                 llvm::ArrayRef<Demand> demands) {
  unsigned n = net.numNodes();
  EXPECT_LE(n, 16u) << "brute force over 2^n node sets";
  double best = 0;
  for (uint32_t mask = 1; mask + 1 < (1u << n); ++mask) {
    auto in = [&](unsigned v) { return (mask >> v) & 1u; };
    double bytes = 0, cap = 0;
    for (const Demand &d : demands)
      if (in(d.source) && !in(d.destination))
        bytes += d.bytes;
    if (bytes == 0)
      continue;
    for (const FlowArc &a : net.arcs)
      if (in(a.from) && !in(a.to))
        cap += a.capacity;
    if (cap == 0)
      return std::numeric_limits<double>::infinity();
    best = std::max(best, bytes / cap);
  }
  return best;
}

/// Moment's bound: sources free among `supply` nodes, so only sets S that
/// hold every supply node count; the bytes across S are the needs outside
/// it (or the whole target if `aggregate` and no destination is inside).
inline double bruteForceMomentBound(const FlowNetwork &net,
                                    const std::vector<unsigned> &supply,
                                    const MomentProblem &p) {
  unsigned n = net.numNodes();
  double best = 0, total = 0;
  for (const auto &[node, bytes] : p.needs)
    total += bytes;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    auto in = [&](unsigned v) { return (mask >> v) & 1u; };
    if (!std::all_of(supply.begin(), supply.end(), in))
      continue;
    double bytes = 0;
    bool anyInside = false;
    for (const auto &[node, need] : p.needs) {
      if (!in(node))
        bytes += need;
      else if (need > 0)
        anyInside = true;
    }
    if (p.aggregateSink)
      bytes = anyInside ? 0 : total;
    if (bytes == 0)
      continue;
    double cap = 0;
    for (const FlowArc &a : net.arcs)
      if (in(a.from) && !in(a.to))
        cap += a.capacity;
    if (cap == 0)
      return std::numeric_limits<double>::infinity();
    best = std::max(best, bytes / cap);
  }
  return best;
}

inline bool nearRel(double a, double b, double rel) {
  return std::fabs(a - b) <=
         rel * std::max({std::fabs(a), std::fabs(b), 1e-300});
}

/// Every promise of a FlowSchedule: one route per demand in order; paths are
/// simple real paths from source to destination; their bytes sum to the
/// demand; rate segments cover [0, finish] and sum to the bytes; at every
/// moment every arc carries at most its capacity; nothing finishes after
/// the makespan; the arc usage matches the paths.
inline void checkSchedule(const FlowNetwork &net,
                          llvm::ArrayRef<Demand> demands,
                          const FlowSchedule &s) {
  ASSERT_EQ(s.routes.size(), demands.size());
  ASSERT_EQ(s.arcs.size(), net.numArcs());
  std::vector<double> load(net.numArcs(), 0);
  // (time, arc) -> rate change, to check capacity at every moment.
  std::map<double, std::vector<std::pair<unsigned, double>>> changes;
  for (unsigned i = 0; i < demands.size(); ++i) {
    const DemandRoute &r = s.routes[i];
    const Demand &d = demands[i];
    EXPECT_TRUE(r.demand == d) << "demand " << i;
    if (d.isLocal() || d.bytes == 0) {
      EXPECT_TRUE(r.paths.empty()) << "demand " << i;
      continue;
    }
    ASSERT_FALSE(r.paths.empty()) << "demand " << i;
    double sum = 0, finish = 0;
    for (const PathFlow &p : r.paths) {
      EXPECT_GT(p.bytes, 0);
      sum += p.bytes;
      finish = std::max(finish, p.finish);
      ASSERT_FALSE(p.arcs.empty());
      std::set<unsigned> seen = {d.source};
      unsigned at = d.source;
      for (unsigned a : p.arcs) {
        ASSERT_LT(a, net.numArcs());
        EXPECT_EQ(net.arcs[a].from, at) << "demand " << i << " arc " << a;
        at = net.arcs[a].to;
        EXPECT_TRUE(seen.insert(at).second) << "path revisits node " << at;
        load[a] += p.bytes;
      }
      EXPECT_EQ(at, d.destination) << "demand " << i;
      EXPECT_LE(p.finish, s.makespan * (1 + 1e-12));
      ASSERT_FALSE(p.segments.empty());
      EXPECT_EQ(p.segments.front().start, 0);
      EXPECT_EQ(p.segments.back().end, p.finish);
      double sent = 0;
      for (size_t k = 0; k < p.segments.size(); ++k) {
        const RateSegment &seg = p.segments[k];
        if (k > 0) {
          EXPECT_EQ(seg.start, p.segments[k - 1].end);
        }
        EXPECT_GE(seg.end, seg.start);
        sent += seg.rate * (seg.end - seg.start);
        for (unsigned a : p.arcs) {
          changes[seg.start].push_back({a, seg.rate});
          changes[seg.end].push_back({a, -seg.rate});
        }
      }
      EXPECT_TRUE(nearRel(sent, p.bytes, 1e-9)) << sent << " vs " << p.bytes;
      EXPECT_TRUE(nearRel(p.rate * p.finish, p.bytes, 1e-12));
    }
    EXPECT_TRUE(nearRel(sum, d.bytes, 1e-12)) << sum << " vs " << d.bytes;
    EXPECT_EQ(r.finish, finish);
  }
  std::vector<double> rate(net.numArcs(), 0);
  for (const auto &[t, deltas] : changes) {
    for (const auto &[a, dr] : deltas)
      rate[a] += dr;
    for (unsigned a = 0; a < net.numArcs(); ++a) {
      EXPECT_LE(rate[a], net.arcs[a].capacity * (1 + 1e-9))
          << "arc " << a << " at t=" << t;
    }
  }
  for (unsigned a = 0; a < net.numArcs(); ++a) {
    EXPECT_TRUE(nearRel(s.arcs[a].bytes, load[a], 1e-12) ||
                (load[a] == 0 && s.arcs[a].bytes == 0));
    EXPECT_LE(load[a], net.arcs[a].capacity * s.makespan * (1 + 1e-12));
    EXPECT_LE(s.arcs[a].utilisation, 1 + 1e-12);
  }
}

/// The devices and links of one DGX A100 (examples/machines/dgx-a100.sluice)
/// under `prefix`; returns the device indices by role.
struct DgxIndices {
  std::vector<unsigned> gpus, nvswitches, cpus, pcie, nics, storageNics, ssds;
};

inline DgxIndices addDgxA100(analysis::TopoGraph &g,
                             const std::string &prefix) {
  DgxIndices d;
  auto add = [&](std::vector<unsigned> &out, const char *name, const char *kind,
                 unsigned count) {
    for (unsigned i = 0; i < count; ++i)
      out.push_back(g.addDevice(
          prefix + "." + name + "[" + std::to_string(i) + "]", kind));
  };
  add(d.gpus, "gpu", "gpu", 8);
  add(d.nvswitches, "nvswitch", "switch", 6);
  add(d.cpus, "cpu", "cpu", 2);
  add(d.pcie, "pcie", "switch", 4);
  add(d.nics, "nic", "nic", 8);
  add(d.storageNics, "storage_nic", "nic", 2);
  add(d.ssds, "ssd", "nvme", 8);
  const double pcie16 = 25 * GBps, pcie4 = 7.88 * GBps;
  for (unsigned gpu : d.gpus)
    for (unsigned sw : d.nvswitches)
      g.addLink(gpu, sw, 50 * GBps, 0, true);
  g.addLink(d.cpus[0], d.cpus[1], 144 * GBps, 0, true);
  for (unsigned s = 0; s < 2; ++s) {
    g.addLink(d.cpus[s], d.pcie[2 * s], pcie16, 0, true);
    g.addLink(d.cpus[s], d.pcie[2 * s + 1], pcie16, 0, true);
    g.addLink(d.cpus[s], d.storageNics[s], pcie16, 0, true);
  }
  for (unsigned k = 0; k < 4; ++k)
    for (unsigned j = 2 * k; j < 2 * k + 2; ++j) {
      g.addLink(d.pcie[k], d.gpus[j], pcie16, 0, true);
      g.addLink(d.pcie[k], d.nics[j], pcie16, 0, true);
      g.addLink(d.pcie[k], d.ssds[j], pcie4, 0, true);
    }
  return d;
}

} // namespace sluice::flow::test

#endif // SLUICE_TEST_UNIT_FLOW_FLOWTESTUTILS_H
