//===- OutlineLoops.cpp - graph-to-llvm: one loop and its variants -------===//
//
// The Outliner's (AlgorithmOutline.h) handling of one loop: the variants
// its #graph.schedule asks for, the runtime calls around them (frontiers,
// buckets, direction per round, tiles, vertex order, releasing a dead
// frontier); the remark that says what was chosen and why is
// LoopRemark.cpp's.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/BinnedPush.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/GraphToLLVM/TiledLoops.h"
#include "compiler/Conversion/WalkOpLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;
using namespace sluice::conversion::outline;

namespace {

/// Whether a fresh frontier (made by an op, not an alias of another value)
/// is `v`, read only by `user`.
bool freshFrontierOnlyFor(Value v, Operation *user) {
  Operation *def = v.getDefiningOp();
  return def &&
         isa<graph::FrontierOfOp, graph::FrontierAllOp, graph::EdgesOp>(def) &&
         v.hasOneUse() && *v.user_begin() == user;
}

/// Whether `f` is read only by `edges` and, before it in its block, by
/// graph.frontier.any (graph-uniform-source-reads' read of one of its
/// vertices): nothing reads it once `edges` has run.
bool readOnlyUpTo(Value f, graph::EdgesOp edges) {
  return llvm::all_of(f.getUsers(), [&](Operation *user) {
    return user == edges.getOperation() ||
           (isa<graph::FrontierAnyOp>(user) &&
            user->getBlock() == edges->getBlock() &&
            user->isBeforeInBlock(edges));
  });
}

/// Whether nothing reads the frontier `edges` reads once the loop's round
/// is done, so its buffers can go back to the context
/// (sluice_algo_frontier_release): it is an argument of the body of an
/// scf.while, read only by this loop (and graph.frontier.any before it),
/// forwarded by the condition from an
/// argument read only by graph.frontier.size, and each frontier that
/// argument can hold (the while's initial value, the body's yielded one)
/// is made fresh and read by nothing else.
bool releasesFrontier(graph::EdgesOp edges) {
  auto arg = dyn_cast_or_null<BlockArgument>(edges.getFrom());
  if (!arg || !readOnlyUpTo(arg, edges))
    return false;
  auto loop = dyn_cast<scf::WhileOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getOwner() != loop.getAfterBody())
    return false;
  scf::ConditionOp cond = loop.getConditionOp();
  auto before = dyn_cast<BlockArgument>(cond.getArgs()[arg.getArgNumber()]);
  if (!before || before.getOwner() != loop.getBeforeBody())
    return false;
  unsigned forwards = 0;
  for (OpOperand &use : before.getUses()) {
    if (use.getOwner() == cond)
      ++forwards;
    else if (!isa<graph::FrontierSizeOp>(use.getOwner()))
      return false;
  }
  unsigned k = before.getArgNumber();
  return forwards == 1 && freshFrontierOnlyFor(loop.getInits()[k], loop) &&
         freshFrontierOnlyFor(loop.getYieldOp().getResults()[k],
                              loop.getYieldOp());
}

/// Whether `size` (a graph.frontier.size) is only compared with zero
/// (`size > 0`, `size != 0`) by the condition of its while: a frontier
/// with fewer vertices but none exactly when the other has none keeps the
/// loop's rounds.
bool testedAgainstZero(Operation *size) {
  return llvm::all_of(size->getResult(0).getUsers(), [&](Operation *user) {
    auto cmp = dyn_cast<arith::CmpIOp>(user);
    if (!cmp || !llvm::all_of(cmp->getUsers(), [](Operation *u) {
          return isa<scf::ConditionOp>(u);
        }))
      return false;
    bool lhs = cmp.getLhs() == size->getResult(0);
    Value other = lhs ? cmp.getRhs() : cmp.getLhs();
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    return matchPattern(other, m_Zero()) &&
           (p == P::ne || p == (lhs ? P::sgt : P::slt) ||
            p == (lhs ? P::ugt : P::ult));
  });
}

/// Whether a buckets loop's rounds may be fused (GAPBS's bucket fusion,
/// sluice_algo_bucket_for): running a vertex again within its round, and
/// leaving the vertices it ran out of the result, must change nothing but
/// the work. So the queue is handed on (`consume`); the result is read
/// only by the next round and a test of its size against zero (it then
/// holds fewer vertices, the same ones while the test holds); and the
/// body only lowers `priority` with min= at the destination (a vertex's
/// runs differ only in what they lower, and the lowest is what stays).
/// Otherwise `why` says what stops it.
bool fusible(graph::EdgesOp edges, bool consume, StringRef priority,
             std::string &why) {
  if (!consume) {
    why = "its frontier is read again";
    return false;
  }
  auto loop = edges->getParentOfType<scf::WhileOp>();
  auto arg = dyn_cast<BlockArgument>(edges.getFrom());
  bool nextRoundOnly = loop && releasesFrontier(edges);
  if (nextRoundOnly) {
    unsigned k = arg.getArgNumber();
    auto before = cast<BlockArgument>(loop.getConditionOp().getArgs()[k]);
    nextRoundOnly = loop.getYieldOp().getResults()[k] == edges.getChanged();
    for (Operation *user : before.getUsers())
      if (isa<graph::FrontierSizeOp>(user) && !testedAgainstZero(user))
        nextRoundOnly = false;
  }
  if (!nextRoundOnly) {
    why = "its result is read by more than the next round and a test of "
          "its size against zero";
    return false;
  }
  Value dst = edges.getBody().getArgument(1);
  WalkResult writes = edges->walk([&](Operation *op) {
    if (op == edges.getOperation() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    if (auto r = dyn_cast<graph::PropReduceOp>(op))
      if (r.getKind() == graph::ReductionKind::Min &&
          r.getProperty() == priority && r.getVertex() == dst)
        return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    SmallVector<MemoryEffects::EffectInstance> list;
    if (effects)
      effects.getEffects(list);
    if (effects && llvm::all_of(list, [](auto &e) {
          return isa<MemoryEffects::Read>(e.getEffect());
        }))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (writes.wasInterrupted()) {
    why = ("its body does more than lower '" + priority +
           "' with min= at the destination")
              .str();
    return false;
  }
  return true;
}

} // namespace

LogicalResult Outliner::bucketPriority(graph::EdgesOp edges, StringRef what,
                                       graph::ScheduleAttr s,
                                       graph::PropertyOp &priority) {
  Location loc = edges.getLoc();
  auto prefix = [&] {
    return emitError(loc) << what << " of algorithm '" << algo.getSymName()
                          << "': frontier: buckets ";
  };
  if (!edges.getFrom())
    return prefix() << "needs a loop over the edges of a frontier "
                       "(`edges(...) from F`)";
  if (!edges.getChanged())
    return prefix() << "needs the loop's result frontier (`F = edges(...)`): "
                       "the vertices of the other buckets pass on to it";
  if (*s.getDirection() != graph::Direction::Push)
    return prefix() << "runs push, got direction "
                    << graph::stringifyDirection(*s.getDirection());
  StringRef name;
  WalkResult twice = edges.getBody().walk([&](graph::PropReduceOp r) {
    if (r.getKind() != graph::ReductionKind::Min)
      return WalkResult::advance();
    if (!name.empty() && name != r.getProperty()) {
      prefix() << "orders the frontier by the one property the loop "
                  "reduces into with min=, got two: '"
               << name << "' and '" << r.getProperty() << "'";
      return WalkResult::interrupt();
    }
    name = r.getProperty();
    return WalkResult::advance();
  });
  if (twice.wasInterrupted())
    return failure();
  if (name.empty())
    return prefix() << "orders the frontier by the property the loop "
                       "reduces into with min=, and the loop has no min=";
  // (The body is in the algorithm's function by now: props has them.)
  for (graph::PropertyOp p : props)
    if (p.getSymName() == name)
      priority = p;
  if (!priority)
    return prefix() << "reduces into '" << name
                    << "', which is no property of the algorithm";
  return success();
}

SmallVector<Variant>
sluice::conversion::outline::loopVariants(Operation *loop,
                                          graph::ScheduleAttr s) {
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  if (!edges)
    return {Variant::Vertices};
  switch (*s.getDirection()) {
  case graph::Direction::Push:
    // format: coo: a push over every vertex runs over its edges.
    if (s.getFormat() == graph::EdgeFormat::Coo && cooRefusal(loop, s).empty())
      return {Variant::Coo};
    return {Variant::Push};
  case graph::Direction::Pull:
    return {Variant::Pull};
  case graph::Direction::Hybrid:
    if (edges.getFrom())
      return {Variant::Push, Variant::Pull};
    return {Variant::Pull};
  }
  llvm_unreachable("unknown direction");
}

LogicalResult Outliner::lowerLoop(Operation *loop, int64_t index) {
  Location loc = loop->getLoc();
  auto label = loop->getAttrOfType<StringAttr>("label");
  auto schedule = loop->getAttrOfType<graph::ScheduleAttr>("schedule");
  std::string what = label ? "loop '" + label.getValue().str() + "'"
                           : "loop " + std::to_string(index);
  if (!schedule || !schedule.getParallel())
    return emitError(loc) << what << " of algorithm '" << algo.getSymName()
                          << "' has no schedule (graph-attach-schedule has "
                             "not run)";
  auto edges = dyn_cast<graph::EdgesOp>(loop);
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(loop->getRegions(), captured);
  for (Value v : captured)
    if (!v.getType().isIntOrFloat())
      return emitError(loc)
             << "not supported yet: " << what << " uses a value of type "
             << v.getType() << " from outside the loop";

  SmallVector<Variant> variants = loopVariants(loop, schedule);
  // frontier: buckets orders the frontier by the property the loop
  // reduces into with min= (delta-stepping).
  graph::PropertyOp priority;
  bool consume = false, fuse = false;
  std::string fusion;
  if (edges && schedule.getFrontier() == graph::FrontierKind::Buckets) {
    if (failed(bucketPriority(edges, what, schedule, priority)))
      return failure();
    consume = consumesFrontier(edges);
    std::string why;
    if (!schedule.fuses())
      why = "fusion: off (schedule)";
    else
      fuse = fusible(edges, consume, priority.getSymName(), why);
    fusion = fuse ? "; bucket fusion: within a round, a thread runs the "
                    "vertices it lowers into the round's bucket while it "
                    "holds fewer than " +
                        std::to_string(kFuseBelow) +
                        " of them (GAPBS's), as the loop only lowers '" +
                        priority.getSymName().str() +
                        "' with min= at the destination and its result "
                        "feeds only the next round"
                  : "; no bucket fusion: " + why;
    // GAPBS's local bins: only a queue handed on has buckets to file
    // into during the round.
    if (state.bucketBins)
      fusion += consume ? "; relaxed vertices go straight into the inserting "
                          "thread's bin of their bucket (GAPBS's local bins), "
                          "handed whole to the bucket queue at the round's end "
                          "(on graphs of at most 2^19 vertices; the runtime "
                          "keeps the bitmap and list on larger ones)"
                        : "; relaxed vertices go through the result's bitmap "
                          "and list, not per-thread bins of their buckets: its "
                          "frontier is read again (no bucket queue to file "
                          "into)";
  }
  graph::Parallel parallel = *schedule.getParallel();
  bool isParallel = parallel != graph::Parallel::Serial;
  // Atomics cover add, sub, min and max; a product at a vertex the
  // iteration does not own has none.
  for (Variant v : variants) {
    unsigned owned = ownedBinder(v);
    WalkResult bad = loop->getRegion(1).walk([&](graph::PropReduceOp r) {
      auto arg = dyn_cast<BlockArgument>(r.getVertex());
      bool ownedVertex = arg &&
                         arg.getOwner()->getParent() == &loop->getRegion(1) &&
                         arg.getArgNumber() == owned;
      if (isParallel && !ownedVertex &&
          r.getKind() == graph::ReductionKind::Mul) {
        r.emitError("not supported yet: a parallel '*=' into '")
            << r.getProperty() << "' at a vertex the iteration does not own "
            << "(" << variantName(v)
            << "); schedule the loop `parallel: serial` or as pull";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return failure();
  }
  // order: degree | auto: a push over every vertex (the ranks are the
  // push variant's; a frontier's rounds would each decide again).
  graph::VertexOrder order =
      edges ? schedule.getOrder().value_or(graph::VertexOrder::Natural)
            : graph::VertexOrder::Natural;
  if (order != graph::VertexOrder::Natural) {
    auto prefix = [&] {
      return emitError(loc)
             << what << " of algorithm '" << algo.getSymName()
             << "': order: " << graph::stringifyVertexOrder(order);
    };
    if (variants.size() != 1 || variants.front() != Variant::Push)
      return prefix() << " runs push, got direction "
                      << graph::stringifyDirection(*schedule.getDirection());
    if (edges.getFrom())
      return prefix() << " runs over every vertex, not over a frontier";
  }
  // `tile` tiles a pull loop's in-edges and bins a push loop's out-edges.
  const bool pushOnly =
      edges && variants.size() == 1 && variants.front() == Variant::Push;
  TilePlan tiling;
  BinPlan binning;
  if (pushOnly) {
    binning = planBinning(loop, schedule, props);
    tiling.remark = binning.remark;
  } else if (variants.front() != Variant::Coo) {
    tiling =
        planTiling(loop, schedule,
                   variants.size() == 1 && variants.front() == Variant::Pull,
                   pullExitsEarly(loop), props);
  }
  // A vertices loop right after a pull over every vertex may run inside
  // it (PullApplyFusion.cpp; in the GPU's kernels too).
  fusedApply = {};
  if (edges && variants.size() == 1 && variants.front() == Variant::Pull) {
    std::string why;
    fusedApply = pullApplyPartner(edges, schedule, why);
    if (fusedApply)
      getUsedValuesDefinedAbove(fusedApply->getRegions(), captured);
    auto nextLabel = [&](Operation *next) {
      auto l = next->getAttrOfType<StringAttr>("label");
      return l ? " '" + l.getValue().str() + "'" : std::string();
    };
    if (fusedApply) {
      fusion += "; the next vertices loop" + nextLabel(fusedApply) +
                " runs inside it, at each destination after its in-edges "
                "(it touches only its own vertex, and the pull reads what "
                "it writes only at the destination)";
      if (remarks)
        emitRemark(fusedApply.getLoc())
            << "loop" << nextLabel(fusedApply) << " of algorithm '"
            << algo.getSymName() << "' runs inside " << what
            << " (fused: one pass instead of two)";
    } else if (!why.empty()) {
      fusion += "; the next vertices loop" + nextLabel(edges->getNextNode()) +
                " runs on its own: " + why;
    }
  }
  if (remarks)
    emitRemark(loc) << what << " of algorithm '" << algo.getSymName() << "': "
                    << describe(loop, schedule, variants, tiling,
                                binning.binned)
                    << fusion;

  std::string base =
      algorithmFunctionName(algo.getSymName()) + "_" +
      (label ? label.getValue().str() : "loop" + std::to_string(index));
  // The names of the functions the loop may become.
  {
    SmallVector<std::string> names;
    for (Variant v : variants) {
      names.push_back(base + "_" + variantName(v).str());
      names.push_back(names.back() + "_lanes");
    }
    if (tiling.tiled)
      names.push_back(base + "_pull_tiled");
    if (binning.binned)
      names.append({base + "_push_bins", base + "_bins_accumulate"});
    if (order != graph::VertexOrder::Natural)
      names.push_back(base + "_push_degree");
    for (const std::string &name : names)
      if (failed(claimName(name, loc,
                           what + " of algorithm '" + algo.getSymName().str() +
                               "'",
                           "rename the loop's label or the algorithm")))
        return failure();
  }
  SmallVector<LLVM::LLVMFuncOp> fns;
  ordered = order != graph::VertexOrder::Natural;
  bucketBins = consume && state.bucketBins;
  // A loop in a degree order: its version in that order besides the one
  // in the graph's order (one push variant, checked above).
  LLVM::LLVMFuncOp degreeFn;
  for (Variant v : variants) {
    std::string name = base + "_" + variantName(v).str();
    if (ordered) {
      relabelled = true;
      degreeFn = buildVariant(loop, name + "_degree", v, captured.getArrayRef(),
                              isParallel);
      relabelled = false;
    }
    fns.push_back(
        buildVariant(loop, name, v, captured.getArrayRef(), isParallel));
    if (state.edgeLanes &&
        ((v == Variant::Push && pushSplitsAcrossLanes(loop)) ||
         (v == Variant::Pull && pullSplitsAcrossLanes(loop))))
      buildVariant(loop, name + "_lanes", v, captured.getArrayRef(), isParallel,
                   /*lanes=*/true);
  }
  ordered = false;
  bucketBins = false;
  LLVM::LLVMFuncOp tiledFn;
  if (tiling.tiled)
    tiledFn = buildVariant(loop, base + "_pull_tiled", Variant::TiledPull,
                           captured.getArrayRef(), isParallel);
  LLVM::LLVMFuncOp binsFn, accumulateFn;
  if (binning.binned) {
    binsFn = buildVariant(loop, base + "_push_bins", Variant::PushBins,
                          captured.getArrayRef(), isParallel);
    accumulateFn =
        buildVariant(loop, base + "_bins_accumulate", Variant::BinsAccumulate,
                     captured.getArrayRef(), isParallel);
  }

  // The launch, where the loop was.
  const FunctionInfo &info = state.functions[main];
  OpBuilder b(loop);
  Value env;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&main.getBody().front());
    Value slots = constI64(
        b, loc, static_cast<int64_t>(EnvSlot::FirstCaptured) + captured.size());
    env = b.create<LLVM::AllocaOp>(loc, ptr, b.getI64Type(), slots, 8);
  }
  auto store = [&](int64_t slot, Value v) {
    storeWalkSlot(b, loc, env, slot, v);
  };
  store(static_cast<int64_t>(EnvSlot::Props), mainProps);
  for (auto [k, v] : llvm::enumerate(captured))
    store(static_cast<int64_t>(EnvSlot::FirstCaptured) + k, v);
  Value null = b.create<LLVM::ZeroOp>(loc, ptr);
  bool buildsFrontier = edges && edges.getChanged();
  bool release = edges && releasesFrontier(edges);
  Value out = buildsFrontier ? callRuntime(b, loc, module,
                                           AlgoCall::FrontierNew, {info.ctx})
                             : null;
  store(static_cast<int64_t>(EnvSlot::Out), out);
  // A loop that reduces into locals runs over blocks of vertices, chunks
  // of whole blocks, with room for one partial per block and local (and
  // says so: a few blocks are still worth the threads).
  auto vertices = dyn_cast<graph::VerticesOp>(loop);
  bool reducing = vertices && !vertices.getInits().empty();
  Value kind = b.create<arith::ConstantIntOp>(
      loc, int64_t(parallel) | (reducing ? kBlocksFlag : 0), 32);
  Value chunk = constI64(b, loc, schedule.getChunk().value_or(0));
  Value blocks = constI64(b, loc, 0);
  Value partials = null;
  if (reducing) {
    Value n = info.numVertices;
    blocks = b.create<arith::DivUIOp>(
        loc,
        b.create<arith::AddIOp>(loc, n, constI64(b, loc, kReduceBlock - 1)),
        constI64(b, loc, kReduceBlock));
    partials = callRuntime(
        b, loc, module, AlgoCall::Partials,
        {info.ctx, b.create<arith::MulIOp>(
                       loc, blocks,
                       constI64(b, loc, int64_t(vertices.getInits().size())))});
    int64_t chunkBlocks =
        (schedule.getChunk().value_or(1) + kReduceBlock - 1) / kReduceBlock;
    chunk = constI64(b, loc, chunkBlocks);
  }
  store(static_cast<int64_t>(EnvSlot::Partials), partials);
  store(static_cast<int64_t>(EnvSlot::Blocks), blocks);
  // One round: the list and bitmap it reads, over `count` items.
  auto launch = [&](LLVM::LLVMFuncOp fn, Value list, Value bitmap,
                    Value count) {
    store(static_cast<int64_t>(EnvSlot::List), list);
    store(static_cast<int64_t>(EnvSlot::Bitmap), bitmap);
    Value address = b.create<LLVM::AddressOfOp>(loc, fn);
    callRuntime(b, loc, module, AlgoCall::ParallelFor,
                {info.ctx, count, kind, chunk, address, env});
  };
  Value n = info.numVertices;
  Value from =
      edges && edges.getFrom()
          ? b.create<UnrealizedConversionCastOp>(loc, ptr, edges.getFrom())
                .getResult(0)
          : Value();
  // A branch per round: `dense` runs thenFn, else elseFn. A hybrid loop
  // asks sluice_algo_frontier_pull_next (Beamer's alpha and beta, with
  // what the round that built `from` chose; the result frontier remembers
  // this round's choice), `frontier: auto` asks prefers_dense.
  auto perRound = [&](function_ref<void()> thenFn,
                      function_ref<void()> elseFn) {
    Value prefers;
    if (variants.size() == 2) {
      auto f64 = [&](double x) {
        return b.create<arith::ConstantFloatOp>(loc, APFloat(x),
                                                b.getF64Type());
      };
      prefers = callRuntime(
          b, loc, module, AlgoCall::PullNext,
          {from, out, f64(schedule.hybridAlpha()), f64(schedule.hybridBeta())});
    } else {
      prefers = callRuntime(b, loc, module, AlgoCall::PrefersDense, {from});
    }
    Value zero = b.create<arith::ConstantIntOp>(loc, 0, 32);
    Value dense =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, prefers, zero);
    auto ifOp = b.create<scf::IfOp>(loc, dense, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    thenFn();
    b.setInsertionPointToStart(ifOp.elseBlock());
    elseFn();
  };
  // (Calls in statements: their order in the IR does not depend on the
  // compiler's order of evaluating arguments.)
  auto pushSparse = [&](LLVM::LLVMFuncOp fn) {
    Value list = callRuntime(b, loc, module, AlgoCall::FrontierList, {from});
    Value size = callRuntime(b, loc, module, AlgoCall::FrontierSize, {from});
    launch(fn, list, null, size);
  };
  auto overBitmap = [&](LLVM::LLVMFuncOp fn) {
    launch(fn, null,
           callRuntime(b, loc, module, AlgoCall::FrontierBitmap, {from}), n);
  };
  if (reducing) {
    launch(fns.front(), null, null, blocks);
    // Each local: its value before the loop, then the partials in block
    // order.
    for (auto [k, init] : llvm::enumerate(vertices.getInits())) {
      Value base = elementAddress(
          b, loc, init.getType(), partials,
          b.create<arith::MulIOp>(loc, blocks, constI64(b, loc, k)));
      auto reduction =
          cast<graph::ReductionKindAttr>(vertices.getReductions()[k]);
      Value kindArg = b.create<arith::ConstantIntOp>(
          loc, int64_t(reduction.getValue()), 32);
      Value result = callRuntime(b, loc, module,
                                 init.getType().isF64() ? AlgoCall::ReduceF64
                                                        : AlgoCall::ReduceI64,
                                 {info.ctx, base, blocks, kindArg, init});
      vertices.getResult(k).replaceAllUsesWith(result);
    }
  } else if (tiledFn) {
    // Per run, the runtime's layout or none; destination blocks, few and
    // large, handed out one at a time.
    emitTiledLaunch(
        b, loc, module, info.ctx, base + "_tile_name",
        what + " of algorithm '" + algo.getSymName().str() + "'", tiling,
        [&](Value layout) {
          store(static_cast<int64_t>(EnvSlot::Tiled), layout);
          kind = b.create<arith::ConstantIntOp>(
              loc, tiledSchedule(parallel == graph::Parallel::Serial), 32);
          chunk = constI64(b, loc, 1);
          launch(tiledFn, null, null, tiledBlocks(b, loc, layout));
        },
        [&] {
          kind = b.create<arith::ConstantIntOp>(loc, int64_t(parallel), 32);
          chunk = constI64(b, loc, schedule.getChunk().value_or(0));
          launch(fns.back(), null, null, n);
        });
  } else if (binsFn) {
    // Per run, the runtime's bins or none: the sources under the loop's
    // schedule, then the bins, few and large, one at a time.
    emitBinnedLaunch(
        b, loc, module, info.ctx, base + "_bins_name",
        what + " of algorithm '" + algo.getSymName().str() + "'", binning,
        [&](Value bins) {
          store(static_cast<int64_t>(EnvSlot::Bins), bins);
          launch(binsFn, null, null, n);
          Value loopKind = kind, loopChunk = chunk;
          kind = b.create<arith::ConstantIntOp>(
              loc, tiledSchedule(parallel == graph::Parallel::Serial), 32);
          chunk = constI64(b, loc, 1);
          launch(accumulateFn, null, null,
                 binsField(b, loc, bins, BinsField::NumBins, b.getI64Type()));
          kind = loopKind;
          chunk = loopChunk;
        },
        [&] { launch(fns.back(), null, null, n); });
  } else if (variants.front() == Variant::Coo) {
    // Over the edges; dynamic(n) hands out as many edges as n sources
    // have on average (n * edges / vertices, at least 1).
    if (parallel == graph::Parallel::Dynamic) {
      Value oneV = constI64(b, loc, 1);
      Value perSource = b.create<arith::DivUIOp>(
          loc, b.create<arith::MulIOp>(loc, chunk, info.numEdges),
          b.create<arith::MaxUIOp>(loc, info.numVertices, oneV));
      chunk = b.create<arith::MaxUIOp>(loc, perSource, oneV);
    }
    launch(fns.front(), null, null, info.numEdges);
  } else if (!from && order != graph::VertexOrder::Natural) {
    // The runtime decides (auto) and builds the order on the first run;
    // the ranks, or null for the graph's order; the pass's version in the
    // degree order runs over the vertices in that order (a list: every
    // vertex, highest degree first), the other over every vertex.
    std::string symbol = base + "_order_name";
    std::string name = what + " of algorithm '" + algo.getSymName().str() + "'";
    Value text;
    if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(symbol))
      text = b.create<LLVM::AddressOfOp>(loc, existing);
    else
      text = LLVM::createGlobalString(loc, b, symbol, name + '\0',
                                      LLVM::Linkage::Internal);
    Value kindArg = b.create<arith::ConstantIntOp>(loc, int64_t(order), 32);
    Value ranks = callRuntime(b, loc, module, AlgoCall::OrderBegin,
                              {info.ctx, kindArg, text});
    store(static_cast<int64_t>(EnvSlot::Ranks), ranks);
    auto split =
        b.create<scf::IfOp>(loc, isNonNull(b, loc, ranks), /*withElse=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(split.thenBlock());
      Value list =
          callRuntime(b, loc, module, AlgoCall::OrderVertices, {info.ctx});
      launch(degreeFn, list, null, n);
      b.setInsertionPointToStart(split.elseBlock());
      launch(fns.back(), null, null, n);
    }
    callRuntime(b, loc, module, AlgoCall::OrderEnd, {info.ctx});
  } else if (!from) {
    launch(fns.back(), null, null, n);
  } else if (variants.size() == 2) {
    perRound([&] { overBitmap(fns[1]); }, [&] { pushSparse(fns[0]); });
  } else if (variants.front() == Variant::Pull) {
    overBitmap(fns[0]);
  } else {
    switch (*schedule.getFrontier()) {
    case graph::FrontierKind::Sparse:
      pushSparse(fns[0]);
      break;
    case graph::FrontierKind::Dense:
    case graph::FrontierKind::Bitmap:
      overBitmap(fns[0]);
      break;
    case graph::FrontierKind::Auto:
      perRound([&] { overBitmap(fns[0]); }, [&] { pushSparse(fns[0]); });
      break;
    case graph::FrontierKind::Buckets: {
      // This round: the frontier's lowest bucket; the rest go to `out`.
      bool isI64 = priority.getElementType().isInteger(64);
      Value type = b.create<arith::ConstantIntOp>(loc, isI64 ? 1 : 0, 32);
      Value delta = b.create<arith::ConstantFloatOp>(
          loc, APFloat(schedule.getDelta().getValueAsDouble()), b.getF64Type());
      Value flags = b.create<arith::ConstantIntOp>(
          loc, (consume ? kBucketConsume : 0) | (fuse ? kBucketFuse : 0), 32);
      Value current =
          callRuntime(b, loc, module, AlgoCall::FrontierBucket,
                      {from, info.bases.lookup(priority.getSymName()), type,
                       delta, out, flags});
      Value list =
          callRuntime(b, loc, module, AlgoCall::FrontierList, {current});
      if (!fuse) {
        Value size =
            callRuntime(b, loc, module, AlgoCall::FrontierSize, {current});
        launch(fns[0], list, null, size);
      } else {
        // A fused round runs the loop again over each thread's bin: a copy
        // of the environment with its list slot pointing there.
        store(static_cast<int64_t>(EnvSlot::List), list);
        store(static_cast<int64_t>(EnvSlot::Bitmap), null);
        Value address = b.create<LLVM::AddressOfOp>(loc, fns[0]);
        callRuntime(b, loc, module, AlgoCall::BucketFor,
                    {current, kind, chunk, address, env,
                     constI64(b, loc,
                              static_cast<int64_t>(EnvSlot::FirstCaptured) +
                                  int64_t(captured.size())),
                     constI64(b, loc, static_cast<int64_t>(EnvSlot::List))});
      }
      // The round's bucket is the compiler's own: nothing reads it again.
      callRuntime(b, loc, module, AlgoCall::FrontierRelease, {current});
      break;
    }
    }
  }
  // The round's frontier, once nothing reads it again, gives its buffers
  // back for the next round's.
  if (release)
    callRuntime(b, loc, module, AlgoCall::FrontierRelease, {from});
  if (buildsFrontier) {
    callRuntime(b, loc, module, AlgoCall::FrontierSeal, {out});
    loop->getResult(0).replaceAllUsesWith(
        b.create<UnrealizedConversionCastOp>(loc, loop->getResult(0).getType(),
                                             out)
            .getResult(0));
  }
  if (fusedApply) {
    fusedAway.insert(fusedApply);
    fusedApply->erase();
    fusedApply = {};
  }
  loop->erase();
  return success();
}
