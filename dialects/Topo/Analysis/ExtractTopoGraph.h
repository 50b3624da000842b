//===- ExtractTopoGraph.h - Analysis graph of a flat topology ---*- C++ -*-===//
//
// The bridge from the topo dialect to the IR-independent topology analyses:
// reads the flat topology of a module (the output of topo-flatten: one
// topo.device per physical device, every link between two of them) into an
// analysis::TopoGraph (compiler/Analysis/TopoGraph.h). The passes that need
// the graph (plan-schedule-flows) and the drivers (sluicec --emit=report,
// sluice-plan-offload) call it; it depends on the topo dialect and the
// analysis graph only, never on the pipelines.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_TOPO_ANALYSIS_EXTRACTTOPOGRAPH_H
#define SLUICE_DIALECTS_TOPO_ANALYSIS_EXTRACTTOPOGRAPH_H

#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// The flat topology of `module` (the output of topo-flatten), or null when
/// it has none.
topo::TopologyOp findFlatTopology(mlir::ModuleOp module);

/// Builds the analysis graph of the flat topology in `module` (the output of
/// topo-flatten). Reports an error on `module` and fails when it holds no
/// flat topology.
mlir::FailureOr<analysis::TopoGraph> extractTopoGraph(mlir::ModuleOp module);

} // namespace sluice

#endif // SLUICE_DIALECTS_TOPO_ANALYSIS_EXTRACTTOPOGRAPH_H
