//===- ParallelAdversarial.h - Adversarial epochs of a 3D plan --*- C++ -*-===//
//
// For model-plan-parallel (ModelPlanParallel.cpp): the epoch time of a train
// job that trains adversarially (`adversarial` on model.job), from its
// chosen plan's time estimate through the cost model of
// compiler/Analysis/Model/AdversarialCost.h (docs/adversarial.md):
//
//  * per sample, the forward and the backward are the pipeline's time
//    (Pipette's T_pp, bubbles included) split in the ratio of the slowest
//    stage's forward and backward; an attack step's input gradient costs
//    one forward (the data-gradient GEMMs have the forward's FLOPs, and no
//    weight gradient is formed); the per-step rest (the gradient reduction
//    and the optimizer) is the iteration less T_pp;
//  * PeerAiD's peer runs on the same GPUs with the same plan, its costs
//    the student's scaled by the ratio of their forward FLOPs at the
//    student's sequence length;
//  * the epoch is the job's `steps` iterations (1 without `steps`).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_PARALLELADVERSARIAL_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_PARALLELADVERSARIAL_H

#include "compiler/Analysis/Model/AdversarialCost.h"
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "dialects/Model/IR/ModelOps.h"

#include <optional>
#include <string>

namespace sluice::model {

struct AdversarialPlan {
  adversarial::AttackSpec spec;
  adversarial::EpochCost cost;
  int64_t steps = 1;    ///< iterations of the epoch
  double peerRatio = 0; ///< PeerAiD: peer / student forward FLOPs
};

/// The defaults of the options a job may omit (docs/adversarial.md).
constexpr int64_t kDefaultPgdSteps = 10;

/// std::nullopt when `job` trains plainly; fails (reported on the job) when
/// its peer cannot be costed.
mlir::FailureOr<std::optional<AdversarialPlan>>
planAdversarial(JobOp job, const parallel::TrainJob &tj,
                const parallel::TimeEstimate &t);

/// One line for --remarks and the summary.
std::string adversarialSummary(const AdversarialPlan &a);

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_PARALLELADVERSARIAL_H
