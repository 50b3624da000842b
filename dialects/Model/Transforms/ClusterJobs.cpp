//===- ClusterJobs.cpp - Jobs planned on the flat topology's GPUs ---------===//
#include "dialects/Model/Transforms/ClusterJobs.h"

#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "dialects/Topo/IR/TopoOps.h"

#include <optional>

using namespace mlir;
using namespace sluice;

LogicalResult model::planJobsOnCluster(
    ModuleOp module, ArrayRef<JobOp> jobs, StringRef passName,
    llvm::function_ref<LogicalResult(JobOp, const parallel::ParallelCluster &,
                                     StringRef)>
        plan) {
  if (jobs.empty())
    return success();
  topo::TopologyOp flat = findFlatTopology(module);
  if (!flat)
    return JobOp(jobs.front()).emitError()
           << passName << " needs the flat topology (run topo-flatten)";
  StringRef topology = flat.getSymName();
  FailureOr<analysis::TopoGraph> graph = extractTopoGraph(module);
  if (failed(graph))
    return failure();
  std::optional<parallel::ParallelCluster> cluster;
  bool failedAny = false;
  for (JobOp job : jobs) {
    if (job.getTopology() != topology) {
      job.emitError() << "job '" << job.getSymName() << "' runs on '"
                      << job.getTopology()
                      << "' but the flattened topology is '" << topology
                      << "' (pass --top=" << job.getTopology() << ")";
      failedAny = true;
      continue;
    }
    if (!cluster) {
      auto c = parallel::clusterFromTopo(*graph, topology);
      if (!c) {
        job.emitError() << "cannot plan job '" << job.getSymName() << "' on '"
                        << topology << "': " << llvm::toString(c.takeError());
        failedAny = true;
        continue;
      }
      cluster = std::move(*c);
    }
    failedAny |= failed(plan(job, *cluster, topology));
  }
  return failure(failedAny);
}

plan::Recompute sluice::model::toPlan(Recompute r) {
  switch (r) {
  case Recompute::None:
    return plan::Recompute::None;
  case Recompute::Selective:
    return plan::Recompute::Selective;
  case Recompute::Full:
    return plan::Recompute::Full;
  }
  llvm_unreachable("unknown recompute");
}

parallel::TrainJob sluice::model::trainJobOf(JobOp job,
                                             const TransformerConfig &cfg) {
  parallel::TrainJob tj;
  tj.model = cfg;
  if (auto seq = job.getSeqAttr())
    tj.model.seq = seq.getInt();
  tj.globalBatch = job.getBatchAttr().getInt();
  tj.microBatch =
      job.getMicroBatchAttr() ? job.getMicroBatchAttr().getInt() : 0;
  tj.recomputeRequired = job.getRecompute().value_or(false);
  return tj;
}
