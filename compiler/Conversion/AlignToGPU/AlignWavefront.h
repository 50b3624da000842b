//===- AlignWavefront.h - The alignment kernel's loops, built -*- C++ -*-===//
//
// One pair's banded Gotoh extension with the Z-drop, by anti-diagonals,
// built with the MLIR builders (scf, arith, llvm). Two kernels use it:
// align-to-gpu's warp per pair (32 lanes sweep each anti-diagonal in
// strides of 32, a shuffle butterfly finds its best cell) and
// align-to-llvm's CPU function (one lane: the cells in order, then the
// first cell holding the anti-diagonal's maximum). Both compute what
// runtime/src/align/WavefrontBody.inc computes: the scores, the ends and
// the tie rule (the smallest target index among equal scores).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_ALIGNTOGPU_ALIGNWAVEFRONT_H
#define SLUICE_CONVERSION_ALIGNTOGPU_ALIGNWAVEFRONT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace sluice::conversion::align {

/// Small helpers over an OpBuilder at `loc`.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc);

  mlir::Value c32(int64_t v);
  mlir::Value c64(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value max(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value land(mlir::Value x, mlir::Value y);
  mlir::Value lor(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  /// Element `index` of type `type` at `base`.
  mlir::Value at(mlir::Type type, mlir::Value base, mlir::Value index);
  mlir::Value load(mlir::Type type, mlir::Value base, mlir::Value index);
  void store(mlir::Value value, mlir::Value base, mlir::Value index);
  /// The field at byte `offset` of a struct at `args`.
  mlir::Value field(mlir::Value args, int64_t offset, mlir::Type type);
  mlir::Value shuffle(mlir::Value v, mlir::Value offset,
                      mlir::gpu::ShuffleMode mode);

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type ptr, i1, i8, i32, i64;
};

/// The pair and its scoring (i32 values; `query` and `target` point to
/// base codes 0..4, `oe` is gap_open + gap_extend).
struct Pair {
  mlir::Value query, target, qlen, tlen;
  mlir::Value match, mismatch, gapOpen, gapExtend, band, zdrop, oe;
};

/// Who computes the cells: `width` lanes in lock step (32: a GPU warp,
/// with `lane` its lane id; 1: one CPU thread, `lane` the constant 0).
struct Lanes {
  int64_t width;
  mlir::Value lane;
};

/// One pair's alignment (qlen, tlen > 0) with seven scratch rows of at
/// least tlen + 2 i32 (H of three anti-diagonals, E and F of two): the
/// result's seven fields (sluice_align_result_t's order).
llvm::SmallVector<mlir::Value> buildAlignment(KernelBuilder &k, const Pair &p,
                                              const Lanes &lanes,
                                              llvm::ArrayRef<mlir::Value> rows);

} // namespace sluice::conversion::align

#endif // SLUICE_CONVERSION_ALIGNTOGPU_ALIGNWAVEFRONT_H
