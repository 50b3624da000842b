//===- MLIRGenAlgorithm.h - Algorithms to the graph dialect -----*- C++ -*-===//
//
// The part of MLIRGen that lowers graph algorithms, their schedules and
// their `run` jobs into the `graph` dialect (dialects/Graph). MLIRGen.cpp
// hands these declarations over (isAlgorithmDecl) and calls
// mlirGenAlgorithms once the graphs are emitted (as walk.graph, by
// mlirGenWalks).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHM_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHM_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Whether `decl` is lowered by mlirGenAlgorithms: an algorithm, the
/// schedule of one, or a `run` job.
bool isAlgorithmDecl(const ast::Program &program, const ast::Decl &decl);

/// Whether some algorithm of `program` runs on the graph `name`.
bool isAlgorithmGraph(const ast::Program &program, llvm::StringRef name);

/// Appends to `module` one op per declaration isAlgorithmDecl accepts, in
/// declaration order: graph.algorithm (with what its schedule asks for as
/// attributes: target, threads, loop_defaults, label_schedules) and
/// graph.job. `globals` holds the program's top-level constants. Reports
/// located errors and fails if there were any.
mlir::LogicalResult mlirGenAlgorithms(mlir::ModuleOp module,
                                      const ast::Program &program,
                                      const ConstEnv &globals);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENALGORITHM_H
