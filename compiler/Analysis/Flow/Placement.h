//===- Placement.h - Data placement for gathers -----------------*- C++ -*-===//
//
// Chooses which storage tier holds how many items of each item class so that
// the gather of those items (GatherSpec, buildGatherDemands) can finish as
// early as possible under the flow schedule (see docs/flows.md, "Data
// placement"). Two methods:
//  - placeGreedyByDensity: Moment-style baseline; classes ranked by access
//    density (accesses per stored byte) fill the tiers in the given order
//    (fastest first);
//  - placeForMakespan: one linear program that places and routes jointly
//    (placement fractions, per-destination commodity flows and the horizon
//    T), then re-evaluated with solveMinMakespan; it returns the better of
//    that and the greedy, so it is never worse than the baseline.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENT_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENT_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace sluice::flow {

/// A storage tier: devices (nodes of the network) that hold items striped
/// evenly over them, and the total bytes the tier can hold (summed over its
/// devices).
struct PlacementTier {
  std::string name;
  std::vector<unsigned> devices;
  double capacityBytes = 0;
};

/// A class of items of equal size and equal access statistics (e.g. one
/// hotness bucket of feature vectors). Accesses are spread uniformly over
/// the class's items, so a fraction f of the items carries a fraction f of
/// the traffic.
struct PlacementClass {
  /// Bytes stored per item, and bytes moved per access.
  double bytesPerItem = 0;
  /// Number of items (fractional counts are accepted).
  double itemCount = 0;
  /// Total accesses to the class by each destination, parallel to
  /// PlacementProblem::destinations.
  std::vector<double> accesses;
};

struct PlacementProblem {
  std::vector<unsigned> destinations;
  /// Tiers, fastest first (the order the greedy fills them in).
  std::vector<PlacementTier> tiers;
  std::vector<PlacementClass> classes;
};

enum class PlacementMethod {
  /// placeGreedyByDensity.
  GreedyDensity,
  /// The joint place-and-route LP.
  JointLP,
  /// placeGreedyWhole (IntegralPlacement.h).
  GreedyWhole,
  /// The joint place-and-route MIP (IntegralPlacement.h).
  IntegralMIP,
};

struct PlacementResult {
  /// items[c][t]: items of class c stored on tier t (fractional; each row
  /// sums to the class's itemCount).
  std::vector<std::vector<double>> items;
  /// Bytes stored on each tier (<= its capacity).
  std::vector<double> tierBytes;
  /// The gather demands of this placement (buildGatherDemands, striped).
  std::vector<Demand> demands;
  /// solveMinMakespan of `demands`.
  FlowSchedule schedule;
  double makespan = 0;
  /// Which method produced `items`.
  PlacementMethod method = PlacementMethod::GreedyDensity;
};

/// Checks indices, sizes and numbers (finite, non-negative; capacities and
/// item sizes positive where items exist) and that the classes fit in the
/// total capacity.
llvm::Error validatePlacement(const FlowNetwork &net,
                              const PlacementProblem &problem);

/// The GatherSpec (striped tiers) of a placement: one GatherItem per
/// (class, tier) with items on it, carrying that share of the accesses.
GatherSpec placementGather(const PlacementProblem &problem,
                           const std::vector<std::vector<double>> &items);

/// Evaluates a given placement (items[c][t]): capacities checked (relative
/// slack 1e-9), then demands and solveMinMakespan. `method` is copied into
/// the result.
llvm::Expected<PlacementResult>
evaluatePlacement(const FlowNetwork &net, const PlacementProblem &problem,
                  const std::vector<std::vector<double>> &items,
                  PlacementMethod method = PlacementMethod::GreedyDensity,
                  const SolveOptions &options = {});

/// Baseline: classes in decreasing access density (total accesses over
/// itemCount * bytesPerItem; ties by class index) fill the tiers in order,
/// a class spilling fractionally into the next tier when one is full.
llvm::Expected<PlacementResult>
placeGreedyByDensity(const FlowNetwork &net, const PlacementProblem &problem,
                     const SolveOptions &options = {});

/// Minimum-makespan placement: the joint LP (minimise T over placement
/// fractions x[c][t] with sum_t x = 1 and tier capacities, per-destination
/// commodities whose supply at each tier device is its striped share of
/// x[c][t] * accesses * bytesPerItem, and sum_d f[d][e] <= c_e * T), then
/// evaluated like any placement; the result is the better of that and
/// placeGreedyByDensity (the greedy on a tie).
llvm::Expected<PlacementResult>
placeForMakespan(const FlowNetwork &net, const PlacementProblem &problem,
                 const SolveOptions &options = {});

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_PLACEMENT_H
