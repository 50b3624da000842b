//===- GatherJob.h - Placement and demands of gather jobs -------*- C++ -*-===//
//
// plan-schedule-flows' part for a gather job (a plan.demand gather with a
// `job` dictionary): access counts from the file, or those of the sampled
// graph that were attached to the job before the pass
// (compiler/Pipelines/GatherAccessCounts.h; the pass loads no graph), over
// compiler/Analysis/Flow/GatherAccess.h; hotness classes, tiers with
// their capacities from the topology, whole-item placement by Moment's
// density greedy and by the joint MIP (IntegralPlacement.h), and the gather
// demands of the better placement. See docs/flows.md, "Gather jobs".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERJOB_H
#define SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERJOB_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::plan {

/// The placement and demands of one gather job.
struct GatherJobPlan {
  std::string label;
  std::vector<flow::Demand> demands;
  /// "integral-mip" or "greedy-whole".
  std::string method;
  int64_t items = 0;
  double itemBytes = 0;
  size_t classes = 0;
  double accesses = 0;
  /// Per tier: its pattern, whole items on it, its capacity in bytes.
  std::vector<std::string> tiers;
  std::vector<double> tierItems, tierCapacity;
  /// Bytes stored per device (tier devices in tier order), > 0 only.
  std::vector<std::pair<std::string, double>> deviceBytes;
  /// Makespans: Moment's greedy (whole items), the MIP's placement, the LP
  /// relaxation bound; whether the MIP was proved optimal.
  double greedy = 0, integral = 0, relaxation = 0;
  bool provedOptimal = false;
};

/// The most access counts (items x destinations doubles, 2 GiB) a gather
/// job may have; more is an error at the job before any is allocated.
constexpr uint64_t kMaxAccessCounts = uint64_t(1) << 28;
/// items x destinations, saturating.
uint64_t accessCountCells(int64_t items, size_t destinations);

/// The destinations of gather job `op`, the columns of its access counts:
/// the devices its `destinations` patterns match, deduplicated, in pattern
/// order. An error (what the pass reports at `op`) for a malformed pattern
/// or one that matches nothing.
llvm::Expected<std::vector<unsigned>> gatherDestinations(DemandOp op,
                                                         const PlanNetwork &pn);

/// Plans the gather job `op` (kind "gather" with a job dictionary); errors
/// are reported at `op` (or at the access file's line) before failing.
mlir::FailureOr<GatherJobPlan> planGatherJob(DemandOp op,
                                             const PlanNetwork &pn,
                                             const analysis::TopoGraph &graph);

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_TRANSFORMS_GATHERJOB_H
