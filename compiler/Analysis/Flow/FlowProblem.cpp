//===- FlowProblem.cpp - Capacity graphs and transfer demands -------------===//
//
// Building a FlowNetwork from a TopoGraph, checking and merging demands, and
// the demand builders (point to point, all pairs, gathers from tiers).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowPaths.h"

#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

using namespace sluice;
using namespace sluice::flow;

unsigned FlowNetwork::addNode(llvm::StringRef name) {
  nodes.push_back(name.str());
  return numNodes() - 1;
}

unsigned FlowNetwork::addArc(unsigned from, unsigned to, double capacity,
                             unsigned topoArc) {
  assert(from < numNodes() && to < numNodes() && "arc endpoint out of range");
  assert(from != to && "flow arcs join distinct nodes");
  assert(capacity > 0 && std::isfinite(capacity) &&
         "arc capacity must be finite and positive");
  arcs.push_back({from, to, capacity, topoArc});
  return numArcs() - 1;
}

std::optional<unsigned> FlowNetwork::findNode(llvm::StringRef name) const {
  for (unsigned i = 0, e = numNodes(); i != e; ++i)
    if (nodes[i] == name)
      return i;
  return std::nullopt;
}

FlowNetwork flow::buildNetwork(const analysis::TopoGraph &g,
                               const NetworkOptions &options) {
  FlowNetwork net;
  net.nodes.reserve(g.devices.size());
  for (const analysis::TopoDevice &d : g.devices)
    net.addNode(d.name);
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const analysis::TopoArc &a = g.arcs[i];
    if (a.measured && !options.includeMeasured)
      continue;
    if (a.from == a.to || !(a.bandwidth > 0) || !std::isfinite(a.bandwidth))
      continue;
    net.addArc(a.from, a.to, a.bandwidth, i);
  }
  return net;
}

using flow::detail::formatNumber;
using flow::detail::makeError;

namespace {
/// Directed reachability over the arcs of `net` from `source`.
std::vector<bool> reachableFrom(const FlowNetwork &net, unsigned source,
                                const std::vector<std::vector<unsigned>> &out) {
  std::vector<bool> seen(net.numNodes(), false);
  std::vector<unsigned> stack = {source};
  seen[source] = true;
  while (!stack.empty()) {
    unsigned u = stack.back();
    stack.pop_back();
    for (unsigned a : out[u]) {
      unsigned v = net.arcs[a].to;
      if (seen[v])
        continue;
      seen[v] = true;
      stack.push_back(v);
    }
  }
  return seen;
}

std::string nodeLabel(const FlowNetwork &net, unsigned node) {
  return llvm::formatv("{0} ({1})", node, net.nodes[node]).str();
}
} // namespace

llvm::Error flow::validateNetwork(const FlowNetwork &net) {
  unsigned n = net.numNodes();
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a) {
    const FlowArc &arc = net.arcs[a];
    if (arc.from >= n || arc.to >= n)
      return makeError(llvm::formatv(
          "arc {0}: endpoint out of range ({1} -> {2}, network has {3} nodes)",
          a, arc.from, arc.to, n));
    if (arc.from == arc.to)
      return makeError(
          llvm::formatv("arc {0}: a self-loop at node {1}", a, arc.from));
    if (!(arc.capacity > 0) || !std::isfinite(arc.capacity))
      return makeError(llvm::formatv(
          "arc {0}: capacity must be finite and positive, got {1}", a,
          formatNumber(arc.capacity)));
  }
  return llvm::Error::success();
}

llvm::Error flow::validateDemands(const FlowNetwork &net,
                                  llvm::ArrayRef<Demand> demands) {
  if (llvm::Error err = validateNetwork(net))
    return err;
  unsigned n = net.numNodes();
  for (unsigned i = 0, e = demands.size(); i != e; ++i) {
    const Demand &d = demands[i];
    if (d.source >= n)
      return makeError(llvm::formatv(
          "demand {0}: source {1} out of range (network has {2} nodes)", i,
          d.source, n));
    if (d.destination >= n)
      return makeError(llvm::formatv(
          "demand {0}: destination {1} out of range (network has {2} nodes)", i,
          d.destination, n));
    if (!std::isfinite(d.bytes) || d.bytes < 0)
      return makeError(llvm::formatv(
          "demand {0}: bytes must be finite and non-negative, got {1}", i,
          formatNumber(d.bytes)));
  }
  std::vector<std::vector<unsigned>> out(n);
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
    out[net.arcs[a].from].push_back(a);
  // One search per distinct source, in order of first use.
  std::map<unsigned, std::vector<bool>> reach;
  for (unsigned i = 0, e = demands.size(); i != e; ++i) {
    const Demand &d = demands[i];
    if (d.isLocal() || d.bytes == 0)
      continue;
    auto it = reach.find(d.source);
    if (it == reach.end())
      it = reach.emplace(d.source, reachableFrom(net, d.source, out)).first;
    if (!it->second[d.destination])
      return makeError(llvm::formatv("demand {0}: no path from {1} to {2}", i,
                                     nodeLabel(net, d.source),
                                     nodeLabel(net, d.destination)));
  }
  return llvm::Error::success();
}

std::vector<Demand> flow::mergeDemands(llvm::ArrayRef<Demand> demands) {
  std::map<std::pair<unsigned, unsigned>, double> sums;
  for (const Demand &d : demands)
    if (!d.isLocal() && d.bytes > 0)
      sums[{d.source, d.destination}] += d.bytes;
  std::vector<Demand> out;
  out.reserve(sums.size());
  for (const auto &[pair, bytes] : sums)
    out.push_back({pair.first, pair.second, bytes});
  return out;
}

bool flow::isSingleCommodity(llvm::ArrayRef<Demand> demands) {
  std::optional<unsigned> source, destination;
  bool oneSource = true, oneDestination = true;
  for (const Demand &d : demands) {
    if (d.isLocal() || d.bytes == 0)
      continue;
    if (!source)
      source = d.source;
    if (!destination)
      destination = d.destination;
    oneSource &= *source == d.source;
    oneDestination &= *destination == d.destination;
  }
  return oneSource || oneDestination;
}

std::vector<Demand>
flow::pointToPointDemands(llvm::ArrayRef<std::pair<unsigned, unsigned>> pairs,
                          double bytes) {
  std::vector<Demand> out;
  out.reserve(pairs.size());
  for (const auto &[s, t] : pairs)
    out.push_back({s, t, bytes});
  return out;
}

std::vector<Demand> flow::allPairsDemands(llvm::ArrayRef<unsigned> sources,
                                          llvm::ArrayRef<unsigned> destinations,
                                          double bytesPerPair) {
  std::vector<Demand> out;
  for (unsigned s : sources)
    for (unsigned t : destinations)
      if (s != t)
        out.push_back({s, t, bytesPerPair});
  return out;
}

llvm::Expected<std::vector<Demand>>
flow::buildGatherDemands(const FlowNetwork &net, const GatherSpec &spec) {
  unsigned n = net.numNodes();
  for (unsigned i = 0, e = spec.destinations.size(); i != e; ++i)
    if (spec.destinations[i] >= n)
      return makeError(llvm::formatv(
          "gather destination {0}: node {1} out of range (network has {2} "
          "nodes)",
          i, spec.destinations[i], n));
  for (unsigned t = 0, e = spec.tiers.size(); t != e; ++t) {
    const GatherTier &tier = spec.tiers[t];
    if (tier.devices.empty())
      return makeError(llvm::formatv("gather tier {0} ('{1}') has no devices",
                                     t, tier.name));
    for (unsigned d : tier.devices)
      if (d >= n)
        return makeError(llvm::formatv(
            "gather tier {0} ('{1}'): node {2} out of range (network has {3} "
            "nodes)",
            t, tier.name, d, n));
  }

  std::vector<Demand> raw;
  // Items seen so far per tier, for round-robin placement.
  std::vector<unsigned> seenInTier(spec.tiers.size(), 0);
  for (unsigned i = 0, e = spec.items.size(); i != e; ++i) {
    const GatherItem &item = spec.items[i];
    if (item.tier >= spec.tiers.size())
      return makeError(
          llvm::formatv("gather item {0}: tier {1} out of range ({2} tiers)", i,
                        item.tier, spec.tiers.size()));
    if (!std::isfinite(item.bytes) || item.bytes < 0)
      return makeError(llvm::formatv(
          "gather item {0}: bytes must be finite and non-negative, got {1}", i,
          formatNumber(item.bytes)));
    if (item.accesses.size() != spec.destinations.size())
      return makeError(llvm::formatv(
          "gather item {0}: {1} access counts for {2} destinations", i,
          item.accesses.size(), spec.destinations.size()));
    const GatherTier &tier = spec.tiers[item.tier];
    unsigned ordinal = seenInTier[item.tier]++;
    for (unsigned j = 0, je = spec.destinations.size(); j != je; ++j) {
      double count = item.accesses[j];
      if (!std::isfinite(count) || count < 0)
        return makeError(llvm::formatv(
            "gather item {0}: access count for destination {1} must be "
            "finite and non-negative, got {2}",
            i, j, formatNumber(count)));
      double bytes = count * item.bytes;
      if (bytes == 0)
        continue;
      unsigned dest = spec.destinations[j];
      switch (spec.placement) {
      case TierPlacement::Striped: {
        double share = bytes / static_cast<double>(tier.devices.size());
        for (unsigned d : tier.devices)
          raw.push_back({d, dest, share});
        break;
      }
      case TierPlacement::RoundRobin:
        raw.push_back(
            {tier.devices[ordinal % tier.devices.size()], dest, bytes});
        break;
      }
    }
  }
  return mergeDemands(raw);
}
