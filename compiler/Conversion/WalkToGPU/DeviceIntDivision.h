//===- DeviceIntDivision.h - Faulting integer division on the GPU -*- C++ -*-===//
//
// The device functions walk.idiv and walk.irem lower to, built with
// OpBuilder (not parsed from text) into the gpu.module of the walks.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_WALKTOGPU_DEVICEINTDIVISION_H
#define SLUICE_COMPILER_CONVERSION_WALKTOGPU_DEVICEINTDIVISION_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace sluice::conversion {

/// Appends @sluice_idiv and @sluice_irem, (!llvm.ptr frame, i64, i64) -> i64,
/// to `gpuModule`: a / b and a % b as sluice_kernel_idiv / _irem compute
/// them (walk_support.h). A zero divisor, or -2^63 / -1, calls
/// @sluice_fault(frame, code, a, size) with walk.h's fault code and gives 0;
/// no lane divides by zero. `gpuModule` must already hold @sluice_fault.
void buildDeviceIntDivision(mlir::gpu::GPUModuleOp gpuModule);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_WALKTOGPU_DEVICEINTDIVISION_H
