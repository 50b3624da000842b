//===- EdgeLanes.cpp - Push loops whose out-edges may share a source ------===//
//
// On the GPU a thread per source walks its out-edges one after another: a
// vertex of degree 1,000 keeps its thread (and its warp) busy a thousand
// dependent loads long while the others idle. A push variant whose edges
// are independent of each other can instead split a source's out-edges
// among the 32 lanes of a warp (graph-to-gpu's `_lanes` copy of the
// variant: lane l takes edges lo + l, lo + l + 32, ...). That is sound when
// the CPU code already treats every write of the body as shared with other
// sources' iterations (atomics, or plain stores its check accepted as
// shared), i.e. when nothing is written at the source the thread owns,
// and when the edges are not ended early (a sorted prefix, SortedPush.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"

using namespace mlir;
using namespace sluice;

bool sluice::conversion::pushSplitsAcrossLanes(Operation *loop) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges || outline::pushEndsEarly(loop, /*ordered=*/false))
    return false;
  auto schedule = loop->getAttrOfType<graph::ScheduleAttr>("schedule");
  if (!schedule || !schedule.getParallel() ||
      *schedule.getParallel() == graph::Parallel::Serial ||
      (schedule.getOrder() &&
       *schedule.getOrder() != graph::VertexOrder::Natural))
    return false;
  Region &body = loop->getRegion(1);
  Value source = body.front().getArgument(0);
  WalkResult writesSource = body.walk([&](Operation *op) {
    Value vertex;
    StringRef name;
    return conversion::propertyUpdate(op, vertex, name) && vertex == source
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !writesSource.wasInterrupted();
}
