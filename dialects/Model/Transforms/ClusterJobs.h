//===- ClusterJobs.h - Jobs planned on the flat topology's GPUs -*- C++ -*-===//
//
// What model-plan-parallel and model-plan-distill share: find the module's
// flat topology, build the GPU cluster from it once (parallel::
// clusterFromTopo), and plan each selected job on it, with located errors
// for a missing flat topology, a job on another topology and a topology
// the planners cannot use; and the model dialect's recompute choice as the
// plan dialect's.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_CLUSTERJOBS_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_CLUSTERJOBS_H

#include "compiler/Analysis/Model/TransformerCost.h"
#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Plan/IR/PlanOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace sluice::model {

/// Plans every job of `jobs` (nothing when empty) with `plan(job, cluster,
/// topology)`; fails when any job fails. `passName` names the pass in the
/// missing-flat-topology error.
mlir::LogicalResult planJobsOnCluster(
    mlir::ModuleOp module, llvm::ArrayRef<JobOp> jobs, llvm::StringRef passName,
    llvm::function_ref<mlir::LogicalResult(
        JobOp, const parallel::ParallelCluster &, llvm::StringRef)>
        plan);

/// The 3D planners' view of train job `job` of the model `cfg`: its
/// sequence length (the job's, else the model's), batch, micro-batch (0:
/// the planner's choice) and whether recompute is required.
parallel::TrainJob trainJobOf(JobOp job, const TransformerConfig &cfg);

/// `r` as the plan dialect's enum (plan.parallel, plan.disdp).
plan::Recompute toPlan(Recompute r);

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_CLUSTERJOBS_H
