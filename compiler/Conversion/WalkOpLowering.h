//===- WalkOpLowering.h - one pattern set for the walk ops ------*- C++ -*-===//
//
// walk-to-llvm (CPU) and walk-to-gpu (GPU) lower the walk ops inside the
// functions they outline from a walk.walk's regions with the same
// conversion patterns. What differs between the targets (how the frame is
// read, where the parameter and state slots are, how a graph query is
// answered) is a WalkTargetModel; the patterns know the ops, the slot
// encoding and the types.
//
// The frame of a walk function is always its first argument.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WALKOPLOWERING_H
#define SLUICE_CONVERSION_WALKOPLOWERING_H

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice::conversion {

/// The 8-byte slot blocks of a walk's frame.
enum class SlotBlock { Params, State };

/// What a walk op asks of its target, besides slots and the step. Operands
/// are the op's (lists already converted to pointers), results the op's.
enum class WalkQuery {
  Random,      ///< () -> f64 in [0, 1)
  Degree,      ///< (i32 v) -> i64
  HasEdge,     ///< (i32 u, i32 v) -> i1
  EdgeWeight,  ///< (i32 u, i32 v) -> f64
  EdgeLabel,   ///< (i32 u, i32 v) -> i64
  Label,       ///< (i32 v) -> i64
  NumVertices, ///< () -> i64
  NumEdges,    ///< () -> i64
  VertexOf,    ///< (i64 id) -> i32
  WeightMax,   ///< (i32 v) -> f64
  WeightMin,   ///< (i32 v) -> f64
  WeightSum,   ///< (i32 v) -> f64
  ListGet,     ///< (ptr list, i64 i) -> i64; a bad index faults
  ListSize,    ///< (ptr list) -> i64
  IntDiv,      ///< (i64, i64) -> i64; a zero divisor faults
  IntRem,      ///< (i64, i64) -> i64; a zero divisor faults
};

/// How one target reads a walk function's frame and answers its queries.
class WalkTargetModel {
public:
  virtual ~WalkTargetModel();
  /// The frame's step (i64).
  virtual mlir::Value step(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value frame) const = 0;
  /// The address of the first 8-byte slot of `block`.
  virtual mlir::Value slots(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value frame, SlotBlock block) const = 0;
  /// The value of `query`; `operands` as WalkQuery documents them.
  virtual mlir::Value query(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value frame, WalkQuery query,
                            mlir::ValueRange operands) const = 0;
  /// label_mass(v, label) with the op's edge / reduce attributes. Targets
  /// without it reject the op before lowering (it is only in the sum
  /// bounds).
  virtual mlir::Value labelMass(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value frame, walk::LabelMassOp op,
                                mlir::ValueRange operands) const = 0;
};

/// Loads slot `index` of the slots at `base` as `type`: f64 as double
/// bits, i64 and i1 as int64_t (i1: nonzero), a pointer as a pointer.
mlir::Value loadWalkSlot(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value base, int64_t index, mlir::Type type);
/// Stores `value` into slot `index` (i1 zero-extended).
void storeWalkSlot(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                   int64_t index, mlir::Value value);

/// Lowers every walk op nested in `root` (functions whose first argument
/// is the frame) with `model`; !walk.list values become !llvm.ptr. Fails
/// with the conversion's diagnostics when an op is left.
mlir::LogicalResult lowerWalkOps(mlir::Operation *root,
                                 const WalkTargetModel &model);

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_WALKOPLOWERING_H
