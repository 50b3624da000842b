//===- GpuOpsOnHost.h - A gpu.module's kernels as host functions in tests -===//
//
// What the emulations of GPU kernels on the host share (AlgoGpuEmulationTest,
// WalkCodegen's GpuEmulation): a gpu.func turned into a func.func whose last
// argument is the block id, and the gpu ops left in those functions replaced
// by what one thread of a one-thread block sees. How a gpu.shuffle is
// emulated (and which shuffles) is each emulation's own.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_SUPPORT_GPUOPSONHOST_H
#define SLUICE_TEST_UNIT_SUPPORT_GPUOPSONHOST_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace sluice::test {

/// A func.func `name`, at `b`'s insertion point, with the body of `kernel`
/// moved into it and an index argument (the block id) after its own.
inline mlir::func::FuncOp hostFunction(mlir::OpBuilder &b,
                                       mlir::gpu::GPUFuncOp kernel,
                                       llvm::StringRef name) {
  llvm::SmallVector<mlir::Type> inputs(kernel.getArgumentTypes());
  inputs.push_back(b.getIndexType());
  auto fn = b.create<mlir::func::FuncOp>(kernel.getLoc(), name,
                                         b.getFunctionType(inputs, {}));
  fn.getBody().takeBody(kernel.getBody());
  fn.getBody().front().addArgument(b.getIndexType(), kernel.getLoc());
  return fn;
}

/// Emulates a gpu.shuffle at `b`'s insertion point: the value shuffled, or
/// null with `error` set when the emulation does not know it.
using ShuffleOnHost = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &b, mlir::gpu::ShuffleOp shuffle, std::string &error)>;

/// Replaces the gpu ops in the functions of `host` (made by hostFunction):
/// block id: the function's last argument; block dim: 1; thread id: 0;
/// gpu.return: func.return; gpu.shuffle: `shuffle`'s value, always valid.
/// False with `error` set at any other gpu op.
inline bool replaceGpuOpsOnHost(mlir::ModuleOp host, ShuffleOnHost shuffle,
                                std::string &error) {
  using namespace mlir;
  OpBuilder b(host.getContext());
  SmallVector<Operation *> gpuOps;
  host->walk([&](Operation *inner) {
    if (isa<gpu::GPUDialect>(inner->getDialect()))
      gpuOps.push_back(inner);
  });
  for (Operation *inner : gpuOps) {
    b.setInsertionPoint(inner);
    Location loc = inner->getLoc();
    auto fn = inner->getParentOfType<func::FuncOp>();
    if (isa<gpu::BlockIdOp>(inner)) {
      inner->getResult(0).replaceAllUsesWith(fn.getArguments().back());
    } else if (isa<gpu::BlockDimOp>(inner)) {
      inner->getResult(0).replaceAllUsesWith(
          b.create<arith::ConstantIndexOp>(loc, 1));
    } else if (isa<gpu::ThreadIdOp>(inner)) {
      inner->getResult(0).replaceAllUsesWith(
          b.create<arith::ConstantIndexOp>(loc, 0));
    } else if (auto sh = dyn_cast<gpu::ShuffleOp>(inner)) {
      Value y = shuffle(b, sh, error);
      if (!y)
        return false;
      sh.getShuffleResult().replaceAllUsesWith(y);
      sh.getValid().replaceAllUsesWith(
          b.create<arith::ConstantIntOp>(loc, 1, 1));
    } else if (isa<gpu::ReturnOp>(inner)) {
      b.create<func::ReturnOp>(loc);
    } else {
      error = "the emulation does not know '" +
              inner->getName().getStringRef().str() + "'";
      return false;
    }
    inner->erase();
  }
  return true;
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_SUPPORT_GPUOPSONHOST_H
