//===- PullApplyFusion.cpp - a vertices loop inside the pull before it ----===//
//
// PageRank's round is a pull (`incoming[dst] += contrib[src]`) followed by
// a vertices loop over what it gathered (`rank[v] = ... incoming[v]`;
// `incoming[v] = 0`). A pull iteration owns its destination, so once v's
// in-edges are done nothing else changes v's sums: the vertices loop's
// iteration at v can run right there, in the same pass, as GAPBS's
// PageRank does. The fused pass reads each vertex's data once instead of
// three times (the sums written, read back, reset) and saves a pass.
//
// It gives the unfused loops' results exactly when the vertices loop
// touches only its own vertex's properties and the pull reads none of
// what that loop writes except at its destination: then the pull at v
// sees what it saw before (every property it reads at a source is as the
// loops found it) and the vertices loop at v sees v's finished sums.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"

#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

namespace {

/// Whether `v` is binder `number` of a region of `loop`.
bool isBinder(Value v, Operation *loop, unsigned number) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner()->getParentOp() == loop &&
         arg.getArgNumber() == number;
}

} // namespace

graph::VerticesOp sluice::conversion::outline::pullApplyPartner(
    graph::EdgesOp pull, graph::ScheduleAttr schedule, std::string &why) {
  auto next = dyn_cast_or_null<graph::VerticesOp>(pull->getNextNode());
  if (!next)
    return {};
  auto refuse = [&](const Twine &reason) {
    why = reason.str();
    return graph::VerticesOp();
  };
  if (!schedule.fuses())
    return refuse("fusion: off (schedule)");
  if (pull.getFrom())
    return refuse("the pull runs over a frontier");
  if (pull->getNumResults())
    return refuse("the pull builds a frontier");
  if (!schedule.getTile().isNone())
    return refuse("the pull is scheduled with a tile");
  if (!next.getInits().empty())
    return refuse("the vertices loop reduces into locals");
  auto nextSchedule = next->getAttrOfType<graph::ScheduleAttr>("schedule");
  if (!nextSchedule || !nextSchedule.getParallel())
    return refuse("the vertices loop has no schedule");
  if ((*nextSchedule.getParallel() == graph::Parallel::Serial) !=
      (*schedule.getParallel() == graph::Parallel::Serial))
    return refuse("one of the loops is serial, the other not");
  if (!nextSchedule.getTile().isNone())
    return refuse("the vertices loop is tiled");
  // The vertices loop: its own vertex's properties only.
  llvm::StringSet<> written;
  std::string problem;
  next->walk([&](Operation *op) {
    if (!problem.empty())
      return;
    if (Value at = graph::accessedVertex(op)) {
      if (!isBinder(at, next, 0))
        problem =
            ("the vertices loop accesses '" + graph::accessedProperty(op) +
             "' at another vertex than its own")
                .str();
      else if (!isa<graph::PropGetOp>(op))
        written.insert(graph::accessedProperty(op));
      return;
    }
    if (isa<graph::NumVerticesOp, graph::NumEdgesOp, graph::YieldOp,
            graph::IntDivOp, graph::IntRemOp>(op))
      return;
    if (auto degree = dyn_cast<graph::DegreeOp>(op)) {
      if (!isBinder(degree->getOperand(0), next, 0))
        problem = "the vertices loop asks another vertex's degree";
      return;
    }
    if (isa<graph::GraphDialect>(op->getDialect()) && op != next)
      problem = "the vertices loop uses a graph query other than its own "
                "vertex's degree and the counts";
  });
  if (!problem.empty())
    return refuse(problem);
  // The pull: what the vertices loop writes, only at the destination; its
  // own updates, only at the destination.
  pull->walk([&](Operation *op) {
    if (!problem.empty())
      return;
    Value at = graph::accessedVertex(op);
    if (!at)
      return;
    StringRef name = graph::accessedProperty(op);
    bool atDestination = isBinder(at, pull, 1);
    if (!isa<graph::PropGetOp>(op) && !atDestination)
      problem = ("the pull updates '" + name + "' at its source").str();
    else if (written.contains(name) && !atDestination)
      problem = ("the pull reads '" + name +
                 "' at its source, which the vertices loop writes")
                    .str();
  });
  if (!problem.empty())
    return refuse(problem);
  // What it uses from outside travels in the pull's environment.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(next->getRegions(), captured);
  if (llvm::any_of(captured,
                   [](Value v) { return !v.getType().isIntOrFloat(); }))
    return refuse("the vertices loop uses a value from outside that is not "
                  "a number");
  return next;
}
