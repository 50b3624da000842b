//===- LevelProof.cpp - Level-synchronous writes of graph loops -----------===//
//
// LevelProof.h states what each function proves.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/Transforms/LevelProof.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace sluice::graph {

std::optional<unsigned> binderOf(Value v, Operation *loop) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock() ||
      arg.getOwner()->getParentOp() != loop)
    return std::nullopt;
  return arg.getArgNumber();
}

bool isPureLeaf(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

bool isFixed(Value v, Operation *loop) {
  if (Operation *def = v.getDefiningOp()) {
    if (!loop->isAncestor(def))
      return true;
    return isPureLeaf(def) && llvm::all_of(def->getOperands(), [&](Value o) {
             return isFixed(o, loop);
           });
  }
  return !loop->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp());
}

bool sameValue(Value a, Value b) {
  if (a == b)
    return true;
  Attribute ca, cb;
  if (matchPattern(a, m_Constant(&ca)) && matchPattern(b, m_Constant(&cb)))
    return ca == cb;
  Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
  return da && db && isPureLeaf(da) &&
         OperationEquivalence::isEquivalentTo(
             da, db, OperationEquivalence::exactValueMatch, nullptr,
             OperationEquivalence::IgnoreLocations);
}

bool fromFixedAndSource(Value v, StringRef p, Operation *loop) {
  if (isFixed(v, loop))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto get = dyn_cast<PropGetOp>(def))
    return get.getProperty() == p && binderOf(get.getVertex(), loop) == 0u;
  return isPureLeaf(def) && llvm::all_of(def->getOperands(), [&](Value o) {
           return fromFixedAndSource(o, p, loop);
         });
}

std::optional<LevelShape> levelShape(EdgesOp edges, StringRef p, bool others) {
  if (!edges.getFrom() || edges.getWhere().empty())
    return std::nullopt;
  LevelShape shape;
  // The body's only write.
  int writes = 0;
  edges->walk([&](Operation *op) {
    if (auto set = dyn_cast<PropSetOp>(op)) {
      if (others && set.getProperty() != p)
        return;
      ++writes;
      shape.write = set;
    } else if (StringRef q = updatedProperty(op); !q.empty()) {
      // A reduction or a compare_swap: a second write.
      if (!others || q == p)
        ++writes;
    }
  });
  if (writes != 1 || !shape.write || shape.write.getProperty() != p ||
      binderOf(shape.write.getVertex(), edges) != 1u ||
      !fromFixedAndSource(shape.write.getValue(), p, edges))
    return std::nullopt;
  // where p[dst] == K.
  auto yield = cast<YieldOp>(edges.getWhere().front().getTerminator());
  Operation *cmp = yield.getValues().front().getDefiningOp();
  bool isEq = false;
  if (auto i = dyn_cast_or_null<arith::CmpIOp>(cmp))
    isEq = i.getPredicate() == arith::CmpIPredicate::eq;
  if (auto f = dyn_cast_or_null<arith::CmpFOp>(cmp))
    isEq = f.getPredicate() == arith::CmpFPredicate::OEQ;
  if (!isEq)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    auto get = cmp->getOperand(side).getDefiningOp<PropGetOp>();
    Value bound = cmp->getOperand(1 - side);
    if (get && get.getProperty() == p &&
        binderOf(get.getVertex(), edges) == 1u && isFixed(bound, edges)) {
      shape.guard = get;
      shape.bound = bound;
      return shape;
    }
  }
  return std::nullopt;
}

Operation *topLevel(Operation *op, AlgorithmOp algo) {
  while (op->getParentOp() != algo)
    op = op->getParentOp();
  return op;
}

bool LevelProof::writesAgree() {
  WalkResult r = algo->walk([&](Operation *op) {
    StringRef prop = updatedProperty(op);
    if (prop != p || topLevel(op, algo) != top)
      return WalkResult::advance();
    auto edges = op->getParentOfType<EdgesOp>();
    std::optional<LevelShape> shape;
    if (edges)
      shape = levelShape(edges, p);
    if (!shape || !sameValue(shape->bound, bound))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !r.wasInterrupted();
}

bool LevelProof::uniformFrontier(Value f) {
  if (!visited.insert(f.getAsOpaquePointer()).second)
    return true; // a cycle through scf iteration values: assumed
  if (auto of = f.getDefiningOp<FrontierOfOp>()) {
    if (of.getVertices().size() > 1)
      return false;
    return of.getVertices().empty() || vertexSetBefore(of.getVertices()[0]);
  }
  if (auto edges = f.getDefiningOp<EdgesOp>()) {
    if (topLevel(edges, algo) != top)
      return false;
    std::optional<LevelShape> shape = levelShape(edges, p);
    return shape && sameValue(shape->bound, bound) &&
           uniformFrontier(edges.getFrom());
  }
  auto arg = dyn_cast<BlockArgument>(f);
  if (!arg)
    return false;
  Operation *parent = arg.getOwner()->getParentOp();
  unsigned i = arg.getArgNumber();
  if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
    if (arg.getOwner()->getParent() == &loop.getBefore())
      return uniformFrontier(loop.getInits()[i]) &&
             uniformFrontier(loop.getYieldOp().getOperand(i));
    return uniformFrontier(loop.getConditionOp().getArgs()[i]);
  }
  if (auto loop = dyn_cast<scf::ForOp>(parent)) {
    if (i == 0)
      return false; // the induction variable
    return uniformFrontier(loop.getInitArgs()[i - 1]) &&
           uniformFrontier(loop.getBody()->getTerminator()->getOperand(i - 1));
  }
  return false;
}

bool LevelProof::vertexSetBefore(Value x) {
  Attribute k;
  if (!matchPattern(bound, m_Constant(&k)))
    return false;
  bool set = false;
  for (Operation &op : algo.getBody().front()) {
    if (&op == top)
      break;
    bool writes = false;
    op.walk([&](Operation *inner) { writes |= updatedProperty(inner) == p; });
    if (!writes)
      continue;
    auto s = dyn_cast<PropSetOp>(op);
    Attribute c;
    if (!s || !matchPattern(s.getValue(), m_Constant(&c)) || c == k) {
      set = false;
      continue;
    }
    set |= sameValue(s.getVertex(), x);
  }
  return set;
}

} // namespace sluice::graph
