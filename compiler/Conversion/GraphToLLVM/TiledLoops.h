//===- TiledLoops.h - graph-to-llvm: tiled pull loops -----------*- C++ -*-===//
//
// A pull loop scheduled `tile: N` or `tile: auto` runs over the tiled
// in-edges of sluice/algo_tile.h: its variant `_pull_tiled` runs blocks of
// destinations, each tile by tile, and its launch asks the runtime for the
// layout of each run (null: the untiled `_pull` runs). Where tiling is not
// legal or useful the loop runs untiled and its remark says why
// (docs/algorithms.md, "Tiled pull loops"). Everything graph-to-llvm knows
// about sluice/algo_tile.h is in TiledLoops.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_TILEDLOOPS_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_TILEDLOOPS_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace sluice::conversion {

/// How a loop's `tile` runs on the CPU.
struct TilePlan {
  bool tiled = false;       ///< it gets the `_pull_tiled` variant
  int64_t size = 0;         ///< tiles of this many sources; 0: auto
  uint64_t sourceBytes = 0; ///< what one iteration reads per source vertex
  std::string remark;       ///< for the loop's remark; empty: no `tile`
};

/// The plan for `loop` under schedule `s`: tiled when it is a pull loop
/// over every edge (no `from`, no early exit) whose updates are all at the
/// destination and whose reads of what it updates are at the destination
/// too; else untiled, with the reason. `props`: the algorithm's
/// properties.
TilePlan planTiling(mlir::Operation *loop, graph::ScheduleAttr s, bool pullOnly,
                    bool exitsEarly, llvm::ArrayRef<graph::PropertyOp> props);

/// The loops of the `_pull_tiled` variant over destination block `block`
/// (i64) of the layout at `layout`: per entry of the block, its
/// destination and edges; `iteration(src, dst, weight)` emits the body at
/// `b` (weight: null when `weighted` is false). Leaves `b` after the loops.
void emitTiledPull(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value layout,
    mlir::Value block, bool weighted,
    llvm::function_ref<void(mlir::Value, mlir::Value, mlir::Value)> iteration);

/// A run of a tiled loop at `b`: sluice_algo_tile_begin for the loop
/// named `name` (a string global `symbol`, e.g. "loop 'gather' of
/// algorithm 'pagerank'"), then `tiled(layout)` when the runtime gave a
/// layout, else `untiled()`, then sluice_algo_tile_end.
void emitTiledLaunch(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::ModuleOp module, mlir::Value ctx,
                     llvm::StringRef symbol, llvm::StringRef name,
                     const TilePlan &plan,
                     llvm::function_ref<void(mlir::Value)> tiled,
                     llvm::function_ref<void()> untiled);
/// The schedule of the parallel for over a layout's blocks: on the
/// caller for `parallel: serial`, else one block at a time; a pass over
/// blocks (SLUICE_ALGO_BLOCKS: few items, still worth the threads).
int64_t tiledSchedule(bool serial);
/// The layout's destination blocks (i64): the items of its parallel for.
mlir::Value tiledBlocks(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value layout);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_TILEDLOOPS_H
