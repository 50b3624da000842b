//===- GraphToGPU.cpp - graph-to-gpu: algorithms' loops as GPU kernels ----===//
//
// The `graph-to-gpu` pass (Passes.td). An algorithm's host code is what
// graph-to-llvm makes of it (the algorithm's function, its rounds and
// frontiers, the launches through sluice_algo_parallel_for); in addition
// every loop variant `sluice_algo_A_L_V(ctx, env, begin, end)` becomes a
// kernel of the same name in `gpu.module @sluice_algos`:
//
//   gpu.func @sluice_algo_A_L_V(%ctx, %env, %count: i64) kernel {
//     i = block_id.x * block_dim.x + thread_id.x
//     if i < count: llvm.call @sluice_algo_A_L_V_range(%ctx, %env, i, i + 1)
//   }
//
// where `_range` is a copy of the CPU variant: a thread per item of the
// pass (a vertex; an entry of the frontier's list, or a vertex tested
// against its bitmap; a block of vertices for a loop that reduces into
// locals; an edge for a `format: coo` push, CooEdges.cpp), its edges in a
// loop, atomics where the CPU code has them. A
// variant whose edges may be split among a warp's lanes (EdgeLanes.cpp: a
// push writing nothing at the source, a pull whose writes are all +=,
// min=, max= at the destination) also gets a twin kernel `K_lanes` with a
// warp per item: item i / 32, its edges lo + i % 32, lo + i % 32 + 32, ...
// (the `_lanes` copy graph-to-llvm builds with AlgoLowering::edgeLanes),
// so a high-degree vertex no longer holds one thread for its whole
// adjacency; a pull twin's partials combine by the warp combinations built
// here (sluice_algo_warp_*: shuffle butterflies). The runtime picks K or
// K_lanes per launch by the items' average degree. The
// runtime calls the copy makes get device versions here (built with the
// builders, no MLIR text): sluice_algo_view (the kernel's ctx is a
// sluice_algo_gpu_ctx_t, its view first), sluice_algo_frontier_insert
// (atomic or on the bitmap, atomic add on the list's count),
// sluice_algo_original_id and sluice_algo_common_neighbors(_below) (a
// merge of the two sorted out-lists). Graph ops whose CPU code is any
// other runtime call (has_edge, weight(u, v), labels, vertex_of, integer
// division) and `frontier: buckets` are located errors.
// Each kernel K has a global `K_info` (algo_gpu.h) that tells the runtime
// how many environment slots, locals and properties (and their sizes) a
// launch copies.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToGPU/AlgoGpuAbi.h"
#include "compiler/Conversion/GraphToLLVM/AlgorithmOutline.h"
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/KernelBuilder.h"
#include "compiler/Conversion/Passes.h"
#include "compiler/Conversion/WalkOpLowering.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace sluice::conversion {
#define GEN_PASS_DEF_GRAPHTOGPU
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

/// One kernel to build: a loop variant.
struct KernelPlan {
  std::string name;     ///< the kernel's: the CPU function's, `_lanes` added
  std::string function; ///< the CPU function the runtime binds it to
  std::string copied;   ///< the function whose copy the kernel runs
  Location loc;
  std::string algorithm, loop, variant, shape;
  int64_t envSlots = 0, locals = 0;
  /// `parallel: serial`: thread 0 runs the whole pass, in order (the CPU
  /// code has no atomics then).
  bool serial = false;
  /// Threads per item: 1, or a warp (kGpuLanes) whose lanes split an
  /// item's edges (the `_lanes` copy): a source's out-edges, or a
  /// destination's in-edges.
  int64_t threadsPerItem = 1;
  /// Per property: its bytes, and whether the loop reads and writes it.
  SmallVector<int64_t> props;
};

constexpr StringLiteral kModuleName = "sluice_algos";

/// The graph ops a kernel can hold: property accesses (compare_swap an
/// atom.cas), degree and the counts (loads), `id` (a table on the device),
/// common_neighbors (a merge on the device).
bool hasDeviceCode(Operation *op) {
  return isa<graph::PropGetOp, graph::PropSetOp, graph::PropReduceOp,
             graph::CompareSwapOp, graph::DegreeOp, graph::NumVerticesOp,
             graph::NumEdgesOp, graph::OriginalIdOp, graph::CommonNeighborsOp,
             graph::YieldOp>(op);
}

/// Each property's bytes, or'ed with whether `loop` reads it and writes
/// it (algo_gpu.h, SLUICE_ALGO_GPU_PROP_*): what a launch copies.
SmallVector<int64_t> propFlags(Operation *loop, ArrayRef<StringRef> names,
                               ArrayRef<int64_t> bytes) {
  llvm::StringSet<> read, written;
  loop->walk([&](Operation *op) {
    if (auto get = dyn_cast<graph::PropGetOp>(op))
      read.insert(get.getProperty());
    if (auto set = dyn_cast<graph::PropSetOp>(op))
      written.insert(set.getProperty());
    if (isa<graph::PropReduceOp, graph::CompareSwapOp>(op)) {
      read.insert(graph::updatedProperty(op));
      written.insert(graph::updatedProperty(op));
    }
  });
  SmallVector<int64_t> flags;
  for (auto [name, size] : llvm::zip(names, bytes))
    flags.push_back(
        size | (read.contains(name) ? SLUICE_ALGO_GPU_PROP_READ : 0) |
        (written.contains(name) ? SLUICE_ALGO_GPU_PROP_WRITTEN : 0));
  return flags;
}

/// The kernels of `algo` (its loops in graph-to-llvm's order and naming),
/// with a remark per loop when `remarks`; a located error at what has no
/// device code.
LogicalResult planKernels(graph::AlgorithmOp algo, bool remarks,
                          std::vector<KernelPlan> &plans) {
  SmallVector<int64_t> propBytes;
  SmallVector<StringRef> propNames;
  for (auto p : algo.getBody().front().getOps<graph::PropertyOp>()) {
    propBytes.push_back(
        storageType(p.getElementType()).getIntOrFloatBitWidth() / 8);
    propNames.push_back(p.getSymName());
  }
  if (propBytes.size() > static_cast<size_t>(kGpuInfoMaxProps))
    return algo.emitError("not supported yet with --target=gpu: ")
           << propBytes.size() << " properties in algorithm '"
           << algo.getSymName() << "' (at most " << kGpuInfoMaxProps << ")";
  SmallVector<Operation *> loops;
  algo->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<graph::VerticesOp, graph::EdgesOp>(op))
      loops.push_back(op);
  });
  bool ok = true;
  // Vertices loops that run inside the pull before them (graph-to-llvm
  // fuses them: PullApplyFusion.cpp): no kernel of their own.
  llvm::SmallPtrSet<Operation *, 4> fusedAway;
  for (auto [index, loop] : llvm::enumerate(loops)) {
    auto label = loop->getAttrOfType<StringAttr>("label");
    std::string what = label ? "loop '" + label.getValue().str() + "'"
                             : "loop " + std::to_string(index);
    what += " of algorithm '" + algo.getSymName().str() + "'";
    loop->walk([&](Operation *op) {
      if (op == loop || !isa<graph::GraphDialect>(op->getDialect()) ||
          hasDeviceCode(op))
        return;
      op->emitError("not supported yet with --target=gpu: '")
          << op->getName() << "' in " << what
          << " (the CPU code calls the runtime for it; compile with "
             "--target=cpu)";
      ok = false;
    });
    if (fusedAway.contains(loop))
      continue;
    auto schedule = loop->getAttrOfType<graph::ScheduleAttr>("schedule");
    if (!schedule || !schedule.getParallel()) {
      // graph-to-llvm's error, at the loop.
      loop->emitError() << what
                        << " has no schedule (graph-attach-schedule has not "
                           "run)";
      ok = false;
      continue;
    }
    auto edges = dyn_cast<graph::EdgesOp>(loop);
    if (edges && schedule.getFrontier() == graph::FrontierKind::Buckets) {
      loop->emitError("not supported yet with --target=gpu: frontier: "
                      "buckets in ")
          << what << " (delta-stepping's buckets are found on the host "
          << "only; schedule `frontier: sparse` or compile with "
             "--target=cpu)";
      ok = false;
      continue;
    }
    if (edges && schedule.getOrder() &&
        *schedule.getOrder() != graph::VertexOrder::Natural) {
      loop->emitError("not supported yet with --target=gpu: order: ")
          << graph::stringifyVertexOrder(*schedule.getOrder()) << " in " << what
          << " (the degree order is built on the host only; compile "
          << "with --target=cpu)";
      ok = false;
      continue;
    }
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(loop->getRegions(), captured);
    // graph-to-llvm's variants (a `coo` push: a thread per edge, the
    // variant over a range of one edge).
    SmallVector<StringRef> variants;
    for (outline::Variant v : outline::loopVariants(loop, schedule))
      variants.push_back(outline::variantName(v));
    // A pull with the next vertices loop fused: its kernels run that
    // loop's iteration at each destination too.
    Operation *fused = nullptr;
    std::string fusedNote;
    if (edges && variants.size() == 1 && variants.front() == "pull") {
      std::string why;
      if (graph::VerticesOp next =
              outline::pullApplyPartner(edges, schedule, why)) {
        fused = next;
        fusedAway.insert(fused);
        getUsedValuesDefinedAbove(fused->getRegions(), captured);
        fusedNote = "; the next vertices loop runs in these kernels, at "
                    "each destination after its in-edges (fused)";
      }
    }
    std::string cooNote;
    if (edges && schedule.getFormat() == graph::EdgeFormat::Coo &&
        variants.front() != "coo")
      cooNote =
          "; format coo not used (the CSR is): " + cooRefusal(loop, schedule);
    auto vertices = dyn_cast<graph::VerticesOp>(loop);
    int64_t locals = vertices ? vertices.getInits().size() : 0;
    std::string base =
        algorithmFunctionName(algo.getSymName()) + "_" +
        (label ? label.getValue().str() : "loop" + std::to_string(index));
    std::string remark;
    for (StringRef v : variants) {
      std::string why;
      bool split = v == "push"   ? pushSplitsAcrossLanes(loop)
                   : v == "pull" ? succeeded(pullLaneReductions(loop, why))
                                 : false;
      for (int64_t threads : {int64_t(1), kGpuLanes}) {
        if (threads > 1 && !split)
          continue;
        KernelPlan plan{base + "_" + v.str(), "", "", loop->getLoc()};
        plan.function = plan.copied = plan.name;
        if (threads > 1) {
          plan.name += "_lanes";
          plan.copied += "_lanes";
        }
        plan.algorithm = algo.getSymName().str();
        plan.loop =
            label ? label.getValue().str() : "loop" + std::to_string(index);
        plan.variant = v.str();
        plan.serial = *schedule.getParallel() == graph::Parallel::Serial;
        plan.threadsPerItem = threads;
        std::string frontierSource =
            edges && edges.getFrom() ? " (an entry of the frontier's list, or "
                                       "a vertex tested against its bitmap)"
                                     : "";
        if (plan.serial)
          plan.shape = "one thread for the whole pass (parallel: serial)";
        else if (locals)
          plan.shape = "a thread per block of " + std::to_string(kReduceBlock) +
                       " vertices (its partials combined on the host)";
        else if (v == "vertices")
          plan.shape = "a thread per vertex";
        else if (v == "coo")
          plan.shape = "a thread per edge (format coo), its source found by "
                       "a binary search of the out-offsets";
        else if (threads > 1 && v == "push")
          plan.shape = "a warp per source" + frontierSource +
                       ", its out-edges split among the warp's " +
                       std::to_string(kGpuLanes) + " lanes";
        else if (threads > 1)
          plan.shape = "a warp per destination, its in-edges split among the "
                       "warp's " +
                       std::to_string(kGpuLanes) +
                       " lanes, their partials combined by shuffles and "
                       "reduced into the destination by lane 0";
        else if (v == "push")
          plan.shape = "a thread per source" + frontierSource +
                       ", its out-edges in a loop";
        else
          plan.shape = "a thread per destination, its in-edges in a loop";
        plan.envSlots =
            static_cast<int64_t>(EnvSlot::FirstCaptured) + captured.size();
        plan.locals = locals;
        plan.props = propFlags(loop, propNames, propBytes);
        if (fused)
          for (auto [flags, more] :
               llvm::zip(plan.props, propFlags(fused, propNames, propBytes)))
            flags |= more;
        remark += (remark.empty() ? "" : "; ") + plan.name + ": " + plan.shape;
        plans.push_back(std::move(plan));
      }
      if (split)
        remark += " (the runtime runs the warp when the items' average "
                  "degree is at least the lanes threshold)";
      else if (v == "pull" && !plans.back().serial)
        remark += " (no warp per destination: " + why + ")";
    }
    if (remarks && ok)
      emitRemark(loop->getLoc())
          << what << " on the GPU: " << remark << cooNote << fusedNote << "; "
          << kGpuBlock
          << " threads a block; atomics where the CPU code has them; the "
             "host code runs the rounds";
  }
  return success(ok);
}

/// Builds the device versions of the runtime calls loop code makes.
class DeviceRuntime {
public:
  explicit DeviceRuntime(gpu::GPUModuleOp gpuModule)
      : gpuModule(gpuModule), ctx(gpuModule.getContext()),
        ptr(LLVM::LLVMPointerType::get(ctx)), i32(IntegerType::get(ctx, 32)),
        i64(IntegerType::get(ctx, 64)) {}

  void build() {
    buildView();
    buildFrontierInsert();
    buildOriginalId();
    buildCommonNeighbors("sluice_algo_common_neighbors", /*below=*/false);
    buildCommonNeighbors("sluice_algo_common_neighbors_below", /*below=*/true);
  }

  /// The warp combinations (warpCombineFunction) the device code calls,
  /// each built once.
  void buildWarpCombines() {
    llvm::StringSet<> called;
    gpuModule.walk([&](LLVM::CallOp call) {
      if (std::optional<StringRef> callee = call.getCallee())
        called.insert(*callee);
    });
    Type f32 = Float32Type::get(ctx), f64 = Float64Type::get(ctx);
    for (graph::ReductionKind kind :
         {graph::ReductionKind::Add, graph::ReductionKind::Min,
          graph::ReductionKind::Max})
      for (Type type : {f64, f32, i64, i32}) {
        std::string name = warpCombineFunction(kind, type);
        if (called.contains(name) && !gpuModule.lookupSymbol(name))
          buildWarpCombine(name, kind, type);
      }
  }

private:
  /// T (T x): the combination of the 32 lanes' x, in every lane: a
  /// butterfly of `gpu.shuffle xor` 16, 8, 4, 2, 1 (nvvm.shfl.sync bfly;
  /// a 64-bit value as its two 32-bit halves).
  void buildWarpCombine(StringRef name, graph::ReductionKind kind, Type type) {
    OpBuilder b(ctx);
    Location loc = gpuModule.getLoc();
    auto fn = function(b, name, type, {type});
    Value acc = fn.getArgument(0);
    auto i32Const = [&](int64_t v) {
      return b.create<arith::ConstantIntOp>(loc, v, 32).getResult();
    };
    Value width = i32Const(kGpuLanes);
    auto shuffle = [&](Value x, Value offset) {
      return b
          .create<gpu::ShuffleOp>(loc, x, offset, width, gpu::ShuffleMode::XOR)
          .getShuffleResult();
    };
    for (int64_t offset = kGpuLanes / 2; offset > 0; offset /= 2) {
      Value off = i32Const(offset), other;
      if (type.getIntOrFloatBitWidth() == 32) {
        other = shuffle(acc, off);
      } else {
        Value bits = type.isF64()
                         ? b.create<arith::BitcastOp>(loc, i64, acc).getResult()
                         : acc;
        Value c32 = constI64(b, 32);
        Value lo = b.create<arith::TruncIOp>(loc, i32, bits);
        Value hi = b.create<arith::TruncIOp>(
            loc, i32, b.create<arith::ShRUIOp>(loc, bits, c32));
        Value joined = b.create<arith::OrIOp>(
            loc, b.create<arith::ExtUIOp>(loc, i64, shuffle(lo, off)),
            b.create<arith::ShLIOp>(
                loc, b.create<arith::ExtUIOp>(loc, i64, shuffle(hi, off)),
                c32));
        other = type.isF64()
                    ? b.create<arith::BitcastOp>(loc, type, joined).getResult()
                    : joined;
      }
      acc = combineReduction(b, loc, kind, acc, other);
    }
    b.create<LLVM::ReturnOp>(loc, acc);
  }

  /// An llvm.func in the gpu.module, its builder at its entry.
  LLVM::LLVMFuncOp function(OpBuilder &b, StringRef name, Type result,
                            ArrayRef<Type> args) {
    b.setInsertionPoint(gpuModule.getBody()->getTerminator());
    auto fn = b.create<LLVM::LLVMFuncOp>(
        gpuModule.getLoc(), name, LLVM::LLVMFunctionType::get(result, args));
    Block *entry = fn.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    return fn;
  }
  Value constI64(OpBuilder &b, int64_t v) {
    return b.create<arith::ConstantIntOp>(gpuModule.getLoc(), v, 64);
  }

  /// const sluice_algo_view_t *(ctx): the view is the ctx's first field.
  void buildView() {
    OpBuilder b(ctx);
    auto fn = function(b, "sluice_algo_view", ptr, {ptr});
    b.create<LLVM::ReturnOp>(gpuModule.getLoc(), fn.getArgument(0));
  }

  /// i32 (f, u32 v): 1 when this call added v.
  void buildFrontierInsert() {
    OpBuilder b(ctx);
    Location loc = gpuModule.getLoc();
    auto fn = function(b, "sluice_algo_frontier_insert", i32, {ptr, i32});
    Value f = fn.getArgument(0);
    Value v64 = b.create<arith::ExtUIOp>(loc, i64, fn.getArgument(1));
    Value bits = loadWalkSlot(b, loc, f, kGpuFrontierBits, ptr);
    Value word = b.create<LLVM::GEPOp>(
        loc, ptr, i64, bits,
        ArrayRef<LLVM::GEPArg>{
            b.create<arith::ShRUIOp>(loc, v64, constI64(b, 6)).getResult()});
    Value bit = b.create<arith::ShLIOp>(
        loc, constI64(b, 1),
        b.create<arith::AndIOp>(loc, v64, constI64(b, 63)));
    Value old =
        b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::_or, word, bit,
                                    LLVM::AtomicOrdering::monotonic);
    Value fresh = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, b.create<arith::AndIOp>(loc, old, bit),
        constI64(b, 0));
    auto ifOp = b.create<scf::IfOp>(loc, fresh, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value count = loadWalkSlot(b, loc, f, kGpuFrontierCount, ptr);
      Value at = b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add, count,
                                             constI64(b, 1),
                                             LLVM::AtomicOrdering::monotonic);
      Value list = loadWalkSlot(b, loc, f, kGpuFrontierList, ptr);
      Value slot = b.create<LLVM::GEPOp>(loc, ptr, i32, list,
                                         ArrayRef<LLVM::GEPArg>{at});
      b.create<LLVM::StoreOp>(loc, fn.getArgument(1), slot);
    }
    b.create<LLVM::ReturnOp>(
        loc, b.create<arith::ExtUIOp>(loc, i32, fresh).getResult());
  }

  /// i64 (ctx, u32 v): the vertex's original id.
  void buildOriginalId() {
    OpBuilder b(ctx);
    Location loc = gpuModule.getLoc();
    auto fn = function(b, "sluice_algo_original_id", i64, {ptr, i32});
    Value ids =
        loadWalkSlot(b, loc, fn.getArgument(0), kGpuCtxOriginalIds, ptr);
    Value v64 = b.create<arith::ExtUIOp>(loc, i64, fn.getArgument(1));
    b.create<LLVM::ReturnOp>(loc, loadElement(b, loc, i64, ids, v64));
  }

  /// i64 (ctx, u32 u, u32 v): the pairs a merge of u's and v's sorted
  /// out-neighbours makes (each element pairs once, as the CPU's
  /// mergeCount pairs them), of values below min(u, v) for `below`.
  void buildCommonNeighbors(StringRef name, bool below) {
    OpBuilder b(ctx);
    Location loc = gpuModule.getLoc();
    auto fn = function(b, name, i64, {ptr, i32, i32});
    Value view = fn.getArgument(0); // the ctx's first field
    Value offsets = loadWalkSlot(
        b, loc, view, static_cast<int64_t>(ViewField::OutOffsets), ptr);
    Value targets = loadWalkSlot(
        b, loc, view, static_cast<int64_t>(ViewField::OutTargets), ptr);
    Value u = b.create<arith::ExtUIOp>(loc, i64, fn.getArgument(1));
    Value v = b.create<arith::ExtUIOp>(loc, i64, fn.getArgument(2));
    Value one = constI64(b, 1), zero = constI64(b, 0);
    Value uLo = loadElement(b, loc, i64, offsets, u);
    Value uHi =
        loadElement(b, loc, i64, offsets, b.create<arith::AddIOp>(loc, u, one));
    Value vLo = loadElement(b, loc, i64, offsets, v);
    Value vHi =
        loadElement(b, loc, i64, offsets, b.create<arith::AddIOp>(loc, v, one));
    // Every u32 is below 2^32.
    Value bound = below ? b.create<arith::MinUIOp>(loc, u, v).getResult()
                        : constI64(b, int64_t(1) << 32);
    SmallVector<Type> carried = {i64, i64, i64};        // i, j, count
    SmallVector<Type> seen = {i64, i64, i64, i64, i64}; // + a, b
    // The after region sees the pair just read too.
    auto loop = b.create<scf::WhileOp>(loc, seen, ValueRange{uLo, vLo, zero});
    {
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Location> locs(carried.size(), loc);
      Block *before = b.createBlock(&loop.getBefore(), {}, carried, locs);
      Value i = before->getArgument(0), j = before->getArgument(1);
      Value inRange = b.create<arith::AndIOp>(
          loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, i, uHi),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, j, vHi));
      auto pick = b.create<scf::IfOp>(loc, TypeRange{b.getI1Type(), i64, i64},
                                      inRange, /*withElse=*/true);
      b.setInsertionPointToStart(pick.thenBlock());
      Value x = b.create<arith::ExtUIOp>(loc, i64,
                                         loadElement(b, loc, i32, targets, i));
      Value y = b.create<arith::ExtUIOp>(loc, i64,
                                         loadElement(b, loc, i32, targets, j));
      Value under = b.create<arith::AndIOp>(
          loc,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x, bound),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, y, bound));
      b.create<scf::YieldOp>(loc, ValueRange{under, x, y});
      b.setInsertionPointToStart(pick.elseBlock());
      b.create<scf::YieldOp>(
          loc,
          ValueRange{b.create<arith::ConstantIntOp>(loc, 0, 1), zero, zero});
      b.setInsertionPointAfter(pick);
      b.create<scf::ConditionOp>(loc, pick.getResult(0),
                                 ValueRange{i, j, before->getArgument(2),
                                            pick.getResult(1),
                                            pick.getResult(2)});
      SmallVector<Location> seenLocs(seen.size(), loc);
      Block *after = b.createBlock(&loop.getAfter(), {}, seen, seenLocs);
      Value x2 = after->getArgument(3), y2 = after->getArgument(4);
      auto step = [&](arith::CmpIPredicate p, Value l, Value r) {
        return b.create<arith::ExtUIOp>(loc, i64,
                                        b.create<arith::CmpIOp>(loc, p, l, r));
      };
      b.create<scf::YieldOp>(
          loc,
          ValueRange{
              b.create<arith::AddIOp>(loc, after->getArgument(0),
                                      step(arith::CmpIPredicate::ule, x2, y2)),
              b.create<arith::AddIOp>(loc, after->getArgument(1),
                                      step(arith::CmpIPredicate::ule, y2, x2)),
              b.create<arith::AddIOp>(loc, after->getArgument(2),
                                      step(arith::CmpIPredicate::eq, x2, y2))});
    }
    b.create<LLVM::ReturnOp>(loc, loop.getResult(2));
  }

  gpu::GPUModuleOp gpuModule;
  MLIRContext *ctx;
  Type ptr, i32, i64;
};

/// The kernel `plan.name` around `range` (the copy of the CPU variant),
/// and its `_info` global.
void buildKernel(gpu::GPUModuleOp gpuModule, const KernelPlan &plan,
                 LLVM::LLVMFuncOp range) {
  MLIRContext *ctx = gpuModule.getContext();
  Location loc = plan.loc;
  Type ptr = LLVM::LLVMPointerType::get(ctx), i64 = IntegerType::get(ctx, 64);
  OpBuilder b = OpBuilder::atBlockTerminator(gpuModule.getBody());
  auto kernel = b.create<gpu::GPUFuncOp>(
      loc, plan.name, FunctionType::get(ctx, {ptr, ptr, i64}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  SmallVector<NamedAttribute> described = {
      b.getNamedAttr("host_function", b.getStringAttr(plan.function)),
      b.getNamedAttr("algorithm", b.getStringAttr(plan.algorithm)),
      b.getNamedAttr("loop", b.getStringAttr(plan.loop)),
      b.getNamedAttr("variant", b.getStringAttr(plan.variant)),
      b.getNamedAttr("shape", b.getStringAttr(plan.shape)),
      b.getNamedAttr("env_slots", b.getI64IntegerAttr(plan.envSlots)),
      b.getNamedAttr("locals", b.getI64IntegerAttr(plan.locals)),
      b.getNamedAttr("threads_per_item",
                     b.getI64IntegerAttr(plan.threadsPerItem))};
  kernel->setAttr("sluice.algo_kernel", b.getDictionaryAttr(described));
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value block = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
  Value dim = b.create<gpu::BlockDimOp>(loc, gpu::Dimension::x);
  Value thread = b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
  Value index = b.create<arith::AddIOp>(
      loc, b.create<arith::MulIOp>(loc, block, dim), thread);
  Value i = b.create<arith::IndexCastUIOp>(loc, i64, index);
  Value count = entry.getArgument(2);
  Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
  // A warp per item: item i / lanes, lane i % lanes.
  Value lane;
  if (plan.threadsPerItem > 1) {
    Value lanes = b.create<arith::ConstantIntOp>(loc, plan.threadsPerItem, 64);
    lane = b.create<arith::RemUIOp>(loc, i, lanes);
    i = b.create<arith::DivUIOp>(loc, i, lanes);
  }
  // A thread per item: [i, i + 1) when i < count; serial: thread 0 runs
  // [0, count).
  Value runs = b.create<arith::CmpIOp>(
      loc, plan.serial ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ult,
      i, plan.serial ? zero : count);
  auto ifOp = b.create<scf::IfOp>(loc, runs, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value begin = i, end = b.create<arith::AddIOp>(
                         loc, i, b.create<arith::ConstantIntOp>(loc, 1, 64));
    if (plan.serial)
      begin = zero, end = count;
    SmallVector<Value> args = {entry.getArgument(0), entry.getArgument(1),
                               begin, end};
    if (lane)
      args.append(
          {lane, b.create<arith::ConstantIntOp>(loc, plan.threadsPerItem, 64)});
    b.create<LLVM::CallOp>(loc, range, args);
  }
  b.create<gpu::ReturnOp>(loc);

  // K_info: {version, environment slots, locals, threads per item,
  // properties, bytes...}.
  SmallVector<int64_t> info = {kGpuInfoVersion, plan.envSlots, plan.locals,
                               plan.threadsPerItem,
                               static_cast<int64_t>(plan.props.size())};
  llvm::append_range(info, plan.props);
  b.setInsertionPoint(gpuModule.getBody()->getTerminator());
  auto type = LLVM::LLVMArrayType::get(i64, info.size());
  b.create<LLVM::GlobalOp>(
      loc, type, /*isConstant=*/true, LLVM::Linkage::External,
      plan.name + "_info",
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(info.size())}, i64),
          ArrayRef<int64_t>(info)),
      /*alignment=*/8, /*addrSpace=*/1);
}

struct GraphToGPUPass
    : public sluice::conversion::impl::GraphToGPUBase<GraphToGPUPass> {
  using GraphToGPUBase::GraphToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<graph::AlgorithmOp> algos(module.getOps<graph::AlgorithmOp>());
    if (algos.empty())
      return;
    // Everything checked (and remarked) before anything is built.
    std::vector<KernelPlan> plans;
    bool ok = true;
    for (graph::AlgorithmOp algo : algos)
      ok &= succeeded(planKernels(algo, remarks, plans));
    if (!ok)
      return signalPassFailure();
    if (failed(conversion::checkKernelModuleName(module, kModuleName,
                                                 "graph-to-gpu")))
      return signalPassFailure();

    // The host code: graph-to-llvm's (with the `_lanes` copies).
    AlgoLowering state;
    state.edgeLanes = true;
    for (graph::AlgorithmOp algo : algos)
      if (failed(outlineAlgorithm(algo, state, /*remarks=*/false)))
        return signalPassFailure();
    for (auto job : llvm::make_early_inc_range(module.getOps<graph::JobOp>()))
      job.erase();
    if (failed(lowerGraphOps(module, state)))
      return signalPassFailure();

    // The kernels, around copies of the loop functions.
    auto gpuModule = conversion::createKernelModule(module, kModuleName);
    DeviceRuntime(gpuModule).build();
    llvm::StringSet<> defined;
    for (const KernelPlan &plan : plans) {
      const std::string &copied = plan.copied;
      auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(copied);
      if (!fn)
        return (void)(emitError(plan.loc, "graph-to-gpu: graph-to-llvm made "
                                          "no function '")
                          << copied << "'",
                      signalPassFailure());
      OpBuilder gb = OpBuilder::atBlockTerminator(gpuModule.getBody());
      auto range = cast<LLVM::LLVMFuncOp>(gb.clone(*fn));
      range.setSymName(plan.name + "_range");
      buildKernel(gpuModule, plan, range);
    }
    DeviceRuntime(gpuModule).buildWarpCombines();
    for (auto fn : gpuModule.getOps<LLVM::LLVMFuncOp>())
      defined.insert(fn.getName());
    // Every call the device code makes has a definition here (the checks
    // above keep the others out; libdevice's are linked with the PTX).
    WalkResult calls = gpuModule.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || defined.contains(*callee) || callee->starts_with("__nv_"))
        return WalkResult::advance();
      call.emitError("graph-to-gpu: the device code calls '")
          << *callee << "', which has no device version";
      return WalkResult::interrupt();
    });
    if (calls.wasInterrupted() || failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
