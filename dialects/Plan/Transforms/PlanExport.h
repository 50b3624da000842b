//===- PlanExport.h - Writing plan.schedule ops out -------------*- C++ -*-===//
//
// The exports of `sluicec --emit=plan --format=json|dot|trace`, all from the
// plan.schedule ops of a module (in module order) and the capacity network
// of its flat topology:
//  - JSON: {"schedules": [{"name", "topology", "direct_makespan",
//    "moment_makespan", "chunk_bytes", "schedule": <the flow library's
//    schedule JSON with its chunk timeline>}]}, and "middle_tiers": [the
//    attributes of each plan.middle_tier] when there are some;
//  - DOT: one digraph per schedule, an edge per link that carries data,
//    labelled with its average rate over the makespan, its peak rate at
//    any moment and its capacity; above kDotSummaryDevices used devices
//    (or when asked) one node per top-level instance, the links between
//    two instances merged into one edge;
//  - trace: Chrome/Perfetto trace-event JSON, one process per schedule, one
//    track (thread) per transfer path, an "X" event per chunk.
// Output is a deterministic function of the IR.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANEXPORT_H
#define SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANEXPORT_H

#include "compiler/Analysis/TopoGraph.h"
#include "compiler/Target/DotDetail.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::plan {

/// Each fails (after reporting at the offending op) if a schedule does not
/// fit the topology graph.
mlir::LogicalResult writePlanJSON(llvm::raw_ostream &os, mlir::ModuleOp module,
                                  const analysis::TopoGraph &graph);
mlir::LogicalResult
writePlanDot(llvm::raw_ostream &os, mlir::ModuleOp module,
             const analysis::TopoGraph &graph,
             target::DotDetail detail = target::DotDetail::Auto);
mlir::LogicalResult writePlanTrace(llvm::raw_ostream &os, mlir::ModuleOp module,
                                   const analysis::TopoGraph &graph);
/// A terminal table per schedule (PlanTable.cpp): makespan against the lower
/// bound and the baselines, the demands, collectives and saturated links.
mlir::LogicalResult writePlanTable(llvm::raw_ostream &os, mlir::ModuleOp module,
                                   const analysis::TopoGraph &graph);

/// "12.5 GB/s": a rate in B/s with a decimal unit and 4 significant digits.
std::string formatRate(double bytesPerSecond);

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANEXPORT_H
