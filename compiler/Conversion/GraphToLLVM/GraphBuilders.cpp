//===- GraphBuilders.cpp - LLVM-dialect helpers of graph-to-llvm ----------===//
#include "compiler/Conversion/GraphToLLVM/GraphBuilders.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

Value sluice::conversion::constI64(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIntOp>(loc, v, 64);
}

Value sluice::conversion::elementAddress(OpBuilder &b, Location loc,
                                         Type elemType, Value base,
                                         Value index) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  return b.create<LLVM::GEPOp>(loc, ptr, elemType, base,
                               ArrayRef<LLVM::GEPArg>{index});
}

Value sluice::conversion::loadElement(OpBuilder &b, Location loc, Type elemType,
                                      Value base, Value index) {
  return b.create<LLVM::LoadOp>(loc, elemType,
                                elementAddress(b, loc, elemType, base, index));
}

Value sluice::conversion::testBit(OpBuilder &b, Location loc, Value bitmap,
                                  Value v) {
  Type i64 = b.getI64Type();
  Value v64 = b.create<arith::ExtUIOp>(loc, i64, v);
  Value word =
      loadElement(b, loc, i64, bitmap,
                  b.create<arith::ShRUIOp>(loc, v64, constI64(b, loc, 6)));
  Value shift = b.create<arith::AndIOp>(loc, v64, constI64(b, loc, 63));
  Value shifted = b.create<arith::ShRUIOp>(loc, word, shift);
  Value bit = b.create<arith::AndIOp>(loc, shifted, constI64(b, loc, 1));
  Value zero = constI64(b, loc, 0);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, bit, zero);
}

Value sluice::conversion::isNonNull(OpBuilder &b, Location loc, Value p) {
  Value null = b.create<LLVM::ZeroOp>(loc, p.getType());
  return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, p, null);
}

Value sluice::conversion::edgeWeight(OpBuilder &b, Location loc, Value weights,
                                     Value e) {
  Type f64 = b.getF64Type();
  auto ifOp = b.create<scf::IfOp>(loc, TypeRange{f64},
                                  isNonNull(b, loc, weights), true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value w = loadElement(b, loc, b.getF32Type(), weights, e);
    b.create<scf::YieldOp>(loc,
                           ValueRange{b.create<arith::ExtFOp>(loc, f64, w)});
    b.setInsertionPointToStart(ifOp.elseBlock());
    b.create<scf::YieldOp>(loc, ValueRange{b.create<arith::ConstantFloatOp>(
                                    loc, APFloat(1.0), b.getF64Type())});
  }
  return ifOp.getResult(0);
}

bool sluice::conversion::propertyUpdate(mlir::Operation *op,
                                        mlir::Value &vertex,
                                        llvm::StringRef &name) {
  if (auto r = mlir::dyn_cast<graph::PropReduceOp>(op)) {
    vertex = r.getVertex();
    name = r.getProperty();
    return true;
  }
  if (auto w = mlir::dyn_cast<graph::PropSetOp>(op)) {
    vertex = w.getVertex();
    name = w.getProperty();
    return true;
  }
  if (auto c = mlir::dyn_cast<graph::CompareSwapOp>(op)) {
    vertex = c.getVertex();
    name = c.getProperty();
    return true;
  }
  return false;
}

void sluice::conversion::emitLayoutLaunch(
    OpBuilder &b, Location loc, ModuleOp module, Value ctx, StringRef symbol,
    StringRef name, StringRef begin, StringRef end, int64_t size, int64_t bytes,
    function_ref<void(Value)> with, function_ref<void()> without) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Type i64 = b.getI64Type();
  Value text;
  if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(symbol))
    text = b.create<LLVM::AddressOfOp>(loc, existing);
  else
    text = LLVM::createGlobalString(loc, b, symbol, name.str() + '\0',
                                    LLVM::Linkage::Internal);
  LLVM::LLVMFuncOp beginFn =
      LLVM::lookupOrCreateFn(module, begin, {ptr, ptr, i64, i64}, ptr);
  Value args[] = {ctx, text, constI64(b, loc, size), constI64(b, loc, bytes)};
  Value layout = b.create<LLVM::CallOp>(loc, beginFn, args).getResult();
  auto ifOp =
      b.create<scf::IfOp>(loc, isNonNull(b, loc, layout), /*withElse=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    with(layout);
    b.setInsertionPointToStart(ifOp.elseBlock());
    without();
  }
  LLVM::LLVMFuncOp endFn = LLVM::lookupOrCreateFn(
      module, end, {ptr, ptr}, LLVM::LLVMVoidType::get(b.getContext()));
  b.create<LLVM::CallOp>(loc, endFn, ValueRange{ctx, text});
}
