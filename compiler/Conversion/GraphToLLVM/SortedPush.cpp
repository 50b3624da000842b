//===- SortedPush.cpp - Push loops over sorted out-edges ------------------===//
//
// Part of graph-to-llvm's outliner. A source's out-edges are sorted by
// destination (the CSR's invariant; in a loop's degree order, the relabelled
// graph's out-neighbours are sorted by position), which two push loops use:
//
//  - a `where` that is one comparison `dst < x` (or <=, or x > dst, x >= dst)
//    with x the source or a value from outside the loop holds for a prefix
//    of the out-edges: the edge loop ends at its first false (GAPBS's
//    `if (v > u) break` of triangle counting);
//  - a loop scheduled `order: degree | auto` whose destination is only
//    compared with vertices and counted with common_neighbors runs over the
//    relabelled graph itself: the destination is its position there, and
//    neither its rank nor its vertex is loaded (a random read per edge).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

bool sluice::conversion::outline::pushWhereIsPrefix(Operation *loop) {
  Region &where = loop->getRegion(0);
  if (!isa<graph::EdgesOp>(loop) || where.empty())
    return false;
  Block &cond = where.front();
  Value dst = cond.getArgument(1);
  // One comparison, yielded.
  if (!llvm::hasSingleElement(cond.without_terminator()))
    return false;
  auto cmp = dyn_cast<arith::CmpIOp>(cond.front());
  if (!cmp || cond.getTerminator()->getOperand(0) != cmp.getResult())
    return false;
  Value other;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::ule:
    if (cmp.getLhs() != dst)
      return false;
    other = cmp.getRhs();
    break;
  case arith::CmpIPredicate::ugt:
  case arith::CmpIPredicate::uge:
    if (cmp.getRhs() != dst)
      return false;
    other = cmp.getLhs();
    break;
  default:
    return false;
  }
  // The bound is the same for all of the source's out-edges: the source, a
  // constant, or a value from outside the loop.
  if (other == cond.getArgument(0) || other.getDefiningOp<arith::ConstantOp>())
    return true;
  return !loop->isAncestor(other.getParentRegion()->getParentOp());
}

bool sluice::conversion::outline::destinationOnlyOrdered(Operation *loop) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges || edges.isWeighted())
    return false;
  for (Region *region : {&loop->getRegion(0), &loop->getRegion(1)}) {
    if (region->empty())
      continue;
    for (Operation *user : region->front().getArgument(1).getUsers())
      if (!isa<arith::CmpIOp, graph::CommonNeighborsOp>(user))
        return false;
  }
  return true;
}

bool sluice::conversion::outline::pushEndsEarly(Operation *loop, bool ordered) {
  return pushWhereIsPrefix(loop) && (!ordered || destinationOnlyOrdered(loop));
}

Value Outliner::positionOfVertex(OpBuilder &b, Location loc, Value vertex) {
  if (Value known = positionOf.lookup(vertex))
    return known;
  Value index = b.create<arith::ExtUIOp>(loc, b.getI64Type(), vertex);
  return loadElement(b, loc, vertex.getType(), ranks, index);
}

Value Outliner::atPositions(Operation *copy, Value ctx) {
  Value replacement;
  SmallVector<Operation *> uses;
  copy->walk([&](Operation *op) {
    if (auto cmp = dyn_cast<arith::CmpIOp>(op);
        cmp && cmp.getLhs().getType().isInteger(32))
      uses.push_back(op);
    else if (isa<graph::CommonNeighborsOp>(op))
      uses.push_back(op);
  });
  for (Operation *op : uses) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      // Positions: a bijection, so == and != are unchanged by it too.
      for (unsigned k = 0; k < 2; ++k)
        cmp->setOperand(k, positionOfVertex(b, loc, cmp->getOperand(k)));
      continue;
    }
    auto count = cast<graph::CommonNeighborsOp>(op);
    Value pu = positionOfVertex(b, loc, count.getU());
    Value pv = positionOfVertex(b, loc, count.getV());
    Value n;
    if (mergeOffsets) {
      n = buildCountCommon(b, loc, module, mergeOffsets, mergeTargets, pu, pv,
                           countBound(b, loc, count.getBelow(), pu, pv),
                           knownList(pu, pv, count.getBelow()));
    } else {
      Value below =
          b.create<arith::ConstantIntOp>(loc, count.getBelow() ? 1 : 0, 32);
      n = callRuntime(b, loc, module, AlgoCall::CommonNeighborsAt,
                      {ctx, pu, pv, below});
    }
    count.getResult().replaceAllUsesWith(n);
    if (op == copy)
      replacement = n;
    count.erase();
  }
  return replacement;
}
