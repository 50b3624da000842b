//===- MomentGreedy.cpp - Baseline: Moment's tiered single-sink max flow --===//
//
// Moment (see docs/flows.md and shared/reference/graph-walks.md) models the
// machine as super-source -> storage tiers (SSDs, CPU memory) -> PCIe
// switches -> GPUs -> super-sink with capacities bandwidth * t. For a time
// window t it runs a max flow with only the preferred tier connected (the
// CPU arcs removed, so SSDs are used first), then again on the residual with
// the next tier added; it bisects t for the smallest window that carries
// the demand. The sources are free: whatever a tier device sends is what
// the placement step then stores there. We keep the per-destination volume
// (each GPU's arc into the sink carries its need) unless the problem asks
// for the aggregate sink.
//
// Since augmenting a feasible flow to maximum yields a maximum flow, the
// tier rounds do not change the window found, only which tier supplies how
// much: the preferred tier sends as much as it can alone.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/HorizonFlow.h"

#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <limits>
#include <map>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

MomentProblem flow::makeMomentProblem(llvm::ArrayRef<Demand> demands,
                                      std::vector<GatherTier> tiers) {
  MomentProblem p;
  std::map<unsigned, double> needs;
  std::map<unsigned, bool> sources;
  for (const Demand &d : mergeDemands(demands)) {
    needs[d.destination] += d.bytes;
    sources[d.source] = true;
  }
  p.needs.assign(needs.begin(), needs.end());
  if (tiers.empty() && !sources.empty()) {
    GatherTier all;
    all.name = "sources";
    for (const auto &[node, used] : sources)
      all.devices.push_back(node);
    tiers.push_back(std::move(all));
  }
  p.tiers = std::move(tiers);
  return p;
}

llvm::Expected<MomentProblem> flow::makeMomentProblem(const FlowNetwork &net,
                                                      const GatherSpec &spec) {
  // Validates the spec with the same messages.
  if (llvm::Expected<std::vector<Demand>> check = buildGatherDemands(net, spec);
      !check)
    return check.takeError();
  std::vector<double> need(spec.destinations.size(), 0);
  for (const GatherItem &item : spec.items)
    for (unsigned j = 0, e = spec.destinations.size(); j != e; ++j)
      need[j] += item.accesses[j] * item.bytes;
  std::map<unsigned, double> byNode;
  for (unsigned j = 0, e = spec.destinations.size(); j != e; ++j)
    byNode[spec.destinations[j]] += need[j];
  MomentProblem p;
  p.tiers = spec.tiers;
  for (const auto &[node, bytes] : byNode)
    if (bytes > 0)
      p.needs.push_back({node, bytes});
  return p;
}

namespace {
llvm::Error validateMoment(const FlowNetwork &net, const MomentProblem &p) {
  if (llvm::Error err = validateNetwork(net))
    return err;
  unsigned n = net.numNodes();
  for (unsigned t = 0, e = p.tiers.size(); t != e; ++t) {
    if (p.tiers[t].devices.empty())
      return makeError(llvm::formatv("moment tier {0} ('{1}') has no devices",
                                     t, p.tiers[t].name));
    for (unsigned d : p.tiers[t].devices)
      if (d >= n)
        return makeError(llvm::formatv(
            "moment tier {0} ('{1}'): node {2} out of range (network has {3} "
            "nodes)",
            t, p.tiers[t].name, d, n));
  }
  for (unsigned j = 0, e = p.needs.size(); j != e; ++j) {
    auto [node, bytes] = p.needs[j];
    if (node >= n)
      return makeError(llvm::formatv(
          "moment need {0}: node {1} out of range (network has {2} nodes)", j,
          node, n));
    if (!std::isfinite(bytes) || bytes < 0)
      return makeError(llvm::formatv(
          "moment need {0}: bytes must be finite and non-negative, got {1}", j,
          formatNumber(bytes)));
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<FlowSchedule>
flow::solveMomentGreedy(const FlowNetwork &net, const MomentProblem &problem,
                        const SolveOptions &options) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = validateMoment(net, problem))
    return std::move(err);

  // A device listed in several tiers belongs to the first.
  unsigned n = net.numNodes();
  constexpr unsigned kNoTier = ~0u;
  std::vector<unsigned> tierOf(n, kNoTier);
  std::vector<Terminal> supplies;
  for (unsigned t = 0, e = problem.tiers.size(); t != e; ++t)
    for (unsigned d : problem.tiers[t].devices)
      if (tierOf[d] == kNoTier) {
        tierOf[d] = t;
        supplies.push_back({d, std::numeric_limits<double>::infinity(), t});
      }
  std::map<unsigned, double> needs;
  double target = 0;
  for (const auto &[node, bytes] : problem.needs)
    if (bytes > 0) {
      needs[node] += bytes;
      target += bytes;
    }

  // Every destination must be reachable from some tier device.
  if (target > 0) {
    std::vector<bool> seen(n, false);
    std::vector<unsigned> stack;
    for (const Terminal &s : supplies) {
      seen[s.node] = true;
      stack.push_back(s.node);
    }
    std::vector<std::vector<unsigned>> out(n);
    for (const FlowArc &a : net.arcs)
      out[a.from].push_back(a.to);
    while (!stack.empty()) {
      unsigned u = stack.back();
      stack.pop_back();
      for (unsigned v : out[u])
        if (!seen[v]) {
          seen[v] = true;
          stack.push_back(v);
        }
    }
    for (const auto &[node, bytes] : needs)
      if (!seen[node])
        return makeError(llvm::formatv(
            "moment: node {0} ({1}) is unreachable from every tier device",
            node, net.nodes[node]));
  }

  std::vector<Demand> synthesized;
  PairPaths paths;
  std::optional<FlowCut> bindingCut;
  unsigned runs = 0;
  if (target > 0) {
    std::vector<Terminal> requirements;
    for (const auto &[node, bytes] : needs)
      requirements.push_back({node,
                              problem.aggregateSink
                                  ? std::numeric_limits<double>::infinity()
                                  : bytes,
                              0});
    HorizonFlow hf(net, supplies, std::move(requirements), target);
    llvm::Expected<HorizonResult> r =
        searchHorizon(hf, HorizonSearch::Bisection, options.relativeTolerance);
    if (!r)
      return r.takeError();
    bindingCut = r->bindingCut;
    runs = hf.runs();
    paths = hf.decompose();

    // Scale what arrived to exactly the needs (or the total).
    std::map<unsigned, double> arrived;
    double arrivedTotal = 0;
    for (const auto &[pair, pp] : paths)
      for (const FlowPath &p : pp) {
        arrived[pair.second] += p.amount;
        arrivedTotal += p.amount;
      }
    for (const auto &[pair, pp] : paths) {
      double amount = 0;
      for (const FlowPath &p : pp)
        amount += p.amount;
      double scale = problem.aggregateSink
                         ? target / arrivedTotal
                         : needs[pair.second] / arrived[pair.second];
      synthesized.push_back({pair.first, pair.second, amount * scale});
    }
  }

  llvm::Expected<FlowSchedule> s = finishConstantRate(
      net, synthesized, std::move(paths), ScheduleMethod::MomentGreedy,
      options.saturationTolerance);
  if (!s)
    return s.takeError();
  s->bindingCut = bindingCut;
  s->lowerBound = bindingCut ? bindingCut->bound() : 0;
  s->stats.maxFlows = runs;
  s->stats.commodities = target > 0 ? 1 : 0;

  std::map<unsigned, double> sent;
  for (const Demand &d : synthesized)
    sent[d.source] += d.bytes;
  // A device counts once, for the first tier (and position) that lists it.
  std::vector<bool> counted(n, false);
  for (unsigned t = 0, e = problem.tiers.size(); t != e; ++t) {
    TierSupply ts;
    ts.name = problem.tiers[t].name;
    for (unsigned d : problem.tiers[t].devices) {
      double bytes = 0;
      if (tierOf[d] == t && !counted[d]) {
        counted[d] = true;
        bytes = sent[d];
      }
      ts.devices.push_back(d);
      ts.deviceBytes.push_back(bytes);
      ts.bytes += bytes;
    }
    s->tiers.push_back(std::move(ts));
  }
  return s;
}
