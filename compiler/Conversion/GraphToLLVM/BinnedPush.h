//===- BinnedPush.h - graph-to-llvm: binned push loops ----------*- C++ -*-===//
//
// A push loop over every vertex scheduled `tile: N` or `tile: auto` whose
// only effect is one reduction at the destination of a value computed
// from the source, the weight and values from outside the loop runs with
// propagation blocking (sluice/algo_bins.h): its variant `_push_bins`
// writes each out-edge's value to its destination range's bin, then
// `_bins_accumulate` reduces each bin's pairs on one thread, no atomics.
// The launch asks the runtime for the bins of each run (null: the push
// with atomics runs). Where binning is not legal the loop runs as before
// and its remark says why (docs/algorithms.md, "Binned push loops").
// Everything graph-to-llvm knows about sluice/algo_bins.h is in
// BinnedPush.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_BINNEDPUSH_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_BINNEDPUSH_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace sluice::conversion {

/// How a push loop's `tile` runs on the CPU.
struct BinPlan {
  bool binned = false;    ///< it gets `_push_bins` and `_bins_accumulate`
  int64_t size = 0;       ///< bins of this many destinations; 0: auto
  uint64_t destBytes = 0; ///< what the accumulate pass updates per vertex
  std::string remark;     ///< for the loop's remark; empty: no `tile`
};

/// The plan for push loop `loop` under schedule `s`: binned when it runs
/// over every vertex in the graph's order, builds no frontier, has no
/// `where`, and its only update is one unconditional `+=`, `-=`, `min=` or
/// `max=` at the destination of a value that does not depend on the
/// destination, into a property it does not read; else not, with the
/// reason. `props`: the algorithm's properties.
BinPlan planBinning(mlir::Operation *loop, graph::ScheduleAttr s,
                    llvm::ArrayRef<graph::PropertyOp> props);

/// Fields of sluice_algo_bins_t the variants read.
enum class BinsField : int64_t {
  Tile = 0,
  NumBins,
  NumPairs,
  BinPairs,
  Slots,
  PairDst,
  Values,
};
mlir::Value binsField(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bins,
                      BinsField f, mlir::Type type);

/// A run of a binned loop at `b`: sluice_algo_bins_begin for the loop
/// named `name` (a string global `symbol`), then `binned(bins)` when the
/// runtime gave bins, else `atomics()`, then sluice_algo_bins_end.
void emitBinnedLaunch(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ModuleOp module, mlir::Value ctx,
                      llvm::StringRef symbol, llvm::StringRef name,
                      const BinPlan &plan,
                      llvm::function_ref<void(mlir::Value)> binned,
                      llvm::function_ref<void()> atomics);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_BINNEDPUSH_H
