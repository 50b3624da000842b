//===- PullAccumulators.cpp - a pull destination's sums in registers -----===//
////
//
// A pull iteration owns its destination v, so a property that the loop
// only reduces into at v (PageRank's `incoming[dst] += contrib[src]`) can
// be combined in a private slot across v's in-edges and stored once: read
// before the in-edge loop, each reduction a read-modify-write of the slot,
// written back after it. The slot is an alloca in the variant's entry
// block, which LLVM's SROA turns into a register; the property's own array
// could not be, since LLVM cannot tell it apart from the arrays the
// in-edges read (they all come from the property table), so it would keep
// one store per in-edge.
//
// The values and their order are the untransformed loop's: the same
// combinations, in the same in-edge order, from the same starting value.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

namespace {

/// Whether `r` reduces at the destination binder of the region it is in.
bool atDestination(graph::PropReduceOp r, Operation *loop) {
  auto arg = dyn_cast<BlockArgument>(r.getVertex());
  return arg && arg.getOwner()->getParentOp() == loop &&
         arg.getArgNumber() == 1;
}

} // namespace

SmallVector<graph::PropertyOp> sluice::conversion::outline::pullAccumulators(
    Operation *loop, ArrayRef<graph::PropertyOp> props) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  // A loop that builds a frontier inserts a destination per update that
  // changes it, which needs each update's own before and after.
  if (!edges || edges.getChanged())
    return {};
  // Per property: whether every access is a reduction at the destination.
  llvm::StringMap<bool> onlyReduced;
  for (Region &region : loop->getRegions())
    region.walk([&](Operation *op) {
      StringRef name = graph::accessedProperty(op);
      if (name.empty())
        return;
      auto r = dyn_cast<graph::PropReduceOp>(op);
      bool ok = r && atDestination(r, loop);
      auto [it, inserted] = onlyReduced.try_emplace(name, ok);
      if (!inserted)
        it->second = it->second && ok;
    });
  SmallVector<graph::PropertyOp> result;
  for (graph::PropertyOp p : props) // declaration order: deterministic
    if (auto it = onlyReduced.find(p.getSymName());
        it != onlyReduced.end() && it->second)
      result.push_back(p);
  return result;
}

void sluice::conversion::outline::accumulateInSlots(
    Operation *root, Value v, ArrayRef<PullAccumulator> accumulators) {
  SmallVector<graph::PropReduceOp> reductions;
  root->walk([&](graph::PropReduceOp r) {
    if (r.getVertex() == v)
      reductions.push_back(r);
  });
  for (graph::PropReduceOp r : reductions) {
    const PullAccumulator *acc =
        llvm::find_if(accumulators, [&](PullAccumulator a) {
          return a.property.getSymName() == r.getProperty();
        });
    if (acc == accumulators.end())
      continue;
    OpBuilder b(r);
    Location loc = r.getLoc();
    Type type = graph::PropertyOp(acc->property).getElementType();
    Value old = b.create<LLVM::LoadOp>(loc, type, acc->slot);
    b.create<LLVM::StoreOp>(
        loc, combineReduction(b, loc, r.getKind(), old, r.getValue()),
        acc->slot);
    r.erase();
  }
}
