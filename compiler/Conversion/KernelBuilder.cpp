//===- KernelBuilder.cpp - Small builders of device and CPU kernels -------===//
//
// See KernelBuilder.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace sluice::conversion;

KernelBuilder::KernelBuilder(OpBuilder &b, Location loc)
    : b(b), loc(loc), ptr(LLVM::LLVMPointerType::get(b.getContext())),
      i1(b.getI1Type()), i8(b.getI8Type()), i32(b.getI32Type()),
      i64(b.getI64Type()), f32(b.getF32Type()) {}

Value KernelBuilder::c32(int64_t v) {
  return b.create<arith::ConstantIntOp>(loc, v, 32);
}
Value KernelBuilder::c64(int64_t v) {
  return b.create<arith::ConstantIntOp>(loc, v, 64);
}
Value KernelBuilder::add(Value x, Value y) {
  return b.create<arith::AddIOp>(loc, x, y);
}
Value KernelBuilder::sub(Value x, Value y) {
  return b.create<arith::SubIOp>(loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return b.create<arith::MulIOp>(loc, x, y);
}
Value KernelBuilder::max(Value x, Value y) {
  return b.create<arith::MaxSIOp>(loc, x, y);
}
Value KernelBuilder::min(Value x, Value y) {
  return b.create<arith::MinSIOp>(loc, x, y);
}
Value KernelBuilder::cmp(arith::CmpIPredicate p, Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, p, x, y);
}
Value KernelBuilder::land(Value x, Value y) {
  return b.create<arith::AndIOp>(loc, x, y);
}
Value KernelBuilder::lor(Value x, Value y) {
  return b.create<arith::OrIOp>(loc, x, y);
}
Value KernelBuilder::select(Value c, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, c, x, y);
}
Value KernelBuilder::at(Type type, Value base, Value index) {
  return b.create<LLVM::GEPOp>(loc, ptr, type, base,
                               ArrayRef<LLVM::GEPArg>{index});
}
Value KernelBuilder::load(Type type, Value base, Value index) {
  return b.create<LLVM::LoadOp>(loc, type, at(type, base, index));
}
void KernelBuilder::store(Value value, Value base, Value index) {
  b.create<LLVM::StoreOp>(loc, value, at(value.getType(), base, index));
}
Value KernelBuilder::field(Value args, int64_t offset, Type type) {
  return b.create<LLVM::LoadOp>(loc, type, at(i8, args, c64(offset)));
}
Value KernelBuilder::shuffle(Value v, Value offset, gpu::ShuffleMode mode) {
  return b.create<gpu::ShuffleOp>(loc, v, offset, c32(32), mode)
      .getShuffleResult();
}
Value KernelBuilder::threadIdX() {
  return b.create<arith::IndexCastUIOp>(
      loc, i64, b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x));
}
Value KernelBuilder::globalThreadIdX(Value thread) {
  Value block = b.create<arith::IndexCastUIOp>(
      loc, i64, b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x));
  Value dim = b.create<arith::IndexCastUIOp>(
      loc, i64, b.create<gpu::BlockDimOp>(loc, gpu::Dimension::x));
  return add(mul(block, dim), thread);
}

gpu::GPUModuleOp sluice::conversion::createKernelModule(ModuleOp module,
                                                        StringRef name) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return b.create<gpu::GPUModuleOp>(module.getLoc(), name);
}

LogicalResult sluice::conversion::checkKernelModuleName(ModuleOp module,
                                                        StringRef name,
                                                        StringRef pass) {
  if (!SymbolTable::lookupSymbolIn(module, name))
    return success();
  return module.emitError() << pass << ": the symbol '" << name << "' is taken";
}
