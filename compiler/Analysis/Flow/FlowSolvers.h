//===- FlowSolvers.h - Minimum-makespan routing of demands ------*- C++ -*-===//
//
// Solvers that route a list of demands over a FlowNetwork so that the last
// byte arrives as early as possible (see docs/flows.md):
//  - solveSingleCommodity: demands sharing one sink (or one source); the
//    optimum is max over cuts of (demand across the cut) / (cut bandwidth),
//    found by max flows (Boost.Graph) with capacities c_e * T;
//  - solveMultiCommodity: any demands; a linear program (GLPK) over
//    per-commodity arc flows and the horizon T;
//  - solveMinMakespan: the first if it applies, else the second;
//  - baselines: solveDirectPaths (one widest path per demand, max-min fair
//    sharing, simulated exactly) and solveMomentGreedy (Moment's tiered
//    single-sink max flow with a bisection on the horizon).
// Every solver validates its input, returns one DemandRoute per input
// demand (Moment: per demand it synthesizes), and is a deterministic
// function of its input.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSOLVERS_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSOLVERS_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <utility>
#include <vector>

namespace sluice::flow {

/// How the single-commodity solver finds the horizon.
enum class HorizonSearch {
  /// Newton's method on the parametric max flow: each infeasible probe's
  /// min cut C gives the next probe, C's bound (demand across C over its
  /// capacity), a lower bound on T*; converges in a handful of max flows to
  /// T* = max over cuts.
  Parametric,
  /// Bisection on T between a cut lower bound and a doubled upper bound,
  /// down to the relative tolerance.
  Bisection,
};

/// How the LP groups demands into commodities.
enum class CommodityGrouping {
  /// Per source or per destination, whichever gives fewer commodities
  /// (per source on a tie).
  Auto,
  /// One commodity per distinct source (flows to several sinks).
  PerSource,
  /// One commodity per distinct destination (flows from several sources).
  PerDestination,
  /// One commodity per (source, destination) pair.
  PerDemand,
};

struct SolveOptions {
  HorizonSearch search = HorizonSearch::Parametric;
  /// The bisection stops when (hi - lo) <= relativeTolerance * hi.
  double relativeTolerance = 1e-9;
  CommodityGrouping grouping = CommodityGrouping::Auto;
  /// Re-solve the LP with GLPK's exact (rational) simplex from the
  /// floating-point optimal basis.
  bool exactLP = false;
  /// An arc is saturated when its utilisation is >= 1 - this.
  double saturationTolerance = 1e-6;
};

/// Minimum makespan of demands that share one destination or one source.
/// Fails if they do not (isSingleCommodity), or on invalid demands.
llvm::Expected<FlowSchedule>
solveSingleCommodity(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                     const SolveOptions &options = {});

/// Minimum makespan of arbitrary demands by linear programming:
/// minimise T subject to per-commodity conservation and
/// sum_k f[k][e] <= c_e * T.
llvm::Expected<FlowSchedule>
solveMultiCommodity(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                    const SolveOptions &options = {});

/// solveSingleCommodity when isSingleCommodity(demands), else
/// solveMultiCommodity.
llvm::Expected<FlowSchedule> solveMinMakespan(const FlowNetwork &net,
                                              llvm::ArrayRef<Demand> demands,
                                              const SolveOptions &options = {});

/// Baseline: each demand takes its widest path (largest bottleneck, then
/// fewest hops, then the lower arc indices); active transfers share every
/// arc max-min fairly and rates are re-allocated whenever one finishes.
/// The makespan is the time of the last completion in that fluid
/// simulation.
llvm::Expected<FlowSchedule> solveDirectPaths(const FlowNetwork &net,
                                              llvm::ArrayRef<Demand> demands,
                                              const SolveOptions &options = {});

/// Moment's problem: destinations that need bytes, and source tiers in
/// priority order whose devices can supply any amount (the data is placed
/// where the flow says).
struct MomentProblem {
  std::vector<GatherTier> tiers;
  /// (destination node, bytes it needs), destinations distinct.
  std::vector<std::pair<unsigned, double>> needs;
  /// One super-sink without per-destination volumes: only the total must
  /// arrive, wherever it lands (Moment's aggregate view).
  bool aggregateSink = false;
};

/// Per-destination totals of `demands` (merged, ascending destination) and
/// the given tiers; with no tiers, one tier "sources" of the distinct
/// sources of the demands (none if no demand needs a transfer).
MomentProblem makeMomentProblem(llvm::ArrayRef<Demand> demands,
                                std::vector<GatherTier> tiers = {});

/// The gather's per-destination totals (local reads included, since a
/// destination inside a tier may serve itself) and its tiers.
llvm::Expected<MomentProblem> makeMomentProblem(const FlowNetwork &net,
                                                const GatherSpec &spec);

/// Baseline: Moment's scheduler. A super-source feeds the tier devices and
/// each destination drains into one super-sink (its need as capacity,
/// unbounded if aggregateSink); at a horizon T the max flow runs with only
/// the first tier connected, then again on the residual with the next tier
/// added, and so on; T is bisected down to the relative tolerance. The
/// routes are the decomposed flow, one per (tier device, destination) pair
/// with traffic, as synthesized demands in ascending order; `tiers` says
/// what each tier supplied. Since sources are free to choose, its makespan
/// is at most that of any fixed-source schedule for the same needs.
llvm::Expected<FlowSchedule>
solveMomentGreedy(const FlowNetwork &net, const MomentProblem &problem,
                  const SolveOptions &options = {});

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSOLVERS_H
