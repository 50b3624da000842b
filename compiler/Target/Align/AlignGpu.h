//===- AlignGpu.h - Align jobs to PTX ---------------------------*- C++ -*-===//
//
// What `sluicec --emit=ptx` and `--run --target=gpu` do with an align
// job: a copy of its seq.align through align-to-gpu and the NVVM
// conversions, the kernel compiled to PTX for sm_90
// (runtime/include/sluice/align_gpu.h runs it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_ALIGN_ALIGNGPU_H
#define SLUICE_COMPILER_TARGET_ALIGN_ALIGNGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace sluice::target {

/// PTX for `chip` of the kernels `sluice_align_<job>` of `module`'s align
/// jobs (only job `only` when given). A located error when there is none.
mlir::LogicalResult lowerAlignJobsToPtx(mlir::ModuleOp module,
                                        llvm::StringRef chip, std::string &ptx,
                                        llvm::StringRef only = "");

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_ALIGN_ALIGNGPU_H
