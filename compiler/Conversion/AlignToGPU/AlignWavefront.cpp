//===- AlignWavefront.cpp - The alignment kernel's loops, built -----------===//
//
// The anti-diagonal loop of one pair (AlignWavefront.h), for a GPU warp
// (align-to-gpu) or one CPU thread (align-to-llvm):
//
//   corner and anti-diagonal -1 (lane 0); warp barrier
//   for r = 0 .. qlen + tlen - 2 (stopping at the Z-drop):
//     [st, en] = the band of anti-diagonal r (empty: zdropped, stop)
//     lane l: cells k = l, l + width, ... < n (H, E, F from the rows of
//       r - 1 and r - 2), its best (strictly greater: smallest k)
//     width 32: butterfly (shfl.bfly 16, 8, 4, 2, 1): larger score,
//       smaller k; k = 0's H by shfl.idx from lane 0
//     width 1: the first k whose H is the best; k = 0's H from the row
//     the query-end score, the best, the Z-drop test, the global score
//     lane 0 writes the two edges; warp barrier; the rows rotate
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/AlignToGPU/AlignWavefront.h"

#include "compiler/Conversion/AlignToGPU/AlignGpuAbi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sluice::conversion::align;
namespace abi = sluice::conversion::align_abi;

namespace {

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

/// Builds `body` for lane 0 only: under an scf.if on a warp, directly for
/// one lane.
template <typename Body>
void onLane0(KernelBuilder &k, const Lanes &lanes, Body body) {
  if (lanes.width == 1)
    return body();
  auto lane0 = k.b.create<scf::IfOp>(
      k.loc, k.cmp(arith::CmpIPredicate::eq, lanes.lane, k.c32(0)),
      /*withElse=*/false);
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(lane0.thenBlock());
  body();
}

/// Makes the rows written so far visible to the whole warp.
void syncLanes(KernelBuilder &k, const Lanes &lanes) {
  if (lanes.width > 1)
    k.b.create<NVVM::SyncWarpOp>(k.loc, k.c32(-1));
}

/// The best cell of the anti-diagonal whose cells' H are in `row` from
/// index st + 1 (n of them), over the lanes' results of the cell loop
/// (best, its k, the H of the lane's first cell): the best, its k (the
/// smallest among equals) and the H of cell 0.
std::tuple<Value, Value, Value> reduceBest(KernelBuilder &k, const Lanes &lanes,
                                           scf::ForOp cells, Value row,
                                           Value st) {
  using P = arith::CmpIPredicate;
  Value best = cells.getResult(0);
  if (lanes.width == 1) {
    // The first cell holding the maximum (there is one: n >= 1): the
    // smallest k whose H equals it, a min reduction over all n cells
    // rather than a search that stops at it, so that LLVM vectorises it
    // as it does the cell loop (no early exit).
    OpBuilder &b = k.b;
    Value base = k.add(st, k.c32(1)), none = k.c32(INT32_MAX);
    auto scan = b.create<scf::ForOp>(k.loc, k.c32(0), cells.getUpperBound(),
                                     k.c32(1), ValueRange{none});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(scan.getBody());
      Value kk = scan.getInductionVar();
      Value h = k.load(k.i32, row, k.add(base, kk));
      b.create<scf::YieldOp>(
          k.loc, ValueRange{k.min(scan.getRegionIterArg(0),
                                  k.select(k.cmp(P::eq, h, best), kk, none))});
    }
    return {best, scan.getResult(0), k.load(k.i32, row, base)};
  }
  // The butterfly: every lane ends with the best and its smallest k.
  Value bestK = cells.getResult(1);
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
  return {best, bestK, corner};
}

/// The cells of anti-diagonal r and what follows them; `s` is the loop
/// state at r. Returns the state at r + 1.
SmallVector<Value> buildAntiDiagonal(KernelBuilder &k, const Pair &p,
                                     const Lanes &lanes, ArrayRef<Value> s) {
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
  // Lane l: cells k = l, l + width, ...: its best, and on a warp the
  // smallest k among its equals and the H of its first cell (one lane
  // finds those in the row afterwards, so that its loop is a plain max).
  SmallVector<Value> init = {k.c32(INT32_MIN)};
  if (lanes.width > 1)
    init.append({k.c32(INT32_MAX), negInf});
  auto cells =
      b.create<scf::ForOp>(loc, lanes.lane, n, k.c32(lanes.width), init);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(cells.getBody());
    Value kk = cells.getInductionVar();
    Value best = cells.getRegionIterArg(0);
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
    if (lanes.width == 1) {
      b.create<scf::YieldOp>(loc, ValueRange{k.max(h, best)});
    } else {
      Value bestK = cells.getRegionIterArg(1);
      Value first = cells.getRegionIterArg(2);
      Value better = k.cmp(P::sgt, h, best);
      b.create<scf::YieldOp>(
          loc,
          ValueRange{k.select(better, h, best), k.select(better, kk, bestK),
                     k.select(k.cmp(P::eq, kk, lanes.lane), h, first)});
    }
  }
  auto [best, bestK, corner] = reduceBest(k, lanes, cells, s[kH0], st);
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
  onLane0(k, lanes, [&] {
    Value gap = k.sub(k.c32(0),
                      k.add(p.gapOpen, k.mul(p.gapExtend, k.add(r, k.c32(2)))));
    Value edge = k.select(k.cmp(P::sle, k.add(r, one), p.band), gap, negInf);
    k.store(k.select(k.cmp(P::eq, st, k.c32(0)), edge, negInf), s[kH0], st);
    k.store(negInf, s[kF0], st);
    Value beyond = k.add(en, k.c32(2));
    k.store(k.select(k.cmp(P::eq, en, r), edge, negInf), s[kH0], beyond);
    k.store(negInf, s[kE0], beyond);
  });
  syncLanes(k, lanes);
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

} // namespace

SmallVector<Value> sluice::conversion::align::buildAlignment(
    KernelBuilder &k, const Pair &p, const Lanes &lanes, ArrayRef<Value> rows) {
  using P = arith::CmpIPredicate;
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value negInf = k.c32(abi::kNegInf), zero = k.c32(0), one = k.c32(1);
  // Anti-diagonal -2 is the corner H(-1, -1) = 0; anti-diagonal -1 holds
  // H(-1, 0) and H(0, -1), one gap each, with no E or F (lane 0).
  onLane0(k, lanes, [&] {
    k.store(zero, rows[0], zero);
    Value open = k.sub(zero, p.oe);
    k.store(open, rows[1], zero);
    k.store(open, rows[1], one);
    k.store(negInf, rows[3], one);
    k.store(negInf, rows[5], zero);
  });
  syncLanes(k, lanes);
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
    SmallVector<Value> next = buildAntiDiagonal(k, p, lanes, state);
    b.create<scf::YieldOp>(loc, next);
  }
  return {loop.getResult(kMaxScore),       loop.getResult(kMaxQuery),
          loop.getResult(kMaxTarget),      loop.getResult(kQueryEndScore),
          loop.getResult(kQueryEndTarget), loop.getResult(kGlobal),
          loop.getResult(kZdropped)};
}
