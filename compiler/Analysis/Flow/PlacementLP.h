//===- PlacementLP.h - The shared place-and-route LP -----------*- C++ -*-===//
//
// Private to SluiceFlow: the joint place-and-route LP of Placement.cpp, which
// the whole-item MIP of IntegralPlacement.cpp reuses with the placement
// fractions x[c][t] in [0, 1] replaced by integer item counts y[c][t] in
// [0, itemCount_c] (x = y / itemCount_c), so the two cannot drift apart; and
// the access-density order both greedies place classes in.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENTLP_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENTLP_H

#include "compiler/Analysis/Flow/Glpk.h"
#include "compiler/Analysis/Flow/Placement.h"
#include <vector>

namespace sluice::flow::detail {

/// The LP, loaded and ready to solve. Column 1 is tau = T * capUnit /
/// byteUnit (minimised); then the placement columns (placeCol); then the
/// flows f[d][e] >= 0 in byteUnit. Rows: every class placed whole, tier
/// capacities (in storage units), conservation of each destination's
/// commodity at every other node (supply from the placement), and arc
/// capacities over the horizon.
struct PlacementLP {
  GlpkProb lp;
  /// Scale of the objective: makespan T = objective * byteUnit / capUnit.
  double byteUnit = 1, capUnit = 1;
  int placeBase = 0;
  unsigned numTiers = 0;
  /// The column of class c on tier t: x[c][t], or y[c][t] when integral.
  int placeCol(unsigned c, unsigned t) const {
    return placeBase + static_cast<int>(c * numTiers + t);
  }
};

/// Builds the LP for `p` over `net`: with `integral`, placement columns are
/// integer item counts (a MIP for glp_intopt); else fractions of each class.
PlacementLP buildPlacementLP(const FlowNetwork &net, const PlacementProblem &p,
                             bool integral);

/// The class indices by decreasing accesses per byte (ties keep index order).
std::vector<unsigned> densityOrder(const PlacementProblem &p);

} // namespace sluice::flow::detail

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENTLP_H
