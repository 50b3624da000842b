//===- TiledLoops.cpp - graph-to-llvm: tiled pull loops -------------------===//
//
// The plan (is a loop's `tile` legal and useful, and how many bytes per
// source vertex does it read), the `_pull_tiled` variant's loops and the
// calls of sluice/algo_tile.h, whose layout this file binds:
//
//   for b in [begin, end):                      destination blocks
//     for k in [block_entries[b], block_entries[b + 1]):  tile, then dst
//       dst = entry_dst[k]
//       for e in [entry_edges[k], entry_edges[k + 1]):
//         iteration(sources[e], dst, weights ? weights[e] : 1.0)
//
// A destination's entries are in tile order and a tile's sources ascend,
// so each destination sees its in-edges in the CSC's order, on one thread:
// a loop whose updates are all at the destination computes the same bits
// as the untiled `_pull`, for any tile size and number of threads.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/TiledLoops.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/WalkOpLowering.h"

#include "sluice/algo_tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

#include <cstddef>

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

/// Fields of sluice_algo_tiled_t, in order (8 bytes each).
enum class TiledField : int64_t {
  Tile = 0,
  NumTiles,
  NumBlocks,
  NumEntries,
  BlockEntries,
  EntryDst,
  EntryEdges,
  Sources,
  Weights,
};

#define SLUICE_TILED_FIELD(field, index)                                       \
  static_assert(offsetof(sluice_algo_tiled_t, field) ==                        \
                    8 * static_cast<size_t>(TiledField::index),                \
                "sluice_algo_tiled_t." #field " moved")
SLUICE_TILED_FIELD(tile, Tile);
SLUICE_TILED_FIELD(num_tiles, NumTiles);
SLUICE_TILED_FIELD(num_blocks, NumBlocks);
SLUICE_TILED_FIELD(num_entries, NumEntries);
SLUICE_TILED_FIELD(block_entries, BlockEntries);
SLUICE_TILED_FIELD(entry_dst, EntryDst);
SLUICE_TILED_FIELD(entry_edges, EntryEdges);
SLUICE_TILED_FIELD(sources, Sources);
SLUICE_TILED_FIELD(weights, Weights);
#undef SLUICE_TILED_FIELD

Value field(OpBuilder &b, Location loc, Value layout, TiledField f, Type t) {
  return loadWalkSlot(b, loc, layout, static_cast<int64_t>(f), t);
}

/// Whether `v` is binder `number` (0: source, 1: destination) of the
/// region of `loop` it is used in.
bool isBinder(Operation *loop, Value v, unsigned number) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner()->getParentOp() == loop &&
         arg.getArgNumber() == number;
}

/// Bytes of one value of a property as stored.
uint64_t storedBytes(Type element) {
  if (element.isInteger(1))
    return 1;
  return (element.getIntOrFloatBitWidth() + 7) / 8;
}

} // namespace

TilePlan sluice::conversion::planTiling(Operation *loop, graph::ScheduleAttr s,
                                        bool pullOnly, bool exitsEarly,
                                        ArrayRef<graph::PropertyOp> props) {
  TilePlan plan;
  graph::Tile tile = s.getTile();
  if (tile.isNone())
    return plan;
  auto untiled = [&](const Twine &why) {
    plan.remark = ("not tiled (" + why + ")").str();
    return plan;
  };
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges)
    return untiled("tile has no effect on a vertices loop: it reads no "
                   "edges");
  if (!pullOnly)
    return untiled("a hybrid loop is not tiled: its rounds switch between "
                   "push and pull");
  if (edges.getFrom())
    return untiled("a loop over a frontier is not tiled: it tests each "
                   "source against the frontier's bitmap");
  if (exitsEarly)
    return untiled("a vertex's in-edges end once `where` is false; tiles "
                   "would test `where` once per tile");
  // Updates only at the destination (each destination's updates then come
  // in the same order, tiled or not), and reads of what the loop updates
  // only there (tiling changes when the other vertices are updated).
  llvm::SetVector<StringRef> written;
  std::string bad;
  loop->walk([&](Operation *op) {
    Value vertex;
    StringRef name;
    if (!propertyUpdate(op, vertex, name))
      return;
    written.insert(name);
    if (bad.empty() && isa<graph::CompareSwapOp>(op))
      bad = ("it updates '" + name +
             "' with compare_swap, whose reads and swaps must see every "
             "other iteration's as they happen")
                .str();
    if (bad.empty() && !isBinder(loop, vertex, 1))
      bad = ("it updates '" + name +
             "' at a vertex other than the destination, and tiles would "
             "change the order of those updates")
                .str();
  });
  if (!bad.empty())
    return untiled(bad);
  llvm::SetVector<StringRef> sourceReads;
  bool degree = false;
  loop->walk([&](Operation *op) {
    if (auto get = dyn_cast<graph::PropGetOp>(op)) {
      if (bad.empty() && written.contains(get.getProperty()) &&
          !isBinder(loop, get.getVertex(), 1))
        bad = ("it reads '" + get.getProperty() +
               "', which it updates, at a vertex other than the "
               "destination, and tiles would change which values it sees")
                  .str();
      if (isBinder(loop, get.getVertex(), 0))
        sourceReads.insert(get.getProperty());
    } else if (auto d = dyn_cast<graph::DegreeOp>(op)) {
      degree |= isBinder(loop, d.getVertex(), 0);
    }
  });
  if (!bad.empty())
    return untiled(bad);
  for (graph::PropertyOp p : props)
    if (sourceReads.contains(p.getSymName()))
      plan.sourceBytes += storedBytes(p.getElementType());
  if (degree)
    plan.sourceBytes += 8; // an out-offset per source
  plan.tiled = true;
  plan.size = tile.kind == graph::Tile::Kind::Size ? tile.size : 0;
  std::string bytes =
      std::to_string(plan.sourceBytes) + " bytes per source vertex";
  plan.remark =
      "tiled: " +
      (plan.size
           ? "sources in tiles of " + std::to_string(plan.size) + " vertices"
           : "tile: auto, the size chosen at run time from the caches, "
             "the in-degrees and the " +
                 bytes) +
      "; destination blocks run tile by tile, each destination's in-edges "
      "in the untiled order" +
      (plan.size ? " (reads " + bytes + ")" : std::string());
  return plan;
}

void sluice::conversion::emitTiledPull(
    OpBuilder &b, Location loc, Value layout, Value block, bool weighted,
    function_ref<void(Value, Value, Value)> iteration) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value blockEntries = field(b, loc, layout, TiledField::BlockEntries, ptr);
  Value entryDst = field(b, loc, layout, TiledField::EntryDst, ptr);
  Value entryEdges = field(b, loc, layout, TiledField::EntryEdges, ptr);
  Value sources = field(b, loc, layout, TiledField::Sources, ptr);
  Value weights = field(b, loc, layout, TiledField::Weights, ptr);
  Value one = constI64(b, loc, 1);
  // [lo, hi) = array[i], array[i + 1] and a loop over it.
  auto range = [&](Value array, Value i) {
    Value lo = loadElement(b, loc, i64, array, i);
    Value hi =
        loadElement(b, loc, i64, array, b.create<arith::AddIOp>(loc, i, one));
    auto loop = b.create<scf::ForOp>(loc, lo, hi, one);
    b.setInsertionPointToStart(loop.getBody());
    return loop;
  };
  OpBuilder::InsertionGuard guard(b);
  auto entries = range(blockEntries, block);
  Value k = entries.getInductionVar();
  Value dst = loadElement(b, loc, i32, entryDst, k);
  auto edges = range(entryEdges, k);
  Value e = edges.getInductionVar();
  Value src = loadElement(b, loc, i32, sources, e);
  // weights[e] as f64, or 1.0 on an unweighted graph.
  Value weight = weighted ? edgeWeight(b, loc, weights, e) : Value();
  iteration(src, dst, weight);
}

void sluice::conversion::emitTiledLaunch(OpBuilder &b, Location loc,
                                         ModuleOp module, Value ctx,
                                         StringRef symbol, StringRef name,
                                         const TilePlan &plan,
                                         function_ref<void(Value)> tiled,
                                         function_ref<void()> untiled) {
  emitLayoutLaunch(b, loc, module, ctx, symbol, name, "sluice_algo_tile_begin",
                   "sluice_algo_tile_end", plan.size,
                   static_cast<int64_t>(plan.sourceBytes), tiled, untiled);
}

int64_t sluice::conversion::tiledSchedule(bool serial) {
  return (serial ? SLUICE_ALGO_SERIAL : SLUICE_ALGO_DYNAMIC) |
         SLUICE_ALGO_BLOCKS;
}

Value sluice::conversion::tiledBlocks(OpBuilder &b, Location loc,
                                      Value layout) {
  return field(b, loc, layout, TiledField::NumBlocks, b.getI64Type());
}
