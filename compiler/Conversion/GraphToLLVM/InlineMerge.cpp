//===- InlineMerge.cpp - common_neighbors as a merge in the loop ----------===//
//
// Part of graph-to-llvm's outliner. In a CPU push loop, graph.common_neighbors
// becomes a merge of the two sorted out-lists written into the loop itself
// (GAPBS's triangle counting is inline too) instead of a runtime call per
// edge: on a road network's lists of two or three elements the call, its
// context lookups and its choice of a method cost more than the merge. Pairs
// with a list of 16 or more are still the runtime's
// (sluice_algo_count_common: its C++ loop, and a gallop through a list more
// than 32 times longer than the other).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

namespace {

/// The merge of the lists [aLo, aHi) and [bLo, bHi) of `targets`, as
/// AlgoReduce.cpp's mergeCount, in i64 (without its gallop): per element
/// x of a below the bound, b's walk up to it, a pair when they are equal
/// (then b steps past it: each element pairs once). The bound first drops
/// to just above b's last element, so the walk along b needs no test for
/// its end; only a pair that used b's last element ends the merge.
///
/// The loop's exits sit in its middle (past the bound, b used up), so it
/// is a CFG in an scf.execute_region rather than scf.while: the loop the
/// runtime's C++ compiles to, with no test of b's end on the path without
/// a pair (LLVM does not thread such a test out of an scf.while's
/// condition).
///
/// When b holds an element at or above the bound (`bReachesBound`: b is
/// the source's list, the bound at most the edge's destination, which is
/// in it), the walk along b stops at that element at the latest, even
/// after a pair: b needs no test for being empty, no load of its last
/// element and no test of its end (GAPBS's walk, whose u is in v's list).
Value emitMerge(OpBuilder &b, Location loc, Value targets, Value aLo, Value aHi,
                Value bLo, Value bHi, Value bound, bool bReachesBound) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value one = constI64(b, loc, 1), zero = constI64(b, loc, 0);
  auto element = [&](Value at) -> Value {
    return b.create<arith::ExtUIOp>(loc, i64,
                                    loadElement(b, loc, i32, targets, at));
  };
  auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) -> Value {
    return b.create<arith::CmpIOp>(loc, p, l, r);
  };
  auto region = b.create<scf::ExecuteRegionOp>(loc, TypeRange{i64});
  OpBuilder::InsertionGuard guard(b);
  Region &body = region.getRegion();
  Block *entry = b.createBlock(&body);
  Block *head = b.createBlock(&body, body.end(), {i64, i64, i64},
                              {loc, loc, loc}); // a's next, b's next, count
  Block *load = b.createBlock(&body);
  Block *walk = b.createBlock(&body, body.end(), {i64}, {loc});
  Block *test = b.createBlock(&body, body.end(), {i64, i64}, {loc, loc});
  Block *pair = b.createBlock(&body);
  Block *done = b.createBlock(&body, body.end(), {i64}, {loc});

  b.setInsertionPointToEnd(entry);
  if (bReachesBound) {
    b.create<cf::BranchOp>(loc, head, ValueRange{aLo, bLo, zero});
  } else {
    Block *start = b.createBlock(&body, std::next(body.begin()));
    b.setInsertionPointToEnd(entry);
    b.create<cf::CondBranchOp>(loc, cmp(arith::CmpIPredicate::eq, bLo, bHi),
                               done, ValueRange{zero}, start, ValueRange{});
    b.setInsertionPointToEnd(start);
    Value last = element(b.create<arith::SubIOp>(loc, bHi, one));
    bound = b.create<arith::MinUIOp>(loc, bound,
                                     b.create<arith::AddIOp>(loc, last, one));
    b.create<cf::BranchOp>(loc, head, ValueRange{aLo, bLo, zero});
  }

  b.setInsertionPointToEnd(head);
  Value ia = head->getArgument(0), ib = head->getArgument(1);
  Value count = head->getArgument(2);
  b.create<cf::CondBranchOp>(loc, cmp(arith::CmpIPredicate::eq, ia, aHi), done,
                             ValueRange{count}, load, ValueRange{});

  b.setInsertionPointToEnd(load);
  Value x = element(ia);
  b.create<cf::CondBranchOp>(loc, cmp(arith::CmpIPredicate::ult, x, bound),
                             walk, ValueRange{ib}, done, ValueRange{count});

  // b's walk up to x: it stops at b's last element at the latest (x is
  // below the bound, so at most that element).
  b.setInsertionPointToEnd(walk);
  Value jb = walk->getArgument(0);
  Value y = element(jb);
  b.create<cf::CondBranchOp>(loc, cmp(arith::CmpIPredicate::ult, y, x), walk,
                             ValueRange{b.create<arith::AddIOp>(loc, jb, one)},
                             test, ValueRange{jb, y});

  b.setInsertionPointToEnd(test);
  Value nextA = b.create<arith::AddIOp>(loc, ia, one);
  b.create<cf::CondBranchOp>(
      loc, cmp(arith::CmpIPredicate::eq, test->getArgument(1), x), pair,
      ValueRange{}, head, ValueRange{nextA, test->getArgument(0), count});

  b.setInsertionPointToEnd(pair);
  Value nextB = b.create<arith::AddIOp>(loc, test->getArgument(0), one);
  Value more = b.create<arith::AddIOp>(loc, count, one);
  if (bReachesBound)
    b.create<cf::BranchOp>(loc, head, ValueRange{nextA, nextB, more});
  else
    b.create<cf::CondBranchOp>(loc, cmp(arith::CmpIPredicate::eq, nextB, bHi),
                               done, ValueRange{more}, head,
                               ValueRange{nextA, nextB, more});

  b.setInsertionPointToEnd(done);
  b.create<scf::YieldOp>(loc, done->getArgument(0));
  return region.getResult(0);
}

} // namespace

Value sluice::conversion::outline::buildCountCommon(
    OpBuilder &b, Location loc, ModuleOp module, Value offsets, Value targets,
    Value u, Value v, Value bound, std::optional<SourceList> uList) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value one = constI64(b, loc, 1);
  auto list = [&](Value x) -> std::pair<Value, Value> {
    Value x64 = b.create<arith::ExtUIOp>(loc, i64, x);
    return {loadElement(b, loc, i64, offsets, x64),
            loadElement(b, loc, i64, offsets,
                        b.create<arith::AddIOp>(loc, x64, one))};
  };
  // u's bounds as the edge loop loaded them (a store into a property
  // between them could alias the offsets for all LLVM knows: it would
  // load them again per edge).
  auto [uLo, uHi] =
      uList ? std::pair<Value, Value>{uList->lo, uList->hi} : list(u);
  auto [vLo, vHi] = list(v);
  Value uLen = b.create<arith::SubIOp>(loc, uHi, uLo);
  Value vLen = b.create<arith::SubIOp>(loc, vHi, vLo);
  // Both lists short (a road network's): merged here, v's walked element
  // by element as GAPBS walks it; else the runtime's merge, which walks
  // the shorter and gallops through a much longer one.
  Value isShort = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::ult, b.create<arith::OrIOp>(loc, uLen, vLen),
      constI64(b, loc, kInlineMergeBelow));
  auto ifShort = b.create<scf::IfOp>(loc, TypeRange{i64}, isShort,
                                     /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifShort.thenBlock());
  b.create<scf::YieldOp>(loc, emitMerge(b, loc, targets, vLo, vHi, uLo, uHi,
                                        bound, uList && uList->reachesBound));
  b.setInsertionPointToStart(ifShort.elseBlock());
  b.create<scf::YieldOp>(
      loc,
      callRuntime(b, loc, module, AlgoCall::CountCommon,
                  {elementAddress(b, loc, i32, targets, uLo), uLen,
                   elementAddress(b, loc, i32, targets, vLo), vLen, bound}));
  return ifShort.getResult(0);
}

Value sluice::conversion::outline::countBound(OpBuilder &b, Location loc,
                                              bool below, Value u, Value v) {
  if (!below) // every u32 is below 2^32
    return constI64(b, loc, int64_t(1) << 32);
  return b.create<arith::ExtUIOp>(loc, b.getI64Type(),
                                  b.create<arith::MinUIOp>(loc, u, v));
}

std::optional<SourceList> Outliner::knownList(Value u, Value v,
                                              bool below) const {
  if (!sourceList.lo || u != edgeSource)
    return std::nullopt;
  SourceList known = sourceList;
  known.reachesBound = below && v == edgeDestination;
  return known;
}

void Outliner::inlineCounts(Operation *copy, IRMapping &map,
                            Operation *original) {
  SmallVector<graph::CommonNeighborsOp> counts;
  copy->walk([&](graph::CommonNeighborsOp op) { counts.push_back(op); });
  for (graph::CommonNeighborsOp count : counts) {
    OpBuilder b(count);
    Location loc = count.getLoc();
    Value n = buildCountCommon(
        b, loc, module, mergeOffsets, mergeTargets, count.getU(), count.getV(),
        countBound(b, loc, count.getBelow(), count.getU(), count.getV()),
        knownList(count.getU(), count.getV(), count.getBelow()));
    count.getResult().replaceAllUsesWith(n);
    if (count.getOperation() == copy)
      map.map(original->getResult(0), n);
    count.erase();
  }
}
