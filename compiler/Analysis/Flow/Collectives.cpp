//===- Collectives.cpp - Ring, tree and in-network collectives ------------===//
//
// See Collectives.h and docs/flows.md ("Collectives"). Phases whose demands
// share one source or one destination are routed by max flow (exact), the
// others by the path LP (PathLP.h) to options.relativeGap.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Collectives.h"
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/PathLP.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

llvm::StringRef flow::collectiveAlgorithmName(CollectiveAlgorithm a) {
  switch (a) {
  case CollectiveAlgorithm::Ring:
    return "ring";
  case CollectiveAlgorithm::DoubleBinaryTree:
    return "double-binary-tree";
  case CollectiveAlgorithm::InNetwork:
    return "in-network";
  case CollectiveAlgorithm::Hierarchical:
    return "hierarchical";
  }
  llvm_unreachable("unknown collective algorithm");
}

std::vector<unsigned> flow::findReducers(const analysis::TopoGraph &g) {
  std::vector<unsigned> out;
  for (unsigned i = 0, e = g.devices.size(); i != e; ++i)
    for (const analysis::BoolProp &b : g.devices[i].bools)
      if (b.name == "reduce" && b.value)
        out.push_back(i);
  return out;
}

namespace {
llvm::Error checkCollective(const FlowNetwork &net,
                            llvm::ArrayRef<unsigned> group, double bytes,
                            const CollectiveOptions &options) {
  if (llvm::Error err = validateNetwork(net))
    return err;
  if (group.size() < 2)
    return makeError(llvm::formatv(
        "a collective needs at least two members, got {0}", group.size()));
  std::set<unsigned> seen;
  for (unsigned i = 0, e = group.size(); i != e; ++i) {
    if (group[i] >= net.numNodes())
      return makeError(llvm::formatv(
          "group member {0}: node {1} out of range (network has {2} nodes)", i,
          group[i], net.numNodes()));
    if (!seen.insert(group[i]).second)
      return makeError(llvm::formatv("group member {0}: node {1} ({2}) twice",
                                     i, group[i], net.nodes[group[i]]));
  }
  if (!(bytes > 0) || !std::isfinite(bytes))
    return makeError(llvm::formatv(
        "collective bytes must be finite and positive, got {0}",
        formatNumber(bytes)));
  if (!(options.alpha >= 0) || !std::isfinite(options.alpha))
    return makeError(llvm::formatv(
        "alpha must be finite and non-negative, got {0}",
        formatNumber(options.alpha)));
  if (options.maxRings < 1 || options.maxRings > 2)
    return makeError(llvm::formatv("maxRings must be 1 or 2, got {0}",
                                   options.maxRings));
  if (options.candidateOrders < 1)
    return makeError("candidateOrders must be at least 1");
  return llvm::Error::success();
}

/// Routes one phase: max flow for a single commodity, else the path LP.
llvm::Expected<FlowSchedule> routePhase(const FlowNetwork &net,
                                        llvm::ArrayRef<Demand> demands,
                                        const CollectiveOptions &options) {
  if (isSingleCommodity(demands))
    return solveSingleCommodity(net, demands);
  PathLPOptions o;
  o.relativeGap = options.relativeGap;
  return solveMultiCommodityPaths(net, demands, o);
}

unsigned stepsOf(CollectiveKind kind, unsigned n) {
  return kind == CollectiveKind::AllReduce ? 2 * (n - 1) : n - 1;
}

/// (bottleneck, summed bandwidth) of a ring order over positions.
std::pair<double, double> ringScore(const std::vector<std::vector<double>> &bw,
                                    const std::vector<unsigned> &order) {
  double bottleneck = std::numeric_limits<double>::infinity(), sum = 0;
  for (unsigned i = 0, n = order.size(); i != n; ++i) {
    double b = bw[order[i]][order[(i + 1) % n]];
    bottleneck = std::min(bottleneck, b);
    sum += b;
  }
  return {bottleneck, sum};
}

bool betterRing(const std::pair<double, double> &a,
                const std::vector<unsigned> &ao,
                const std::pair<double, double> &b,
                const std::vector<unsigned> &bo) {
  if (a.first != b.first)
    return a.first > b.first;
  if (a.second != b.second)
    return a.second > b.second;
  return ao < bo;
}

/// The best `k` orders (best first), exhaustive or by local search.
std::vector<std::vector<unsigned>>
ringCandidates(const std::vector<std::vector<double>> &bw, unsigned limit,
               unsigned k) {
  unsigned n = bw.size();
  using Scored = std::pair<std::pair<double, double>, std::vector<unsigned>>;
  std::vector<Scored> best;
  auto offer = [&](const std::vector<unsigned> &o) {
    Scored s{ringScore(bw, o), o};
    auto pos = std::find_if(best.begin(), best.end(), [&](const Scored &b) {
      return betterRing(s.first, s.second, b.first, b.second);
    });
    if (pos == best.end() && best.size() >= k)
      return;
    best.insert(pos, std::move(s));
    if (best.size() > k)
      best.pop_back();
  };
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (n <= limit) {
    do
      offer(order);
    while (std::next_permutation(order.begin() + 1, order.end()));
  } else {
    // Greedy nearest neighbour (widest next hop), then pairwise swaps while
    // they improve the score.
    std::vector<bool> used(n, false);
    used[0] = true;
    for (unsigned i = 1; i < n; ++i) {
      unsigned cur = order[i - 1], pick = n;
      for (unsigned j = 0; j < n; ++j)
        if (!used[j] && (pick == n || bw[cur][j] > bw[cur][pick]))
          pick = j;
      order[i] = pick;
      used[pick] = true;
    }
    auto score = ringScore(bw, order);
    for (unsigned pass = 0; pass < 50; ++pass) {
      bool improved = false;
      for (unsigned i = 1; i < n; ++i)
        for (unsigned j = i + 1; j < n; ++j) {
          std::swap(order[i], order[j]);
          auto s = ringScore(bw, order);
          if (s.first > score.first ||
              (s.first == score.first && s.second > score.second)) {
            score = s;
            improved = true;
          } else {
            std::swap(order[i], order[j]);
          }
        }
      if (!improved)
        break;
    }
    offer(order);
  }
  std::vector<std::vector<unsigned>> out;
  for (Scored &s : best)
    out.push_back(std::move(s.second));
  return out;
}

/// Standalone bandwidth from a to b: max flow, or the widest path.
llvm::Expected<double> pairBandwidth(const FlowNetwork &net,
                                     const std::vector<WidthArc> &arcs,
                                     unsigned a, unsigned b, bool maxFlow) {
  if (maxFlow) {
    auto s = solveSingleCommodity(net, {{a, b, 1}});
    if (!s)
      return s.takeError();
    return 1 / s->makespan;
  }
  double w = 0;
  if (widestPath(net.numNodes(), arcs, a, b, 0, w).empty())
    return makeError(llvm::formatv("no path from {0} ({1}) to {2} ({3})", a,
                                   net.nodes[a], b, net.nodes[b]));
  return w;
}

double sumPhaseBound(const CollectivePhase &p, double alpha) {
  return p.repeats * (alpha + p.schedule.lowerBound.value_or(0));
}
} // namespace

llvm::Expected<double> flow::endpointBound(const FlowNetwork &net,
                                           llvm::ArrayRef<unsigned> group,
                                           CollectiveKind kind, double bytes) {
  if (llvm::Error err = checkCollective(net, group, bytes, {}))
    return std::move(err);
  std::vector<double> in(net.numNodes(), 0), out(net.numNodes(), 0);
  for (const FlowArc &a : net.arcs) {
    in[a.to] += a.capacity;
    out[a.from] += a.capacity;
  }
  double n = group.size(), sumIn = 0, sumOut = 0, bound = 0;
  for (unsigned v : group) {
    if (in[v] <= 0 || out[v] <= 0)
      return makeError(llvm::formatv(
          "group member {0} ({1}) has no arcs {2}", v, net.nodes[v],
          in[v] <= 0 ? "into it" : "out of it"));
    sumIn += in[v];
    sumOut += out[v];
    if (kind == CollectiveKind::AllGather)
      bound = std::max(bound, (n - 1) / n * bytes / in[v]);
    if (kind == CollectiveKind::ReduceScatter)
      bound = std::max(bound, (n - 1) / n * bytes / out[v]);
  }
  if (kind == CollectiveKind::AllReduce)
    bound = 2 * (n - 1) * bytes / std::min(sumIn, sumOut);
  return bound;
}

llvm::Expected<std::vector<std::vector<double>>>
flow::hopBandwidths(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                    const CollectiveOptions &options) {
  if (llvm::Error err = checkCollective(net, group, 1, options))
    return std::move(err);
  unsigned n = group.size();
  std::vector<std::vector<double>> bw(n, std::vector<double>(n, 0));
  std::vector<WidthArc> arcs;
  for (const FlowArc &a : net.arcs)
    arcs.push_back({a.from, a.to, a.capacity});
  double widest = 0;
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      if (i == j)
        continue;
      auto b = pairBandwidth(net, arcs, group[i], group[j],
                             n <= options.maxFlowHopLimit);
      if (!b)
        return b.takeError();
      bw[i][j] = *b;
      widest = std::max(widest, bw[i][j]);
    }
  // Snap to 1e-9 of the widest so that rounding noise does not break the
  // ties of symmetric topologies.
  for (auto &row : bw)
    for (double &b : row)
      b = std::round(b / widest * 1e9) / 1e9 * widest;
  return bw;
}

std::vector<unsigned>
flow::bestRingOrder(const std::vector<std::vector<double>> &bw,
                    unsigned exhaustiveLimit) {
  if (bw.size() < 2)
    return std::vector<unsigned>(bw.size(), 0);
  return ringCandidates(bw, exhaustiveLimit, 1).front();
}

llvm::Expected<CollectivePlan>
flow::planRingCollective(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                         CollectiveKind kind, double bytes,
                         const CollectiveOptions &options) {
  if (llvm::Error err = checkCollective(net, group, bytes, options))
    return std::move(err);
  auto bw = hopBandwidths(net, group, options);
  if (!bw)
    return bw.takeError();
  auto bound = endpointBound(net, group, kind, bytes);
  if (!bound)
    return bound.takeError();
  unsigned n = group.size();
  double chunk = bytes / n;
  unsigned steps = stepsOf(kind, n);
  std::optional<CollectivePlan> best;
  for (const std::vector<unsigned> &order :
       ringCandidates(*bw, options.exhaustiveLimit, options.candidateOrders)) {
    for (unsigned rings = 1; rings <= std::min(options.maxRings, n > 2 ? 2u : 1u);
         ++rings) {
      CollectivePlan plan;
      plan.kind = kind;
      plan.algorithm = CollectiveAlgorithm::Ring;
      plan.bytes = bytes;
      plan.group.assign(group.begin(), group.end());
      std::vector<unsigned> nodes;
      for (unsigned p : order)
        nodes.push_back(group[p]);
      plan.rings.push_back(nodes);
      if (rings == 2)
        plan.rings.push_back(std::vector<unsigned>(nodes.rbegin(), nodes.rend()));
      double share = 1.0 / rings, worst = 0;
      CollectivePhase phase;
      phase.name = "ring step";
      phase.repeats = steps;
      for (unsigned r = 0; r < rings; ++r) {
        plan.shares.push_back(share);
        std::vector<unsigned> pos = order;
        if (r == 1)
          std::reverse(pos.begin(), pos.end());
        double ringBw = std::numeric_limits<double>::infinity();
        for (unsigned i = 0; i < n; ++i) {
          unsigned a = pos[i], b = pos[(i + 1) % n];
          phase.demands.push_back({group[a], group[b], share * chunk});
          ringBw = std::min(ringBw, (*bw)[a][b]);
        }
        worst = std::max(worst, share / ringBw);
      }
      auto s = routePhase(net, phase.demands, options);
      if (!s)
        return s.takeError();
      phase.schedule = std::move(*s);
      plan.bandwidth = 1 / worst;
      plan.alphaBetaTime = steps * (options.alpha + chunk / plan.bandwidth);
      plan.flowTime = steps * (options.alpha + phase.schedule.makespan);
      plan.scheduleBound = sumPhaseBound(phase, options.alpha);
      plan.endpointBound = *bound;
      plan.phases.push_back(std::move(phase));
      if (!best || plan.flowTime < best->flowTime * (1 - 1e-9))
        best = std::move(plan);
    }
  }
  return std::move(*best);
}

llvm::Expected<CollectivePlan>
flow::planTreeCollective(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                         CollectiveKind kind, double bytes,
                         const CollectiveOptions &options) {
  if (llvm::Error err = checkCollective(net, group, bytes, options))
    return std::move(err);
  if (kind != CollectiveKind::AllReduce)
    return makeError(
        llvm::formatv("tree schedules are for all-reduce; use a ring for {0}",
                      plan::stringifyCollectiveKind(kind)));
  auto bw = hopBandwidths(net, group, options);
  if (!bw)
    return bw.takeError();
  auto bound = endpointBound(net, group, kind, bytes);
  if (!bound)
    return bound.takeError();
  unsigned n = group.size();
  std::vector<unsigned> order = bestRingOrder(*bw, options.exhaustiveLimit);
  unsigned trees = n > 2 ? 2 : 1;
  double share = 1.0 / trees;
  CollectivePlan plan;
  plan.kind = kind;
  plan.algorithm = CollectiveAlgorithm::DoubleBinaryTree;
  plan.bytes = bytes;
  plan.group.assign(group.begin(), group.end());
  CollectivePhase phase;
  phase.name = "pipelined reduce and broadcast";
  std::vector<double> inBytes(n, 0), outBytes(n, 0);
  double edgeBw = std::numeric_limits<double>::infinity();
  unsigned depth = 0;
  for (unsigned p = 1; p < n; p = 2 * p + 1)
    ++depth;
  for (unsigned t = 0; t < trees; ++t) {
    std::vector<unsigned> pos = order;
    if (t == 1)
      std::reverse(pos.begin(), pos.end());
    std::vector<unsigned> nodes, parents(n);
    for (unsigned p : pos)
      nodes.push_back(group[p]);
    for (unsigned i = 0; i < n; ++i) {
      unsigned child = pos[i];
      if (i == 0) {
        parents[child] = group[child];
        continue;
      }
      unsigned parent = pos[(i - 1) / 2];
      parents[child] = group[parent];
      phase.demands.push_back({group[child], group[parent], share * bytes});
      phase.demands.push_back({group[parent], group[child], share * bytes});
      inBytes[child] += share * bytes;
      outBytes[child] += share * bytes;
      inBytes[parent] += share * bytes;
      outBytes[parent] += share * bytes;
      edgeBw = std::min({edgeBw, (*bw)[child][parent], (*bw)[parent][child]});
    }
    plan.rings.push_back(nodes);
    plan.shares.push_back(share);
    plan.treeParents.push_back(parents);
  }
  double busiest = 0;
  for (unsigned i = 0; i < n; ++i)
    busiest = std::max({busiest, inBytes[i], outBytes[i]});
  auto s = routePhase(net, phase.demands, options);
  if (!s)
    return s.takeError();
  phase.schedule = std::move(*s);
  plan.bandwidth = edgeBw;
  plan.alphaBetaTime = 2 * depth * options.alpha + busiest / edgeBw;
  plan.flowTime = 2 * depth * options.alpha + phase.schedule.makespan;
  plan.scheduleBound =
      2 * depth * options.alpha + phase.schedule.lowerBound.value_or(0);
  plan.endpointBound = *bound;
  plan.phases.push_back(std::move(phase));
  return plan;
}

llvm::Expected<CollectivePlan> flow::planInNetworkCollective(
    const FlowNetwork &net, llvm::ArrayRef<unsigned> group, CollectiveKind kind,
    double bytes, llvm::ArrayRef<unsigned> reducers,
    const CollectiveOptions &options) {
  if (llvm::Error err = checkCollective(net, group, bytes, options))
    return std::move(err);
  if (reducers.empty())
    return makeError("no reduce-capable device for an in-network collective "
                     "(set `reduce: true` on a switch)");
  std::set<unsigned> members(group.begin(), group.end()), seen;
  for (unsigned r : reducers) {
    if (r >= net.numNodes())
      return makeError(llvm::formatv(
          "reducer node {0} out of range (network has {1} nodes)", r,
          net.numNodes()));
    if (members.count(r))
      return makeError(llvm::formatv(
          "reducer {0} ({1}) is also a group member", r, net.nodes[r]));
    if (!seen.insert(r).second)
      return makeError(
          llvm::formatv("reducer {0} ({1}) listed twice", r, net.nodes[r]));
  }
  auto bound = endpointBound(net, group, kind, bytes);
  if (!bound)
    return bound.takeError();
  double n = group.size();
  double up = kind == CollectiveKind::AllGather ? bytes / n : bytes;
  double down = kind == CollectiveKind::ReduceScatter ? bytes / n : bytes;

  // Standalone bandwidths member <-> reducer (max flows up to
  // maxFlowHopLimit members, widest paths beyond).
  std::vector<WidthArc> arcs;
  for (const FlowArc &a : net.arcs)
    arcs.push_back({a.from, a.to, a.capacity});
  bool maxFlow = group.size() <= options.maxFlowHopLimit;
  // pairBw[r][i] = min(bandwidth member i -> reducer r, reducer r -> i).
  std::vector<std::vector<double>> pairBw(reducers.size());
  for (unsigned r = 0; r < reducers.size(); ++r)
    for (unsigned i = 0; i < group.size(); ++i) {
      auto upBw = pairBandwidth(net, arcs, group[i], reducers[r], maxFlow);
      if (!upBw)
        return upBw.takeError();
      auto downBw = pairBandwidth(net, arcs, reducers[r], group[i], maxFlow);
      if (!downBw)
        return downBw.takeError();
      pairBw[r].push_back(std::min(*upBw, *downBw));
    }

  std::vector<std::vector<unsigned>> sets;
  if (reducers.size() <= 16)
    for (unsigned r : reducers)
      sets.push_back({r});
  if (reducers.size() > 1)
    sets.push_back(std::vector<unsigned>(reducers.begin(), reducers.end()));
  std::optional<CollectivePlan> best;
  for (const std::vector<unsigned> &set : sets) {
    CollectivePlan plan;
    plan.kind = kind;
    plan.algorithm = CollectiveAlgorithm::InNetwork;
    plan.bytes = bytes;
    plan.group.assign(group.begin(), group.end());
    plan.reducers = set;
    double share = 1.0 / set.size(), worst = 0;
    CollectivePhase phase;
    phase.name = "streamed reduce up, result down";
    for (unsigned r : set) {
      plan.shares.push_back(share);
      for (unsigned i = 0; i < group.size(); ++i) {
        phase.demands.push_back({group[i], r, share * up});
        phase.demands.push_back({r, group[i], share * down});
      }
    }
    // B: the smallest standalone bandwidth of a member to (and from) the
    // reducers, each taking its share (a max flow per member and
    // direction; the pairwise hop bandwidth for a single reducer).
    for (unsigned i = 0; i < group.size(); ++i) {
      double t = 0;
      if (set.size() == 1) {
        unsigned r =
            std::find(reducers.begin(), reducers.end(), set[0]) -
            reducers.begin();
        t = 1 / pairBw[r][i];
      } else {
        std::vector<Demand> toSet, fromSet;
        for (unsigned r : set) {
          toSet.push_back({group[i], r, share});
          fromSet.push_back({r, group[i], share});
        }
        for (const auto &d : {toSet, fromSet}) {
          auto s = solveSingleCommodity(net, d);
          if (!s)
            return s.takeError();
          t = std::max(t, s->makespan);
        }
      }
      worst = std::max(worst, t);
    }
    auto s = routePhase(net, phase.demands, options);
    if (!s)
      return s.takeError();
    phase.schedule = std::move(*s);
    plan.bandwidth = 1 / worst;
    plan.alphaBetaTime =
        2 * options.alpha + std::max(up, down) / plan.bandwidth;
    plan.flowTime = 2 * options.alpha + phase.schedule.makespan;
    plan.scheduleBound =
        2 * options.alpha + phase.schedule.lowerBound.value_or(0);
    plan.endpointBound = *bound;
    plan.phases.push_back(std::move(phase));
    if (!best || plan.flowTime < best->flowTime * (1 - 1e-9))
      best = std::move(plan);
  }
  return std::move(*best);
}

std::vector<std::vector<unsigned>>
flow::subgroupsByPrefix(const FlowNetwork &net,
                        llvm::ArrayRef<unsigned> group) {
  std::vector<std::string> keys;
  std::vector<std::vector<unsigned>> out;
  for (unsigned v : group) {
    llvm::StringRef name = v < net.numNodes() ? llvm::StringRef(net.nodes[v])
                                              : llvm::StringRef();
    size_t dot = name.find('.');
    if (dot == llvm::StringRef::npos) {
      keys.push_back("");
      out.push_back({v});
      continue;
    }
    std::string key = name.substr(0, dot).str();
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end() || key.empty()) {
      keys.push_back(key);
      out.push_back({v});
    } else {
      out[it - keys.begin()].push_back(v);
    }
  }
  return out;
}

llvm::Expected<CollectivePlan> flow::planHierarchicalAllReduce(
    const FlowNetwork &net, const std::vector<std::vector<unsigned>> &subgroups,
    double bytes, llvm::ArrayRef<unsigned> reducers,
    const CollectiveOptions &options) {
  std::vector<unsigned> all;
  for (const auto &sg : subgroups)
    all.insert(all.end(), sg.begin(), sg.end());
  if (llvm::Error err = checkCollective(net, all, bytes, options))
    return std::move(err);
  if (subgroups.size() < 2)
    return makeError(llvm::formatv(
        "a hierarchical all-reduce needs at least two subgroups, got {0}",
        subgroups.size()));
  unsigned g = subgroups.front().size(), m = subgroups.size();
  for (unsigned i = 0; i < m; ++i)
    if (subgroups[i].size() != g || g == 0)
      return makeError(llvm::formatv(
          "subgroup {0} has {1} members, subgroup 0 has {2}: a hierarchical "
          "all-reduce needs equal, non-empty subgroups",
          i, subgroups[i].size(), g));
  auto bound = endpointBound(net, all, CollectiveKind::AllReduce, bytes);
  if (!bound)
    return bound.takeError();

  CollectivePlan plan;
  plan.kind = CollectiveKind::AllReduce;
  plan.algorithm = CollectiveAlgorithm::Hierarchical;
  plan.bytes = bytes;
  plan.group = all;
  plan.endpointBound = *bound;
  double shard = bytes / g;

  // Ring order inside every subgroup; members at equal ring positions hold
  // the same shard after the reduce-scatter.
  std::vector<std::vector<unsigned>> ordered;
  double intraWorst = 0; // max over subgroups of 1 / bottleneck
  for (const auto &sg : subgroups) {
    if (g == 1) {
      ordered.push_back(sg);
      continue;
    }
    auto bw = hopBandwidths(net, sg, options);
    if (!bw)
      return bw.takeError();
    std::vector<unsigned> order = bestRingOrder(*bw, options.exhaustiveLimit);
    std::vector<unsigned> nodes;
    double fwd = std::numeric_limits<double>::infinity(), rev = fwd;
    for (unsigned i = 0; i < g; ++i) {
      nodes.push_back(sg[order[i]]);
      fwd = std::min(fwd, (*bw)[order[i]][order[(i + 1) % g]]);
      rev = std::min(rev, (*bw)[order[(i + 1) % g]][order[i]]);
    }
    intraWorst = std::max(intraWorst, 1 / std::min(fwd, rev));
    ordered.push_back(nodes);
    plan.rings.push_back(nodes);
  }

  // Intra-subgroup ring step (one ring or both directions, the faster).
  std::optional<CollectivePhase> intra;
  unsigned intraRings = 1;
  if (g > 1) {
    for (unsigned rings = 1; rings <= std::min(options.maxRings, g > 2 ? 2u : 1u);
         ++rings) {
      CollectivePhase phase;
      phase.name = "reduce-scatter inside subgroups (ring step)";
      phase.repeats = g - 1;
      for (const auto &nodes : ordered)
        for (unsigned r = 0; r < rings; ++r)
          for (unsigned i = 0; i < g; ++i) {
            unsigned a = nodes[i], b = nodes[(i + 1) % g];
            if (r == 1)
              std::swap(a, b);
            phase.demands.push_back({a, b, shard / rings});
          }
      auto s = routePhase(net, phase.demands, options);
      if (!s)
        return s.takeError();
      phase.schedule = std::move(*s);
      if (!intra || phase.schedule.makespan <
                        intra->schedule.makespan * (1 - 1e-9)) {
        intra = std::move(phase);
        intraRings = rings;
      }
    }
  }

  // Across subgroups: one shard of N/g per ring position.
  std::vector<CollectivePhase> inter;
  double interAlphaBeta = 0;
  if (!reducers.empty()) {
    auto inNet = planInNetworkCollective(net, all, CollectiveKind::AllReduce,
                                         shard, reducers, options);
    if (!inNet)
      return inNet.takeError();
    plan.reducers = inNet->reducers;
    plan.shares = inNet->shares;
    plan.bandwidth = inNet->bandwidth;
    interAlphaBeta = inNet->alphaBetaTime;
    for (CollectivePhase &p : inNet->phases) {
      p.name = "all-reduce of the shards in the network";
      inter.push_back(std::move(p));
    }
  } else {
    std::optional<CollectivePhase> best;
    double bestBw = 0;
    for (unsigned rings = 1; rings <= std::min(options.maxRings, m > 2 ? 2u : 1u);
         ++rings) {
      CollectivePhase phase;
      phase.name = "all-reduce of the shards across subgroups (ring step)";
      phase.repeats = 2 * (m - 1);
      for (unsigned p = 0; p < g; ++p)
        for (unsigned r = 0; r < rings; ++r)
          for (unsigned s = 0; s < m; ++s) {
            unsigned a = ordered[s][p], b = ordered[(s + 1) % m][p];
            if (r == 1)
              std::swap(a, b);
            phase.demands.push_back({a, b, shard / m / rings});
          }
      auto sched = routePhase(net, phase.demands, options);
      if (!sched)
        return sched.takeError();
      phase.schedule = std::move(*sched);
      if (!best ||
          phase.schedule.makespan < best->schedule.makespan * (1 - 1e-9)) {
        best = std::move(phase);
        // Alpha-beta: rank 0's ring(s), standalone hop bandwidths.
        std::vector<unsigned> rank0;
        for (unsigned s = 0; s < m; ++s)
          rank0.push_back(ordered[s][0]);
        auto bw = hopBandwidths(net, rank0, options);
        if (!bw)
          return bw.takeError();
        double fwd = std::numeric_limits<double>::infinity(), rev = fwd;
        for (unsigned s = 0; s < m; ++s) {
          fwd = std::min(fwd, (*bw)[s][(s + 1) % m]);
          rev = std::min(rev, (*bw)[(s + 1) % m][s]);
        }
        // Bytes per second per unit of shard / m carried by the rings.
        bestBw = rings == 2 ? 2 * std::min(fwd, rev) : fwd;
      }
    }
    interAlphaBeta = best->repeats * (options.alpha + shard / m / bestBw);
    plan.bandwidth = bestBw;
    inter.push_back(std::move(*best));
  }

  double flow = 0, sbound = 0, ab = interAlphaBeta;
  if (intra) {
    CollectivePhase gather = *intra;
    gather.name = "all-gather inside subgroups (ring step)";
    double step = shard / intraRings * intraWorst;
    ab += 2 * (g - 1) * (options.alpha + step);
    plan.phases.push_back(std::move(*intra));
    for (CollectivePhase &p : inter)
      plan.phases.push_back(std::move(p));
    plan.phases.push_back(std::move(gather));
  } else {
    for (CollectivePhase &p : inter)
      plan.phases.push_back(std::move(p));
  }
  for (const CollectivePhase &p : plan.phases) {
    bool pipelined = p.name.find("in the network") != std::string::npos;
    double alphas = pipelined ? 2 * options.alpha : p.repeats * options.alpha;
    flow += alphas + (pipelined ? 1 : p.repeats) * p.schedule.makespan;
    sbound += alphas + (pipelined ? 1 : p.repeats) *
                           p.schedule.lowerBound.value_or(0);
  }
  plan.flowTime = flow;
  plan.scheduleBound = sbound;
  plan.alphaBetaTime = ab;
  return plan;
}

llvm::Expected<std::vector<CollectivePlan>>
flow::planCollectives(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                      CollectiveKind kind, double bytes,
                      llvm::ArrayRef<unsigned> reducers,
                      const CollectiveOptions &options) {
  std::vector<CollectivePlan> out;
  auto ring = planRingCollective(net, group, kind, bytes, options);
  if (!ring)
    return ring.takeError();
  out.push_back(std::move(*ring));
  if (kind == CollectiveKind::AllReduce) {
    auto tree = planTreeCollective(net, group, kind, bytes, options);
    if (!tree)
      return tree.takeError();
    out.push_back(std::move(*tree));
  }
  if (!reducers.empty()) {
    auto inn = planInNetworkCollective(net, group, kind, bytes, reducers,
                                       options);
    if (!inn)
      return inn.takeError();
    out.push_back(std::move(*inn));
  }
  // Hierarchical all-reduce when the names split the group into at least
  // two equal subgroups of two or more (e.g. servers).
  if (kind == CollectiveKind::AllReduce) {
    std::vector<std::vector<unsigned>> sub = subgroupsByPrefix(net, group);
    bool equal = sub.size() >= 2 && sub.front().size() >= 2;
    for (const auto &sg : sub)
      equal = equal && sg.size() == sub.front().size();
    if (equal) {
      auto h = planHierarchicalAllReduce(net, sub, bytes, {}, options);
      if (!h)
        return h.takeError();
      out.push_back(std::move(*h));
      if (!reducers.empty()) {
        auto hn = planHierarchicalAllReduce(net, sub, bytes, reducers, options);
        if (!hn)
          return hn.takeError();
        out.push_back(std::move(*hn));
      }
    }
  }
  return out;
}

std::string flow::collectivesToJSON(const FlowNetwork &net,
                                    llvm::ArrayRef<CollectivePlan> plans,
                                    unsigned indent) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os, indent);
  auto names = [&](llvm::ArrayRef<unsigned> nodes) {
    j.array([&] {
      for (unsigned v : nodes)
        j.value(net.nodes[v]);
    });
  };
  j.object([&] {
    j.attributeArray("collectives", [&] {
      for (const CollectivePlan &p : plans)
        j.object([&] {
          j.attribute("kind", plan::stringifyCollectiveKind(p.kind));
          j.attribute("algorithm", collectiveAlgorithmName(p.algorithm));
          j.attribute("bytes", p.bytes);
          j.attributeBegin("group");
          names(p.group);
          j.attributeEnd();
          j.attributeArray("orders", [&] {
            for (const auto &r : p.rings)
              names(r);
          });
          j.attributeArray("shares", [&] {
            for (double s : p.shares)
              j.value(s);
          });
          j.attributeArray("tree_parents", [&] {
            for (const auto &t : p.treeParents)
              names(t);
          });
          j.attributeBegin("reducers");
          names(p.reducers);
          j.attributeEnd();
          j.attribute("bandwidth", p.bandwidth);
          j.attribute("alpha_beta_time", p.alphaBetaTime);
          j.attribute("flow_time", p.flowTime);
          j.attribute("schedule_bound", p.scheduleBound);
          j.attribute("endpoint_bound", p.endpointBound);
          j.attributeArray("phases", [&] {
            for (const CollectivePhase &ph : p.phases)
              j.object([&] {
                j.attribute("name", ph.name);
                j.attribute("repeats", ph.repeats);
                j.attribute("demands", static_cast<int64_t>(ph.demands.size()));
                j.attribute("time", ph.schedule.makespan);
                j.attribute("saturated_arcs",
                            static_cast<int64_t>(ph.schedule.saturatedArcs.size()));
              });
          });
        });
    });
  });
  os.flush();
  return text;
}
