//===- AlignToGPU.cpp - align-to-gpu: align jobs as warp-per-pair kernels -===//
//
// The `align-to-gpu` pass (Passes.td). Every `seq.align @J` becomes
// `gpu.func @sluice_align_J(%args: !llvm.ptr) kernel` in
// `gpu.module @sluice_aligns`, built with the builders; it computes what
// the CPU wavefront kernel (runtime/src/align/WavefrontBody.inc) computes,
// one warp per pair:
//
//   warp = global thread / 32, lane = thread % 32; warps >= args.warps return
//   loop: p = shfl.idx(lane 0 ? atomic add(args.next, 1) : 0, 0)
//         p >= count: return
//         pair = order[p]; the warp's 7 scratch rows; lane 0 writes the
//         corner and anti-diagonal -1; bar.warp.sync
//         for r = 0 .. qlen + tlen - 2 (stopping at the Z-drop):
//           [st, en] = the band of anti-diagonal r (empty: zdropped, stop)
//           lane l: cells k = l, l + 32, ... < n (H, E, F from the rows of
//             r - 1 and r - 2), its best (strictly greater: smallest k)
//           butterfly (shfl.bfly 16, 8, 4, 2, 1): larger score, smaller k
//           k = 0's H (shfl.idx from lane 0): the query-end score and, on
//             the last anti-diagonal, the global score
//           the best and the Z-drop test (uniform across the warp)
//           lane 0 writes the two edges; bar.warp.sync; the rows rotate
//         lane 0 writes the result
//
// The anti-diagonal loop is AlignWavefront.cpp's (shared with
// align-to-llvm's CPU function). The kernel's argument is a
// sluice_align_gpu_args_t (fields by offset: AlignGpuAbi.h).
// test/Unit/Align/AlignWarpEmulation.h is this code in C++, lanes in lock step,
// tested against the reference on the CPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/AlignToGPU/AlignGpuAbi.h"
#include "compiler/Conversion/AlignToGPU/AlignWavefront.h"
#include "compiler/Conversion/Passes.h"

#include "dialects/Seq/IR/SeqOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"

namespace sluice::conversion {
#define GEN_PASS_DEF_ALIGNTOGPU
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
namespace abi = sluice::conversion::align_abi;
using sluice::conversion::align::buildAlignment;
using sluice::conversion::align::KernelBuilder;
using sluice::conversion::align::Pair;

namespace {

constexpr StringLiteral kModuleName = "sluice_aligns";

/// The kernel of `op` in `gpuModule`.
void buildKernel(gpu::GPUModuleOp gpuModule, seq::AlignOp op) {
  using P = arith::CmpIPredicate;
  MLIRContext *ctx = gpuModule.getContext();
  Location loc = op.getLoc();
  OpBuilder b = OpBuilder::atBlockTerminator(gpuModule.getBody());
  KernelBuilder k(b, loc);
  auto kernel =
      b.create<gpu::GPUFuncOp>(loc, ("sluice_align_" + op.getSymName()).str(),
                               FunctionType::get(ctx, {k.ptr}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel->setAttr(
      "sluice.align_kernel",
      b.getDictionaryAttr(
          {b.getNamedAttr("job", op.getSymNameAttr()),
           b.getNamedAttr("threads_per_pair", b.getI64IntegerAttr(32)),
           b.getNamedAttr("block", b.getI64IntegerAttr(abi::kBlock))}));
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value args = entry.getArgument(0);
  Value thread = k.threadIdX();
  Value warp =
      b.create<arith::DivUIOp>(loc, k.globalThreadIdX(thread), k.c64(32));
  Value lane = b.create<arith::TruncIOp>(
      loc, k.i32, b.create<arith::RemUIOp>(loc, thread, k.c64(32)));
  namespace a = abi;
  Value queries = k.field(args, a::kQueries, k.ptr);
  Value targets = k.field(args, a::kTargets, k.ptr);
  Value queryOffsets = k.field(args, a::kQueryOffsets, k.ptr);
  Value targetOffsets = k.field(args, a::kTargetOffsets, k.ptr);
  Value order = k.field(args, a::kOrder, k.ptr);
  Value next = k.field(args, a::kNext, k.ptr);
  Value scratch = k.field(args, a::kScratch, k.ptr);
  Value results = k.field(args, a::kResults, k.ptr);
  Value count = k.field(args, a::kCount, k.i64);
  Value rowLength = k.field(args, a::kRow, k.i64);
  Value warps = k.field(args, a::kWarps, k.i64);
  Pair p;
  p.match = k.field(args, a::kMatch, k.i32);
  p.mismatch = k.field(args, a::kMismatch, k.i32);
  p.gapOpen = k.field(args, a::kGapOpen, k.i32);
  p.gapExtend = k.field(args, a::kGapExtend, k.i32);
  p.band = k.field(args, a::kBand, k.i32);
  p.zdrop = k.field(args, a::kZdrop, k.i32);
  p.oe = k.add(p.gapOpen, p.gapExtend);
  // Warps past args.warps have no scratch: they return (whole warps).
  auto active =
      b.create<scf::IfOp>(loc, k.cmp(P::ult, warp, warps), /*withElse=*/false);
  b.setInsertionPointToStart(active.thenBlock());
  SmallVector<Value> rows;
  Value base = k.mul(warp, k.mul(rowLength, k.c64(a::kScratchRows)));
  for (int64_t i = 0; i < a::kScratchRows; ++i)
    rows.push_back(
        k.at(k.i32, scratch, k.add(base, k.mul(rowLength, k.c64(i)))));
  Value isLane0 = k.cmp(P::eq, lane, k.c32(0));
  // The work queue: lane 0 takes the next pair, the warp follows.
  auto pairs = b.create<scf::WhileOp>(loc, TypeRange{k.i64}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(&pairs.getBefore());
    auto take = b.create<scf::IfOp>(loc, TypeRange{k.i32}, isLane0,
                                    /*withElse=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(take.thenBlock());
      Value got = b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add, next,
                                              k.c32(1),
                                              LLVM::AtomicOrdering::monotonic);
      b.create<scf::YieldOp>(loc, got);
      b.setInsertionPointToStart(take.elseBlock());
      b.create<scf::YieldOp>(loc, k.c32(0));
    }
    Value taken = k.shuffle(take.getResult(0), k.c32(0), gpu::ShuffleMode::IDX);
    Value taken64 = b.create<arith::ExtUIOp>(loc, k.i64, taken);
    b.create<scf::ConditionOp>(loc, k.cmp(P::ult, taken64, count),
                               ValueRange{taken64});
    Block *body = b.createBlock(&pairs.getAfter(), {}, {k.i64}, {loc});
    Value pair = b.create<arith::ExtUIOp>(
        loc, k.i64, k.load(k.i32, order, body->getArgument(0)));
    Value pair1 = k.add(pair, k.c64(1));
    Value q0 = k.load(k.i64, queryOffsets, pair);
    Value t0 = k.load(k.i64, targetOffsets, pair);
    auto length = [&](Value offsets, Value start) {
      return b
          .create<arith::TruncIOp>(loc, k.i32,
                                   k.sub(k.load(k.i64, offsets, pair1), start))
          .getResult();
    };
    p.qlen = length(queryOffsets, q0);
    p.tlen = length(targetOffsets, t0);
    p.query = k.at(k.i8, queries, q0);
    p.target = k.at(k.i8, targets, t0);
    Value zero = k.c32(0), negInf = k.c32(a::kNegInf);
    SmallVector<Value> empty = {zero,      k.c32(-1), k.c32(-1), negInf,
                                k.c32(-1), negInf,    zero};
    SmallVector<Type> types(a::kResultFields, k.i32);
    auto aligned = b.create<scf::IfOp>(
        loc, types,
        k.land(k.cmp(P::sgt, p.qlen, zero), k.cmp(P::sgt, p.tlen, zero)),
        /*withElse=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(aligned.thenBlock());
      b.create<scf::YieldOp>(loc, buildAlignment(k, p, {32, lane}, rows));
      b.setInsertionPointToStart(aligned.elseBlock());
      b.create<scf::YieldOp>(loc, empty);
    }
    auto write = b.create<scf::IfOp>(loc, isLane0, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(write.thenBlock());
      Value first = k.mul(pair, k.c64(a::kResultFields));
      for (int64_t f = 0; f < a::kResultFields; ++f)
        k.store(aligned.getResult(f), results, k.add(first, k.c64(f)));
    }
    b.create<scf::YieldOp>(loc);
  }
  b.setInsertionPointToEnd(&entry);
  b.create<gpu::ReturnOp>(loc);
}

struct AlignToGPUPass
    : public sluice::conversion::impl::AlignToGPUBase<AlignToGPUPass> {
  using AlignToGPUBase::AlignToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<seq::AlignOp> jobs(module.getOps<seq::AlignOp>());
    if (jobs.empty())
      return;
    if (failed(conversion::checkKernelModuleName(module, kModuleName,
                                                 "align-to-gpu")))
      return signalPassFailure();
    auto gpuModule = conversion::createKernelModule(module, kModuleName);
    for (seq::AlignOp job : jobs) {
      buildKernel(gpuModule, job);
      job.erase();
    }
    if (failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
