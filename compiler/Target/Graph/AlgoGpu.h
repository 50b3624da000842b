//===- AlgoGpu.h - Graph algorithms' loops to PTX ---------------*- C++ -*-===//
//
// What `sluicec -c --target=gpu` does with an algorithm program: a copy
// of its graph dialect through graph-to-gpu and the NVVM conversions, the
// gpu.module's kernels compiled to PTX for sm_90, and a JSON description
// of the kernels (runtime/include/sluice/algo_gpu.h runs them).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GRAPH_ALGOGPU_H
#define SLUICE_COMPILER_TARGET_GRAPH_ALGOGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace sluice::target {

/// PTX for `chip` of every loop variant of `module`'s algorithms (only
/// algorithm `only` when given), and the kernels' description as JSON.
/// Located errors (a construct without device code, a libdevice function
/// without libdevice).
mlir::LogicalResult
lowerAlgorithmsToPtx(mlir::ModuleOp module, llvm::StringRef chip,
                     llvm::StringRef libdevice, bool remarks, std::string &ptx,
                     std::string &json, llvm::StringRef only = "");

/// lowerAlgorithmsToPtx for sm_90, written to `ptxPath` and `jsonPath`.
mlir::LogicalResult compileAlgorithmsToPtx(mlir::ModuleOp module,
                                           llvm::StringRef ptxPath,
                                           llvm::StringRef jsonPath,
                                           llvm::StringRef libdevice,
                                           bool remarks);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GRAPH_ALGOGPU_H
