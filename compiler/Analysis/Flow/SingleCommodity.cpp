//===- SingleCommodity.cpp - Min makespan for one sink or one source ------===//
//
// Demands that share one destination (a gather) or one source (a scatter)
// form a single commodity: since every unit of flow ends at the same sink
// (or starts at the same source), any flow that respects the supplies and
// requirements can be split into paths that serve the right pairs. So the
// minimum makespan is the smallest horizon T at which the max flow with
// capacities c_e * T carries the demand, which by max-flow min-cut is
// T* = max over cuts S of (demand that must leave S) / (bandwidth out of S).
// HorizonFlow finds it; see docs/flows.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/HorizonFlow.h"

#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

llvm::Expected<FlowSchedule>
flow::solveSingleCommodity(const FlowNetwork &net,
                           llvm::ArrayRef<Demand> demands,
                           const SolveOptions &options) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = validateDemands(net, demands))
    return std::move(err);
  std::vector<Demand> merged = mergeDemands(demands);
  if (!isSingleCommodity(merged)) {
    std::map<unsigned, bool> sources, destinations;
    for (const Demand &d : merged) {
      sources[d.source] = true;
      destinations[d.destination] = true;
    }
    return makeError(llvm::formatv(
        "demands have {0} sources and {1} destinations; a single commodity "
        "needs one sink or one source",
        sources.size(), destinations.size()));
  }
  ScheduleMethod method = options.search == HorizonSearch::Parametric
                              ? ScheduleMethod::SingleCommodityParametric
                              : ScheduleMethod::SingleCommodityBisection;
  if (merged.empty()) {
    auto s = finishConstantRate(net, demands, {}, method,
                                options.saturationTolerance);
    if (s) {
      s->lowerBound = 0;
      s->stats.commodities = 0;
    }
    return s;
  }

  std::map<unsigned, double> supply, need;
  double target = 0;
  for (const Demand &d : merged) {
    supply[d.source] += d.bytes;
    need[d.destination] += d.bytes;
    target += d.bytes;
  }
  std::vector<Terminal> supplies, requirements;
  for (const auto &[node, bytes] : supply)
    supplies.push_back({node, bytes, 0});
  for (const auto &[node, bytes] : need)
    requirements.push_back({node, bytes, 0});

  HorizonFlow hf(net, std::move(supplies), std::move(requirements), target);
  llvm::Expected<HorizonResult> r =
      searchHorizon(hf, options.search, options.relativeTolerance);
  if (!r)
    return r.takeError();
  llvm::Expected<FlowSchedule> s = finishConstantRate(
      net, demands, hf.decompose(), method, options.saturationTolerance);
  if (!s)
    return s.takeError();
  s->bindingCut = r->bindingCut;
  s->lowerBound = r->bindingCut ? r->bindingCut->bound() : 0;
  s->stats.maxFlows = hf.runs();
  s->stats.commodities = 1;
  return s;
}

llvm::Expected<FlowSchedule>
flow::solveMinMakespan(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                       const SolveOptions &options) {
  if (isSingleCommodity(demands))
    return solveSingleCommodity(net, demands, options);
  return solveMultiCommodity(net, demands, options);
}
