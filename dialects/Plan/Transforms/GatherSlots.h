//===- GatherSlots.h - Slot recommendation for a gather demand --*- C++ -*-===//
//
// What `plan-schedule-flows{recommend-slots}` (sluicec --remarks) reports
// for a `gather` item: the devices of the gather that hang off the fabric
// by one link (GPUs and SSDs in PCIe slots) become movable devices, each
// link end a slot that takes any of them (the link then runs at the slower
// of the slot and the device's current link); flow::recommendSlots
// searches the assignments for the gather's traffic (every destination
// reads bytes / |sources| from each source) and the result compares the
// recommended with the current assignment.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERSLOTS_H
#define SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERSLOTS_H

#include "compiler/Analysis/Flow/SlotPlacement.h"
#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace sluice::plan {

struct GatherSlots {
  flow::SlotProblem problem;
  /// Network node of each problem device.
  std::vector<unsigned> deviceNode;
  flow::SlotRecommendation recommendation;
};

/// Builds the slot problem of a gather of `bytes` per destination from
/// `sources` to `destinations` (network nodes of `pn`, device kinds from
/// `graph`) and runs recommendSlots. Fails, saying why, if a destination
/// is not attached by a single link, the destinations are not of one kind,
/// a movable source has the destinations' kind, or the search fails.
llvm::Expected<GatherSlots>
recommendGatherSlots(const PlanNetwork &pn, const analysis::TopoGraph &graph,
                     llvm::ArrayRef<unsigned> sources,
                     llvm::ArrayRef<unsigned> destinations, double bytes);

/// "current 0.436 s, recommended 0.3 s (1.45x faster); moves: a -> slot
/// of b, ..." (at most 8 moves listed).
std::string describeGatherSlots(const GatherSlots &slots);

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERSLOTS_H
