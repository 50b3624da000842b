//===- AlgorithmOutline.cpp - algorithms and their loops as functions -----===//
//
// Step 1 of graph-to-llvm (GraphLowering.h). A loop runs as one of these
// variants, each a function over a range [begin, end) of its domain:
//
//   vertices  for v in range: where(v) -> body(v)
//   push      for i in range: u = list ? list[i] : i, skipped when a bitmap
//             says u is not in the frontier; for each out-edge u -> dst
//             (CSR): where(u, dst, w) -> body(u, dst, w). Iterations own u.
//   pull      for v in range: for each in-edge src -> v (CSC) with src in
//             the frontier (when there is one): where -> body. Iterations
//             own v: its updates need no atomics, and reductions at v into
//             a property nothing else in the loop touches combine in a
//             register across v's in-edges (PullAccumulators.cpp).
//
// Which variants a loop gets comes from its #graph.schedule: `direction`
// (push, pull; hybrid: both, chosen per round by Beamer's rule in
// sluice_algo_frontier_pull_next, and pull for a loop without a frontier),
// `frontier` for push over a frontier
// (sparse: its list; dense and bitmap: every vertex tested against its
// bitmap; auto: chosen per round), `parallel` and `chunk` for the parallel
// for. A pull loop's `tile` adds the variant `pull_tiled`, over the tiled
// in-edges of sluice/algo_tile.h (TiledLoops.h); a push loop's adds
// `push_bins` and `bins_accumulate`, propagation blocking over the bins of
// sluice/algo_bins.h (BinnedPush.h). `format: coo` makes a push over
// every vertex the variant `coo`, over blocks of edges (CooEdges.cpp).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/GraphToLLVM/TiledLoops.h"
#include "compiler/Conversion/WalkOpLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

bool sluice::conversion::outline::pullExitsEarly(Operation *loop) {
  Region &where = loop->getRegion(0);
  if (where.empty())
    return false;
  Block &cond = where.front();
  return cond.getArgument(0).use_empty() &&
         (cond.getNumArguments() < 3 || cond.getArgument(2).use_empty());
}

bool sluice::conversion::outline::pushTestsSourceFirst(Operation *loop) {
  Region &where = loop->getRegion(0);
  if (!isa<graph::EdgesOp>(loop) || where.empty())
    return false;
  Block &cond = where.front();
  // Tested at every source, also those without out-edges, where the loop
  // never evaluated it: nothing in it may fault.
  bool mayFault =
      cond.walk([](Operation *op) {
            return isa<graph::VertexOfOp, graph::IntDivOp, graph::IntRemOp>(op)
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  return !mayFault && cond.getArgument(1).use_empty() &&
         (cond.getNumArguments() < 3 || cond.getArgument(2).use_empty());
}

SmallVector<graph::PropGetOp>
sluice::conversion::outline::pushSourceReads(Operation *loop) {
  if (!isa<graph::EdgesOp>(loop))
    return {};
  Block &body = loop->getRegion(1).front();
  Value src = body.getArgument(0), dst = body.getArgument(1);
  // Properties written other than by min= / max= at the destination, and
  // those written at all (they need a result to be hoisted).
  llvm::StringSet<> unsafe, written;
  loop->walk([&](Operation *op) {
    Value vertex;
    StringRef name;
    if (!propertyUpdate(op, vertex, name))
      return;
    written.insert(name);
    auto reduce = dyn_cast<graph::PropReduceOp>(op);
    if (!reduce || vertex != dst ||
        (reduce.getKind() != graph::ReductionKind::Min &&
         reduce.getKind() != graph::ReductionKind::Max))
      unsafe.insert(name);
  });
  SmallVector<graph::PropGetOp> reads;
  for (Operation &op : body.without_terminator()) {
    auto get = dyn_cast<graph::PropGetOp>(op);
    if (!get || get.getVertex() != src)
      continue;
    StringRef name = get.getProperty();
    if (unsafe.contains(name) ||
        (written.contains(name) && loop->getNumResults() == 0))
      continue;
    reads.push_back(get);
  }
  return reads;
}

StringRef sluice::conversion::outline::variantName(Variant v) {
  switch (v) {
  case Variant::Vertices:
    return "vertices";
  case Variant::Push:
    return "push";
  case Variant::Pull:
    return "pull";
  case Variant::TiledPull:
    return "pull_tiled";
  case Variant::PushBins:
    return "push_bins";
  case Variant::BinsAccumulate:
    return "bins_accumulate";
  case Variant::Coo:
    return "coo";
  }
  llvm_unreachable("unknown variant");
}

Value sluice::conversion::outline::viewField(OpBuilder &b, Location loc,
                                             Value view, ViewField field,
                                             Type type) {
  return loadWalkSlot(b, loc, view, static_cast<int64_t>(field), type);
}

FunctionInfo Outliner::prologue(OpBuilder &b, Location loc, Value ctx,
                                Value propsTable, bool readsIds) {
  FunctionInfo info;
  info.ctx = ctx;
  for (auto [i, p] : llvm::enumerate(props))
    info.bases[p.getSymName()] = loadWalkSlot(b, loc, propsTable, i, ptr);
  info.view = callRuntime(b, loc, module, AlgoCall::View, {ctx});
  Type i64 = b.getI64Type();
  if (readsIds && state.inlineIds) {
    // The ids `id(v)` reads in this function's own code, once.
    Value ids = callRuntime(b, loc, module, AlgoCall::Ids, {ctx});
    info.idTable = loadWalkSlot(b, loc, ids, int64_t(IdsField::Ids), ptr);
    info.idBase = loadWalkSlot(b, loc, ids, int64_t(IdsField::Base), i64);
  }
  info.numVertices = viewField(b, loc, info.view, ViewField::NumVertices, i64);
  info.numEdges = viewField(b, loc, info.view, ViewField::NumEdges, i64);
  info.outOffsets = viewField(b, loc, info.view, ViewField::OutOffsets, ptr);
  return info;
}

LogicalResult Outliner::claimName(StringRef name, Location loc,
                                  const std::string &what, StringRef fix) {
  bool runtime = isAlgoRuntimeFunction(name);
  if (!runtime && !module.lookupSymbol(name))
    return success();
  return emitError(loc) << what << " cannot be compiled: its function '" << name
                        << "' would have the name of "
                        << (runtime ? "a function of the algorithm runtime "
                                      "(sluice/algo.h)"
                                    : "another algorithm's function")
                        << "; " << fix;
}

LogicalResult Outliner::run() {
  MLIRContext *ctx = algo.getContext();
  Location loc = algo.getLoc();
  Block &body = algo.getBody().front();
  for (auto p : body.getOps<graph::PropertyOp>())
    props.push_back(p);
  // The site travels with the op into the loop functions' copies.
  for (auto [i, op] : llvm::enumerate(faultSites(algo)))
    op->setAttr(kFaultSiteAttrName,
                IntegerAttr::get(IntegerType::get(ctx, 32), int64_t(i)));

  // void sluice_algo_A(ctx, params, props)
  std::string mainName = algorithmFunctionName(algo.getSymName());
  if (failed(claimName(mainName, loc,
                       "algorithm '" + algo.getSymName().str() + "'",
                       "rename the algorithm")))
    return failure();
  OpBuilder b(algo);
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            {ptr, ptr, ptr});
  main = b.create<LLVM::LLVMFuncOp>(loc, mainName, fnType);
  Block *entry = main.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  Value ctxArg = entry->getArgument(0);
  mainProps = entry->getArgument(2);
  SmallVector<Value> params;
  for (BlockArgument arg : body.getArguments())
    params.push_back(loadWalkSlot(b, loc, entry->getArgument(1),
                                  arg.getArgNumber(), arg.getType()));
  // `id()` outside the loops (theirs are in their own functions).
  bool mainReadsIds = algo.getBody()
                          .walk([](graph::OriginalIdOp id) {
                            return id->getParentOfType<graph::VerticesOp>() ||
                                           id->getParentOfType<graph::EdgesOp>()
                                       ? WalkResult::advance()
                                       : WalkResult::interrupt();
                          })
                          .wasInterrupted();
  state.functions[main] = prologue(b, loc, ctxArg, mainProps, mainReadsIds);
  // With a GPU attached, the properties the passes write stay on the
  // device between them: the host code says where it touches them itself
  // (sluice_algo_gpu_sync; a call that returns at once on the CPU).
  auto sync = [&](OpBuilder &at, int64_t phase) {
    callRuntime(at, loc, module, AlgoCall::GpuSync,
                {ctxArg, at.create<arith::ConstantIntOp>(loc, phase, 32)});
  };
  sync(b, kGpuSyncBegin);
  for (auto [arg, value] : llvm::zip(body.getArguments(), params))
    arg.replaceAllUsesWith(value);
  entry->getOperations().splice(entry->end(), body.getOperations());
  b.setInsertionPointToEnd(entry);
  sync(b, kGpuSyncEnd);
  b.create<LLVM::ReturnOp>(loc, ValueRange{});

  SmallVector<Operation *> loops;
  main.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<graph::VerticesOp, graph::EdgesOp>(op))
      loops.push_back(op);
  });
  for (auto [i, loop] : llvm::enumerate(loops))
    if (!fusedAway.contains(loop) &&
        failed(lowerLoop(loop, static_cast<int64_t>(i))))
      return failure();
  // The loops are functions now: what accesses properties in `main` is the
  // host code's own. A read of one element brings back that element (BFS
  // reads a frontier vertex's depth each round), anything else them all.
  SmallVector<Operation *> hostAccesses;
  main.walk([&](Operation *op) {
    if (isa<graph::PropertyOp, graph::PropGetOp, graph::PropSetOp,
            graph::PropReduceOp, graph::CompareSwapOp>(op))
      hostAccesses.push_back(op);
  });
  for (Operation *op : hostAccesses) {
    OpBuilder at(op);
    auto get = dyn_cast<graph::PropGetOp>(op);
    if (!get) {
      sync(at, kGpuSyncHost);
      continue;
    }
    // The property's index in the table (`props` is in its order).
    auto index = llvm::find_if(props, [&](graph::PropertyOp p) {
      return p.getSymName() == get.getProperty();
    });
    callRuntime(at, loc, module, AlgoCall::GpuSyncElement,
                {ctxArg,
                 at.create<arith::ConstantIntOp>(
                     loc, std::distance(props.begin(), index), 32),
                 get.getVertex()});
  }
  algo.erase();
  return success();
}

void Outliner::compareRanks(arith::CmpIOp cmp) {
  // Vertices are the language's only i32 values; == and != do not depend
  // on the order. The version in the degree order runs only with ranks.
  if (!cmp.getLhs().getType().isInteger(32) ||
      cmp.getPredicate() == arith::CmpIPredicate::eq ||
      cmp.getPredicate() == arith::CmpIPredicate::ne)
    return;
  OpBuilder b(cmp);
  for (unsigned k = 0; k < 2; ++k)
    cmp->setOperand(k, positionOfVertex(b, cmp.getLoc(), cmp->getOperand(k)));
}

SmallVector<Value> Outliner::inlineRegion(OpBuilder &b, Region &region,
                                          ValueRange binders, IRMapping &map) {
  Block &block = region.front();
  for (auto [arg, value] : llvm::zip(block.getArguments(), binders))
    map.map(arg, value);
  for (Operation &op : block.without_terminator()) {
    // Already emitted (a source read hoisted out of the edge loop).
    if (hoisted.contains(&op))
      continue;
    Operation *copy = b.clone(op, map);
    if (!positionOf.empty()) {
      if (Value call = atPositions(copy, positionsCtx))
        map.map(op.getResult(0), call);
    } else if (ranks) {
      copy->walk([&](arith::CmpIOp cmp) { compareRanks(cmp); });
    } else if (mergeOffsets) {
      inlineCounts(copy, map, &op);
    }
  }
  SmallVector<Value> values;
  for (Value v : block.getTerminator()->getOperands())
    values.push_back(map.lookup(v));
  return values;
}

Value Outliner::emitCondition(OpBuilder &b, Operation *loop, ValueRange binders,
                              IRMapping &map) {
  return inlineRegion(b, loop->getRegion(0), binders, map).front();
}

SmallVector<Value> Outliner::emitIteration(OpBuilder &b, Location loc,
                                           Operation *loop, ValueRange binders,
                                           IRMapping &map,
                                           ValueRange identities) {
  Region &where = loop->getRegion(0);
  Region &body = loop->getRegion(1);
  auto inlineRegion = [&](Region &region) {
    return this->inlineRegion(b, region, binders, map);
  };
  if (where.empty())
    return inlineRegion(body);
  Value keep = emitCondition(b, loop, binders, map);
  if (identities.empty()) {
    auto ifOp = b.create<scf::IfOp>(loc, keep, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    inlineRegion(body);
    return {};
  }
  auto ifOp = b.create<scf::IfOp>(loc, identities.getTypes(), keep,
                                  /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  b.create<scf::YieldOp>(loc, inlineRegion(body));
  b.setInsertionPointToStart(ifOp.elseBlock());
  b.create<scf::YieldOp>(loc, identities);
  return ifOp.getResults();
}

LLVM::LLVMFuncOp Outliner::buildVariant(Operation *loop, StringRef name,
                                        Variant variant,
                                        ArrayRef<Value> captured, bool parallel,
                                        bool lanes) {
  MLIRContext *ctx = loop->getContext();
  Location loc = loop->getLoc();
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  OpBuilder b(main);
  SmallVector<Type> args = {ptr, ptr, i64, i64};
  if (lanes)
    args.append({i64, i64}); // this thread's lane, the lanes of a source
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), args);
  auto fn = b.create<LLVM::LLVMFuncOp>(loc, name, fnType);
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  Value env = entry->getArgument(1);
  auto slot = [&](EnvSlot s, Type t) {
    return loadWalkSlot(b, loc, env, static_cast<int64_t>(s), t);
  };
  // The ops this function holds: the loop's, and in a pull the fused
  // vertices loop's.
  Operation *fused = variant == Variant::Pull && fusedApply
                         ? fusedApply.getOperation()
                         : nullptr;
  auto walkBoth = [&](auto fn) {
    loop->walk(fn);
    if (fused)
      fused->walk(fn);
  };
  bool readsIds = false;
  walkBoth([&](graph::OriginalIdOp) { readsIds = true; });
  FunctionInfo info = prologue(b, loc, entry->getArgument(0),
                               slot(EnvSlot::Props, ptr), readsIds);
  info.parallel = parallel;
  if (parallel)
    walkBoth([&](graph::CompareSwapOp swap) {
      info.swapped.insert(swap.getProperty());
    });
  Value out = slot(EnvSlot::Out, ptr);
  Value list = slot(EnvSlot::List, ptr);
  Value bitmap = slot(EnvSlot::Bitmap, ptr);
  if (isa<graph::EdgesOp>(loop) && loop->getNumResults())
    info.out = out;
  info.bucketInserts = info.out && bucketBins && variant == Variant::Push;
  // A pull pass sets its new frontier's bits itself: its iterations run
  // over destinations in order, so a word's inserts collect in a register
  // and cost one atomic or (an insert call per vertex, a locked
  // instruction each, stalled the in-edge scan).
  if (info.out && state.directInserts &&
      (variant == Variant::Pull || variant == Variant::TiledPull)) {
    Value slotSize = constI64(b, loc, 1);
    info.accWord = b.create<LLVM::AllocaOp>(loc, ptr, i64, slotSize);
    info.accBits = b.create<LLVM::AllocaOp>(loc, ptr, i64, slotSize);
    b.create<LLVM::StoreOp>(loc, constI64(b, loc, 0), info.accWord);
    b.create<LLVM::StoreOp>(loc, constI64(b, loc, 0), info.accBits);
    info.outBits =
        callRuntime(b, loc, module, AlgoCall::FrontierDirectBits, {out});
  }
  IRMapping map;
  for (auto [k, value] : llvm::enumerate(captured))
    map.map(value, loadWalkSlot(b, loc, env,
                                static_cast<int64_t>(EnvSlot::FirstCaptured) +
                                    static_cast<int64_t>(k),
                                value.getType()));
  bool weighted =
      isa<graph::EdgesOp>(loop) && cast<graph::EdgesOp>(loop).isWeighted();
  if (variant == Variant::Coo) {
    // [begin, end) is a range of edges (CooEdges.cpp).
    emitCooRange(b, loc, loop, entry->getArgument(2), entry->getArgument(3),
                 info, fn, map, weighted);
    b.create<LLVM::ReturnOp>(loc, ValueRange{});
    return fn;
  }

  auto forOp = b.create<scf::ForOp>(loc, entry->getArgument(2),
                                    entry->getArgument(3), constI64(b, loc, 1));
  b.setInsertionPointToStart(forOp.getBody());
  Value i = forOp.getInductionVar();
  Value one = constI64(b, loc, 1);
  // The list the last edgeLoop loaded: [lo, hi) in its offsets.
  SourceList edgeList;
  // The edges [lo, hi) of vertex v in `offsets`, and a loop over them
  // (a `_lanes` copy: over lo + lane, lo + lane + lanes, ...).
  auto edgeLoop = [&](Value offsets, Value v) {
    Value v64 = b.create<arith::ExtUIOp>(loc, i64, v);
    Value lo = loadElement(b, loc, i64, offsets, v64);
    Value hi = loadElement(b, loc, i64, offsets,
                           b.create<arith::AddIOp>(loc, v64, one));
    edgeList = {lo, hi};
    Value step = one;
    if (lanes) {
      lo = b.create<arith::AddIOp>(loc, lo, entry->getArgument(4));
      step = entry->getArgument(5);
    }
    auto inner = b.create<scf::ForOp>(loc, lo, hi, step);
    b.setInsertionPointToStart(inner.getBody());
    return inner.getInductionVar();
  };
  switch (variant) {
  case Variant::Vertices: {
    auto vertices = cast<graph::VerticesOp>(loop);
    if (vertices.getInits().empty()) {
      Value v = b.create<arith::TruncIOp>(loc, i32, i);
      info.owned = v;
      state.functions[fn] = info;
      emitIteration(b, loc, loop, {v}, map);
      break;
    }
    // Reductions into locals: i is a block of kReduceBlock vertices whose
    // contributions combine in vertex order into one partial per local.
    SmallVector<Value> identities;
    SmallVector<graph::ReductionKind> kinds;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forOp);
      for (auto [attr, init] :
           llvm::zip(vertices.getReductions(), vertices.getInits())) {
        kinds.push_back(cast<graph::ReductionKindAttr>(attr).getValue());
        identities.push_back(
            reductionIdentity(b, loc, kinds.back(), init.getType()));
      }
    }
    Value block = constI64(b, loc, kReduceBlock);
    Value lo = b.create<arith::MulIOp>(loc, i, block);
    Value hi = b.create<arith::MinUIOp>(
        loc, b.create<arith::AddIOp>(loc, lo, block), info.numVertices);
    auto inner = b.create<scf::ForOp>(loc, lo, hi, one, identities);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inner.getBody());
      Value v = b.create<arith::TruncIOp>(loc, i32, inner.getInductionVar());
      info.owned = v;
      state.functions[fn] = info;
      SmallVector<Value> contributions =
          emitIteration(b, loc, loop, {v}, map, identities);
      SmallVector<Value> next;
      for (auto [kind, acc, c] :
           llvm::zip(kinds, inner.getRegionIterArgs(), contributions))
        next.push_back(combineReduction(b, loc, kind, acc, c));
      b.create<scf::YieldOp>(loc, next);
    }
    // partials[k * blocks + i] = the block's partial of local k.
    Value partials = slot(EnvSlot::Partials, ptr);
    Value blocks = slot(EnvSlot::Blocks, i64);
    for (auto [k, partial] : llvm::enumerate(inner.getResults())) {
      Value index = b.create<arith::AddIOp>(
          loc, b.create<arith::MulIOp>(loc, constI64(b, loc, k), blocks), i);
      b.create<LLVM::StoreOp>(
          loc, partial,
          elementAddress(b, loc, partial.getType(), partials, index));
    }
    break;
  }
  case Variant::Push: {
    // Over a frontier: its list (a sparse round), or every vertex tested
    // against its bitmap (a dense one). Without one the launch passes no
    // bitmap; a loop in a degree order has two versions, and the launch
    // runs the relabelled one with the order's list, the other with none
    // (OutlineLoops.cpp): the tests that cannot pass are not emitted (LLVM
    // would test the pointers per vertex: it does not unswitch loops this
    // large).
    const bool overFrontier =
        isa<graph::EdgesOp>(loop) && cast<graph::EdgesOp>(loop).getFrom();
    const bool inDegreeOrder = ordered && relabelled;
    Value u;
    if (inDegreeOrder) {
      u = loadElement(b, loc, i32, list, i);
    } else if (overFrontier) {
      // u = list ? list[i] : i
      auto pick = b.create<scf::IfOp>(loc, TypeRange{i32},
                                      isNonNull(b, loc, list), true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(pick.thenBlock());
      b.create<scf::YieldOp>(loc, loadElement(b, loc, i32, list, i));
      b.setInsertionPointToStart(pick.elseBlock());
      b.create<scf::YieldOp>(loc,
                             ValueRange{b.create<arith::TruncIOp>(loc, i32, i)});
      u = pick.getResult(0);
    } else {
      u = b.create<arith::TruncIOp>(loc, i32, i);
    }
    if (overFrontier) {
      // Without a list, a bitmap (when there is one) says which u are in.
      auto member = b.create<scf::IfOp>(loc, TypeRange{b.getI1Type()},
                                        isNonNull(b, loc, bitmap), true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(member.thenBlock());
        b.create<scf::YieldOp>(loc, testBit(b, loc, bitmap, u));
        b.setInsertionPointToStart(member.elseBlock());
        b.create<scf::YieldOp>(
            loc, ValueRange{b.create<arith::ConstantIntOp>(loc, 1, 1)});
      }
      auto inFrontier = b.create<scf::IfOp>(loc, member.getResult(0), false);
      b.setInsertionPointToStart(inFrontier.thenBlock());
    }
    if (inDegreeOrder) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forOp);
      ranks = slot(EnvSlot::Ranks, ptr);
    }
    // A `where` that reads only the source is false for all of u's
    // out-edges when it is false before the first: they are skipped
    // (bc.sluice's backward levels). The body may change it, so each edge
    // tests it again.
    if (pushTestsSourceFirst(loop)) {
      auto sourceTest =
          b.create<scf::IfOp>(loc, emitCondition(b, loop, {u}, map), false);
      b.setInsertionPointToStart(sourceTest.thenBlock());
    }
    // The out-edge arrays once per call; the source reads that may be
    // once per source (pushSourceReads) before its out-edges.
    Value targets, weights;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forOp);
      targets = viewField(b, loc, info.view, ViewField::OutTargets, ptr);
      weights = viewField(b, loc, info.view, ViewField::OutWeights, ptr);
    }
    map.map(loop->getRegion(1).getArgument(0), u);
    for (graph::PropGetOp get : pushSourceReads(loop)) {
      b.clone(*get, map);
      hoisted.insert(get);
    }
    info.owned = u;
    // u's out-edges in `offsets` at `at` (u, or its position), each
    // destination from `tgts`. A `where` true for a prefix of the sorted
    // out-edges (pushEndsEarly) ends them at its first false: a while
    // loop tests it, then runs the body alone.
    const bool overPositions = inDegreeOrder && destinationOnlyOrdered(loop);
    auto mergeOver = [&](Value offsets, Value tgts) {
      if (state.inlineMerges)
        mergeOffsets = offsets, mergeTargets = tgts;
    };
    const bool prefix = pushEndsEarly(loop, inDegreeOrder);
    // Whether `weights` is known not null (null: every edge weighs 1.0).
    bool weightsKnown = false;
    auto overEdges = [&](Value offsets, Value tgts, Value at) {
      auto bind = [&](Value e, Value dst) {
        if (!positionOf.empty())
          positionOf[dst] = dst;
        info.dst = dst;
        // A merge over `offsets` with the source's list knows it.
        if (offsets == mergeOffsets) {
          edgeSource = at;
          edgeDestination = dst;
          sourceList = edgeList;
        }
        state.functions[fn] = info;
        SmallVector<Value> binders{u, dst};
        if (weighted)
          binders.push_back(
              !weightsKnown ? edgeWeight(b, loc, weights, e)
              : weights     ? b.create<arith::ExtFOp>(
                               loc, b.getF64Type(),
                               loadElement(b, loc, b.getF32Type(), weights, e))
                              .getResult()
                        : b.create<arith::ConstantFloatOp>(loc, APFloat(1.0),
                                                           b.getF64Type())
                              .getResult());
        return binders;
      };
      if (!prefix) {
        Value e = edgeLoop(offsets, at);
        emitIteration(b, loc, loop, bind(e, loadElement(b, loc, i32, tgts, e)),
                      map);
        return;
      }
      Value at64 = b.create<arith::ExtUIOp>(loc, i64, at);
      Value lo = loadElement(b, loc, i64, offsets, at64);
      Value hi = loadElement(b, loc, i64, offsets,
                             b.create<arith::AddIOp>(loc, at64, one));
      edgeList = {lo, hi};
      auto loop2 = b.create<scf::WhileOp>(loc, TypeRange{i64}, ValueRange{lo});
      OpBuilder::InsertionGuard guard(b);
      Block *before = b.createBlock(&loop2.getBefore(), {}, {i64}, {loc});
      Value e = before->getArgument(0);
      auto inRange = b.create<scf::IfOp>(
          loc, TypeRange{b.getI1Type()},
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, e, hi), true);
      b.setInsertionPointToStart(inRange.thenBlock());
      b.create<scf::YieldOp>(
          loc, emitCondition(b, loop,
                             bind(e, loadElement(b, loc, i32, tgts, e)), map));
      b.setInsertionPointToStart(inRange.elseBlock());
      b.create<scf::YieldOp>(
          loc, ValueRange{b.create<arith::ConstantIntOp>(loc, 0, 1)});
      b.setInsertionPointAfter(inRange);
      b.create<scf::ConditionOp>(loc, inRange.getResult(0), e);
      Block *after = b.createBlock(&loop2.getAfter(), {}, {i64}, {loc});
      e = after->getArgument(0);
      inlineRegion(b, loop->getRegion(1),
                   bind(e, loadElement(b, loc, i32, tgts, e)), map);
      b.create<scf::YieldOp>(loc,
                             ValueRange{b.create<arith::AddIOp>(loc, e, one)});
    };
    if (overPositions) {
      // In the degree order, over the relabelled graph: u is the i-th
      // vertex of the order, its out-neighbours are positions, sorted.
      Value offsets, tgts;
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(forOp);
        offsets =
            callRuntime(b, loc, module, AlgoCall::OrderOffsets, {info.ctx});
        tgts = callRuntime(b, loc, module, AlgoCall::OrderTargets, {info.ctx});
      }
      Value position = b.create<arith::TruncIOp>(loc, i32, i);
      positionsCtx = info.ctx;
      positionOf[u] = position; // and each destination, its own
      mergeOver(offsets, tgts);
      overEdges(offsets, tgts, position);
      positionOf.clear();
    } else {
      // With ranks (a loop in the degree order whose destination is used
      // otherwise too) the runtime's common_neighbors_below applies them.
      if (!ranks)
        mergeOver(info.outOffsets, targets);
      if (weighted && !prefix && state.unswitchWeights) {
        // The weights' null test once per source, not per edge
        // (AlgoLowering::unswitchWeights): u's out-edges twice, with the
        // weights and with 1.0 (LLVM keeps the loop-invariant test on
        // every edge otherwise: three instructions of SSSP's relaxation).
        auto split = b.create<scf::IfOp>(loc, isNonNull(b, loc, weights),
                                         /*withElseRegion=*/true);
        weightsKnown = true;
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(split.thenBlock());
          overEdges(info.outOffsets, targets, u);
        }
        Value weightedDst = info.dst;
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(split.elseBlock());
        Value given = weights;
        weights = Value();
        overEdges(info.outOffsets, targets, u);
        weights = given;
        weightsKnown = false;
        // Both copies' destinations are the destination (frontier
        // inserts, plain updates where it is owned).
        info.otherDst = weightedDst;
        state.functions[fn] = info;
      } else {
        overEdges(info.outOffsets, targets, u);
      }
    }
    mergeOffsets = mergeTargets = Value();
    edgeSource = edgeDestination = Value();
    sourceList = {};
    hoisted.clear();
    ranks = Value();
    break;
  }
  case Variant::Pull: {
    Value v = b.create<arith::TruncIOp>(loc, i32, i);
    // The in-edge arrays once per call, not per destination (stores into
    // properties could alias the view for all LLVM knows).
    Value offsets, sources, weights;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forOp);
      offsets = viewField(b, loc, info.view, ViewField::InOffsets, ptr);
      sources = viewField(b, loc, info.view, ViewField::InSources, ptr);
      weights = viewField(b, loc, info.view, ViewField::InWeights, ptr);
    }
    // The loop reads a frontier only through its bitmap here (a pull
    // round always has one), so the membership test needs no null check.
    const bool hasFrom =
        isa<graph::EdgesOp>(loop) && cast<graph::EdgesOp>(loop).getFrom();
    info.owned = v;
    info.dst = v;
    state.functions[fn] = info;
    // The body at in-edge e under the membership test of its source; that
    // scf.if, when there is one, with b in its then block.
    auto atEdge = [&](Value e, TypeRange results) -> scf::IfOp {
      Value src = loadElement(b, loc, i32, sources, e);
      scf::IfOp inFrontier;
      if (hasFrom) {
        inFrontier = b.create<scf::IfOp>(
            loc, results, testBit(b, loc, bitmap, src), !results.empty());
        b.setInsertionPointToStart(inFrontier.thenBlock());
      }
      SmallVector<Value> binders{src, v};
      if (weighted)
        binders.push_back(edgeWeight(b, loc, weights, e));
      emitIteration(b, loc, loop, binders, map);
      return inFrontier;
    };
    // A `where` that reads only the destination (not the source, not the
    // weight) stops being true for the rest of v's in-edges once the body
    // has made it false (pull owns v: the loop sees its own writes), so the
    // in-edge loop ends there: GAPBS's early exit of a bottom-up step. The
    // condition is tested before the first in-edge and after each run of
    // the body, the only code of this iteration that can change it.
    if (lanes) {
      emitPullLanes(
          b, loc, loop, v, forOp, entry->getArgument(4),
          [&](Value e) { atEdge(e, {}); },
          [&]() { return edgeLoop(offsets, v); });
      // Lane 0, after it reduced the totals into v: the fused vertices
      // loop's iteration at v.
      if (fused)
        emitIteration(b, loc, fused, {v}, map);
      break;
    }
    if (!pullExitsEarly(loop)) {
      // Reductions at v into properties nothing else in the loop touches
      // combine in a slot per property, read before v's in-edges and
      // written after them (PullAccumulators.cpp).
      SmallVector<PullAccumulator> accumulators;
      for (graph::PropertyOp p : pullAccumulators(loop, props)) {
        Type type = p.getElementType();
        Value slot;
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(forOp);
          slot = b.create<LLVM::AllocaOp>(loc, ptr, type, constI64(b, loc, 1));
        }
        b.create<LLVM::StoreOp>(
            loc, b.create<graph::PropGetOp>(loc, type, p.getSymName(), v),
            slot);
        accumulators.push_back({p, slot});
      }
      Value e = edgeLoop(offsets, v);
      atEdge(e, {});
      if (accumulators.empty())
        break;
      Operation *inEdges = e.getParentBlock()->getParentOp();
      accumulateInSlots(inEdges, v, accumulators);
      b.setInsertionPointAfter(inEdges);
      for (PullAccumulator acc : accumulators)
        b.create<graph::PropSetOp>(
            loc, acc.property.getSymName(), v,
            b.create<LLVM::LoadOp>(loc, acc.property.getElementType(),
                                   acc.slot));
      break;
    }
    Block &cond = loop->getRegion(0).front();
    auto destinationWhere = [&]() -> Value {
      IRMapping test = map;
      test.map(cond.getArgument(0), v); // unused
      test.map(cond.getArgument(1), v);
      if (weighted)
        test.map(cond.getArgument(2),
                 b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(0.0)));
      for (Operation &op : cond.without_terminator())
        b.clone(op, test);
      return test.lookup(cond.getTerminator()->getOperand(0));
    };
    // A destination whose `where` is false reads no offsets (GAPBS's
    // `parent[u] < 0` test first). The in-edge loop ends at hi, or where an
    // update ended the `where`: the edge index jumps to hi then, so an
    // in-edge that does nothing (outside the frontier) goes straight to
    // the next (a flag carried for the `where` cost three instructions an
    // in-edge).
    auto wanted = b.create<scf::IfOp>(loc, destinationWhere(),
                                      /*withElseRegion=*/false);
    b.setInsertionPointToStart(wanted.thenBlock());
    Value v64 = b.create<arith::ExtUIOp>(loc, i64, v);
    Value lo = loadElement(b, loc, i64, offsets, v64);
    Value hi = loadElement(b, loc, i64, offsets,
                           b.create<arith::AddIOp>(loc, v64, one));
    auto loopOp = b.create<scf::WhileOp>(loc, TypeRange{i64}, ValueRange{lo});
    Block *before =
        b.createBlock(&loopOp.getBefore(), {}, TypeRange{i64}, {loc});
    Value inRange = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                            before->getArgument(0), hi);
    b.create<scf::ConditionOp>(loc, inRange, before->getArguments());
    Block *after = b.createBlock(&loopOp.getAfter(), {}, TypeRange{i64}, {loc});
    Value e = after->getArgument(0);
    Value next = b.create<arith::AddIOp>(loc, e, one);
    scf::IfOp inFrontier = atEdge(e, TypeRange{i64});
    Value following =
        b.create<arith::SelectOp>(loc, destinationWhere(), next, hi);
    if (inFrontier) {
      b.create<scf::YieldOp>(loc, following);
      b.setInsertionPointToStart(inFrontier.elseBlock());
      b.create<scf::YieldOp>(loc, next);
      following = inFrontier.getResult(0);
      b.setInsertionPointAfter(inFrontier);
    }
    b.create<scf::YieldOp>(loc, following);
    break;
  }
  case Variant::TiledPull:
    // i is a block of destinations, run tile by tile (TiledLoops.h).
    emitTiledPull(b, loc, slot(EnvSlot::Tiled, ptr), i, weighted,
                  [&](Value src, Value dst, Value w) {
                    info.owned = dst;
                    info.dst = dst;
                    state.functions[fn] = info;
                    SmallVector<Value> binders{src, dst};
                    if (weighted)
                      binders.push_back(w);
                    emitIteration(b, loc, loop, binders, map);
                  });
    break;
  case Variant::PushBins:
    // i is a source; its out-edges' values go to the bins.
    emitPushBins(b, loc, loop, i, info, fn, map, weighted);
    break;
  case Variant::BinsAccumulate:
    emitBinsAccumulate(b, loc, loop, i, info, fn);
    break;
  case Variant::Coo:
    llvm_unreachable("built above, without a loop over items");
  }
  if (fused && !lanes) {
    // The fused vertices loop at the destination, after its in-edges (and
    // after the sums in slots are stored): the same value owns both.
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    emitIteration(b, loc, fused, {info.owned}, map);
  }
  b.setInsertionPointToEnd(entry);
  if (info.outBits)
    flushDirectInserts(b, loc, info);
  b.create<LLVM::ReturnOp>(loc, ValueRange{});
  return fn;
}

LogicalResult sluice::conversion::outlineAlgorithm(graph::AlgorithmOp algo,
                                                   AlgoLowering &state,
                                                   bool remarks) {
  return Outliner(algo, state, remarks).run();
}
