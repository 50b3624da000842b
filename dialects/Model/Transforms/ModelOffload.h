//===- ModelOffload.h - Offload plans for model jobs ------------*- C++ -*-===//
//
// The adaptor between model.job ops and the IR-independent offload planners
// (compiler/Analysis/Offload): the machine comes from the flat topology
// (machineFromTopo on its first GPU), the model from uniformConfig() of the
// job's model.transformer; `finetune` jobs go to planFinetune, `infer` jobs
// to planInference, and the plans are written in one of the planners'
// export formats. See docs/offload.md.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELOFFLOAD_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELOFFLOAD_H

#include "compiler/Analysis/TopoGraph.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::model {

enum class OffloadFormat {
  Summary,   ///< finetuneSummary / inferenceSummary, one per job
  Json,      ///< {"job": plan JSON, ...}
  Trace,     ///< Chrome trace of one finetune job
  DeepSpeed, ///< ZeRO-Infinity configuration of one finetune job
  Mlir,      ///< the module with a plan.schedule per finetune job
};

/// True when `module` holds a model.job.
bool hasModelJobs(mlir::ModuleOp module);

/// Plans the model.job ops of `module` (only `jobName` when not empty) on
/// `graph`, the flat topology named `topology`, and writes them to `os`.
/// Located errors (at the job) for a job on another topology, a machine the
/// topology cannot describe, a model the planners cannot describe, and an
/// infeasible job (with the planner's binding constraint and, when the
/// micro-batch was searched, where the smallest need was found); the
/// summary of an infeasible job is still written. With `remarks`, a remark
/// at each finetune job: the chosen micro-batch and recomputation and why
/// each other micro-batch lost.
mlir::LogicalResult planModelJobs(mlir::ModuleOp module,
                                  const analysis::TopoGraph &graph,
                                  llvm::StringRef topology,
                                  llvm::StringRef jobName, OffloadFormat format,
                                  llvm::raw_ostream &os, bool remarks = false);

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_MODELOFFLOAD_H
