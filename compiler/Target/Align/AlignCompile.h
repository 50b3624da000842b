//===- AlignCompile.h - sluicec -c of align jobs ----------------*- C++ -*-===//
//
// `sluicec -c` on a program with align jobs (docs/align.md, "sluicec -c"):
// for the CPU an object file with one compiled kernel per job
// (align-to-llvm's sluice_align_<job>_pair, the scoring baked in) and a C
// header declaring it beside inline wrappers over libsluicert's
// sluice_align_batch_compiled and sluice_align_fasta_compiled; with
// --target=gpu the warp-per-pair kernels as PTX for sm_90 and a JSON file
// describing them (name, job, launch shape, scoring).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_ALIGN_ALIGNCOMPILE_H
#define SLUICE_COMPILER_TARGET_ALIGN_ALIGNCOMPILE_H

#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace sluice::target {

/// The align jobs of `module` lowered by sluice-align-to-llvm (a copy of
/// the module holding only them). A located error when there is none.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
lowerAlignJobsToLLVM(mlir::ModuleOp module);

/// Writes the object file `objectPath` (-O3, position independent, for the
/// host's architecture and `cpus`) and the C header `headerPath`. Errors
/// (unwritable paths, an unknown CPU) are located at the first align job;
/// no partial file is left behind.
mlir::LogicalResult compileAlignJobsToObject(mlir::ModuleOp module,
                                             llvm::StringRef objectPath,
                                             llvm::StringRef headerPath,
                                             llvm::ArrayRef<HostCpu> cpus);

/// Writes the PTX (sm_90) of every align job's kernel to `ptxPath` and
/// their description to `jsonPath`.
mlir::LogicalResult compileAlignJobsToPtx(mlir::ModuleOp module,
                                          llvm::StringRef ptxPath,
                                          llvm::StringRef jsonPath);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_ALIGN_ALIGNCOMPILE_H
