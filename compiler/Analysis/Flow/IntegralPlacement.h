//===- IntegralPlacement.h - Whole-item placement for gathers ---*- C++ -*-===//
//
// The integral counterpart of placeForMakespan (Placement.h): every item is
// stored whole in one tier (striped over the tier's devices as before), so
// the number of items of class c on tier t is an integer. See docs/flows.md,
// "Integral placement".
//  - placeGreedyWhole: Moment's density greedy filling tiers with whole
//    items (a partial item spills to the next tier whole);
//  - placeIntegral: the joint place-and-route LP with integer item counts,
//    solved by GLPK's branch and bound (glp_intopt) from the LP relaxation,
//    then evaluated like any placement; the result is the better of that
//    and placeGreedyWhole, so it is never worse than the greedy.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_INTEGRALPLACEMENT_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_INTEGRALPLACEMENT_H

#include "compiler/Analysis/Flow/Placement.h"

namespace sluice::flow {

struct IntegralPlacementOptions {
  /// Branch-and-bound time limit in seconds; when it runs out the best
  /// integer solution found so far is used (and `provedOptimal` is false).
  double timeLimitSeconds = 10;
  /// Relative MIP gap at which branch and bound may stop (0: prove
  /// optimality).
  double mipGap = 0;
  SolveOptions solve;
};

/// What the branch and bound did.
struct IntegralPlacementInfo {
  /// GLPK proved the MIP optimum (within mipGap).
  bool provedOptimal = false;
  /// The LP relaxation's optimum: no placement, fractional or whole, has a
  /// shorter makespan.
  double relaxationBound = 0;
  /// The MIP's objective (its makespan), 0 if no integer solution.
  double mipMakespan = 0;
};

/// Fails unless every class has a whole item count.
llvm::Error validateIntegralPlacement(const FlowNetwork &net,
                                      const PlacementProblem &problem);

/// Baseline: classes by decreasing access density fill the tiers in order
/// with whole items. Fails if whole items do not fit (the fractional
/// greedy may still fit them).
llvm::Expected<PlacementResult>
placeGreedyWhole(const FlowNetwork &net, const PlacementProblem &problem,
                 const SolveOptions &options = {});

/// The minimum-makespan whole-item placement (see above).
llvm::Expected<PlacementResult>
placeIntegral(const FlowNetwork &net, const PlacementProblem &problem,
              const IntegralPlacementOptions &options = {},
              IntegralPlacementInfo *info = nullptr);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_INTEGRALPLACEMENT_H
