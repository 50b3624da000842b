//===- MLIRGenWalk.h - Lowering walks to the walk dialect ------*- C++ -*-===//
//
// The part of MLIRGen that lowers graphs, walks, walk schedules and walk
// jobs into the `walk` dialect (dialects/Walk). MLIRGen.cpp hands these
// declarations over (isWalkDecl) and calls mlirGenWalks once the topologies
// are emitted.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENWALK_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENWALK_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// Whether `decl` is lowered by mlirGenWalks: a walk, a graph (walk.graph is
/// the graph declaration of walks and algorithms; only a graph that demands
/// alone read is not), the schedule of a walk, or a `walk` job.
bool isWalkDecl(const ast::Program &program, const ast::Decl &decl);

/// Appends to `module` one op per declaration isWalkDecl accepts, in
/// declaration order: walk.graph, walk.walk (with its schedule as
/// attributes), walk.job. `globals` holds the program's top-level constants.
/// Reports located errors (including "not supported yet" for what the walk
/// dialect cannot express) and fails if there were any.
mlir::LogicalResult mlirGenWalks(mlir::ModuleOp module,
                                 const ast::Program &program,
                                 const ConstEnv &globals);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENWALK_H
