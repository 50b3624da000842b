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
// The kernel's argument is a sluice_align_gpu_args_t (fields by offset:
// AlignGpuAbi.h). test/Unit/Align/AlignWarpEmulation.h is this code in
// C++, lanes in lock step, tested against the reference on the CPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/AlignToGPU/AlignGpuAbi.h"
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

namespace {

constexpr StringLiteral kModuleName = "sluice_aligns";

/// Builds one kernel: small helpers over an OpBuilder at `loc`.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), ptr(LLVM::LLVMPointerType::get(b.getContext())),
        i1(b.getI1Type()), i8(b.getI8Type()), i32(b.getI32Type()),
        i64(b.getI64Type()) {}

  Value c32(int64_t v) { return b.create<arith::ConstantIntOp>(loc, v, 32); }
  Value c64(int64_t v) { return b.create<arith::ConstantIntOp>(loc, v, 64); }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubIOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value max(Value x, Value y) { return b.create<arith::MaxSIOp>(loc, x, y); }
  Value min(Value x, Value y) { return b.create<arith::MinSIOp>(loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return b.create<arith::CmpIOp>(loc, p, x, y);
  }
  Value land(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }
  Value lor(Value x, Value y) { return b.create<arith::OrIOp>(loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return b.create<arith::SelectOp>(loc, c, x, y);
  }
  /// Element `index` of type `type` at `base`.
  Value at(Type type, Value base, Value index) {
    return b.create<LLVM::GEPOp>(loc, ptr, type, base,
                                 ArrayRef<LLVM::GEPArg>{index});
  }
  Value load(Type type, Value base, Value index) {
    return b.create<LLVM::LoadOp>(loc, type, at(type, base, index));
  }
  void store(Value value, Value base, Value index) {
    b.create<LLVM::StoreOp>(loc, value, at(value.getType(), base, index));
  }
  /// The field at byte `offset` of the kernel's argument.
  Value field(Value args, int64_t offset, Type type) {
    return b.create<LLVM::LoadOp>(loc, type, at(i8, args, c64(offset)));
  }
  Value shuffle(Value v, Value offset, gpu::ShuffleMode mode) {
    return b.create<gpu::ShuffleOp>(loc, v, offset, c32(32), mode)
        .getShuffleResult();
  }
  void syncWarp() { b.create<NVVM::SyncWarpOp>(loc, c32(-1)); }

  OpBuilder &b;
  Location loc;
  Type ptr, i1, i8, i32, i64;
};

/// What the anti-diagonal loop carries: the anti-diagonal, the seven rows
/// (H of r - 2, r - 1, r; E and F of r - 1, r), the result's seven fields,
/// and whether the alignment stopped.
enum Carried : unsigned {
  kR,
  kH2,
  kH1,
  kH0,
  kE1,
  kE0,
  kF1,
  kF0,
  kMaxScore,
  kMaxQuery,
  kMaxTarget,
  kQueryEndScore,
  kQueryEndTarget,
  kGlobal,
  kZdropped,
  kStop,
  kCarried
};

/// The scoring and the pair, uniform across the warp.
struct Pair {
  Value query, target, qlen, tlen;
  Value match, mismatch, gapOpen, gapExtend, band, zdrop, oe;
};

/// The cells of anti-diagonal r and what follows them; `s` is the loop
/// state at r. Returns the state at r + 1.
SmallVector<Value> buildAntiDiagonal(KernelBuilder &k, const Pair &p,
                                     Value lane, ArrayRef<Value> s) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value r = s[kR], one = k.c32(1), negInf = k.c32(abi::kNegInf);
  Value st =
      k.max(k.max(k.c32(0), k.add(k.sub(r, p.qlen), one)),
            b.create<arith::ShRSIOp>(loc, k.add(k.sub(r, p.band), one), one));
  Value en = k.min(k.min(k.sub(p.tlen, one), r),
                   b.create<arith::ShRSIOp>(loc, k.add(r, p.band), one));
  Value empty = k.cmp(P::sgt, st, en);
  SmallVector<Type> types;
  for (Value v : s)
    types.push_back(v.getType());
  auto ifEmpty = b.create<scf::IfOp>(loc, types, empty, /*withElse=*/true);
  {
    // No cell in the band: zdropped, stop (as ksw_extz2).
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifEmpty.thenBlock());
    SmallVector<Value> out(s);
    out[kZdropped] = one;
    out[kStop] = b.create<arith::ConstantIntOp>(loc, 1, 1);
    b.create<scf::YieldOp>(loc, out);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifEmpty.elseBlock());
  Value n = k.add(k.sub(en, st), one);
  // Lane l: cells k = l, l + 32, ...: its best, the smallest k among its
  // equals, and the H of its first cell.
  auto cells = b.create<scf::ForOp>(
      loc, lane, n, k.c32(32),
      ValueRange{k.c32(INT32_MIN), k.c32(INT32_MAX), negInf});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(cells.getBody());
    Value kk = cells.getInductionVar();
    Value best = cells.getRegionIterArg(0), bestK = cells.getRegionIterArg(1);
    Value first = cells.getRegionIterArg(2);
    Value i = k.add(st, kk), j = k.sub(r, i), i1 = k.add(i, one);
    Value tb = k.load(k.i8, p.target, i), qb = k.load(k.i8, p.query, j);
    Value same =
        k.land(k.cmp(P::eq, tb, qb),
               k.cmp(P::ult, tb, b.create<arith::ConstantIntOp>(loc, 4, 8)));
    Value score = k.select(same, p.match, k.sub(k.c32(0), p.mismatch));
    Value e = k.max(k.max(k.sub(k.load(k.i32, s[kH1], i1), p.oe),
                          k.sub(k.load(k.i32, s[kE1], i1), p.gapExtend)),
                    negInf);
    Value f = k.max(k.max(k.sub(k.load(k.i32, s[kH1], i), p.oe),
                          k.sub(k.load(k.i32, s[kF1], i), p.gapExtend)),
                    negInf);
    Value h = k.max(k.max(k.add(k.load(k.i32, s[kH2], i), score), e), f);
    k.store(h, s[kH0], i1);
    k.store(e, s[kE0], i1);
    k.store(f, s[kF0], i1);
    Value better = k.cmp(P::sgt, h, best);
    b.create<scf::YieldOp>(
        loc, ValueRange{k.select(better, h, best), k.select(better, kk, bestK),
                        k.select(k.cmp(P::eq, kk, lane), h, first)});
  }
  // The butterfly: every lane ends with the best and its smallest k.
  Value best = cells.getResult(0), bestK = cells.getResult(1);
  for (int mask = 16; mask >= 1; mask >>= 1) {
    Value otherBest = k.shuffle(best, k.c32(mask), gpu::ShuffleMode::XOR);
    Value otherK = k.shuffle(bestK, k.c32(mask), gpu::ShuffleMode::XOR);
    Value take = k.lor(
        k.cmp(P::sgt, otherBest, best),
        k.land(k.cmp(P::eq, otherBest, best), k.cmp(P::slt, otherK, bestK)));
    best = k.select(take, otherBest, best);
    bestK = k.select(take, otherK, bestK);
  }
  // Cell k = 0: lane 0's first (on the last anti-diagonal, the only one).
  Value corner = k.shuffle(cells.getResult(2), k.c32(0), gpu::ShuffleMode::IDX);
  Value bestI = k.add(st, bestK), bestJ = k.sub(r, bestI);
  SmallVector<Value> out(s);
  Value atQueryEnd = k.land(k.cmp(P::eq, st, k.add(k.sub(r, p.qlen), one)),
                            k.cmp(P::sgt, corner, s[kQueryEndScore]));
  out[kQueryEndScore] = k.select(atQueryEnd, corner, s[kQueryEndScore]);
  out[kQueryEndTarget] = k.select(atQueryEnd, st, s[kQueryEndTarget]);
  // ksw_apply_zdrop on the best cell.
  Value better = k.cmp(P::sgt, best, s[kMaxScore]);
  out[kMaxScore] = k.select(better, best, s[kMaxScore]);
  out[kMaxTarget] = k.select(better, bestI, s[kMaxTarget]);
  out[kMaxQuery] = k.select(better, bestJ, s[kMaxQuery]);
  Value di = k.sub(bestI, s[kMaxTarget]), dj = k.sub(bestJ, s[kMaxQuery]);
  Value drift = k.max(k.sub(di, dj), k.sub(dj, di));
  Value after = k.land(k.cmp(P::sge, bestI, s[kMaxTarget]),
                       k.cmp(P::sge, bestJ, s[kMaxQuery]));
  Value dropped = k.cmp(P::sgt, k.sub(s[kMaxScore], best),
                        k.add(p.zdrop, k.mul(drift, p.gapExtend)));
  Value drop = k.land(k.land(k.cmp(P::sle, best, s[kMaxScore]), after),
                      k.land(k.cmp(P::sge, p.zdrop, k.c32(0)), dropped));
  Value last = k.sub(k.add(p.qlen, p.tlen), k.c32(2));
  Value global = k.land(
      k.land(k.cmp(P::eq, r, last), k.cmp(P::eq, en, k.sub(p.tlen, one))),
      k.cmp(P::eq, drop, b.create<arith::ConstantIntOp>(loc, 0, 1)));
  out[kGlobal] = k.select(global, corner, s[kGlobal]);
  out[kZdropped] = k.select(drop, one, s[kZdropped]);
  out[kStop] = drop;
  // The edges the next two anti-diagonals read (lane 0), then the rows
  // are visible to the whole warp.
  auto lane0 = b.create<scf::IfOp>(loc, k.cmp(P::eq, lane, k.c32(0)),
                                   /*withElse=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(lane0.thenBlock());
    Value gap = k.sub(k.c32(0),
                      k.add(p.gapOpen, k.mul(p.gapExtend, k.add(r, k.c32(2)))));
    Value edge = k.select(k.cmp(P::sle, k.add(r, one), p.band), gap, negInf);
    k.store(k.select(k.cmp(P::eq, st, k.c32(0)), edge, negInf), s[kH0], st);
    k.store(negInf, s[kF0], st);
    Value beyond = k.add(en, k.c32(2));
    k.store(k.select(k.cmp(P::eq, en, r), edge, negInf), s[kH0], beyond);
    k.store(negInf, s[kE0], beyond);
  }
  k.syncWarp();
  out[kR] = k.add(r, one);
  out[kH2] = s[kH1];
  out[kH1] = s[kH0];
  out[kH0] = s[kH2];
  out[kE1] = s[kE0];
  out[kE0] = s[kE1];
  out[kF1] = s[kF0];
  out[kF0] = s[kF1];
  b.create<scf::YieldOp>(loc, out);
  return SmallVector<Value>(ifEmpty.getResults());
}

/// One pair's alignment (qlen, tlen > 0) with the warp's seven scratch
/// rows: the result's seven fields.
SmallVector<Value> buildAlignment(KernelBuilder &k, const Pair &p, Value lane,
                                  ArrayRef<Value> rows) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value negInf = k.c32(abi::kNegInf), zero = k.c32(0), one = k.c32(1);
  // Anti-diagonal -2 is the corner H(-1, -1) = 0; anti-diagonal -1 holds
  // H(-1, 0) and H(0, -1), one gap each, with no E or F (lane 0).
  auto lane0 =
      b.create<scf::IfOp>(loc, k.cmp(P::eq, lane, zero), /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(lane0.thenBlock());
    k.store(zero, rows[0], zero);
    Value open = k.sub(zero, p.oe);
    k.store(open, rows[1], zero);
    k.store(open, rows[1], one);
    k.store(negInf, rows[3], one);
    k.store(negInf, rows[5], zero);
  }
  k.syncWarp();
  // As ksw_reset_extz: the best score starts at 0 on no cell.
  SmallVector<Value> init = {
      zero,      rows[0],
      rows[1],   rows[2],
      rows[3],   rows[4],
      rows[5],   rows[6],
      zero,      k.c32(-1),
      k.c32(-1), negInf,
      k.c32(-1), negInf,
      zero,      b.create<arith::ConstantIntOp>(loc, 0, 1)};
  assert(init.size() == kCarried && "one initial value per carried value");
  SmallVector<Type> types;
  for (Value v : init)
    types.push_back(v.getType());
  SmallVector<Location> locs(init.size(), loc);
  Value last = k.sub(k.add(p.qlen, p.tlen), k.c32(2));
  auto loop = b.create<scf::WhileOp>(loc, types, init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
    Value go = k.land(k.cmp(P::sle, before->getArgument(kR), last),
                      k.cmp(P::eq, before->getArgument(kStop),
                            b.create<arith::ConstantIntOp>(loc, 0, 1)));
    b.create<scf::ConditionOp>(loc, go, before->getArguments());
    Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
    SmallVector<Value> state(after->getArguments());
    SmallVector<Value> next = buildAntiDiagonal(k, p, lane, state);
    b.create<scf::YieldOp>(loc, next);
  }
  return {loop.getResult(kMaxScore),       loop.getResult(kMaxQuery),
          loop.getResult(kMaxTarget),      loop.getResult(kQueryEndScore),
          loop.getResult(kQueryEndTarget), loop.getResult(kGlobal),
          loop.getResult(kZdropped)};
}

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
  auto toI64 = [&](Value index) {
    return b.create<arith::IndexCastUIOp>(loc, k.i64, index).getResult();
  };
  Value thread = toI64(b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x));
  Value block = toI64(b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x));
  Value dim = toI64(b.create<gpu::BlockDimOp>(loc, gpu::Dimension::x));
  Value warp = b.create<arith::DivUIOp>(loc, k.add(k.mul(block, dim), thread),
                                        k.c64(32));
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
      b.create<scf::YieldOp>(loc, buildAlignment(k, p, lane, rows));
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
    if (SymbolTable::lookupSymbolIn(module, kModuleName))
      return (void)(module.emitError("align-to-gpu: the symbol '")
                        << kModuleName << "' is taken",
                    signalPassFailure());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(module.getContext()));
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule = b.create<gpu::GPUModuleOp>(module.getLoc(), kModuleName);
    for (seq::AlignOp job : jobs) {
      buildKernel(gpuModule, job);
      job.erase();
    }
    if (failed(mlir::verify(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
