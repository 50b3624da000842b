//===- PlanEmit.cpp - A program's plans, in the format asked for ----------===//
//
// See PlanEmit.h. (Was sluicec's ModelDriver.cpp and its emitPlan.)
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Plan/PlanEmit.h"

#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "compiler/Target/Gnn/GnnPlan.h"
#include "compiler/Target/Parallel/DisdpExport.h"
#include "compiler/Target/Parallel/DistillExport.h"
#include "compiler/Target/Parallel/ParallelExport.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/ModelOffload.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Plan/Transforms/PlanExport.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "frontends/sluice/MLIRGenModel.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace sluice;

namespace {

/// Finetune/infer jobs: the offload planners
/// (dialects/Model/Transforms/ModelOffload.h).
mlir::LogicalResult emitOffload(Compilation &compilation,
                                const PlanOptions &o, llvm::StringRef top,
                                llvm::raw_ostream &os) {
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
    return mlir::emitError(compilation.fileLocation())
           << "finetune and infer jobs are planned in --format=table, json, "
              "trace, deepspeed or mlir";
  }
  auto graph = extractTopoGraph(compilation.module());
  if (mlir::failed(graph))
    return mlir::failure();
  return model::planModelJobs(compilation.module(), *graph, top, o.job,
                              format, os, o.remarks);
}

/// Train jobs: model-plan-parallel, then the plans in the format
/// (compiler/Target/Parallel/ParallelExport.h).
mlir::LogicalResult emitParallel(Compilation &compilation,
                                 const PlanOptions &o, llvm::StringRef top,
                                 llvm::raw_ostream &os) {
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
  case ReportFormat::Trace:
    format = target::ParallelFormat::Trace;
    break;
  default:
    return mlir::emitError(compilation.fileLocation())
           << "train jobs are planned in --format=table, json, mlir, "
              "megatron, deepspeed or trace";
  }
  if (mlir::failed(compilation.planTraining(o.seed, o.job)))
    return mlir::failure();
  mlir::ModuleOp module = compilation.module();
  if (!format) {
    module.print(os);
    os << "\n";
    return mlir::success();
  }
  // Train jobs with a parameter_server have a plan.disdp instead.
  if (target::hasDisdpPlans(module, o.job)) {
    bool parallelToo = false;
    for (plan::ParallelOp op : module.getOps<plan::ParallelOp>())
      parallelToo |= o.job.empty() || op.getJob() == o.job;
    std::optional<target::DisdpFormat> df;
    if (*format == target::ParallelFormat::Summary)
      df = target::DisdpFormat::Summary;
    else if (*format == target::ParallelFormat::Json && !parallelToo)
      df = target::DisdpFormat::Json;
    else if (*format == target::ParallelFormat::Trace && !parallelToo)
      df = target::DisdpFormat::Trace;
    if (!df)
      return mlir::emitError(compilation.fileLocation())
             << (parallelToo ? "DisDP and 3D-parallel jobs are written "
                               "together only as a summary; choose one with "
                               "--job=NAME"
                             : "DisDP plans (train jobs with a "
                               "parameter_server) are written in "
                               "--format=table, json, trace or mlir");
    if (parallelToo) {
      auto graph = extractTopoGraph(module);
      if (mlir::failed(graph) ||
          mlir::failed(target::writeParallelPlans(
              module, parallel::gpusByHost(*graph, top), o.job, *format, os)))
        return mlir::failure();
    }
    return target::writeDisdpPlans(module, o.job, *df, os);
  }
  auto graph = extractTopoGraph(module);
  if (mlir::failed(graph))
    return mlir::failure();
  return target::writeParallelPlans(module, parallel::gpusByHost(*graph, top),
                                    o.job, *format, os);
}

/// Distill jobs: model-plan-distill, then the plans in the format
/// (compiler/Target/Parallel/DistillExport.h).
mlir::LogicalResult emitDistill(Compilation &compilation, const PlanOptions &o,
                                llvm::raw_ostream &os) {
  std::optional<target::DistillFormat> format;
  switch (o.format) {
  case ReportFormat::Table:
    format = target::DistillFormat::Summary;
    break;
  case ReportFormat::Json:
    format = target::DistillFormat::Json;
    break;
  case ReportFormat::Mlir:
    break; // the module itself
  default:
    return mlir::emitError(compilation.fileLocation())
           << "distill jobs are planned in --format=table, json or mlir";
  }
  if (mlir::failed(compilation.planDistillation(o.job)))
    return mlir::failure();
  mlir::ModuleOp module = compilation.module();
  if (!format) {
    module.print(os);
    os << "\n";
    return mlir::success();
  }
  return target::writeDistillPlans(module, o.job, *format, os);
}

/// Flow demands: plan-schedule-flows, then the plans in the format.
mlir::LogicalResult emitFlows(Compilation &compilation, const PlanOptions &o,
                              llvm::raw_ostream &os) {
  if (o.format == ReportFormat::DeepSpeed ||
      o.format == ReportFormat::Megatron)
    return mlir::emitError(compilation.fileLocation())
           << "--format=deepspeed and --format=megatron apply to the plan of "
              "a finetune or train job";
  if (mlir::failed(compilation.plan()))
    return mlir::failure();
  mlir::ModuleOp module = compilation.module();
  if (o.format == ReportFormat::Mlir ||
      (o.format == ReportFormat::Table && o.flowDefaultsToMlir)) {
    module.print(os);
    os << "\n";
    return mlir::success();
  }
  auto graph = extractTopoGraph(module);
  if (mlir::failed(graph))
    return mlir::failure();
  switch (o.format) {
  case ReportFormat::Table:
    return plan::writePlanTable(os, module, *graph);
  case ReportFormat::Json:
    return plan::writePlanJSON(os, module, *graph);
  case ReportFormat::Dot:
    return plan::writePlanDot(os, module, *graph, o.dotDetail);
  case ReportFormat::Trace:
    return plan::writePlanTrace(os, module, *graph);
  default:
    return mlir::emitError(compilation.fileLocation())
           << "flow plans are written in --format=table, json, dot, svg, "
              "trace or mlir";
  }
}

/// Gnn train jobs: the GNN cost model (compiler/Target/Gnn/GnnPlan.h).
mlir::LogicalResult emitGnn(Compilation &compilation, const PlanOptions &o,
                            llvm::StringRef top, llvm::raw_ostream &os) {
  if (o.format != ReportFormat::Table && o.format != ReportFormat::Json)
    return mlir::emitError(compilation.fileLocation())
           << "gnn train jobs are planned in --format=table or json";
  if (!(o.tpcBudget >= 0))
    return mlir::emitError(compilation.fileLocation())
           << "--tpc-budget must be a price of at least 0, got "
           << llvm::formatv("{0}", o.tpcBudget).str();
  auto graph = extractTopoGraph(compilation.module());
  if (mlir::failed(graph))
    return mlir::failure();
  target::GnnPlanOptions options;
  options.job = o.job;
  options.top = top.str();
  options.json = o.format == ReportFormat::Json;
  options.budget = o.tpcBudget;
  options.graphCache = o.graphCache;
  return target::writeGnnPlans(compilation.module(), *graph, options, os);
}

/// Which planner the selected model jobs need.
enum class ModelPlanner { Offload, Parallel, Distill };

/// The model jobs to plan: train jobs (parallel), distill jobs (Pipe-BD)
/// or the others (offload); an error when several kinds are selected.
mlir::FailureOr<ModelPlanner> modelPlanner(Compilation &compilation,
                                           llvm::StringRef jobName) {
  bool kinds[3] = {false, false, false};
  std::string names;
  bool found = false;
  for (model::JobOp job : compilation.module().getOps<model::JobOp>()) {
    names += (names.empty() ? "" : ", ") + job.getSymName().str();
    if (!jobName.empty() && job.getSymName() != jobName)
      continue;
    found = true;
    ModelPlanner p =
        job.getAction() == model::JobAction::Train     ? ModelPlanner::Parallel
        : job.getAction() == model::JobAction::Distill ? ModelPlanner::Distill
                                                       : ModelPlanner::Offload;
    kinds[static_cast<int>(p)] = true;
  }
  if (!jobName.empty() && !found &&
      !compilation.module().getOps<model::JobOp>().empty())
    return mlir::emitError(compilation.fileLocation())
           << "no model job named '" << jobName << "' (model jobs: " << names
           << ")";
  if (kinds[0] + kinds[1] + kinds[2] > 1)
    return mlir::emitError(compilation.fileLocation())
           << "not supported yet: "
           << (kinds[1] && kinds[2] ? "train and distill jobs"
               : kinds[1]           ? "train jobs and finetune/infer jobs"
                                    : "distill jobs and finetune/infer jobs")
           << " in one plan (choose one with --job=NAME)";
  return kinds[1]   ? ModelPlanner::Parallel
         : kinds[2] ? ModelPlanner::Distill
                    : ModelPlanner::Offload;
}

} // namespace

mlir::LogicalResult sluice::emitPlans(Compilation &compilation,
                                      const PlanOptions &options,
                                      llvm::raw_ostream &os) {
  // What there is to plan, and on which topology.
  bool empty = true, planWork = false;
  for (const auto &module : compilation.program().modules) {
    if (!module)
      continue;
    for (const auto &decl : module->decls) {
      empty = false;
      if (llvm::isa_and_nonnull<ast::DemandDecl>(decl.get()) ||
          (decl && isModelJob(*decl)))
        planWork = true;
    }
  }
  if (empty)
    return mlir::emitError(compilation.fileLocation())
           << "the program declares nothing; --emit=plan needs a topology to "
              "plan on";
  if (!planWork)
    return mlir::emitError(compilation.fileLocation())
           << "the program declares no demand and no finetune or infer job; "
              "--emit=plan plans those";
  if (compilation.topologyNames().empty())
    return mlir::emitError(compilation.fileLocation())
           << "the program declares no topology; --emit=plan needs one to "
              "plan on";
  // Without --top: the topology of the main file's first demand, or of its
  // first finetune/infer job.
  std::string top = options.top;
  const auto &decls = compilation.program().modules.back()->decls;
  if (top.empty())
    for (const auto &decl : decls)
      if (auto *d = llvm::dyn_cast<ast::DemandDecl>(decl.get())) {
        top = d->topology;
        break;
      }
  // --job=NAME: that job's topology.
  if (top.empty() && !options.job.empty())
    for (const auto &decl : decls)
      if (auto *j = llvm::dyn_cast<ast::JobDecl>(decl.get());
          j && isModelJob(*j) && j->name == options.job) {
        top = j->target;
        break;
      }
  if (top.empty())
    for (const auto &decl : decls)
      if (auto *j = llvm::dyn_cast<ast::JobDecl>(decl.get());
          j && isModelJob(*j)) {
        top = j->target;
        break;
      }
  if (mlir::failed(compilation.flatten(top)))
    return mlir::failure();
  // Gnn train jobs: the one asked for, or those of a program without other
  // model jobs and demands.
  if (target::hasGnnTrainJobs(compilation.module(), options.job) &&
      (!options.job.empty() ||
       (!model::hasModelJobs(compilation.module()) &&
        compilation.module().getOps<plan::DemandsOp>().empty())))
    return emitGnn(compilation, options, top, os);
  if (!model::hasModelJobs(compilation.module()))
    return emitFlows(compilation, options, os);
  if (!compilation.module().getOps<plan::DemandsOp>().empty())
    return mlir::emitError(compilation.fileLocation())
           << "not supported yet: demands and finetune/infer jobs in one "
              "plan";
  mlir::FailureOr<ModelPlanner> planner =
      modelPlanner(compilation, options.job);
  if (mlir::failed(planner))
    return mlir::failure();
  switch (*planner) {
  case ModelPlanner::Parallel:
    return emitParallel(compilation, options, top, os);
  case ModelPlanner::Distill:
    return emitDistill(compilation, options, os);
  case ModelPlanner::Offload:
    break;
  }
  return emitOffload(compilation, options, top, os);
}
