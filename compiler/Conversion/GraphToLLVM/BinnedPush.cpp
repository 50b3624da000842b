//===- BinnedPush.cpp - graph-to-llvm: binned push loops ------------------===//
//
// The plan (may a push loop's `tile` bin it), the two variants and the
// calls of sluice/algo_bins.h, whose layout this file binds:
//
//   _push_bins        for u in [begin, end):         sources
//                       (the body's ops that read neither the weight nor
//                        anything that may fault: once per source)
//                       for e in out-edges of u:
//                         values[slots[e]] = value(u, weight[e])
//   _bins_accumulate  for b in [begin, end):         bins
//                       for k in [bin_pairs[b], bin_pairs[b + 1]):
//                         prop[pair_dst[k]] op= values[k]   (owned: plain)
//
// A bin's pairs are by source, ascending, so each destination gets its
// values in the order of a serial push, on one thread: the same bits for
// any number of threads (and as the CSC-ordered pull for `+=`, which adds
// its sources in the same order).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/BinnedPush.h"
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/WalkOpLowering.h"

#include "sluice/algo_bins.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

#include <cstddef>

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

#define SLUICE_BINS_FIELD(field, index)                                        \
  static_assert(offsetof(sluice_algo_bins_t, field) ==                         \
                    8 * static_cast<size_t>(BinsField::index),                 \
                "sluice_algo_bins_t." #field " moved")
SLUICE_BINS_FIELD(tile, Tile);
SLUICE_BINS_FIELD(num_bins, NumBins);
SLUICE_BINS_FIELD(num_pairs, NumPairs);
SLUICE_BINS_FIELD(bin_pairs, BinPairs);
SLUICE_BINS_FIELD(slots, Slots);
SLUICE_BINS_FIELD(pair_dst, PairDst);
SLUICE_BINS_FIELD(values, Values);
#undef SLUICE_BINS_FIELD

Value sluice::conversion::binsField(OpBuilder &b, Location loc, Value bins,
                                    BinsField f, Type type) {
  return loadWalkSlot(b, loc, bins, static_cast<int64_t>(f), type);
}

namespace {

/// Whether `op` may fault (its copy must not run where the loop did not).
bool mayFault(Operation *op) {
  return isa<graph::VertexOfOp, graph::IntDivOp, graph::IntRemOp>(op);
}

/// The loop's one update, or null with `why` set.
graph::PropReduceOp binnableReduce(Operation *loop, std::string &why) {
  Block &body = loop->getRegion(1).front();
  Value dst = body.getArgument(1);
  graph::PropReduceOp reduce;
  unsigned updates = 0;
  loop->walk([&](Operation *op) {
    Value vertex;
    StringRef name;
    if (!propertyUpdate(op, vertex, name))
      return;
    ++updates;
    if (!why.empty())
      return;
    auto r = dyn_cast<graph::PropReduceOp>(op);
    if (isa<graph::CompareSwapOp>(op))
      why = ("it updates '" + name + "' with compare_swap").str();
    else if (!r)
      why = ("it writes '" + name + "' (a plain write, not a reduction)").str();
    else if (r.getKind() == graph::ReductionKind::Mul)
      why = ("it reduces into '" + name + "' with *=").str();
    else if (vertex != dst)
      why = ("it updates '" + name +
             "' at a vertex other than the "
             "destination")
                .str();
    else if (op->getBlock() != &body)
      why = ("its update of '" + name + "' is conditional").str();
    else
      reduce = r;
  });
  if (why.empty() && updates != 1)
    why = updates ? "it updates properties " + std::to_string(updates) +
                        " times per edge (bins hold one value per edge)"
                  : "it updates no property";
  if (!why.empty())
    return {};
  for (OpOperand &use : dst.getUses())
    if (use.getOwner() != reduce.getOperation() ||
        use.getOperandNumber() !=
            reduce.getVertexMutable().getOperandNumber()) {
      why = "its value depends on the destination";
      return {};
    }
  StringRef name = reduce.getProperty();
  loop->walk([&](graph::PropGetOp get) {
    if (why.empty() && get.getProperty() == name)
      why = ("it reads '" + name + "', which it updates").str();
  });
  Type type = reduce.getValue().getType();
  if (why.empty() && (!type.isIntOrFloat() ||
                      type.getIntOrFloatBitWidth() > 64 || type.isInteger(1)))
    why = "its values are not numbers of at most 8 bytes";
  return why.empty() ? reduce : graph::PropReduceOp();
}

/// What an edge whose `where` is false stores in the bins: the identity
/// of `kind` on `type` that leaves every value as it is (0 for integers,
/// -0.0 for a floating-point += (-0.0 + -0.0 stays -0.0), +0.0 for -=, the
/// extremes for integer min= and max=; planBinning refuses a `where` with
/// a floating-point min= or max=).
Value whereIdentity(OpBuilder &b, Location loc, graph::ReductionKind kind,
                    Type type) {
  if (auto f = dyn_cast<FloatType>(type);
      f && kind == graph::ReductionKind::Add)
    return b.create<arith::ConstantFloatOp>(
        loc, APFloat::getZero(f.getFloatSemantics(), /*Negative=*/true), f);
  return reductionIdentity(b, loc, kind, type);
}

} // namespace

BinPlan sluice::conversion::planBinning(Operation *loop, graph::ScheduleAttr s,
                                        ArrayRef<graph::PropertyOp> props) {
  BinPlan plan;
  graph::Tile tile = s.getTile();
  if (tile.isNone())
    return plan;
  auto unbinned = [&](const Twine &why) {
    plan.remark = ("not binned (" + why + "); push with atomics").str();
    return plan;
  };
  auto edges = cast<graph::EdgesOp>(loop);
  if (edges.getFrom())
    return unbinned("a loop over a frontier is not binned: bins hold every "
                    "out-edge's pair");
  if (loop->getNumResults())
    return unbinned("it builds a frontier");
  if (s.getOrder() && *s.getOrder() != graph::VertexOrder::Natural)
    return unbinned("order: " + graph::stringifyVertexOrder(*s.getOrder()) +
                    " relabels the push");
  std::string why;
  graph::PropReduceOp reduce = binnableReduce(loop, why);
  if (!reduce)
    return unbinned(why);
  // A `where` is tested per edge in the pass over the sources; an edge it
  // rejects stores the reduction's exact identity (whereIdentity).
  Region &where = loop->getRegion(0);
  bool hasWhere = !where.empty();
  if (hasWhere && !where.front().getArgument(1).use_empty())
    return unbinned("its `where` reads the destination");
  if (hasWhere && isa<FloatType>(reduce.getValue().getType()) &&
      (reduce.getKind() == graph::ReductionKind::Min ||
       reduce.getKind() == graph::ReductionKind::Max))
    return unbinned("a `where` with a floating-point min= or max=: no "
                    "identity leaves a NaN as it is");
  StringRef name = reduce.getProperty();
  for (graph::PropertyOp p : props)
    if (p.getSymName() == name)
      plan.destBytes = (p.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  plan.binned = true;
  plan.size = tile.kind == graph::Tile::Kind::Size ? tile.size : 0;
  const char *symbol = reduce.getKind() == graph::ReductionKind::Add   ? "+="
                       : reduce.getKind() == graph::ReductionKind::Sub ? "-="
                       : reduce.getKind() == graph::ReductionKind::Min ? "min="
                                                                       : "max=";
  std::string op = "`" + name.str() + "[dst] " + symbol + "`";
  plan.remark =
      "binned (propagation blocking): a pass over the sources writes each "
      "out-edge's value for " +
      op + " to the bin of its destination's range of " +
      (plan.size ? std::to_string(plan.size) + " vertices"
                 : "vertices chosen at run time (tile: auto: the " +
                       std::to_string(plan.destBytes) +
                       " bytes per destination of a range fill at most half "
                       "the L2)") +
      ", then a pass over the bins reduces each bin on one thread, no "
      "atomics, each destination's values in source order (atomics when "
      "the runtime gives no bins)" +
      (hasWhere ? "; an edge whose `where` is false stores the reduction's "
                  "identity, which leaves its destination as it is"
                : "");
  return plan;
}

void sluice::conversion::emitBinnedLaunch(OpBuilder &b, Location loc,
                                          ModuleOp module, Value ctx,
                                          StringRef symbol, StringRef name,
                                          const BinPlan &plan,
                                          function_ref<void(Value)> binned,
                                          function_ref<void()> atomics) {
  emitLayoutLaunch(b, loc, module, ctx, symbol, name, "sluice_algo_bins_begin",
                   "sluice_algo_bins_end", plan.size,
                   static_cast<int64_t>(plan.destBytes), binned, atomics);
}

/// The bins of a variant's run: its environment's slot, read before the
/// loop over the items (`forOp`).
static Value binsOfRun(OpBuilder &b, Location loc, LLVM::LLVMFuncOp fn) {
  return loadWalkSlot(b, loc, fn.getArgument(1),
                      static_cast<int64_t>(EnvSlot::Bins),
                      LLVM::LLVMPointerType::get(b.getContext()));
}

void Outliner::emitPushBins(OpBuilder &b, Location loc, Operation *loop,
                            Value i, FunctionInfo &info, LLVM::LLVMFuncOp fn,
                            IRMapping &map, bool weighted) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Operation *forOp = b.getInsertionBlock()->getParentOp();
  Value slots, values, weights;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp);
    Value bins = binsOfRun(b, loc, fn);
    slots = binsField(b, loc, bins, BinsField::Slots, ptr);
    values = binsField(b, loc, bins, BinsField::Values, ptr);
    weights = viewField(b, loc, info.view, ViewField::OutWeights, ptr);
  }
  Value u = b.create<arith::TruncIOp>(loc, i32, i);
  info.owned = u;
  info.dst = Value();
  state.functions[fn] = info;
  Block &body = loop->getRegion(1).front();
  std::string why;
  graph::PropReduceOp reduce = binnableReduce(loop, why);
  assert(reduce && "a `_push_bins` variant of a loop planBinning refuses");
  map.map(body.getArgument(0), u);
  // The destination is read by the reduction alone, which is not copied.
  map.map(body.getArgument(1), u);
  // Once per source: the ops that read no weight, when nothing may fault
  // (a source without out-edges never ran them).
  bool faults = body.walk([](Operation *op) {
                      return mayFault(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
                    })
                    .wasInterrupted();
  llvm::DenseSet<Value> perEdgeValues;
  if (weighted)
    perEdgeValues.insert(body.getArgument(2));
  SmallVector<Operation *> perEdge;
  for (Operation &op : body.without_terminator()) {
    if (&op == reduce.getOperation())
      continue;
    bool edgeDependent = faults;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        edgeDependent |= perEdgeValues.contains(v);
    });
    if (!edgeDependent) {
      b.clone(op, map);
      continue;
    }
    perEdge.push_back(&op);
    for (Value r : op.getResults())
      perEdgeValues.insert(r);
  }
  Value one = constI64(b, loc, 1);
  Value u64 = b.create<arith::ExtUIOp>(loc, i64, u);
  Value lo = loadElement(b, loc, i64, info.outOffsets, u64);
  Value hi = loadElement(b, loc, i64, info.outOffsets,
                         b.create<arith::AddIOp>(loc, u64, one));
  auto edgeLoop = b.create<scf::ForOp>(loc, lo, hi, one);
  b.setInsertionPointToStart(edgeLoop.getBody());
  Value e = edgeLoop.getInductionVar();
  if (weighted)
    map.map(body.getArgument(2), edgeWeight(b, loc, weights, e));
  for (Operation *op : perEdge)
    b.clone(*op, map);
  Value value = map.lookup(reduce.getValue());
  if (!loop->getRegion(0).empty()) {
    // The destination binder is unused by the `where` (planBinning).
    SmallVector<Value> binders{u, u};
    if (weighted)
      binders.push_back(map.lookup(body.getArgument(2)));
    Value keep = emitCondition(b, loop, binders, map);
    value = b.create<arith::SelectOp>(
        loc, keep, value,
        whereIdentity(b, loc, reduce.getKind(), value.getType()));
  }
  Value k =
      b.create<arith::ExtUIOp>(loc, i64, loadElement(b, loc, i32, slots, e));
  b.create<LLVM::StoreOp>(loc, value,
                          elementAddress(b, loc, value.getType(), values, k));
}

void Outliner::emitBinsAccumulate(OpBuilder &b, Location loc, Operation *loop,
                                  Value i, FunctionInfo &info,
                                  LLVM::LLVMFuncOp fn) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Operation *forOp = b.getInsertionBlock()->getParentOp();
  Value binPairs, pairDst, values;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp);
    Value bins = binsOfRun(b, loc, fn);
    binPairs = binsField(b, loc, bins, BinsField::BinPairs, ptr);
    pairDst = binsField(b, loc, bins, BinsField::PairDst, ptr);
    values = binsField(b, loc, bins, BinsField::Values, ptr);
  }
  std::string why;
  graph::PropReduceOp reduce = binnableReduce(loop, why);
  assert(reduce && "a `_bins_accumulate` variant of a loop planBinning "
                   "refuses");
  Value one = constI64(b, loc, 1);
  Value lo = loadElement(b, loc, i64, binPairs, i);
  Value hi =
      loadElement(b, loc, i64, binPairs, b.create<arith::AddIOp>(loc, i, one));
  auto pairs = b.create<scf::ForOp>(loc, lo, hi, one);
  b.setInsertionPointToStart(pairs.getBody());
  Value k = pairs.getInductionVar();
  Value dst = loadElement(b, loc, i32, pairDst, k);
  Value value = loadElement(b, loc, reduce.getValue().getType(), values, k);
  // The bin's destinations are this iteration's alone: plain updates.
  info.owned = dst;
  info.dst = dst;
  state.functions[fn] = info;
  b.create<graph::PropReduceOp>(loc, reduce.getKind(), reduce.getProperty(),
                                dst, value);
}
