//===- GraphBuilders.h - LLVM-dialect helpers of graph-to-llvm --*- C++ -*-===//
//
// Small builders both steps of graph-to-llvm use over the runtime's arrays
// (AlgorithmOutline.cpp for the loop variants, TiledLoops.cpp for the tiled
// pull): array elements, bitmap tests, null checks and edge weights; and
// which vertex and property an update writes.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHBUILDERS_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace sluice::conversion {

/// An i64 constant.
mlir::Value constI64(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// The address of element `index` of the array of `elemType` at `base`.
mlir::Value elementAddress(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type elemType, mlir::Value base,
                           mlir::Value index);
/// Element `index` of the array of `elemType` at `base`.
mlir::Value loadElement(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type elemType, mlir::Value base,
                        mlir::Value index);
/// Whether vertex `v` (i32) is in `bitmap` (64-bit words).
mlir::Value testBit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bitmap,
                    mlir::Value v);
/// Whether pointer `p` is not null.
mlir::Value isNonNull(mlir::OpBuilder &b, mlir::Location loc, mlir::Value p);
/// The weight of edge `e` from `weights` (f32, or null: 1.0), as f64.
mlir::Value edgeWeight(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value weights, mlir::Value e);
/// A run of a loop over a layout the runtime builds for it (a tiled CSC,
/// push bins): `begin(ctx, name, size, bytes)` for the loop named `name` (a
/// NUL-terminated string global `symbol`, once per module), then
/// `with(layout)` when the runtime gave one, else `without()`, then
/// `end(ctx, name)`.
void emitLayoutLaunch(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ModuleOp module, mlir::Value ctx,
                      llvm::StringRef symbol, llvm::StringRef name,
                      llvm::StringRef begin, llvm::StringRef end, int64_t size,
                      int64_t bytes, llvm::function_ref<void(mlir::Value)> with,
                      llvm::function_ref<void()> without);
/// For a graph.prop.reduce, graph.prop.set or graph.compare_swap: the
/// vertex and the property it updates (true); false for any other op.
bool propertyUpdate(mlir::Operation *op, mlir::Value &vertex,
                    llvm::StringRef &name);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHBUILDERS_H
