//===- ModelPlanParallel.cpp - The model-plan-parallel pass ---------------===//
//
// A thin adaptor between `train` model.job ops and the IR-independent 3D-
// parallel planner (compiler/Analysis/Parallel): extracts the cluster from
// the flat topology and the transformer from the job's model, runs
// planParallel, and writes the plan back as a typed plan.parallel op with
// one plan.stage per pipeline stage.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelSearch.h"
#include "dialects/Model/Transforms/ClusterJobs.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "dialects/Model/Transforms/ParallelAdversarial.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "support/Units.h"
#include "llvm/Support/FormatVariadic.h"

namespace sluice::model {
#define GEN_PASS_DEF_MODELPLANPARALLEL
#include "dialects/Model/Transforms/Passes.h.inc"
} // namespace sluice::model

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

namespace {

struct ModelPlanParallelPass
    : public sluice::model::impl::ModelPlanParallelBase<ModelPlanParallelPass> {
  using ModelPlanParallelBase::ModelPlanParallelBase;
  void runOnOperation() override;
  LogicalResult planJob(JobOp job, const parallel::ParallelCluster &cluster,
                        StringRef topology);
};

plan::PlacementMethod toPlan(parallel::PlacementResult::Method m) {
  switch (m) {
  case parallel::PlacementResult::Method::Default:
    return plan::PlacementMethod::Default;
  case parallel::PlacementResult::Method::Uniform:
    return plan::PlacementMethod::UniformLinks;
  case parallel::PlacementResult::Method::Exact:
    return plan::PlacementMethod::Exact;
  case parallel::PlacementResult::Method::Annealing:
    return plan::PlacementMethod::Annealing;
  }
  llvm_unreachable("unknown placement method");
}

/// Optimus-CC's default rank when the job gives none (an assumption,
/// docs/parallel.md).
constexpr int64_t kDefaultCompressRank = 64;

/// What the search did with compression, for --remarks.
std::string compressionRemark(const parallel::TimeEstimate &t, int64_t rank,
                              const parallel::ParallelConfig &c) {
  std::string s = "Optimus-CC rank " + std::to_string(rank) + ": ";
  if (t.compressRank == 0)
    return s + "not kept (no compressed variant predicted faster)";
  s += "epilogue ";
  s += t.compressedMicroBatches > 0
           ? "saves " + formatQuantity(t.epilogueSaving, Dim::time())
           : std::string(c.pp > 1 ? "not kept" : "none (pp 1)");
  s += ", gradients ";
  s += !t.compressedDataStages.empty()
           ? "save " + formatQuantity(t.dataSaving, Dim::time())
           : std::string(c.dp > 1 ? "not kept" : "none (dp 1)");
  return s + " (" + formatQuantity(t.uncompressedIteration, Dim::time()) +
         " -> " + formatQuantity(t.iteration, Dim::time()) + ")";
}

/// Why this ep: the chosen configuration with each other ep.
std::string epRemark(const parallel::ParallelPlan &p, int64_t experts) {
  std::string s = "ep " + std::to_string(p.config.ep) + " of " +
                  std::to_string(experts) + " experts (" +
                  std::to_string(experts / p.config.ep) +
                  " per gpu); with the rest of the plan fixed:";
  for (const parallel::EpAlternative &a : p.epAlternatives) {
    const parallel::Estimate &e = a.estimate;
    s += " ep " + std::to_string(a.ep);
    if (e.rejected != parallel::Constraint::None &&
        e.rejected != parallel::Constraint::Memory) {
      s += " invalid (" + e.reason + ");";
      continue;
    }
    s += " " + formatQuantity(e.time.iteration, Dim::time()) + " (all-to-all " +
         formatQuantity(e.time.expertComm, Dim::time()) +
         " per micro-batch, gradient reduction " +
         formatQuantity(e.time.dataComm, Dim::time()) + ", " +
         formatQuantity(e.memory.calibrated, Dim::bytes()) + " per gpu" +
         (e.memory.fits() ? "" : ", does not fit") + ")" +
         (a.ep == p.config.ep ? " chosen;" : ";");
  }
  s.pop_back();
  return s;
}

} // namespace

LogicalResult ModelPlanParallelPass::planJob(
    JobOp job, const parallel::ParallelCluster &cluster, StringRef topology) {
  auto model = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      job, job.getModelAttr());
  if (!model)
    return job.emitError() << "'" << job.getModel()
                           << "' does not name a model.transformer";
  std::optional<TransformerConfig> cfg = uniformConfig(model);
  if (!cfg)
    return job.emitError()
           << "not supported yet: parallel planning of model '"
           << job.getModel()
           << "' (its layers differ; the planner models one layer group)";
  parallel::TrainJob tj = trainJobOf(job, *cfg);
  parallel::SearchOptions opts;
  // Optimus-CC is lossy: only when the job asks for it (`compress: true`).
  if (job.getCompress().value_or(false)) {
    const int64_t rank = job.getCompressRankAttr()
                             ? job.getCompressRankAttr().getInt()
                             : kDefaultCompressRank;
    if (rank >= tj.model.hidden)
      return job.emitError()
             << "compress_rank " << rank << " of job '" << job.getSymName()
             << "' must be below the hidden size " << tj.model.hidden
             << " (a rank that large compresses nothing)";
    opts.model.compressRank = rank;
  }
  opts.seed = seed;
  opts.annealIterations = annealIterations;
  opts.searchPlacement = searchPlacement;
  auto result = parallel::planParallel(tj, cluster, opts);
  if (!result)
    return job.emitError() << "cannot plan job '" << job.getSymName()
                           << "': " << llvm::toString(result.takeError());
  const parallel::ParallelPlan &p = *result;
  // Adversarial training: the epoch with and without the technique.
  FailureOr<std::optional<AdversarialPlan>> adv =
      p.feasible ? planAdversarial(job, tj, p.estimate.time)
                 : FailureOr<std::optional<AdversarialPlan>>(std::nullopt);
  if (failed(adv))
    return failure();
  if (remarks && *adv)
    job.emitRemark() << "job '" << job.getSymName()
                     << "': " << adversarialSummary(**adv);
  if (remarks) {
    InFlightDiagnostic d = job.emitRemark();
    d << "job '" << job.getSymName() << "': " << p.configurations
      << " configurations, rejected " << p.rejected[1] << " by divisibility, "
      << p.rejected[2] << " by tensor-parallel span, " << p.rejected[3]
      << " by GPU memory; " << p.evaluated << " costed";
    if (opts.model.compressRank > 0 && p.feasible)
      d << "; "
        << compressionRemark(p.estimate.time, opts.model.compressRank,
                             p.config);
    for (const auto &[c, t] : p.runnersUp)
      d << "; " << c.str() << ": " << formatQuantity(t, Dim::time());
  }
  if (remarks && !p.epAlternatives.empty())
    job.emitRemark() << "job '" << job.getSymName()
                     << "': " << epRemark(p, tj.model.experts);
  if (!p.feasible) {
    InFlightDiagnostic d = job.emitError() << "job '" << job.getSymName()
                                           << "' does not fit on '" << topology
                                           << "': " << p.infeasibleReason;
    // Train jobs keep every state on the GPUs; offload is the finetune
    // planner's (data parallel over one server's GPUs).
    if (StringRef(p.infeasibleReason).starts_with("GPU memory"))
      d << " (a `finetune` job of the model offloads its states to host "
           "memory and NVMe)";
    return d;
  }
  const std::string name = job.getSymName().str() + "_parallel";
  ModuleOp module = getOperation();
  if (SymbolTable::lookupSymbolIn(module, name))
    return job.emitError() << "cannot name the plan of job '"
                           << job.getSymName() << "': symbol '" << name
                           << "' exists";
  const parallel::ParallelConfig &c = p.config;
  const parallel::Estimate &e = p.estimate;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  auto op = b.create<plan::ParallelOp>(
      job.getLoc(), b.getStringAttr(name),
      FlatSymbolRefAttr::get(job.getSymNameAttr()),
      FlatSymbolRefAttr::get(b.getContext(), topology),
      b.getI64IntegerAttr(c.tp), b.getI64IntegerAttr(c.pp),
      b.getI64IntegerAttr(c.dp), b.getI64IntegerAttr(c.microBatch),
      b.getI64IntegerAttr(c.microBatches(tj)),
      b.getI64IntegerAttr(c.virtualStages),
      plan::RecomputeAttr::get(b.getContext(), toPlan(c.recompute)),
      c.sequenceParallel ? b.getUnitAttr() : UnitAttr(),
      b.getI64IntegerAttr(c.zeroStage),
      plan::PlacementMethodAttr::get(b.getContext(),
                                     toPlan(p.placement.method)),
      f64(e.time.iteration), f64(p.defaultEstimate.time.iteration),
      f64(e.time.forward), f64(e.time.backward), f64(e.time.p2p),
      f64(e.time.dataComm), f64(e.time.tflopsPerGpu), f64(e.time.mfu),
      f64(e.memory.calibrated), f64(e.memory.available),
      /*compress_rank=*/IntegerAttr(),
      /*compressed_micro_batches=*/IntegerAttr(),
      /*compressed_dp_stages=*/DenseI64ArrayAttr(),
      /*uncompressed_time=*/FloatAttr(), /*compressed_p2p=*/FloatAttr(),
      c.offloadOptimizer ? f64(e.time.optimizer) : FloatAttr(),
      c.offloadOptimizer ? f64(e.memory.hostNeed) : FloatAttr(),
      *adv ? f64((*adv)->cost.seconds) : FloatAttr(),
      *adv ? f64((*adv)->cost.plainSeconds) : FloatAttr(),
      *adv ? f64((*adv)->cost.attackSeconds) : FloatAttr(),
      *adv && (*adv)->spec.technique == adversarial::Technique::PeerAid
          ? f64((*adv)->cost.peerSeconds)
          : FloatAttr(),
      /*ep=*/IntegerAttr(), /*expert_comm=*/FloatAttr());
  if (tj.model.moe()) {
    op.setEpAttr(b.getI64IntegerAttr(c.ep));
    op.setExpertCommAttr(f64(e.time.expertComm));
  }
  if (const parallel::TimeEstimate &t = e.time; t.compressRank > 0) {
    op.setCompressRankAttr(b.getI64IntegerAttr(t.compressRank));
    if (t.compressedMicroBatches > 0) {
      op.setCompressedMicroBatchesAttr(
          b.getI64IntegerAttr(t.compressedMicroBatches));
      op.setCompressedP2pAttr(f64(t.compressedBackwardP2p));
    }
    if (!t.compressedDataStages.empty())
      op.setCompressedDpStagesAttr(
          b.getDenseI64ArrayAttr(t.compressedDataStages));
    op.setUncompressedTimeAttr(f64(t.uncompressedIteration));
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&op.getBody().emplaceBlock());
  const int64_t chunk = tj.model.layers / (c.pp * c.virtualStages);
  const int64_t perStage = c.tp * c.dp;
  for (int64_t s = 0; s < c.pp; ++s) {
    SmallVector<int64_t> firsts;
    for (int64_t v = 0; v < c.virtualStages; ++v)
      firsts.push_back((v * c.pp + s) * chunk);
    SmallVector<StringRef> gpus;
    for (int64_t i = 0; i < perStage; ++i)
      gpus.push_back(cluster.gpuNames[static_cast<size_t>(
          p.placement.placement
              .gpuOfRank[static_cast<size_t>(s * perStage + i)])]);
    b.create<plan::StageOp>(
        job.getLoc(), b.getI64IntegerAttr(s), b.getDenseI64ArrayAttr(firsts),
        b.getI64IntegerAttr(chunk), b.getStrArrayAttr(gpus));
  }
  return success();
}

void ModelPlanParallelPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<JobOp> jobs;
  for (JobOp job : module.getOps<JobOp>())
    // Jobs with a parameter server are model-plan-disdp's (DisDP).
    if (job.getAction() == JobAction::Train && !job.getParameterServerAttr() &&
        (jobName.empty() || job.getSymName() == jobName))
      jobs.push_back(job);
  if (failed(planJobsOnCluster(
          module, jobs, "model-plan-parallel",
          [&](JobOp job, const parallel::ParallelCluster &cluster,
              StringRef topology) { return planJob(job, cluster, topology); })))
    signalPassFailure();
}
