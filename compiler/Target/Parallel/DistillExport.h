//===- DistillExport.h - Pipe-BD plans as text and JSON ---------*- C++ -*-===//
//
// Writers over a plan.distill op (what model-plan-distill wrote for a
// `distill` model.job): a summary (the stages with their blocks, the
// teacher's and the student's layers, GPUs, per-batch times and memory,
// the predicted time per batch against the block-by-block baseline) and
// JSON of the same.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_PARALLEL_DISTILLEXPORT_H
#define SLUICE_COMPILER_TARGET_PARALLEL_DISTILLEXPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::target {

enum class DistillFormat { Summary, Json };

/// Writes every plan.distill of `module` (only that of job `jobName` when
/// not empty) in `format`.
mlir::LogicalResult writeDistillPlans(mlir::ModuleOp module,
                                      llvm::StringRef jobName,
                                      DistillFormat format,
                                      llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_PARALLEL_DISTILLEXPORT_H
