//===- Compilation.cpp - One compilation of a Sluice program --------------===//
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Pipelines/PassPipelines.h"

#include "compiler/Pipelines/CompressionRate.h"
#include "compiler/Pipelines/GatherAccessCounts.h"
#include "compiler/Pipelines/TopoPipeline.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Model/IR/ModelDialect.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Seq/IR/SeqOps.h"
#include "dialects/Topo/IR/TopoDialect.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "dialects/Walk/Transforms/Passes.h"
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/MLIRGen.h"
#include "frontends/sluice/Sema.h"
#include "sluice/gpu.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

using namespace sluice;

static const struct {
  Phase phase;
  const char *name;
} kPhases[] = {
    {Phase::Ast, "ast"},   {Phase::Sema, "sema"},     {Phase::Mlir, "mlir"},
    {Phase::Flat, "flat"}, {Phase::Report, "report"}, {Phase::Plan, "plan"},
    {Phase::Llvm, "llvm"}, {Phase::Ptx, "ptx"},
};

std::optional<Phase> sluice::parsePhase(llvm::StringRef name) {
  for (const auto &p : kPhases)
    if (name == p.name)
      return p.phase;
  return std::nullopt;
}

llvm::StringRef sluice::phaseName(Phase phase) {
  for (const auto &p : kPhases)
    if (p.phase == phase)
      return p.name;
  llvm_unreachable("unknown phase");
}

void sluice::registerSluiceDialects(mlir::DialectRegistry &registry) {
  registry.insert<topo::TopoDialect>();
  registry.insert<walk::WalkDialect>();
  registry.insert<graph::GraphDialect>();
  registry.insert<plan::PlanDialect>();
  registry.insert<model::ModelDialect>();
  registry.insert<seq::SeqDialect>();
}

Compilation::Compilation(mlir::MLIRContext &ctx, llvm::SourceMgr &sourceMgr)
    : ctx(ctx), sourceMgr(sourceMgr) {}

mlir::LogicalResult Compilation::parse(llvm::StringRef path) {
  mainPath = path.str();
  return loadProgram(path, sourceMgr, &ctx, program_);
}

mlir::Location Compilation::fileLocation() {
  return mlir::FileLineColLoc::get(&ctx, mainPath, 0, 0);
}

std::vector<std::string> Compilation::topologyNames() {
  std::vector<std::string> names;
  for (const auto &module : program_.modules)
    if (module)
      for (const auto &decl : module->decls)
        if (llvm::isa_and_nonnull<ast::TopologyDecl>(decl.get()))
          names.push_back(decl->name);
  return names;
}

mlir::LogicalResult Compilation::check() {
  return checkProgram(program_, &ctx);
}

mlir::LogicalResult Compilation::lower() {
  module_ = mlirGen(ctx, program_);
  if (!module_)
    return mlir::failure();
  // Walks: classify the weights and derive their bounds (walk-bounds), then
  // decide each schedule (walk-select-sampler).
  if (!module_->getOps<walk::WalkOp>().empty()) {
    walk::WalkBoundsOptions options;
    options.remarks = walkRemarks;
    if (mlir::failed(runPasses(*module_,
                               [&](mlir::OpPassManager &pm) {
                                 pm.addPass(walk::createWalkBounds(options));
                               })) ||
        mlir::failed(scheduleWalks(walkTarget)))
      return mlir::failure();
  }
  // Algorithms: each loop's schedule from the algorithm's (graph-attach-
  // schedule; docs/dialects/graph.md), then the legality of its parallel
  // updates (graph-check-parallel-writes).
  if (!module_->getOps<graph::AlgorithmOp>().empty() &&
      mlir::failed(runPasses(*module_, [&](mlir::OpPassManager &pm) {
        buildGraphSchedulePipeline(pm, walkRemarks);
      })))
    return mlir::failure();
  // Models and jobs: attach the costs the offload planners read
  // (model-cost; docs/dialects/model.md).
  if (!module_->getOps<model::TransformerOp>().empty() &&
      mlir::failed(runPasses(*module_, [](mlir::OpPassManager &pm) {
        pm.addPass(model::createModelCost());
      })))
    return mlir::failure();
  return mlir::success();
}

mlir::LogicalResult Compilation::checkCompilable() {
  if (!module_)
    return mlir::failure();
  if (!module_->getOps<graph::AlgorithmOp>().empty() &&
      !module_->getOps<walk::WalkOp>().empty())
    return mlir::emitError(fileLocation())
           << "not supported yet: compiling a program with walks and "
              "algorithms (-c and --emit=llvm take one kind; split the file)";
  return mlir::success();
}

mlir::LogicalResult Compilation::checkRunnable(llvm::StringRef job) {
  if (!module_)
    return mlir::failure();
  auto jobs = module_->getOps<graph::JobOp>();
  auto walkJobs = module_->getOps<walk::JobOp>();
  if (!job.empty() || jobs.empty() || walkJobs.empty())
    return mlir::success();
  std::string names;
  for (walk::JobOp j : walkJobs)
    names += (names.empty() ? "" : ", ") + j.getSymName().str();
  for (graph::JobOp j : jobs)
    names += ", " + j.getSymName().str();
  return mlir::emitError(fileLocation())
         << "the program has walk and algorithm jobs; choose one with --job ("
         << names << ")";
}

bool Compilation::isAlgorithmJob(llvm::StringRef job) {
  if (!module_)
    return false;
  auto jobs = module_->getOps<graph::JobOp>();
  if (job.empty())
    return !jobs.empty() && module_->getOps<walk::JobOp>().empty();
  return llvm::any_of(jobs,
                      [&](graph::JobOp j) { return j.getSymName() == job; });
}

mlir::LogicalResult Compilation::scheduleWalks(llvm::StringRef target) {
  if (!module_)
    return mlir::failure();
  return runPasses(*module_, [&](mlir::OpPassManager &pm) {
    buildWalkSchedulePipeline(pm, target);
  });
}

mlir::LogicalResult
Compilation::scheduleGpuWalksOnCpuWithoutGpu(llvm::StringRef hint) {
  if (!module_)
    return mlir::failure();
  auto wantsGpu = [](walk::WalkOp w) {
    return w.getTarget() == walk::Target::Gpu;
  };
  sluice_error_t reason;
  if (llvm::none_of(module_->getOps<walk::WalkOp>(), wantsGpu) ||
      sluice_gpu_available(&reason))
    return mlir::success();
  for (auto w : module_->getOps<walk::WalkOp>())
    if (wantsGpu(w))
      mlir::emitWarning(w.getLoc())
          << "walk '" << w.getSymName()
          << "' asks for target gpu, but no GPU is available ("
          << reason.message << "): it runs on the CPU" << hint;
  return scheduleWalks("cpu");
}

mlir::LogicalResult Compilation::flatten(llvm::StringRef top) {
  if (!module_)
    return mlir::failure();
  std::vector<std::string> topologies = topologyNames();
  if (topologies.empty())
    return mlir::emitError(fileLocation())
           << "the program declares no topology to flatten";
  if (!top.empty() && !llvm::is_contained(topologies, top)) {
    std::string names;
    for (const std::string &n : topologies)
      names += (names.empty() ? "" : ", ") + n;
    return mlir::emitError(fileLocation())
           << "no topology named '" << top
           << "'; the program declares: " << names;
  }
  std::string topName = top.empty() ? defaultTopTopology(program_) : top.str();
  return runPasses(*module_, [&](mlir::OpPassManager &pm) {
    buildTopoFlattenPipeline(pm, topName);
  });
}

mlir::LogicalResult Compilation::plan() {
  if (!module_)
    return mlir::failure();
  plan::PlanScheduleFlowsOptions planOptions;
  planOptions.remarks = walkRemarks; // --remarks: compare collectives
  plan::PlanMiddleTierOptions tierOptions;
  tierOptions.remarks = walkRemarks; // --remarks: the sites and the sizing
  // The errors point at the demand in the source; the op adds nothing.
  bool printOp = ctx.shouldPrintOpOnDiagnostic();
  ctx.printOpOnDiagnostic(false);
  // The pass's input: the access counts of sampled gather jobs, from their
  // graphs (the pass loads no files of graphs).
  mlir::LogicalResult result = attachSampledAccessCounts(*module_);
  // And the host codec's measured rate for blockio demands, when asked.
  if (mlir::succeeded(result) && measureCompression)
    result = attachMeasuredCompression(*module_);
  if (mlir::succeeded(result))
    result = runPasses(*module_, [&](mlir::OpPassManager &pm) {
      // The middle tiers first: they take their blockio demands away.
      pm.addPass(plan::createPlanMiddleTier(tierOptions));
      pm.addPass(plan::createPlanScheduleFlows(planOptions));
    });
  ctx.printOpOnDiagnostic(printOp);
  return result;
}

mlir::LogicalResult Compilation::planDistillation(llvm::StringRef job) {
  if (!module_)
    return mlir::failure();
  model::ModelPlanDistillOptions options;
  options.jobName = job.str();
  options.remarks = walkRemarks; // --remarks: the stages and the baseline
  bool printOp = ctx.shouldPrintOpOnDiagnostic();
  ctx.printOpOnDiagnostic(false);
  mlir::LogicalResult result =
      runPasses(*module_, [&](mlir::OpPassManager &pm) {
        pm.addPass(model::createModelPlanDistill(options));
      });
  ctx.printOpOnDiagnostic(printOp);
  return result;
}

mlir::LogicalResult Compilation::planTraining(uint64_t seed,
                                              llvm::StringRef job) {
  if (!module_)
    return mlir::failure();
  model::ModelPlanParallelOptions options;
  options.seed = seed;
  options.jobName = job.str();
  options.remarks = walkRemarks; // --remarks: the search's counts
  // Train jobs with a parameter_server: DisDP (model-plan-disdp).
  model::ModelPlanDisdpOptions disdp;
  disdp.jobName = job.str();
  disdp.remarks = walkRemarks; // --remarks: both iterations, the speedup
  bool printOp = ctx.shouldPrintOpOnDiagnostic();
  ctx.printOpOnDiagnostic(false);
  mlir::LogicalResult result =
      runPasses(*module_, [&](mlir::OpPassManager &pm) {
        pm.addPass(model::createModelPlanParallel(options));
        pm.addPass(model::createModelPlanDisdp(disdp));
      });
  ctx.printOpOnDiagnostic(printOp);
  return result;
}
