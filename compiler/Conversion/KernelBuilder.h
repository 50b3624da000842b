//===- KernelBuilder.h - Small builders of device and CPU kernels -*- C++
//-*-===//
//
// The helpers the kernels built op by op share (align-to-gpu, align-to-llvm,
// gnn-to-gpu): constants, integer arithmetic, elements of arrays and fields
// of argument structs through LLVM pointers, and warp shuffles.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_KERNELBUILDER_H
#define SLUICE_CONVERSION_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace sluice::conversion {

/// Small helpers over an OpBuilder at `loc`: integer arithmetic, array
/// elements and struct fields through LLVM pointers, warp shuffles.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc);

  mlir::Value c32(int64_t v);
  mlir::Value c64(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value max(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y);
  mlir::Value land(mlir::Value x, mlir::Value y);
  mlir::Value lor(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  /// Element `index` of type `type` at `base`.
  mlir::Value at(mlir::Type type, mlir::Value base, mlir::Value index);
  mlir::Value load(mlir::Type type, mlir::Value base, mlir::Value index);
  void store(mlir::Value value, mlir::Value base, mlir::Value index);
  /// The field at byte `offset` of a struct at `args`.
  mlir::Value field(mlir::Value args, int64_t offset, mlir::Type type);
  mlir::Value shuffle(mlir::Value v, mlir::Value offset,
                      mlir::gpu::ShuffleMode mode);
  /// The thread's index in its block (x), as i64.
  mlir::Value threadIdX();
  /// blockIdx.x * blockDim.x + `thread` (threadIdX()), as i64.
  mlir::Value globalThreadIdX(mlir::Value thread);

  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type ptr, i1, i8, i32, i64, f32;
};

/// Fails with "<pass>: the symbol '<name>' is taken", at `module`, when
/// `module` already has a symbol `name`: the gpu.module a pass would create.
mlir::LogicalResult checkKernelModuleName(mlir::ModuleOp module,
                                          llvm::StringRef name,
                                          llvm::StringRef pass);

/// Marks `module` as holding GPU modules and appends an empty gpu.module
/// `name` to it, for the kernels a pass builds.
mlir::gpu::GPUModuleOp createKernelModule(mlir::ModuleOp module,
                                          llvm::StringRef name);

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_KERNELBUILDER_H
