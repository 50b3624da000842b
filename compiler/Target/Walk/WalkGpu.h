//===- WalkGpu.h - Walk programs to PTX (sluicec -c --target=gpu) -*- C++ -*-===//
//
// Lowers the walks of a program with walk-to-gpu and the upstream GPU
// conversions (scf-to-cf, convert-gpu-to-nvvm) and writes PTX for sm_90
// plus a JSON description of the kernels (names, argument order,
// parameter slots) for a host program that launches them. The math
// built-ins (sqrt, exp, log, abs on f64) become calls of libdevice, the
// CUDA toolkit's bitcode math library, which is linked into the PTX.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_WALK_WALKGPU_H
#define SLUICE_COMPILER_TARGET_WALK_WALKGPU_H

#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace sluice::target {

/// The walks of `module` as PTX text for `chip` (one kernel
/// `sluice_walk_<W>` per walk) and their JSON description. Errors are
/// located diagnostics; a math built-in when the file `libdevice` does not
/// exist is one at its call.
/// `only`: compile just that walk (empty: every walk).
mlir::LogicalResult
lowerWalksToPtx(mlir::ModuleOp module, llvm::StringRef chip, std::string &ptx,
                std::string &json, llvm::StringRef only = "",
                llvm::StringRef libdevice = defaultLibdevicePath());

/// `sluicec -c --target=gpu`: writes the PTX at `ptxPath` and the JSON
/// description at `jsonPath`.
mlir::LogicalResult compileWalksToPtx(mlir::ModuleOp module,
                                      llvm::StringRef ptxPath,
                                      llvm::StringRef jsonPath,
                                      llvm::StringRef libdevice);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_WALK_WALKGPU_H
