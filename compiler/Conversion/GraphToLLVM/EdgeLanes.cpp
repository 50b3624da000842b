//===- EdgeLanes.cpp - Loops whose edges may share a warp's lanes ---------===//
//
// On the GPU a thread per source walks its out-edges one after another: a
// vertex of degree 1,000 keeps its thread (and its warp) busy a thousand
// dependent loads long while the others idle. Two loops can instead split
// an item's edges among the 32 lanes of a warp (graph-to-gpu's `_lanes`
// copy of the variant: lane l takes edges lo + l, lo + l + 32, ...):
//
//  - A push variant whose edges are independent of each other: sound when
//    the CPU code already treats every write of the body as shared with
//    other sources' iterations (atomics, or plain stores its check
//    accepted as shared), i.e. when nothing is written at the source the
//    thread owns, and when the edges are not ended early (a sorted prefix,
//    SortedPush.cpp).
//  - A pull variant whose every write is a reduction (+=, min=, max=) at
//    the destination it owns: each lane combines its in-edges from the
//    reduction's identity, the warp's partials are combined (on the
//    device a shuffle butterfly, graph-to-gpu's sluice_algo_warp_*) and
//    lane 0 reduces the total into the destination once, as one update
//    (so a frontier the loop builds gets the destination when the total
//    changed it). min and max give the CPU's values exactly; a sum is
//    added in another order (the lanes' partials, then a butterfly), so a
//    float sum differs from the CPU's by rounding. Not split: a loop whose
//    in-edges end early (BFS's bottom-up `where` on the destination: the
//    CPU stops at the first in-edge that ends them, the lanes would need a
//    ballot per round of 32 in-edges), a plain write, a reduction read at
//    its own destination (the CPU sees the partial total there), and a sum
//    whose property the loop reads anywhere (a self-loop reads the partial
//    total on the CPU).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sluice;

namespace {

/// Parallel, and in the graph's order (a degree order is the CPU's).
bool parallelInGraphOrder(Operation *loop) {
  auto schedule = loop->getAttrOfType<graph::ScheduleAttr>("schedule");
  return schedule && schedule.getParallel() &&
         *schedule.getParallel() != graph::Parallel::Serial &&
         (!schedule.getOrder() ||
          *schedule.getOrder() == graph::VertexOrder::Natural);
}

/// Whether `vertex` is binder `n` of one of `loop`'s regions.
bool isBinder(Value vertex, Operation *loop, unsigned n) {
  auto arg = dyn_cast<BlockArgument>(vertex);
  return arg && arg.getOwner()->getParentOp() == loop &&
         arg.getArgNumber() == n;
}

} // namespace

bool sluice::conversion::pushSplitsAcrossLanes(Operation *loop) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges || outline::pushEndsEarly(loop, /*ordered=*/false) ||
      !parallelInGraphOrder(loop))
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

FailureOr<SmallVector<conversion::LaneReduction>>
sluice::conversion::pullLaneReductions(Operation *loop, std::string &why) {
  if (!isa<graph::EdgesOp>(loop) || !parallelInGraphOrder(loop)) {
    why = "not a parallel loop in the graph's order";
    return failure();
  }
  if (outline::pullExitsEarly(loop)) {
    why = "its in-edges end at the first that makes its `where` on the "
          "destination false, as on the CPU; a warp would need a ballot per "
          "round of 32 in-edges";
    return failure();
  }
  SmallVector<LaneReduction> reductions;
  llvm::StringSet<> readAtDestination, readElsewhere;
  for (Region &region : loop->getRegions())
    region.walk([&](Operation *op) {
      if (!why.empty())
        return;
      if (auto get = dyn_cast<graph::PropGetOp>(op)) {
        (isBinder(get.getVertex(), loop, 1) ? readAtDestination : readElsewhere)
            .insert(get.getProperty());
        return;
      }
      Value vertex;
      StringRef name;
      if (!propertyUpdate(op, vertex, name))
        return;
      auto r = dyn_cast<graph::PropReduceOp>(op);
      auto combinable = [](graph::ReductionKind k) {
        return k == graph::ReductionKind::Add ||
               k == graph::ReductionKind::Min || k == graph::ReductionKind::Max;
      };
      if (!r || !isBinder(vertex, loop, 1) || !combinable(r.getKind())) {
        why = "it writes '" + name.str() +
              "' other than by +=, min= or max= at the destination";
        return;
      }
      graph::ReductionKind kind = r.getKind();
      auto *it = llvm::find_if(reductions, [&](const LaneReduction &l) {
        return l.property == name;
      });
      if (it == reductions.end())
        reductions.push_back({name, kind, r.getValue().getType()});
      else if (it->kind != kind)
        why = "it reduces into '" + name.str() + "' in two ways";
    });
  if (!why.empty())
    return failure();
  if (reductions.empty()) {
    why = "it reduces into no property";
    return failure();
  }
  for (const LaneReduction &r : reductions) {
    if (r.type.isInteger(1) ||
        (r.type.isInteger(32) && r.kind == graph::ReductionKind::Add)) {
      why = "no warp combination for '" + r.property.str() + "'s values";
      return failure();
    }
    if (readAtDestination.contains(r.property)) {
      why = "it reads '" + r.property.str() +
            "' at the destination it reduces into (the CPU reads the total "
            "so far)";
      return failure();
    }
    if (r.kind == graph::ReductionKind::Add &&
        readElsewhere.contains(r.property)) {
      why = "it reads '" + r.property.str() +
            "', which it sums into (on a self-loop the CPU reads the sum so "
            "far)";
      return failure();
    }
  }
  return reductions;
}

bool sluice::conversion::pullSplitsAcrossLanes(Operation *loop) {
  std::string why;
  return succeeded(pullLaneReductions(loop, why));
}

std::string sluice::conversion::warpCombineFunction(graph::ReductionKind kind,
                                                    Type type) {
  std::string t = type.isF64()         ? "f64"
                  : type.isF32()       ? "f32"
                  : type.isInteger(32) ? "u32"
                                       : "i64";
  return "sluice_algo_warp_" + graph::stringifyReductionKind(kind).str() + "_" +
         t;
}

// The `_lanes` copy of a pull variant at destination v (Outliner's).
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

void Outliner::emitPullLanes(OpBuilder &b, Location loc, Operation *loop,
                             Value v, Operation *outer, Value lane,
                             function_ref<void(Value)> atEdge,
                             function_ref<Value()> inEdgeLoop) {
  std::string why;
  FailureOr<SmallVector<LaneReduction>> reductions =
      pullLaneReductions(loop, why);
  assert(succeeded(reductions) && "a `_lanes` pull copy of a loop that "
                                  "pullSplitsAcrossLanes refuses");
  // Each lane's partials from the identities, in slots (registers).
  SmallVector<PullAccumulator> accumulators;
  for (const LaneReduction &r : *reductions) {
    graph::PropertyOp p = *llvm::find_if(props, [&](graph::PropertyOp q) {
      return q.getSymName() == r.property;
    });
    Type type = p.getElementType();
    Value slot;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(outer);
      slot = b.create<LLVM::AllocaOp>(loc, ptr, type, constI64(b, loc, 1));
    }
    b.create<LLVM::StoreOp>(loc, reductionIdentity(b, loc, r.kind, type), slot);
    accumulators.push_back({p, slot});
  }
  Value e = inEdgeLoop();
  atEdge(e);
  Operation *inEdges = e.getParentBlock()->getParentOp();
  accumulateInSlots(inEdges, v, accumulators);
  b.setInsertionPointAfter(inEdges);
  // The warp's totals (every lane's), reduced into v by lane 0 alone.
  SmallVector<Value> totals;
  for (auto [r, acc] : llvm::zip(*reductions, accumulators)) {
    Type type = acc.property.getElementType();
    std::string name = warpCombineFunction(r.kind, type);
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!fn) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(module.getBody());
      fn = b.create<LLVM::LLVMFuncOp>(
          loc, name, LLVM::LLVMFunctionType::get(type, {type}));
    }
    Value partial = b.create<LLVM::LoadOp>(loc, type, acc.slot);
    totals.push_back(
        b.create<LLVM::CallOp>(loc, fn, ValueRange{partial}).getResult());
  }
  auto first =
      b.create<scf::IfOp>(loc,
                          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                  lane, constI64(b, loc, 0)),
                          /*withElse=*/false);
  b.setInsertionPointToStart(first.thenBlock());
  for (auto [r, total] : llvm::zip(*reductions, totals))
    b.create<graph::PropReduceOp>(loc, r.kind, r.property, v, total);
}
