//===- WalkRegionClone.cpp - inline a walk region's body ------------------===//
#include "compiler/Conversion/WalkRegionClone.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

FailureOr<sluice::walk::YieldOp> sluice::conversion::cloneWalkRegion(
    OpBuilder &b, walk::WalkOp walk, Region &region, ValueRange args,
    StringRef pass, StringRef name, SmallVectorImpl<Value> &values) {
  Block &src = region.front();
  if (src.getNumArguments() != args.size())
    return walk.emitError(pass)
           << ": the " << name << " region has " << src.getNumArguments()
           << " arguments, expected " << args.size();
  IRMapping map;
  for (auto [from, to] : llvm::zip(src.getArguments(), args)) {
    if (from.getType() != to.getType())
      return walk.emitError(pass)
             << ": an argument of the " << name << " region has type "
             << from.getType() << ", expected " << to.getType();
    map.map(from, to);
  }
  for (Operation &op : src.without_terminator())
    b.clone(op, map);
  auto yield = dyn_cast<walk::YieldOp>(src.getTerminator());
  if (!yield)
    return walk.emitError(pass)
           << ": the " << name << " region does not end in walk.yield";
  values.clear();
  for (Value v : yield.getValues())
    values.push_back(map.lookupOrDefault(v));
  return yield;
}
