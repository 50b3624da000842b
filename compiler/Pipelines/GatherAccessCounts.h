//===- GatherAccessCounts.h - Sampled counts of gather jobs -----*- C++ -*-===//
//
// The input plan-schedule-flows needs for a sampled gather job (a
// plan.demand gather whose job names a `graph`): its access counts,
// computed here before the pass from the graph loaded through the runtime
// (sluice_graph_load) and attached to the job as `access_counts`, so that
// the pass itself reads no files of graphs and the plan dialect's
// transforms do not link the runtime. See docs/flows.md, "Gather jobs".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_GATHERACCESSCOUNTS_H
#define SLUICE_COMPILER_PIPELINES_GATHERACCESSCOUNTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Attaches `access_counts` (tensor<items x destinations x f64>, the exact
/// expected accesses of flow::expectedSampledAccesses) to every sampled
/// gather job of `module` that has none. Needs the flat topology (the
/// destinations are the devices the job's patterns match in it). A job
/// whose patterns, topology or size plan-schedule-flows would reject is
/// left alone for the pass to report; a graph that cannot be loaded, has an
/// unknown format or has not one vertex per item is reported at the job,
/// and then this fails.
mlir::LogicalResult attachSampledAccessCounts(mlir::ModuleOp module);

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_GATHERACCESSCOUNTS_H
