//===- TopoPipeline.h - Topology phases of the compiler --------*- C++ -*-===//
//
// The topology part of the pipeline: flatten the topo dialect around one
// topology. The analyses read the flat topology afterwards through
// extractTopoGraph (dialects/Topo/Analysis/ExtractTopoGraph.h): they need
// one physical device per op, which only topo-flatten provides (instances
// inlined, arrays expanded, overrides applied).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H
#define SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

namespace sluice {

/// Adds the topology passes to `pm`: topo-flatten{top=<top>}.
void buildTopoFlattenPipeline(mlir::OpPassManager &pm, llvm::StringRef top);

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_TOPOPIPELINE_H
