//===- WalkOpLowering.cpp - one pattern set for the walk ops --------------===//
//
// One conversion pattern per kind of walk op: slot reads and writes, the
// step, and the queries a WalkTargetModel answers. Both lowerings apply
// them with applyPartialConversion (walk ops illegal, !walk.list to
// !llvm.ptr, scf ops carrying lists converted structurally).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/WalkOpLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

WalkTargetModel::~WalkTargetModel() = default;

static Value slotAddress(OpBuilder &b, Location loc, Value base,
                         int64_t index) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  return b.create<LLVM::GEPOp>(
      loc, ptr, b.getI64Type(), base,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)}, /*inbounds=*/true);
}

Value sluice::conversion::loadWalkSlot(OpBuilder &b, Location loc, Value base,
                                       int64_t index, Type type) {
  Value address = slotAddress(b, loc, base, index);
  if (type.isInteger(1)) {
    Value word = b.create<LLVM::LoadOp>(loc, b.getI64Type(), address);
    Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, word, zero);
  }
  return b.create<LLVM::LoadOp>(loc, type, address);
}

void sluice::conversion::storeWalkSlot(OpBuilder &b, Location loc, Value base,
                                       int64_t index, Value value) {
  Value address = slotAddress(b, loc, base, index);
  if (value.getType().isInteger(1))
    value = b.create<arith::ExtUIOp>(loc, b.getI64Type(), value);
  b.create<LLVM::StoreOp>(loc, value, address);
}

namespace {

/// The frame of the walk function around `op`: its first argument.
Value frameOf(Operation *op) {
  auto fn = op->getParentOfType<FunctionOpInterface>();
  return fn.getFunctionBody().front().getArgument(0);
}

/// A pattern with the target model at hand.
template <typename OpT>
struct WalkPattern : OpConversionPattern<OpT> {
  WalkPattern(const TypeConverter &converter, MLIRContext *ctx,
              const WalkTargetModel &model)
      : OpConversionPattern<OpT>(converter, ctx), model(model) {}
  const WalkTargetModel &model;
};

struct ParamLowering : WalkPattern<walk::ParamOp> {
  using WalkPattern::WalkPattern;
  LogicalResult
  matchAndRewrite(walk::ParamOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    Value base = model.slots(rewriter, op.getLoc(), frameOf(op),
                             SlotBlock::Params);
    rewriter.replaceOp(op, loadWalkSlot(rewriter, op.getLoc(), base,
                                        op.getIndex(), type));
    return success();
  }
};

struct StateGetLowering : WalkPattern<walk::StateGetOp> {
  using WalkPattern::WalkPattern;
  LogicalResult
  matchAndRewrite(walk::StateGetOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value base =
        model.slots(rewriter, op.getLoc(), frameOf(op), SlotBlock::State);
    rewriter.replaceOp(op, loadWalkSlot(rewriter, op.getLoc(), base,
                                        op.getIndex(), op.getType()));
    return success();
  }
};

struct StateSetLowering : WalkPattern<walk::StateSetOp> {
  using WalkPattern::WalkPattern;
  LogicalResult
  matchAndRewrite(walk::StateSetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value base =
        model.slots(rewriter, op.getLoc(), frameOf(op), SlotBlock::State);
    storeWalkSlot(rewriter, op.getLoc(), base, op.getIndex(),
                  adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

struct StepLowering : WalkPattern<walk::StepOp> {
  using WalkPattern::WalkPattern;
  LogicalResult
  matchAndRewrite(walk::StepOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, model.step(rewriter, op.getLoc(), frameOf(op)));
    return success();
  }
};

/// An op whose value is one query of the model.
template <typename OpT, WalkQuery Q>
struct QueryLowering : WalkPattern<OpT> {
  using WalkPattern<OpT>::WalkPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value v = this->model.query(rewriter, op.getLoc(), frameOf(op), Q,
                                adaptor.getOperands());
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct LabelMassLowering : WalkPattern<walk::LabelMassOp> {
  using WalkPattern::WalkPattern;
  LogicalResult
  matchAndRewrite(walk::LabelMassOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, model.labelMass(rewriter, op.getLoc(), frameOf(op),
                                           op, adaptor.getOperands()));
    return success();
  }
};

} // namespace

LogicalResult sluice::conversion::lowerWalkOps(Operation *root,
                                               const WalkTargetModel &model) {
  MLIRContext *ctx = root->getContext();
  TypeConverter converter;
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([ctx](walk::ListType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });

  ConversionTarget target(*ctx);
  target.addIllegalDialect<walk::WalkDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });

  RewritePatternSet patterns(ctx);
  patterns.add<ParamLowering, StateGetLowering, StateSetLowering, StepLowering,
               LabelMassLowering,
               QueryLowering<walk::RandomOp, WalkQuery::Random>,
               QueryLowering<walk::DegreeOp, WalkQuery::Degree>,
               QueryLowering<walk::HasEdgeOp, WalkQuery::HasEdge>,
               QueryLowering<walk::EdgeWeightOp, WalkQuery::EdgeWeight>,
               QueryLowering<walk::EdgeLabelOp, WalkQuery::EdgeLabel>,
               QueryLowering<walk::LabelOp, WalkQuery::Label>,
               QueryLowering<walk::NumVerticesOp, WalkQuery::NumVertices>,
               QueryLowering<walk::NumEdgesOp, WalkQuery::NumEdges>,
               QueryLowering<walk::VertexOfOp, WalkQuery::VertexOf>,
               QueryLowering<walk::WeightMaxOp, WalkQuery::WeightMax>,
               QueryLowering<walk::WeightMinOp, WalkQuery::WeightMin>,
               QueryLowering<walk::WeightSumOp, WalkQuery::WeightSum>,
               QueryLowering<walk::ListGetOp, WalkQuery::ListGet>,
               QueryLowering<walk::ListSizeOp, WalkQuery::ListSize>,
               QueryLowering<walk::IntDivOp, WalkQuery::IntDiv>,
               QueryLowering<walk::IntRemOp, WalkQuery::IntRem>>(converter,
                                                                 ctx, model);
  // A list carried through scf.if / scf.for keeps its new type.
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  return applyPartialConversion(root, target, std::move(patterns));
}
