//===- MLIRGen.h - Lowering the Sluice AST to MLIR -------------*- C++ -*-===//
//
// MLIRGen turns a checked Program into a builtin.module of Sluice dialect
// ops. Topology declarations are elaborated at compile time (parameters,
// lets, for loops, arrays, endpoint ranges and `*`, nested instances,
// overrides, measured bandwidth matrices) into the `topo` dialect; every op
// carries the FileLineColLoc of the declaration it came from. Graphs, walks
// and their schedules and jobs go to the `walk` dialect (MLIRGenWalk.h),
// algorithms and their schedules and `run` jobs to the `graph` dialect
// (MLIRGenAlgorithm.h), demands to `plan`, transformers, gnns, distill
// models and their jobs to `model`. Declarations whose lowering has not
// been built yet stop MLIRGen with a located "not supported yet" error
// rather than being skipped.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGEN_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGEN_H

#include "frontends/sluice/AST.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace sluice {

/// Lowers `program` (which Sema has accepted). Returns null after reporting
/// errors. The result has been verified.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &ctx,
                                          const ast::Program &program);

/// The topology a whole-program view (flatten, report) starts from when the
/// user names none: the last topology declared in the main file, else the
/// last one declared anywhere. Empty if the program has no topology.
std::string defaultTopTopology(const ast::Program &program);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGEN_H
