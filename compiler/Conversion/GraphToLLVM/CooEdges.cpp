//===- CooEdges.cpp - graph-to-llvm: push loops over edge coordinates ----===//
//
// `format: coo` runs a push loop over every vertex as a pass over its
// edges, each edge an item: the (source, destination[, weight]) triples in
// the CSR's order. The pass's range of items is [0, edges); a call of the
// variant gets a range of them (a thread's static share; a dynamic chunk,
// `dynamic(n)` as many edges as n sources have on average; on the GPU one
// edge a thread), finds the source of
// its first edge by a binary search of the out-offsets (the largest u with
// offsets[u] <= e), then walks the sources forward:
//
//   _coo   (ctx, env, begin, end):
//            u = the source of edge begin, e = begin
//            while e < end:
//              hi = min(offsets[u + 1], end)
//              for e' in [e, hi): where(u, dst[e'], w[e']) -> body
//              u += 1, e = hi
//
// No source array is stored: the offsets give the sources, a search per
// range instead of 4 bytes per edge. What the format changes is how the
// pass is shared out: by edges rather than by sources, so a hub's
// out-edges spread over several threads. An iteration therefore owns no
// vertex: updates at the destination are atomic as in a push, and a loop
// that writes at its source does not run so (cooRefusal says why; the loop
// keeps the CSR).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

std::string sluice::conversion::cooRefusal(Operation *loop,
                                           graph::ScheduleAttr s) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges)
    return "a vertices loop has no edges";
  if (*s.getDirection() != graph::Direction::Push)
    return "format coo is for push loops (a " +
           graph::stringifyDirection(*s.getDirection()).str() +
           " loop reads each destination's in-edges from the CSC)";
  if (edges.getFrom())
    return "the loop runs over a frontier (its sources are the frontier's)";
  if (s.getOrder() && *s.getOrder() != graph::VertexOrder::Natural)
    return "order: " + graph::stringifyVertexOrder(*s.getOrder()).str() +
           " runs the sources in the degree order";
  if (!s.getTile().isNone())
    return "`tile` bins the loop's out-edges by destination";
  Region &body = loop->getRegion(1);
  Value source = body.front().getArgument(0);
  WalkResult writesSource = body.walk([&](Operation *op) {
    Value vertex;
    StringRef name;
    return propertyUpdate(op, vertex, name) && vertex == source
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (writesSource.wasInterrupted())
    return "the loop writes at its source, whose out-edges a pass over edges "
           "splits between threads";
  return "";
}

/// The source of edge `e` (i64, below the number of edges): the largest u
/// below `n` with offsets[u] <= e, by a binary search.
static Value sourceOfEdge(OpBuilder &b, Location loc, Value offsets, Value n,
                          Value e) {
  Type i64 = b.getI64Type();
  Value one = constI64(b, loc, 1);
  Value lo = constI64(b, loc, 0);
  Value hi = b.create<arith::SubIOp>(loc, n, one);
  auto search =
      b.create<scf::WhileOp>(loc, TypeRange{i64, i64}, ValueRange{lo, hi});
  OpBuilder::InsertionGuard guard(b);
  Block *before =
      b.createBlock(&search.getBefore(), {}, {i64, i64}, {loc, loc});
  Value more =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                              before->getArgument(0), before->getArgument(1));
  b.create<scf::ConditionOp>(loc, more, before->getArguments());
  Block *after = b.createBlock(&search.getAfter(), {}, {i64, i64}, {loc, loc});
  lo = after->getArgument(0);
  hi = after->getArgument(1);
  // mid = (lo + hi + 1) / 2: lo < mid <= hi, no overflow below 2^63.
  Value mid = b.create<arith::ShRUIOp>(
      loc,
      b.create<arith::AddIOp>(loc, b.create<arith::AddIOp>(loc, lo, hi), one),
      one);
  Value atMid = loadElement(b, loc, i64, offsets, mid);
  Value below =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, atMid, e);
  Value nextLo = b.create<arith::SelectOp>(loc, below, mid, lo);
  Value nextHi = b.create<arith::SelectOp>(
      loc, below, hi, b.create<arith::SubIOp>(loc, mid, one));
  b.create<scf::YieldOp>(loc, ValueRange{nextLo, nextHi});
  return search.getResult(0);
}

void Outliner::emitCooRange(OpBuilder &b, Location loc, Operation *loop,
                            Value begin, Value end, FunctionInfo &info,
                            LLVM::LLVMFuncOp fn, IRMapping &map,
                            bool weighted) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value targets = viewField(b, loc, info.view, ViewField::OutTargets, ptr);
  Value weights = viewField(b, loc, info.view, ViewField::OutWeights, ptr);
  Value one = constI64(b, loc, 1);
  // An empty range (none is launched so) never searches.
  auto any = b.create<scf::IfOp>(
      loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, begin, end),
      /*withElse=*/false);
  b.setInsertionPointToStart(any.thenBlock());
  Value u0 = sourceOfEdge(b, loc, info.outOffsets, info.numVertices, begin);
  // The CSR in the graph's order: common_neighbors may merge inline.
  if (state.inlineMerges)
    mergeOffsets = info.outOffsets, mergeTargets = targets;
  auto walk =
      b.create<scf::WhileOp>(loc, TypeRange{i64, i64}, ValueRange{u0, begin});
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before =
        b.createBlock(&walk.getBefore(), {}, {i64, i64}, {loc, loc});
    Value more = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                         before->getArgument(1), end);
    b.create<scf::ConditionOp>(loc, more, before->getArguments());
    Block *after = b.createBlock(&walk.getAfter(), {}, {i64, i64}, {loc, loc});
    Value u = after->getArgument(0), e = after->getArgument(1);
    Value next = b.create<arith::AddIOp>(loc, u, one);
    Value hi = b.create<arith::MinUIOp>(
        loc, loadElement(b, loc, i64, info.outOffsets, next), end);
    auto edges = b.create<scf::ForOp>(loc, e, hi, one);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(edges.getBody());
      Value at = edges.getInductionVar();
      Value src = b.create<arith::TruncIOp>(loc, i32, u);
      Value dst = loadElement(b, loc, i32, targets, at);
      // An edge owns no vertex: every update is shared (atomic).
      info.owned = Value();
      info.dst = dst;
      state.functions[fn] = info;
      SmallVector<Value> binders{src, dst};
      if (weighted)
        binders.push_back(edgeWeight(b, loc, weights, at));
      emitIteration(b, loc, loop, binders, map);
    }
    b.create<scf::YieldOp>(loc, ValueRange{next, hi});
  }
  b.setInsertionPointAfter(any);
  mergeOffsets = mergeTargets = Value();
}
