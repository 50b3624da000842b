//===- ModelPlanDistill.cpp - The model-plan-distill pass -----------------===//
//
// A thin adaptor between `distill` model.job ops and the IR-independent
// Pipe-BD planner (compiler/Analysis/Parallel/PipeBD.h): the blocks' costs
// from the teacher's and the student's model.transformer (ModelCostWalk's
// per-block formulas at the job's sequence length), the cluster from the
// flat topology (as model-plan-parallel), and the plan written back as a
// plan.distill op with one plan.distill_stage per pipeline stage.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "compiler/Analysis/Parallel/PipeBD.h"
#include "dialects/Model/Transforms/ClusterJobs.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/IR/PlanOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "support/Units.h"

namespace sluice::model {
#define GEN_PASS_DEF_MODELPLANDISTILL
#include "dialects/Model/Transforms/Passes.h.inc"
} // namespace sluice::model

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

namespace {

struct ModelPlanDistillPass
    : public sluice::model::impl::ModelPlanDistillBase<ModelPlanDistillPass> {
  using ModelPlanDistillBase::ModelPlanDistillBase;
  void runOnOperation() override;
  LogicalResult planJob(JobOp job, const parallel::ParallelCluster &cluster,
                        StringRef topology);
};

/// One layer of a transformer at `seq` tokens, per sequence.
struct LayerCost {
  double params = 0, fwdFlops = 0, actBytes = 0;
};

/// Every layer of `model`, in order.
std::vector<LayerCost> layerCosts(TransformerOp model, int64_t seq) {
  std::vector<LayerCost> out;
  for (Operation &child : model.getBody().front()) {
    auto layers = dyn_cast<LayersOp>(child);
    if (!layers)
      continue;
    LayerCost one;
    for (Operation &inner : layers.getBody().front()) {
      BlockCost b = blockCost(&inner, seq, 1);
      one.params += static_cast<double>(b.params);
      one.fwdFlops += b.fwdFlops;
      one.actBytes += b.actBytes;
    }
    out.insert(out.end(), static_cast<size_t>(layers.getCountAttr().getInt()),
               one);
  }
  return out;
}

/// Layers [first, first + count) of block j of `blocks` over `layers`
/// layers: as even as possible, the first blocks taking the extra layer.
std::pair<int64_t, int64_t> blockLayers(int64_t layers, int64_t blocks,
                                        int64_t j) {
  const int64_t base = layers / blocks, extra = layers % blocks;
  return {j * base + std::min(j, extra), base + (j < extra ? 1 : 0)};
}

LayerCost sumLayers(const std::vector<LayerCost> &layers,
                    std::pair<int64_t, int64_t> range) {
  LayerCost s;
  for (int64_t i = range.first; i < range.first + range.second; ++i) {
    const LayerCost &l = layers[static_cast<size_t>(i)];
    s.params += l.params;
    s.fwdFlops += l.fwdFlops;
    s.actBytes += l.actBytes;
  }
  return s;
}

} // namespace

LogicalResult ModelPlanDistillPass::planJob(
    JobOp job, const parallel::ParallelCluster &cluster, StringRef topology) {
  auto pair =
      SymbolTable::lookupNearestSymbolFrom<DistillOp>(job, job.getModelAttr());
  if (!pair)
    return job.emitError() << "'" << job.getModel()
                           << "' does not name a model.distill";
  auto teacher = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      pair, pair.getTeacherAttr());
  auto student = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      pair, pair.getStudentAttr());
  if (!teacher || !student)
    return job.emitError() << "the teacher and the student of '"
                           << job.getModel()
                           << "' must name model.transformer ops";
  const int64_t seq = job.getSeqAttr() ? job.getSeqAttr().getInt()
                                       : teacher.getSeqAttr().getInt();
  if (!job.getSeqAttr() &&
      student.getSeqAttr().getInt() != teacher.getSeqAttr().getInt())
    return job.emitError()
           << "teacher '" << pair.getTeacher() << "' has seq "
           << teacher.getSeqAttr().getInt() << " and student '"
           << pair.getStudent() << "' seq " << student.getSeqAttr().getInt()
           << ": the student learns the teacher's block outputs token by "
              "token; give the job a seq";
  const std::vector<LayerCost> tLayers = layerCosts(teacher, seq);
  const std::vector<LayerCost> sLayers = layerCosts(student, seq);
  const int64_t blocks = pair.getBlocksAttr().getInt();
  const double tBytes = static_cast<double>(dtypeBytes(teacher));
  const double sBytes = static_cast<double>(dtypeBytes(student));
  const double th = static_cast<double>(teacher.getHiddenAttr().getInt());
  const double sh = static_cast<double>(student.getHiddenAttr().getInt());
  Optimizer opt = Optimizer::Adam;
  if (job.getOptimizer())
    if (std::optional<Optimizer> o = parseOptimizer(job.getOptimizer()->str()))
      opt = *o;
  const double stateBytesPerParam =
      2 * sBytes + optimizerCost(opt).stateBytes; // weights, grads, states

  parallel::DistillJob dj;
  dj.batch = job.getBatchAttr().getInt();
  dj.residentSamples =
      job.getMicroBatchAttr() ? job.getMicroBatchAttr().getInt() : 0;
  dj.efficiency = parallel::ModelOptions().kernelEfficiency;
  dj.commEfficiency = parallel::ModelOptions().collectiveEfficiency;
  const double s = static_cast<double>(seq);
  for (int64_t j = 0; j < blocks; ++j) {
    LayerCost t = sumLayers(
        tLayers, blockLayers(static_cast<int64_t>(tLayers.size()), blocks, j));
    LayerCost st = sumLayers(
        sLayers, blockLayers(static_cast<int64_t>(sLayers.size()), blocks, j));
    // Widths differ: a projection h_t -> h_s on the block's input and back
    // on its output (two GEMMs of s x h_t x h_s per sample).
    if (th != sh) {
      st.params += 2 * th * sh;
      st.fwdFlops += 2 * 2 * s * th * sh;
    }
    parallel::DistillBlock b;
    b.teacherFlops = t.fwdFlops;
    b.studentFlops = 3 * st.fwdFlops; // forward + backward
    b.studentParamBytes = st.params * sBytes;
    b.outputBytes = s * th * tBytes;
    b.teacherParamBytes = t.params * tBytes;
    b.studentStateBytes = st.params * stateBytesPerParam;
    // Stored for the student's backward, plus the teacher block's input and
    // output held while the student trains on them.
    b.activationBytes = st.actBytes + 2 * b.outputBytes;
    dj.blocks.push_back(b);
  }
  auto result = parallel::planPipeBD(dj, cluster);
  if (!result)
    return job.emitError() << "cannot plan job '" << job.getSymName()
                           << "' on '" << topology
                           << "': " << llvm::toString(result.takeError());
  const parallel::PipeBDPlan &p = *result;
  if (remarks) {
    InFlightDiagnostic d = job.emitRemark();
    d << "job '" << job.getSymName() << "': " << p.stages.size()
      << " stages for " << blocks << " blocks on " << cluster.gpus()
      << " GPUs; " << formatQuantity(p.batchTime, Dim::time())
      << " per batch against " << formatQuantity(p.baselineTime, Dim::time())
      << " block by block";
    if (!p.baselineFits())
      d << " (which does not fit: "
        << formatQuantity(p.baselineMemory, Dim::bytes()) << " per GPU)";
  }
  const std::string name = job.getSymName().str() + "_distill";
  ModuleOp module = getOperation();
  if (SymbolTable::lookupSymbolIn(module, name))
    return job.emitError() << "cannot name the plan of job '"
                           << job.getSymName() << "': symbol '" << name
                           << "' exists";
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto f64 = [&](double v) { return b.getF64FloatAttr(v); };
  auto op = b.create<plan::DistillOp>(
      job.getLoc(), b.getStringAttr(name),
      FlatSymbolRefAttr::get(job.getSymNameAttr()),
      FlatSymbolRefAttr::get(b.getContext(), topology),
      b.getI64IntegerAttr(dj.batch), f64(p.batchTime), f64(p.baselineTime),
      f64(p.memoryAvailable), f64(p.baselineMemory));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&op.getBody().emplaceBlock());
  for (auto [i, st] : llvm::enumerate(p.stages)) {
    SmallVector<StringRef> gpus;
    for (int64_t g = st.firstGpu; g < st.firstGpu + st.gpus; ++g)
      gpus.push_back(cluster.gpuNames[static_cast<size_t>(g)]);
    b.create<plan::DistillStageOp>(
        job.getLoc(), b.getI64IntegerAttr(static_cast<int64_t>(i)),
        b.getI64IntegerAttr(st.firstBlock), b.getI64IntegerAttr(st.blocks),
        b.getStrArrayAttr(gpus), f64(st.compute), f64(st.allReduce),
        f64(st.p2p), f64(st.memory));
  }
  return success();
}

void ModelPlanDistillPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<JobOp> jobs;
  for (JobOp job : module.getOps<JobOp>())
    if (job.getAction() == JobAction::Distill &&
        (jobName.empty() || job.getSymName() == jobName))
      jobs.push_back(job);
  if (failed(planJobsOnCluster(
          module, jobs, "model-plan-distill",
          [&](JobOp job, const parallel::ParallelCluster &cluster,
              StringRef topology) { return planJob(job, cluster, topology); })))
    signalPassFailure();
}
