//===- ModelDriver.cpp - sluicec --emit=plan for model jobs ---------------===//
//
// See ModelDriver.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluicec/ModelDriver.h"

#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "compiler/Target/Parallel/ParallelExport.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/ModelOffload.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"

#include <optional>

using namespace sluice;

namespace {

/// --emit=plan with finetune/infer jobs: the offload planners
/// (dialects/Model/Transforms/ModelOffload.h).
int emitOffload(Compilation &compilation, llvm::StringRef top,
                const ModelPlanOptions &o, llvm::raw_ostream &os) {
  auto graph = extractTopoGraph(compilation.module());
  if (mlir::failed(graph))
    return 1;
  model::OffloadFormat format = model::OffloadFormat::Summary;
  switch (o.format) {
  case ReportFormat::Table:
    break;
  case ReportFormat::Json:
    format = model::OffloadFormat::Json;
    break;
  case ReportFormat::Trace:
    format = model::OffloadFormat::Trace;
    break;
  case ReportFormat::DeepSpeed:
    format = model::OffloadFormat::DeepSpeed;
    break;
  case ReportFormat::Mlir:
    format = model::OffloadFormat::Mlir;
    break;
  default:
    llvm::errs() << "sluicec: error: finetune and infer jobs are planned in "
                    "--format=table, json, trace, deepspeed or mlir\n";
    return 1;
  }
  return mlir::failed(model::planModelJobs(compilation.module(), *graph, top,
                                           o.job, format, os, o.remarks))
             ? 1
             : 0;
}

/// --emit=plan with train jobs: model-plan-parallel, then the plans in
/// --format (compiler/Target/Parallel/ParallelExport.h).
int emitParallel(Compilation &compilation, llvm::StringRef top,
                 const ModelPlanOptions &o, llvm::raw_ostream &os) {
  std::optional<target::ParallelFormat> format;
  switch (o.format) {
  case ReportFormat::Table:
    format = target::ParallelFormat::Summary;
    break;
  case ReportFormat::Mlir:
    break; // the module itself
  case ReportFormat::Json:
    format = target::ParallelFormat::Json;
    break;
  case ReportFormat::Megatron:
    format = target::ParallelFormat::Megatron;
    break;
  case ReportFormat::DeepSpeed:
    format = target::ParallelFormat::DeepSpeed;
    break;
  default:
    llvm::errs() << "sluicec: error: train jobs are planned in --format=table, "
                    "json, mlir, megatron or deepspeed\n";
    return 1;
  }
  if (mlir::failed(compilation.planTraining(o.seed)))
    return 1;
  mlir::ModuleOp module = compilation.module();
  if (!format) {
    module.print(os);
    os << "\n";
    return 0;
  }
  auto graph = extractTopoGraph(module);
  if (mlir::failed(graph))
    return 1;
  return mlir::failed(target::writeParallelPlans(
             module, parallel::gpusByHost(*graph, top), o.job, *format, os))
             ? 1
             : 0;
}

/// The model jobs --emit=plan plans: `train` jobs (parallel) or the others
/// (offload); 0 when none, -1 with an error when both kinds are selected.
int modelJobKind(mlir::ModuleOp module, llvm::StringRef jobName, bool &train) {
  bool parallel = false, offload = false;
  for (model::JobOp job : module.getOps<model::JobOp>()) {
    if (!jobName.empty() && job.getSymName() != jobName)
      continue;
    if (job.getAction() == model::JobAction::Train)
      parallel = true;
    else
      offload = true;
  }
  if (parallel && offload) {
    llvm::errs() << "sluicec: error: not supported yet: train jobs and "
                    "finetune/infer jobs in one --emit=plan run (choose one "
                    "with --job=NAME)\n";
    return -1;
  }
  train = parallel;
  return parallel || offload ? 1 : 0;
}

} // namespace

int sluice::emitModelPlans(Compilation &compilation, llvm::StringRef top,
                           const ModelPlanOptions &options,
                           llvm::raw_ostream &os) {
  bool train = false;
  if (modelJobKind(compilation.module(), options.job, train) < 0)
    return 1;
  return train ? emitParallel(compilation, top, options, os)
               : emitOffload(compilation, top, options, os);
}
