//===- DirectPaths.cpp - Baseline: one widest path per demand -------------===//
//
// What a transfer library does without a planner: each demand goes over
// its widest path, and the transfers active at a moment share every arc
// max-min fairly (progressive filling: the arc with the smallest fair share
// fixes the rate of all its unfixed transfers, its capacity is taken off
// their other arcs, repeat). Whenever a transfer finishes the rates are
// re-allocated; the makespan is the last completion of that fluid
// simulation, so it is exact for the model, not an estimate. At most one
// event per demand, each O(D * (E + P)) for D demands and path length P.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"

#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
/// Max-min fair rates of the transfers `active` (indices into `paths`).
std::vector<double> fairRates(const FlowNetwork &net,
                              const std::vector<std::vector<unsigned>> &paths,
                              const std::vector<unsigned> &active) {
  unsigned numArcs = net.numArcs();
  std::vector<double> spare(numArcs);
  for (unsigned a = 0; a != numArcs; ++a)
    spare[a] = net.arcs[a].capacity;
  std::vector<unsigned> users(numArcs, 0);
  for (unsigned i : active)
    for (unsigned a : paths[i])
      ++users[a];
  std::vector<double> rate(paths.size(), 0);
  std::vector<bool> fixed(paths.size(), false);
  for (size_t left = active.size(); left > 0;) {
    // The arc with the smallest fair share; ties go to the lower arc.
    unsigned best = ~0u;
    double share = std::numeric_limits<double>::infinity();
    for (unsigned a = 0; a != numArcs; ++a) {
      if (users[a] == 0)
        continue;
      double s = std::max(0.0, spare[a]) / users[a];
      if (s < share) {
        share = s;
        best = a;
      }
    }
    assert(best != ~0u && "an unfixed transfer uses no arc");
    for (unsigned i : active) {
      if (fixed[i] ||
          std::find(paths[i].begin(), paths[i].end(), best) == paths[i].end())
        continue;
      fixed[i] = true;
      rate[i] = share;
      --left;
      for (unsigned a : paths[i]) {
        spare[a] -= share;
        --users[a];
      }
    }
  }
  return rate;
}
} // namespace

llvm::Expected<FlowSchedule>
flow::solveDirectPaths(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                       const SolveOptions &options) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = validateDemands(net, demands))
    return std::move(err);

  std::vector<WidthArc> widths;
  widths.reserve(net.numArcs());
  for (const FlowArc &a : net.arcs)
    widths.push_back({a.from, a.to, a.capacity});

  FlowSchedule s;
  s.method = ScheduleMethod::DirectPath;
  std::vector<std::vector<unsigned>> paths(demands.size());
  std::vector<double> remaining(demands.size(), 0);
  std::vector<unsigned> active;
  for (unsigned i = 0, e = demands.size(); i != e; ++i) {
    const Demand &d = demands[i];
    DemandRoute route;
    route.demand = d;
    if (!d.isLocal() && d.bytes > 0) {
      double bottleneck = 0;
      paths[i] = widestPath(net.numNodes(), widths, d.source, d.destination, 0,
                            bottleneck);
      if (paths[i].empty())
        return makeError(llvm::formatv("demand {0}: no path from node {1} to "
                                       "node {2}",
                                       i, d.source, d.destination));
      PathFlow p;
      p.arcs = paths[i];
      p.bytes = d.bytes;
      route.paths.push_back(std::move(p));
      remaining[i] = d.bytes;
      active.push_back(i);
    }
    s.routes.push_back(std::move(route));
  }

  double now = 0;
  while (!active.empty()) {
    ++s.stats.events;
    std::vector<double> rate = fairRates(net, paths, active);
    // The next completion; ties all finish together.
    double step = std::numeric_limits<double>::infinity();
    for (unsigned i : active)
      step = std::min(step, remaining[i] / rate[i]);
    assert(std::isfinite(step) && step >= 0 && "a transfer got no bandwidth");
    double end = now + step;
    std::vector<unsigned> still;
    for (unsigned i : active) {
      PathFlow &p = s.routes[i].paths.front();
      if (!p.segments.empty() && p.segments.back().rate == rate[i])
        p.segments.back().end = end;
      else
        p.segments.push_back({now, end, rate[i]});
      double sent = rate[i] * step;
      // Done if this is (within rounding) its own completion time.
      if (remaining[i] - sent <= 1e-12 * s.routes[i].demand.bytes ||
          remaining[i] / rate[i] <= step) {
        remaining[i] = 0;
        p.finish = end;
        p.rate = p.bytes / end;
        s.routes[i].finish = end;
        continue;
      }
      remaining[i] -= sent;
      still.push_back(i);
    }
    active = std::move(still);
    now = end;
  }
  s.makespan = now;
  fillArcUsage(net, s, options.saturationTolerance);
  return s;
}
