//===- ModelOffload.cpp - Offload plans for model jobs --------------------===//
#include "dialects/Model/Transforms/ModelOffload.h"

#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadExport.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "compiler/Analysis/TopoAnalysis.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

bool sluice::model::hasModelJobs(ModuleOp module) {
  return !module.getOps<JobOp>().empty();
}

namespace {

/// One job's inputs for the planners.
struct Prepared {
  TransformerConfig config;
  offload::Machine machine;
};

FailureOr<Prepared> prepare(JobOp job, const analysis::TopoGraph &graph,
                            StringRef topology) {
  if (job.getTopology() != topology)
    return mlir::emitError(job.getLoc())
           << "job '" << job.getSymName() << "' runs on '" << job.getTopology()
           << "' but the flattened topology is '" << topology
           << "' (pass --top=" << job.getTopology() << ")";
  auto model = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
      job, job.getModelAttr());
  if (!model)
    return mlir::emitError(job.getLoc())
           << "'" << job.getModel() << "' does not name a model.transformer";
  std::optional<TransformerConfig> cfg = uniformConfig(model);
  if (!cfg)
    return mlir::emitError(job.getLoc())
           << "not supported yet: planning model '" << job.getModel()
           << "' (the planners describe models with identical layers)";
  if (auto seq = job.getSeqAttr())
    cfg->seq = seq.getInt();

  std::vector<unsigned> gpus = analysis::devicesOfKind(graph, "gpu");
  if (gpus.empty())
    return mlir::emitError(job.getLoc())
           << "topology '" << topology << "' has no gpu";
  const std::string gpu = graph.devices[gpus.front()].name;
  auto machine = offload::machineFromTopo(graph, gpu);
  if (!machine)
    return mlir::emitError(job.getLoc())
           << "cannot plan job '" << job.getSymName() << "' on '" << topology
           << "': " << llvm::toString(machine.takeError());
  machine->name = topology.str() + ":" + gpu;
  return Prepared{*cfg, *machine};
}

offload::FinetuneJob finetuneJob(JobOp job, const TransformerConfig &cfg) {
  offload::FinetuneJob fj;
  fj.model = cfg;
  fj.batch = job.getBatchAttr().getInt();
  fj.microBatch =
      job.getMicroBatchAttr() ? job.getMicroBatchAttr().getInt() : 0;
  // SGD with momentum: fp32 master weights and momentum (8 bytes), not
  // Adam's 12.
  if (job.getOptimizer() && *job.getOptimizer() == "sgd")
    fj.precision.optimizerBytes = 8;
  return fj;
}

offload::FinetuneOptions finetuneOptions(JobOp job) {
  offload::FinetuneOptions o;
  // `recompute: true`: keep only the layer inputs and recompute the rest.
  if (job.getRecompute())
    o.activationSwapping = false;
  return o;
}

offload::InferenceOptions inferenceOptions(JobOp job) {
  offload::InferenceOptions o;
  // A job that states its batch plans blocks of exactly that many sequences.
  if (auto b = job.getBatchAttr()) {
    o.gpuBatchSizes = {b.getInt()};
    o.maxGpuBatches = 1;
  }
  return o;
}

} // namespace

LogicalResult
sluice::model::planModelJobs(ModuleOp module, const analysis::TopoGraph &graph,
                             StringRef topology, StringRef jobName,
                             OffloadFormat format, llvm::raw_ostream &os) {
  llvm::SmallVector<JobOp> jobs;
  for (JobOp job : module.getOps<JobOp>())
    if (jobName.empty() || job.getSymName() == jobName)
      jobs.push_back(job);
  if (jobs.empty())
    return mlir::emitError(module.getLoc())
           << (jobName.empty()
                   ? std::string("no finetune or infer job")
                   : "no finetune or infer job named '" + jobName.str() + "'");
  if ((format == OffloadFormat::Trace || format == OffloadFormat::DeepSpeed)) {
    if (jobs.size() != 1)
      return mlir::emitError(module.getLoc())
             << "--format="
             << (format == OffloadFormat::Trace ? "trace" : "deepspeed")
             << " writes one job; choose one with --job=NAME";
    if (jobs.front().getAction() != "finetune")
      return mlir::emitError(jobs.front().getLoc())
             << "--format=trace and --format=deepspeed apply to finetune "
                "jobs";
  }

  bool failed = false;
  llvm::json::Object all;
  for (JobOp job : jobs) {
    FailureOr<Prepared> p = prepare(job, graph, topology);
    if (llvm::failed(p)) {
      failed = true;
      continue;
    }
    std::string reason;
    if (job.getAction() == "finetune") {
      offload::FinetuneJob fj = finetuneJob(job, p->config);
      auto plan = offload::planFinetune(fj, p->machine, finetuneOptions(job));
      if (!plan) {
        mlir::emitError(job.getLoc())
            << "cannot plan job '" << job.getSymName()
            << "': " << llvm::toString(plan.takeError());
        failed = true;
        continue;
      }
      if (!plan->feasible)
        reason = plan->infeasibleReason;
      switch (format) {
      case OffloadFormat::Summary:
        os << "job " << job.getSymName() << ":\n"
           << offload::finetuneSummary(*plan, fj, p->machine);
        break;
      case OffloadFormat::Json:
        all[job.getSymName()] =
            offload::finetunePlanToJson(*plan, fj, p->machine);
        break;
      case OffloadFormat::Trace:
        if (plan->feasible)
          os << llvm::formatv("{0:2}", offload::finetuneTrace(*plan)) << "\n";
        break;
      case OffloadFormat::DeepSpeed:
        if (plan->feasible) {
          auto ds = offload::deepSpeedConfig(*plan, fj, p->machine);
          if (!ds) {
            mlir::emitError(job.getLoc()) << llvm::toString(ds.takeError());
            failed = true;
            continue;
          }
          os << llvm::formatv("{0:2}", *ds) << "\n";
        }
        break;
      }
    } else {
      offload::InferenceJob ij;
      ij.model = p->config;
      ij.prompt = p->config.seq;
      ij.generate = job.getTokensAttr().getInt();
      auto plan = offload::planInference(ij, p->machine, inferenceOptions(job));
      if (!plan) {
        mlir::emitError(job.getLoc())
            << "cannot plan job '" << job.getSymName()
            << "': " << llvm::toString(plan.takeError());
        failed = true;
        continue;
      }
      if (!plan->feasible)
        reason = plan->infeasibleReason;
      if (format == OffloadFormat::Json)
        all[job.getSymName()] =
            offload::inferencePlanToJson(*plan, ij, p->machine);
      else
        os << "job " << job.getSymName() << ":\n"
           << offload::inferenceSummary(*plan, ij, p->machine);
    }
    if (!reason.empty()) {
      mlir::emitError(job.getLoc())
          << "job '" << job.getSymName() << "' does not fit on '" << topology
          << "': " << reason;
      failed = true;
    }
  }
  if (format == OffloadFormat::Json)
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(all))) << "\n";
  return failure(failed);
}
