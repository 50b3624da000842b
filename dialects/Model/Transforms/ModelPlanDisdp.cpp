//===- ModelPlanDisdp.cpp - The model-plan-disdp pass ---------------------===//
//
// A thin adaptor between `train` model.job ops with a `parameter_server` and
// the IR-independent DisDP planner (compiler/Analysis/Parallel/DisDPCosts.h):
// extracts the flat topology's graph and the transformer, plans both
// iterations, and writes them as a typed plan.disdp op.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/DisDPCosts.h"
#include "dialects/Model/Transforms/ClusterJobs.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "support/Units.h"
#include "llvm/Support/FormatVariadic.h"

namespace sluice::model {
#define GEN_PASS_DEF_MODELPLANDISDP
#include "dialects/Model/Transforms/Passes.h.inc"
} // namespace sluice::model

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

namespace {

struct ModelPlanDisdpPass
    : public sluice::model::impl::ModelPlanDisdpBase<ModelPlanDisdpPass> {
  using ModelPlanDisdpBase::ModelPlanDisdpBase;
  void runOnOperation() override;
  LogicalResult planJob(JobOp job, const analysis::TopoGraph &g,
                        StringRef topology);
};

/// What binds DisDP's iteration: the lane busiest over it.
std::string bindingLane(const parallel::DisdpTimeline &t) {
  std::pair<double, const char *> lanes[] = {
      {t.compute, "gpu compute"},
      {t.down, "in-network all-gather"},
      {t.up, "in-network reduce-scatter"},
      {t.optimizer, "parameter-server update"}};
  auto best = std::max_element(
      std::begin(lanes), std::end(lanes),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  return std::string(best->second) + " (busy " +
         formatQuantity(best->first, Dim::time()) + ")";
}

} // namespace

LogicalResult ModelPlanDisdpPass::planJob(JobOp job,
                                          const analysis::TopoGraph &g,
                                          StringRef topology) {
  auto model = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      job, job.getModelAttr());
  if (!model)
    return job.emitError() << "'" << job.getModel()
                           << "' does not name a model.transformer";
  std::optional<TransformerConfig> cfg = uniformConfig(model);
  if (!cfg || cfg->moe())
    return job.emitError() << "not supported yet: DisDP planning of model '"
                           << job.getModel() << "' ("
                           << (cfg ? "a mixture of experts"
                                   : "its layers differ")
                           << "; the planner models one dense layer group)";
  parallel::TrainJob tj = trainJobOf(job, *cfg);
  const StringRef ps = *job.getParameterServer();
  auto planned = parallel::planDisdpOnTopology(g, topology, tj, ps);
  if (!planned)
    return job.emitError() << "cannot plan job '" << job.getSymName()
                           << "' with DisDP: "
                           << llvm::toString(planned.takeError());
  const parallel::DisdpPlan &p = *planned;
  const parallel::DisdpProblem &q = p.problem;
  const parallel::DisdpResult &r = p.result;
  if (remarks)
    job.emitRemark() << "job '" << job.getSymName() << "': DisDP "
                     << formatQuantity(r.disdp.iteration, Dim::time())
                     << " vs ZeRO-3 "
                     << formatQuantity(r.baseline.iteration, Dim::time())
                     << " serialised ("
                     << llvm::formatv("{0:f2}", r.speedup()).str()
                     << "x); DisDP is bound by " << bindingLane(r.disdp)
                     << "; per layer all-gather ring "
                     << formatQuantity(q.ringAllGather, Dim::time())
                     << " vs in-network "
                     << formatQuantity(q.netAllGather, Dim::time())
                     << ", forward " << formatQuantity(q.forward, Dim::time());
  const std::string name = job.getSymName().str() + "_disdp";
  ModuleOp module = getOperation();
  if (SymbolTable::lookupSymbolIn(module, name))
    return job.emitError() << "cannot name the plan of job '"
                           << job.getSymName() << "': symbol '" << name
                           << "' exists";
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<StringRef> reducers(p.reducers.begin(), p.reducers.end());
  b.create<plan::DisdpOp>(
      job.getLoc(), b.getStringAttr(name),
      FlatSymbolRefAttr::get(job.getSymNameAttr()),
      FlatSymbolRefAttr::get(b.getContext(), topology), b.getStringAttr(ps),
      b.getStrArrayAttr(reducers), i64(q.gpus), i64(p.microBatch),
      i64(q.microBatches),
      plan::RecomputeAttr::get(b.getContext(), toPlan(p.recompute)),
      f64(r.disdp.iteration), f64(r.baseline.iteration), i64(q.layers),
      f64(p.parameters), f64(q.forward), f64(q.backward), f64(q.ringAllGather),
      f64(q.ringReduceScatter), f64(q.paramFetch), f64(q.baselineOptimizer),
      f64(q.netAllGather), f64(q.netReduceScatter), f64(q.psUpdate),
      p.baselineOffloadsOptimizer ? b.getUnitAttr() : UnitAttr(),
      p.baselineOffloadsParams ? b.getUnitAttr() : UnitAttr(),
      f64(p.disdpGpuMemory), f64(p.baselineGpuMemory), f64(p.gpuAvailable),
      f64(p.psMemory), f64(p.psAvailable));
  return success();
}

void ModelPlanDisdpPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<JobOp> jobs;
  for (JobOp job : module.getOps<JobOp>())
    if (job.getAction() == JobAction::Train && job.getParameterServerAttr() &&
        (jobName.empty() || job.getSymName() == jobName))
      jobs.push_back(job);
  std::optional<analysis::TopoGraph> graph;
  if (failed(planJobsOnCluster(module, jobs, "model-plan-disdp",
                               [&](JobOp job, const parallel::ParallelCluster &,
                                   StringRef topology) -> LogicalResult {
                                 if (!graph) {
                                   FailureOr<analysis::TopoGraph> g =
                                       extractTopoGraph(module);
                                   if (failed(g))
                                     return failure();
                                   graph = std::move(*g);
                                 }
                                 return planJob(job, *graph, topology);
                               })))
    signalPassFailure();
}
