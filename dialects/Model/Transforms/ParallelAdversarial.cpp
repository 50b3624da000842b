//===- ParallelAdversarial.cpp - Adversarial epochs of a 3D plan ----------===//
#include "dialects/Model/Transforms/ParallelAdversarial.h"

#include "compiler/Analysis/Model/TransformerCost.h"
#include "dialects/Model/Transforms/ModelCostWalk.h"
#include "support/Units.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace sluice;
using namespace sluice::model;

mlir::FailureOr<std::optional<AdversarialPlan>>
sluice::model::planAdversarial(JobOp job, const parallel::TrainJob &tj,
                               const parallel::TimeEstimate &t) {
  if (!job.getAdversarialAttr())
    return std::optional<AdversarialPlan>();
  AdversarialPlan a;
  StringRef kind = *job.getAdversarial();
  a.spec.technique = kind == "dbac"      ? adversarial::Technique::Dbac
                     : kind == "peeraid" ? adversarial::Technique::PeerAid
                                         : adversarial::Technique::Pgd;
  a.spec.steps =
      job.getPgdStepsAttr() ? job.getPgdStepsAttr().getInt() : kDefaultPgdSteps;
  const double start = job.getAttackFractionAttr()
                           ? job.getAttackFractionAttr().getValueAsDouble()
                           : (kind == "dbac" ? 0.0 : 1.0);
  a.spec.fractionStart = start;
  a.spec.fractionEnd = kind != "dbac" ? start
                       : job.getAttackFractionEndAttr()
                           ? job.getAttackFractionEndAttr().getValueAsDouble()
                           : 1.0;
  if (auto p = job.getPseudoBatchesAttr())
    a.spec.pseudoBatches = p.getInt();
  if (std::string e = a.spec.check(); !e.empty())
    return job.emitError() << "job '" << job.getSymName() << "': " << e;
  a.steps = job.getStepsAttr() ? job.getStepsAttr().getInt() : 1;

  const double batch = double(tj.globalBatch);
  const double fb = t.forward + t.backward;
  const double share = fb > 0 ? t.forward / fb : 1.0 / 3.0;
  adversarial::PassCosts student;
  student.forward = t.pipeline * share / batch;
  student.backward = t.pipeline * (1 - share) / batch;
  student.inputGradient = student.forward;
  student.perStep = std::max(0.0, t.iteration - t.pipeline);

  adversarial::PassCosts peer;
  if (a.spec.technique == adversarial::Technique::PeerAid) {
    auto op = SymbolTable::lookupNearestSymbolFrom<TransformerOp>(
        job, job.getPeerAttr());
    std::optional<TransformerConfig> cfg =
        op ? uniformConfig(op) : std::nullopt;
    if (!cfg)
      return job.emitError()
             << "not supported yet: PeerAiD's peer '" << *job.getPeer()
             << "' of job '" << job.getSymName()
             << "' (its layers differ; the planner models one layer group)";
    cfg->seq = tj.model.seq;
    a.peerRatio = model::trainingFlops(*cfg, 1).forward() /
                  model::trainingFlops(tj.model, 1).forward();
    peer.forward = student.forward * a.peerRatio;
    peer.backward = student.backward * a.peerRatio;
    peer.inputGradient = student.inputGradient * a.peerRatio;
    peer.perStep = student.perStep * a.peerRatio;
  }
  a.cost =
      adversarial::epochCost(student, peer, a.spec, tj.globalBatch, a.steps);
  return std::optional<AdversarialPlan>(a);
}

std::string sluice::model::adversarialSummary(const AdversarialPlan &a) {
  std::string s =
      llvm::formatv("adversarial training ({0}, {1} PGD steps",
                    adversarial::techniqueName(a.spec.technique), a.spec.steps);
  if (a.spec.technique == adversarial::Technique::Dbac)
    s += llvm::formatv(", attacked fraction {0} -> {1}, {2} pseudo-batches",
                       a.spec.fractionStart, a.spec.fractionEnd,
                       a.spec.pseudoBatches);
  else if (a.spec.fractionStart < 1)
    s += llvm::formatv(", attacked fraction {0}", a.spec.fractionStart);
  if (a.spec.technique == adversarial::Technique::PeerAid)
    s += llvm::formatv(", peer {0:F2}x the student's FLOPs", a.peerRatio);
  s += "): epoch of " + std::to_string(a.steps) + " steps " +
       formatQuantity(a.cost.seconds, Dim::time()) + " vs " +
       formatQuantity(a.cost.plainSeconds, Dim::time()) +
       llvm::formatv(" without ({0:F2}x; attack ", a.cost.overhead()).str() +
       formatQuantity(a.cost.attackSeconds, Dim::time());
  if (a.spec.technique == adversarial::Technique::PeerAid)
    s += ", peer " + formatQuantity(a.cost.peerSeconds, Dim::time());
  return s + ")";
}
