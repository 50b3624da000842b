//===- PathLP.h - Column-generation LP for large multi-commodity -*- C++ -*-===//
//
// The minimum-makespan multi-commodity LP of solveMultiCommodity in its path
// form, solved by column generation (see docs/flows.md, "Scaling the LP"):
//
//   minimise T  s.t.  sum_{p in P_k} x_p = 1            for every pair k,
//                     sum_k d_k sum_{p in P_k, e in p} x_p <= c_e T
//                                                       for every arc e.
//
// The restricted master starts with one path per pair and grows: after each
// GLPK solve the arc duals y_e >= 0 are lengths, one Dijkstra per distinct
// source (or destination, whichever is fewer) prices every pair, and a path
// with negative reduced cost enters. Any y >= 0 gives the certified lower
// bound  sum_k d_k dist_y(k) / sum_e c_e y_e  <= T*  (LP duality), so the
// solver stops when the master's T is within `relativeGap` of the best bound
// seen; the schedule's `lowerBound` is that bound. The master only holds
// rows for arcs that some path uses, so its size grows with the routing,
// not with commodities x arcs.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_PATHLP_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_PATHLP_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

namespace sluice::flow {

struct PathLPOptions {
  /// Stop when (master T - lower bound) <= relativeGap * master T. 0 runs to
  /// the exact LP optimum (up to GLPK's tolerances).
  double relativeGap = 1e-3;
  /// Pricing rounds at most; the result then carries the gap it reached.
  unsigned maxRounds = 500;
  /// Multiplicative-weights phases that seed the master with spread-out
  /// paths (0 or 1: one shortest path per pair, by 1 / capacity; later
  /// phases update the lengths after every root), and the exponent's step
  /// per first-phase makespan of load.
  unsigned warmupPhases = 3;
  double warmupStep = 1.0;
  /// An arc is saturated when its utilisation is >= 1 - this.
  double saturationTolerance = 1e-6;
};

/// What the column generation did (besides SolverStats).
struct PathLPInfo {
  unsigned rounds = 0;
  unsigned paths = 0;
  /// The master's optimum at the end (an upper bound on the LP optimum).
  double masterMakespan = 0;
  /// The best certified lower bound (also FlowSchedule::lowerBound).
  double lowerBound = 0;
  /// True if the gap target was met (false: maxRounds ran out).
  bool converged = false;
};

/// Minimum makespan of arbitrary demands by the path LP. The schedule's
/// method is MultiCommodityLP, its makespan is recomputed from the routed
/// bytes (at most the master's T), and lowerBound is the certified bound,
/// so makespan <= lowerBound / (1 - relativeGap) up to rounding. Fails on
/// invalid demands or options, or if GLPK fails.
llvm::Expected<FlowSchedule>
solveMultiCommodityPaths(const FlowNetwork &net, llvm::ArrayRef<Demand> demands,
                         const PathLPOptions &options = {},
                         PathLPInfo *info = nullptr);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_PATHLP_H
