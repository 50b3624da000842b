//===- GraphOpLowering.cpp - the graph ops in the algorithm's functions ---===//
//
// Step 2 of graph-to-llvm (GraphLowering.h): one conversion pattern per
// graph op that AlgorithmOutline leaves in the functions, applied with
// applyPartialConversion (the graph dialect illegal, !graph.frontier to
// !llvm.ptr, scf ops carrying frontiers converted structurally).
//
// Property accesses index the property's array (FunctionInfo::bases). In
// a parallel loop function an access at a vertex the iteration does not
// own is atomic (monotonic loads and stores, atomicrmw for reductions);
// at the owned vertex it is plain. In a loop that builds a frontier, a
// write or reduction at the destination that changes the value inserts
// the destination into it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

/// A pattern with the functions' FunctionInfo at hand.
template <typename OpT>
struct GraphPattern : OpConversionPattern<OpT> {
  GraphPattern(const TypeConverter &converter, MLIRContext *ctx,
               const AlgoLowering &state)
      : OpConversionPattern<OpT>(converter, ctx), state(state) {}

  const FunctionInfo *infoOf(Operation *op) const {
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto it = fn ? state.functions.find(fn) : state.functions.end();
    return it == state.functions.end() ? nullptr : &it->second;
  }
  ModuleOp moduleOf(Operation *op) const {
    return op->template getParentOfType<ModuleOp>();
  }
  const AlgoLowering &state;
};

/// The address of property `name` at vertex `v` (i32).
Value propertyAddress(OpBuilder &b, Location loc, const FunctionInfo &info,
                      StringRef name, Type elementType, Value v) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value index = b.create<arith::ExtUIOp>(loc, b.getI64Type(), v);
  return b.create<LLVM::GEPOp>(loc, ptr, storageType(elementType),
                               info.bases.lookup(name),
                               ArrayRef<LLVM::GEPArg>{index});
}

/// Whether an access to property `name` at `v` is shared with other
/// iterations.
bool isShared(const FunctionInfo &info, Value v, StringRef name) {
  return info.parallel && (v != info.owned || info.swapped.contains(name));
}

Value loadProperty(OpBuilder &b, Location loc, Value address, Type type,
                   bool atomic) {
  Type stored = storageType(type);
  unsigned align = stored.getIntOrFloatBitWidth() / 8;
  Value v = b.create<LLVM::LoadOp>(
      loc, stored, address, align, false, false, false,
      atomic ? LLVM::AtomicOrdering::monotonic
             : LLVM::AtomicOrdering::not_atomic);
  if (type.isInteger(1))
    v = b.create<arith::TruncIOp>(loc, type, v);
  return v;
}

void storeProperty(OpBuilder &b, Location loc, Value address, Value value,
                   bool atomic) {
  Type type = value.getType();
  if (type.isInteger(1))
    value = b.create<arith::ExtUIOp>(loc, storageType(type), value);
  unsigned align = storageType(type).getIntOrFloatBitWidth() / 8;
  b.create<LLVM::StoreOp>(loc, value, address, align, false, false,
                          atomic ? LLVM::AtomicOrdering::monotonic
                                 : LLVM::AtomicOrdering::not_atomic);
}

/// Adds `v` to the word `info`'s direct inserts collect, or'ing the word
/// collected so far into the bitmap first when `v` is in another one.
void insertDirect(OpBuilder &b, Location loc, const FunctionInfo &info,
                  Value v) {
  Type i64 = b.getI64Type();
  Value v64 = b.create<arith::ExtUIOp>(loc, i64, v);
  Value word = b.create<arith::ShRUIOp>(loc, v64, constI64(b, loc, 6));
  Value current = b.create<LLVM::LoadOp>(loc, i64, info.accWord);
  auto other = b.create<scf::IfOp>(
      loc,
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, word, current),
      /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(other.thenBlock());
    flushDirectInserts(b, loc, info);
    b.create<LLVM::StoreOp>(loc, word, info.accWord);
    b.create<LLVM::StoreOp>(loc, constI64(b, loc, 0), info.accBits);
  }
  Value bit = b.create<arith::ShLIOp>(
      loc, constI64(b, loc, 1),
      b.create<arith::AndIOp>(loc, v64, constI64(b, loc, 63)));
  Value bits = b.create<LLVM::LoadOp>(loc, i64, info.accBits);
  b.create<LLVM::StoreOp>(loc, b.create<arith::OrIOp>(loc, bits, bit),
                          info.accBits);
}

/// Inserts `v` into the loop's frontier when `changed`.
void markIfChanged(OpBuilder &b, Location loc, ModuleOp module,
                   const FunctionInfo &info, Value v, Value changed) {
  if (!info.out || !info.isDst(v))
    return;
  auto ifOp = b.create<scf::IfOp>(loc, changed, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  if (info.outBits && v == info.owned)
    insertDirect(b, loc, info, v);
  else if (info.bucketInserts)
    callRuntime(b, loc, module, AlgoCall::BucketInsert, {info.out, v});
  else
    callRuntime(b, loc, module, AlgoCall::FrontierInsert, {info.out, v});
}

Value differs(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x, y);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, y);
}

struct PropertyLowering : GraphPattern<graph::PropertyOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::PropertyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    // Every vertex gets the initial value (a serial loop: one store each).
    Location loc = op.getLoc();
    Value zero = rewriter.create<arith::ConstantIntOp>(loc, 0, 64);
    Value one = rewriter.create<arith::ConstantIntOp>(loc, 1, 64);
    auto forOp =
        rewriter.create<scf::ForOp>(loc, zero, info->numVertices, one);
    rewriter.setInsertionPointToStart(forOp.getBody());
    Value v = rewriter.create<arith::TruncIOp>(loc, rewriter.getI32Type(),
                                               forOp.getInductionVar());
    storeProperty(rewriter, loc,
                  propertyAddress(rewriter, loc, *info, op.getSymName(),
                                  op.getElementType(), v),
                  adaptor.getInit(), false);
    rewriter.eraseOp(op);
    return success();
  }
};

struct PropGetLowering : GraphPattern<graph::PropGetOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::PropGetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Value address = propertyAddress(rewriter, op.getLoc(), *info,
                                    op.getProperty(), op.getType(),
                                    adaptor.getVertex());
    rewriter.replaceOp(
        op,
        loadProperty(rewriter, op.getLoc(), address, op.getType(),
                     isShared(*info, adaptor.getVertex(), op.getProperty())));
    return success();
  }
};

struct PropSetLowering : GraphPattern<graph::PropSetOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::PropSetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    Value v = adaptor.getVertex();
    Value value = adaptor.getValue();
    bool shared = isShared(*info, v, op.getProperty());
    Value address = propertyAddress(rewriter, loc, *info, op.getProperty(),
                                    value.getType(), v);
    Value old;
    if (info->out && info->isDst(v))
      old = loadProperty(rewriter, loc, address, value.getType(), shared);
    storeProperty(rewriter, loc, address, value, shared);
    if (old)
      markIfChanged(rewriter, loc, moduleOf(op), *info, v,
                    differs(rewriter, loc, old, value));
    rewriter.eraseOp(op);
    return success();
  }
};

struct PropReduceLowering : GraphPattern<graph::PropReduceOp> {
  using GraphPattern::GraphPattern;

  static Value combine(OpBuilder &b, Location loc, graph::ReductionKind kind,
                       Value x, Value y) {
    return combineReduction(b, loc, kind, x, y);
  }

  /// The atomic of `kind` on values of `type` (f64, i64, or a vertex: an
  /// unsigned i32 ordered as the graph's vertices).
  static std::optional<LLVM::AtomicBinOp> atomicOp(graph::ReductionKind kind,
                                                   Type type) {
    bool f = isa<FloatType>(type);
    if (type.isInteger(32) && kind == graph::ReductionKind::Min)
      return LLVM::AtomicBinOp::umin;
    if (type.isInteger(32) && kind == graph::ReductionKind::Max)
      return LLVM::AtomicBinOp::umax;
    switch (kind) {
    case graph::ReductionKind::Add:
      return f ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
    case graph::ReductionKind::Sub:
      return f ? LLVM::AtomicBinOp::fsub : LLVM::AtomicBinOp::sub;
    case graph::ReductionKind::Min:
      return f ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
    case graph::ReductionKind::Max:
      return f ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
    case graph::ReductionKind::Mul:
      return std::nullopt;
    }
    llvm_unreachable("unknown reduction");
  }

  LogicalResult
  matchAndRewrite(graph::PropReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    Value v = adaptor.getVertex();
    Value value = adaptor.getValue();
    Value address = propertyAddress(rewriter, loc, *info, op.getProperty(),
                                    value.getType(), v);
    Value old;
    if (isShared(*info, v, op.getProperty())) {
      auto binOp = atomicOp(op.getKind(), value.getType());
      if (!binOp)
        return rewriter.notifyMatchFailure(op, "no atomic product");
      auto atomic = [&](OpBuilder &b) -> Value {
        return b.create<LLVM::AtomicRMWOp>(loc, *binOp, address, value,
                                           LLVM::AtomicOrdering::monotonic);
      };
      bool extremum = op.getKind() == graph::ReductionKind::Min ||
                      op.getKind() == graph::ReductionKind::Max;
      Value changed;
      if (extremum) {
        // A minimum or maximum changes nothing once the element is at
        // least as small (large): read first, and only then take the
        // cache line (a label hooked by many edges, a settled distance).
        // Whether the value wins is one float compare, unordered (a NaN
        // element is +inf to min=, as arith.minnumf has it; a NaN value
        // takes the atomic, which leaves the element as it is and says so),
        // and what the atomic changed is tested in its branch only: the
        // other changes nothing.
        Value seen = loadProperty(rewriter, loc, address, value.getType(),
                                  /*atomic=*/true);
        bool isMin = op.getKind() == graph::ReductionKind::Min;
        Value wins =
            isa<FloatType>(value.getType())
                ? rewriter
                      .create<arith::CmpFOp>(loc,
                                             isMin ? arith::CmpFPredicate::ULT
                                                   : arith::CmpFPredicate::UGT,
                                             value, seen)
                      .getResult()
                : differs(rewriter, loc, seen,
                          combine(rewriter, loc, op.getKind(), seen, value));
        Type i1 = rewriter.getI1Type();
        auto ifOp = rewriter.create<scf::IfOp>(
            loc, wins,
            [&](OpBuilder &b, Location) {
              Value prior = atomic(b);
              b.create<scf::YieldOp>(
                  loc, ValueRange{prior, differs(b, loc, prior,
                                                 combine(b, loc, op.getKind(),
                                                         prior, value))});
            },
            [&](OpBuilder &b, Location) {
              b.create<scf::YieldOp>(
                  loc,
                  ValueRange{seen, b.create<arith::ConstantIntOp>(loc, 0, i1)});
            });
        old = ifOp.getResult(0);
        changed = ifOp.getResult(1);
      } else {
        old = atomic(rewriter);
      }
      if (info->out && info->isDst(v))
        markIfChanged(rewriter, loc, moduleOf(op), *info, v,
                      changed ? changed
                              : differs(rewriter, loc, old,
                                        combine(rewriter, loc, op.getKind(),
                                                old, value)));
    } else {
      old = loadProperty(rewriter, loc, address, value.getType(), false);
      Value updated = combine(rewriter, loc, op.getKind(), old, value);
      storeProperty(rewriter, loc, address, updated, false);
      markIfChanged(rewriter, loc, moduleOf(op), *info, v,
                    differs(rewriter, loc, old, updated));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// graph.compare_swap: an llvm.cmpxchg where other iterations may touch the
/// element, else a load, a compare and a select stored back. acq_rel
/// (acquire when it fails), not seq_cst: a swap publishes what its
/// iteration wrote before, and one that fails and then follows the
/// element's new value sees at least what the winner saw; no program needs
/// one total order of swaps to different elements (a union-find link's
/// correctness rests on each element's atomicity alone: a stale read makes
/// a swap fail and the link retry, never link wrongly). GAPBS's
/// compare_and_swap (__sync_bool_compare_and_swap) is seq_cst; on x86 both
/// are one lock cmpxchg. LLVM 19's NVPTX backend emits either as a relaxed
/// atom.cas.
struct CompareSwapLowering : GraphPattern<graph::CompareSwapOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::CompareSwapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    Value v = adaptor.getVertex();
    Value expected = adaptor.getExpected(), desired = adaptor.getDesired();
    Type type = expected.getType();
    Value address =
        propertyAddress(rewriter, loc, *info, op.getProperty(), type, v);
    Value swapped;
    if (isShared(*info, v, op.getProperty())) {
      auto cmpxchg = rewriter.create<LLVM::AtomicCmpXchgOp>(
          loc, address, expected, desired, LLVM::AtomicOrdering::acq_rel,
          LLVM::AtomicOrdering::acquire);
      swapped = rewriter.create<LLVM::ExtractValueOp>(loc, cmpxchg.getRes(),
                                                      ArrayRef<int64_t>{1});
    } else {
      Value old = loadProperty(rewriter, loc, address, type, false);
      swapped = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                               old, expected);
      storeProperty(
          rewriter, loc, address,
          rewriter.create<arith::SelectOp>(loc, swapped, desired, old), false);
    }
    if (info->out && info->isDst(v))
      markIfChanged(
          rewriter, loc, moduleOf(op), *info, v,
          rewriter.create<arith::AndIOp>(
              loc, swapped, differs(rewriter, loc, expected, desired)));
    rewriter.replaceOp(op, swapped);
    return success();
  }
};

struct FrontierAllLowering : GraphPattern<graph::FrontierAllOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::FrontierAllOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    rewriter.replaceOp(op, callRuntime(rewriter, op.getLoc(), moduleOf(op),
                                       AlgoCall::FrontierAll, {info->ctx}));
    return success();
  }
};

struct FrontierOfLowering : GraphPattern<graph::FrontierOfOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::FrontierOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    ModuleOp module = moduleOf(op);
    Value f = callRuntime(rewriter, loc, module, AlgoCall::FrontierNew,
                          {info->ctx});
    for (Value v : adaptor.getVertices())
      callRuntime(rewriter, loc, module, AlgoCall::FrontierInsert, {f, v});
    callRuntime(rewriter, loc, module, AlgoCall::FrontierSeal, {f});
    rewriter.replaceOp(op, f);
    return success();
  }
};

/// An op of a frontier that is one runtime call on it (frontier.size,
/// frontier.any).
template <typename OpT, AlgoCall Call>
struct FrontierCallLowering : GraphPattern<OpT> {
  using GraphPattern<OpT>::GraphPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       callRuntime(rewriter, op.getLoc(), this->moduleOf(op),
                                   Call, {adaptor.getFrontier()}));
    return success();
  }
};

struct NumVerticesLowering : GraphPattern<graph::NumVerticesOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::NumVerticesOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    rewriter.replaceOp(op, info->numVertices);
    return success();
  }
};

struct NumEdgesLowering : GraphPattern<graph::NumEdgesOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::NumEdgesOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    rewriter.replaceOp(op, info->numEdges);
    return success();
  }
};

struct DegreeLowering : GraphPattern<graph::DegreeOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::DegreeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value v = rewriter.create<arith::ExtUIOp>(loc, i64, adaptor.getVertex());
    Value next = rewriter.create<arith::AddIOp>(
        loc, v, rewriter.create<arith::ConstantIntOp>(loc, 1, 64));
    auto at = [&](Value index) -> Value {
      Value address = rewriter.create<LLVM::GEPOp>(
          loc, ptr, i64, info->outOffsets, ArrayRef<LLVM::GEPArg>{index});
      return rewriter.create<LLVM::LoadOp>(loc, i64, address);
    };
    Value hi = at(next);
    Value lo = at(v);
    rewriter.replaceOpWithNewOp<arith::SubIOp>(op, hi, lo);
    return success();
  }
};

/// The fault site graph-to-llvm gave the op, as an i32 constant.
Value siteOf(ConversionPatternRewriter &rewriter, Operation *op) {
  auto site = op->getAttrOfType<IntegerAttr>(kFaultSiteAttrName);
  return rewriter.create<arith::ConstantIntOp>(op->getLoc(),
                                               site ? site.getInt() : -1, 32);
}

struct VertexOfLowering : GraphPattern<graph::VertexOfOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::VertexOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    rewriter.replaceOp(op, callRuntime(rewriter, op.getLoc(), moduleOf(op),
                                       AlgoCall::VertexOf,
                                       {info->ctx, adaptor.getId(),
                                        siteOf(rewriter, op)}));
    return success();
  }
};

/// a / b and a % b: by a constant other than 0 and -1 (nothing to fault,
/// no overflow) arith's division inline, else the runtime's, which faults
/// on a zero divisor and on -2^63 / -1 (a loop's `id(v) % 64` is then a
/// few instructions per vertex, not a call).
template <typename OpT, AlgoCall Call>
struct DivisionLowering : GraphPattern<OpT> {
  using GraphPattern<OpT>::GraphPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = this->infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    APInt divisor;
    if (matchPattern(adaptor.getRhs(), m_ConstantInt(&divisor)) &&
        !divisor.isZero() && !divisor.isAllOnes()) {
      if constexpr (Call == AlgoCall::IntRem)
        rewriter.replaceOpWithNewOp<arith::RemSIOp>(op, adaptor.getLhs(),
                                                    adaptor.getRhs());
      else
        rewriter.replaceOpWithNewOp<arith::DivSIOp>(op, adaptor.getLhs(),
                                                    adaptor.getRhs());
      return success();
    }
    rewriter.replaceOp(op, callRuntime(rewriter, op.getLoc(),
                                       this->moduleOf(op), Call,
                                       {info->ctx, adaptor.getLhs(),
                                        adaptor.getRhs(),
                                        siteOf(rewriter, op)}));
    return success();
  }
};

/// A graph query answered by the runtime: (ctx, operands...) -> result;
/// has_edge's i32 becomes the op's i1.
template <typename OpT, AlgoCall Call>
struct QueryLowering : GraphPattern<OpT> {
  using GraphPattern<OpT>::GraphPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = this->infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    SmallVector<Value> args{info->ctx};
    llvm::append_range(args, adaptor.getOperands());
    Value v = callRuntime(rewriter, op.getLoc(), this->moduleOf(op), Call,
                          args);
    if (op.getType().isInteger(1)) {
      Value zero = rewriter.create<arith::ConstantIntOp>(op.getLoc(), 0, 32);
      v = rewriter.create<arith::CmpIOp>(op.getLoc(), arith::CmpIPredicate::ne,
                                         v, zero);
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// `id(v)`. On the CPU (AlgoLowering::inlineIds) in the function's own
/// code: the context's sluice_algo_ids_t, read once at the function's
/// entry (Outliner::prologue, FunctionInfo::idTable), gives ids[v] when the
/// graph keeps a table of original ids, else base + v, and -1 for a vertex past
/// the graph's, as sluice_algo_original_id does (a call a vertex cost
/// Afforest's vote loop 14 instructions a vertex). Elsewhere (the GPU's device
/// copies, which have their own table) the runtime call.
struct OriginalIdLowering : GraphPattern<graph::OriginalIdOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::OriginalIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    Location loc = op.getLoc();
    if (!info->idTable) {
      rewriter.replaceOp(op, callRuntime(rewriter, loc, moduleOf(op),
                                         AlgoCall::OriginalId,
                                         {info->ctx, adaptor.getVertex()}));
      return success();
    }
    Type i64 = rewriter.getI64Type();
    Value table = info->idTable, base = info->idBase;
    // The iteration's own vertex and the destination binder are vertices
    // of the graph: no range test (the table's test is then the loop's
    // only one, and invariant).
    Value vertex = adaptor.getVertex();
    bool bound = vertex && (vertex == info->owned || info->isDst(vertex));
    Value v = rewriter.create<arith::ExtUIOp>(loc, i64, vertex);
    Value inRange;
    if (!bound)
      inRange = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                               v, info->numVertices);
    Value listed = isNonNull(rewriter, loc, table);
    if (!bound)
      listed = rewriter.create<arith::AndIOp>(loc, inRange, listed);
    auto ifOp = rewriter.create<scf::IfOp>(
        loc, listed,
        [&](OpBuilder &b, Location l) {
          b.create<scf::YieldOp>(l, loadElement(b, l, i64, table, v));
        },
        [&](OpBuilder &b, Location l) {
          Value offset = b.create<arith::AddIOp>(l, base, v);
          if (bound) {
            b.create<scf::YieldOp>(l, offset);
            return;
          }
          Value none = constI64(b, l, -1);
          b.create<scf::YieldOp>(
              l,
              b.create<arith::SelectOp>(l, inRange, offset, none).getResult());
        });
    rewriter.replaceOp(op, ifOp.getResult(0));
    return success();
  }
};

struct CommonNeighborsLowering : GraphPattern<graph::CommonNeighborsOp> {
  using GraphPattern::GraphPattern;
  LogicalResult
  matchAndRewrite(graph::CommonNeighborsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const FunctionInfo *info = infoOf(op);
    if (!info)
      return rewriter.notifyMatchFailure(op, "not in an algorithm function");
    rewriter.replaceOp(
        op, callRuntime(rewriter, op.getLoc(), moduleOf(op),
                        op.getBelow() ? AlgoCall::CommonNeighborsBelow
                                      : AlgoCall::CommonNeighbors,
                        {info->ctx, adaptor.getU(), adaptor.getV()}));
    return success();
  }
};

/// An scf.for over index (a `repeat`) as one over i64, iteration
/// arguments converted too (frontiers); scf's structural conversion leaves
/// the induction variable as it is.
struct IndexForLowering : OpConversionPattern<scf::ForOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(scf::ForOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getLowerBound().getType().isIndex())
      return rewriter.notifyMatchFailure(op, "not over index");
    auto loop = rewriter.create<scf::ForOp>(
        op.getLoc(), adaptor.getLowerBound(), adaptor.getUpperBound(),
        adaptor.getStep(), adaptor.getInitArgs(),
        // No terminator: the block is replaced by the old body.
        [](OpBuilder &, Location, Value, ValueRange) {});
    rewriter.eraseBlock(loop.getBody());
    rewriter.inlineRegionBefore(op.getRegion(), loop.getRegion(),
                                loop.getRegion().end());
    if (failed(rewriter.convertRegionTypes(&loop.getRegion(),
                                           *getTypeConverter())))
      return rewriter.notifyMatchFailure(op, "cannot convert the body");
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

} // namespace

Value sluice::conversion::combineReduction(OpBuilder &b, Location loc,
                                           graph::ReductionKind kind, Value x,
                                           Value y) {
  bool f = isa<FloatType>(x.getType());
  switch (kind) {
  case graph::ReductionKind::Add:
    return f ? Value(b.create<arith::AddFOp>(loc, x, y))
             : Value(b.create<arith::AddIOp>(loc, x, y));
  case graph::ReductionKind::Sub:
    return f ? Value(b.create<arith::SubFOp>(loc, x, y))
             : Value(b.create<arith::SubIOp>(loc, x, y));
  case graph::ReductionKind::Mul:
    return f ? Value(b.create<arith::MulFOp>(loc, x, y))
             : Value(b.create<arith::MulIOp>(loc, x, y));
  case graph::ReductionKind::Min:
    if (f)
      return b.create<arith::MinNumFOp>(loc, x, y);
    if (x.getType().isInteger(32)) // a vertex: unsigned, 0xFFFFFFFF none
      return b.create<arith::MinUIOp>(loc, x, y);
    return b.create<arith::MinSIOp>(loc, x, y);
  case graph::ReductionKind::Max:
    if (f)
      return b.create<arith::MaxNumFOp>(loc, x, y);
    if (x.getType().isInteger(32)) // a vertex: unsigned, 0xFFFFFFFF none
      return b.create<arith::MaxUIOp>(loc, x, y);
    return b.create<arith::MaxSIOp>(loc, x, y);
  }
  llvm_unreachable("unknown reduction");
}

Value sluice::conversion::reductionIdentity(OpBuilder &b, Location loc,
                                            graph::ReductionKind kind,
                                            Type type) {
  if (type.isInteger(32)) // a vertex: unsigned
    return b.create<arith::ConstantIntOp>(
        loc, kind == graph::ReductionKind::Min ? -1 : 0, 32);
  if (type.isInteger(64)) {
    int64_t v = kind == graph::ReductionKind::Min
                    ? std::numeric_limits<int64_t>::max()
                : kind == graph::ReductionKind::Max
                    ? std::numeric_limits<int64_t>::min()
                    : 0;
    return b.create<arith::ConstantIntOp>(loc, v, 64);
  }
  double inf = std::numeric_limits<double>::infinity();
  double v = kind == graph::ReductionKind::Min   ? inf
             : kind == graph::ReductionKind::Max ? -inf
                                                 : 0.0;
  auto f = cast<FloatType>(type);
  APFloat x(v);
  bool lost;
  x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return b.create<arith::ConstantFloatOp>(loc, x, f);
}

void sluice::conversion::flushDirectInserts(OpBuilder &b, Location loc,
                                            const FunctionInfo &info) {
  Type i64 = b.getI64Type();
  Value bits = b.create<LLVM::LoadOp>(loc, i64, info.accBits);
  auto any =
      b.create<scf::IfOp>(loc,
                          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                                  bits, constI64(b, loc, 0)),
                          /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(any.thenBlock());
  Value word = b.create<LLVM::LoadOp>(loc, i64, info.accWord);
  b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::_or,
                              elementAddress(b, loc, i64, info.outBits, word),
                              bits, LLVM::AtomicOrdering::monotonic);
}

LogicalResult sluice::conversion::lowerGraphOps(ModuleOp module,
                                                const AlgoLowering &state) {
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([ctx](graph::FrontierType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });
  // Loops over index (`repeat`) count in i64: the functions are llvm.func,
  // whose blocks no later conversion retypes.
  converter.addConversion(
      [ctx](IndexType) -> Type { return IntegerType::get(ctx, 64); });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return b.create<UnrealizedConversionCastOp>(loc, type, inputs).getResult(0);
  };
  converter.addSourceMaterialization(cast);
  converter.addTargetMaterialization(cast);
  converter.addArgumentMaterialization(cast);

  ConversionTarget target(*ctx);
  target.addIllegalDialect<graph::GraphDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

  RewritePatternSet patterns(ctx);
  patterns.add<
      PropertyLowering, PropGetLowering, PropSetLowering, PropReduceLowering,
      CompareSwapLowering, FrontierAllLowering, FrontierOfLowering,
      FrontierCallLowering<graph::FrontierSizeOp, AlgoCall::FrontierSize>,
      FrontierCallLowering<graph::FrontierAnyOp, AlgoCall::FrontierAny>,
      NumVerticesLowering, NumEdgesLowering, DegreeLowering, VertexOfLowering,
      CommonNeighborsLowering,
      DivisionLowering<graph::IntDivOp, AlgoCall::IntDiv>,
      DivisionLowering<graph::IntRemOp, AlgoCall::IntRem>,
      QueryLowering<graph::HasEdgeOp, AlgoCall::HasEdge>,
      QueryLowering<graph::EdgeWeightOp, AlgoCall::EdgeWeight>,
      QueryLowering<graph::EdgeLabelOp, AlgoCall::EdgeLabel>,
      QueryLowering<graph::LabelOp, AlgoCall::VertexLabel>, OriginalIdLowering>(
      converter, ctx, state);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  patterns.add<IndexForLowering>(converter, ctx, /*benefit=*/2);
  target.addDynamicallyLegalOp<scf::ForOp>([&](scf::ForOp op) {
    return !op.getLowerBound().getType().isIndex() &&
           converter.isLegal(op->getResultTypes());
  });
  return applyPartialConversion(module, target, std::move(patterns));
}
