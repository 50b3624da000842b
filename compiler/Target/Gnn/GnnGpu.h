//===- GnnGpu.h - Gnn train jobs' aggregation kernels to PTX ----*- C++ -*-===//
//
// What `sluicec --emit=ptx` and `-c --target=gpu` do with gnn train jobs:
// gnn-to-gpu on a copy of the module, the kernels described as JSON from
// their `sluice.gnn_kernel` attributes, the NVVM conversions and LLVM's
// NVPTX back end (runtime/include/sluice/gnn_gpu.h runs the kernels).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GNN_GNNGPU_H
#define SLUICE_COMPILER_TARGET_GNN_GNNGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace sluice::target {

/// PTX for `chip` of the aggregation kernels of `module`'s gnn train jobs
/// (only job `only` when given) and their description as JSON. A located
/// error when there is no such job or a job's model is gat.
mlir::LogicalResult lowerGnnJobsToPtx(mlir::ModuleOp module,
                                      llvm::StringRef chip, std::string &ptx,
                                      std::string &json,
                                      llvm::StringRef only = "");

/// lowerGnnJobsToPtx for sm_90, written to `ptxPath` and `jsonPath`.
mlir::LogicalResult compileGnnJobsToPtx(mlir::ModuleOp module,
                                        llvm::StringRef ptxPath,
                                        llvm::StringRef jsonPath,
                                        llvm::StringRef only = "");

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GNN_GNNGPU_H
