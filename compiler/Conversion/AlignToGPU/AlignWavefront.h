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

#include "compiler/Conversion/KernelBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace sluice::conversion::align {

using conversion::KernelBuilder;

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
