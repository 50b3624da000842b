//===- WalkRegionClone.h - inline a walk region's body ----------*- C++ -*-===//
//
// Shared by walk-to-llvm and walk-to-gpu: both turn a region of walk.walk
// (weight, stop, update, init, bounds) into straight-line code in a
// function they build.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WALKREGIONCLONE_H
#define SLUICE_CONVERSION_WALKREGIONCLONE_H

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

namespace sluice::conversion {

/// Clones the body of `region` (one block ending in walk.yield) at `b`'s
/// insertion point with its block arguments replaced by `args` (same
/// count and types), and returns the yield with the cloned values it
/// yields in `values`. Mismatches are errors on `walk` prefixed by `pass`.
mlir::FailureOr<walk::YieldOp>
cloneWalkRegion(mlir::OpBuilder &b, walk::WalkOp walk, mlir::Region &region,
                mlir::ValueRange args, llvm::StringRef pass,
                llvm::StringRef name,
                llvm::SmallVectorImpl<mlir::Value> &values);

} // namespace sluice::conversion

#endif
