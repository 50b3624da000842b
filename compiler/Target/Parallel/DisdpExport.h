//===- DisdpExport.h - DisDP plans as text, JSON and a trace ----*- C++ -*-===//
//
// Writers over a plan.disdp op (what model-plan-disdp wrote for a `train`
// model.job with a parameter_server): a summary (both iterations, the
// speedup, the per-layer durations, memory, what binds), JSON of the same,
// and a Chrome trace (ui.perfetto.dev) of both iterations, re-simulated from
// the op's durations (compiler/Analysis/Parallel/DisDP.h): one process per
// layout, a lane each for compute, parameters in (all-gather), gradients
// out (reduce-scatter) and the optimizer.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_PARALLEL_DISDPEXPORT_H
#define SLUICE_COMPILER_TARGET_PARALLEL_DISDPEXPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::target {

enum class DisdpFormat { Summary, Json, Trace };

/// Whether `module` has a plan.disdp (of job `jobName` when not empty).
bool hasDisdpPlans(mlir::ModuleOp module, llvm::StringRef jobName);

/// Writes every plan.disdp of `module` (only that of job `jobName` when not
/// empty) in `format`.
mlir::LogicalResult writeDisdpPlans(mlir::ModuleOp module,
                                    llvm::StringRef jobName, DisdpFormat format,
                                    llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_PARALLEL_DISDPEXPORT_H
