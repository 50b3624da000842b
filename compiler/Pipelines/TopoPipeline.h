//===- TopoPipeline.h - Topology phases of the compiler --------*- C++ -*-===//
//
// The topology part of the pipeline: flatten the topo dialect around one
// topology, then extract the IR-independent analysis graph
// (compiler/Analysis/TopoGraph.h) from the flat topology. The order is
// fixed: analyses need one physical device per op, which only topo-flatten
// provides (instances inlined, arrays expanded, overrides applied).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H
#define SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H

#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Adds the topology passes to `pm`: topo-flatten{top=<top>}.
void buildTopoFlattenPipeline(mlir::OpPassManager &pm, llvm::StringRef top);

/// The flat topology of `module` (the output of buildTopoFlattenPipeline),
/// or null when it has none.
topo::TopologyOp findFlatTopology(mlir::ModuleOp module);

/// Builds the analysis graph of the flat topology in `module` (the output of
/// buildTopoFlattenPipeline). Reports an error on `module` and fails when it
/// holds no flat topology.
mlir::FailureOr<analysis::TopoGraph> extractTopoGraph(mlir::ModuleOp module);

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H
