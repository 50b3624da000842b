//===- WalkOps.h - Operations of the walk dialect ---------------*- C++ -*-===//
//
// walk.graph, walk.walk, walk.job, walk.yield and the expression ops.
// Include this header to build or inspect walk IR.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_IR_WALKOPS_H
#define SLUICE_DIALECTS_WALK_IR_WALKOPS_H

#include "dialects/Walk/IR/WalkDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/Walk/IR/WalkOps.h.inc"

namespace sluice::walk {

/// The regions of walk.walk, by what they compute.
enum class WalkRegion {
  None, ///< not inside a walk.walk
  Init,
  Length,
  Start,
  StopProbability,
  Weight,
  Stop,
  Update,
  Bound, ///< upper_bound, lower_bound, sum_upper_bound, sum_lower_bound
};

/// The walk.walk `op` is in (directly or nested in scf.if and the like) and
/// which of its regions; {nullptr, None} outside any walk.
std::pair<WalkOp, WalkRegion> getEnclosingWalk(mlir::Operation *op);

/// "weight", "stop", ... for diagnostics.
llvm::StringRef regionName(WalkRegion region);

} // namespace sluice::walk

#endif // SLUICE_DIALECTS_WALK_IR_WALKOPS_H
