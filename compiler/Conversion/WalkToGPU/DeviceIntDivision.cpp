//===- DeviceIntDivision.cpp - Faulting integer division on the GPU -------===//
//
// See DeviceIntDivision.h. Branch-free except for the fault call: the
// divisor is replaced by 1 where the division would trap, and the result by
// 0 where it faulted; a % 1 is already 0, which is also -2^63 % -1.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/WalkToGPU/DeviceIntDivision.h"

#include "sluice/walk.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <limits>

using namespace mlir;

namespace {

/// One of the two functions; `remainder` picks a % b over a / b.
void buildDivision(OpBuilder &b, Location loc, bool remainder) {
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fn = b.create<func::FuncOp>(
      loc, remainder ? "sluice_irem" : "sluice_idiv",
      b.getFunctionType({ptr, i64, i64}, {i64}));
  fn.setPrivate();
  OpBuilder::InsertionGuard guard(b);
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value frame = entry->getArgument(0), x = entry->getArgument(1),
        y = entry->getArgument(2);
  auto i64c = [&](int64_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, 64).getResult();
  };
  auto i32c = [&](int32_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, 32).getResult();
  };
  auto eq = [&](Value l, Value r) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, l, r)
        .getResult();
  };
  Value zero = i64c(0), minusOne = i64c(-1);
  Value byZero = eq(y, zero), byMinusOne = eq(y, minusOne);
  // Faults: a zero divisor; for a / b also -2^63 / -1 (a % -1 is 0).
  Value overflow = b.create<arith::AndIOp>(
      loc, byMinusOne, eq(x, i64c(std::numeric_limits<int64_t>::min())));
  Value fault = remainder ? byZero
                          : b.create<arith::OrIOp>(loc, byZero, overflow)
                                .getResult();
  Value trap = remainder ? b.create<arith::OrIOp>(loc, byZero, byMinusOne)
                               .getResult()
                         : fault;
  Value divisor = b.create<arith::SelectOp>(loc, trap, i64c(1), y);
  Value result =
      remainder ? b.create<arith::RemSIOp>(loc, x, divisor).getResult()
                : b.create<arith::DivSIOp>(loc, x, divisor).getResult();
  auto ifFault = b.create<scf::IfOp>(loc, fault, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(ifFault.thenBlock());
    Value code, size;
    if (remainder) {
      code = i32c(SLUICE_WALK_FAULT_REMAINDER_BY_ZERO);
      size = zero;
    } else {
      code = b.create<arith::SelectOp>(
          loc, byZero, i32c(SLUICE_WALK_FAULT_DIVISION_BY_ZERO),
          i32c(SLUICE_WALK_FAULT_DIVISION_OVERFLOW));
      size = b.create<arith::SelectOp>(loc, byZero, zero, minusOne);
    }
    b.create<func::CallOp>(loc, "sluice_fault", TypeRange{},
                           ValueRange{frame, code, x, size});
  }
  result = b.create<arith::SelectOp>(loc, fault, zero, result);
  b.create<func::ReturnOp>(loc, result);
}

} // namespace

void sluice::conversion::buildDeviceIntDivision(gpu::GPUModuleOp gpuModule) {
  OpBuilder b(gpuModule.getContext());
  b.setInsertionPoint(gpuModule.getBody()->getTerminator());
  buildDivision(b, gpuModule.getLoc(), /*remainder=*/false);
  buildDivision(b, gpuModule.getLoc(), /*remainder=*/true);
}
