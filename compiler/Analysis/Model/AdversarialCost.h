//===- AdversarialCost.h - Epoch time of adversarial training ---*- C++ -*-===//
//
// The cost of adversarial training over plain structs (no IR, no LLVM), so
// that the 3D-parallel planner (dialects/Model/Transforms/
// ModelPlanParallel.cpp) and the CPU trainer's benchmark (sluice-bench-io
// adversarial) share one model. docs/adversarial.md states it:
//
//  * plain training of a batch of b samples: b x (forward + backward) of the
//    network plus a fixed per-step time (optimizer, communication);
//  * PGD with k steps (Madry et al.) on a fraction f of each batch: k x
//    (forward + input gradient) on f b samples more. The input gradient is
//    the data-gradient half of a backward through every layer, the first
//    included; no weight gradient is formed;
//  * DBAC: f grows linearly from `fractionStart` at the first step to
//    `fractionEnd` at the last, so the epoch integrates it; pseudo-batches
//    (the attacked samples of P batches attacked together) change the size
//    of the attack's GEMMs, not their FLOPs, and cost the same here (a
//    linear model in the rows);
//  * PeerAiD: the peer network trained beside the student. Per batch: the
//    peer's forward on the clean attacked samples (the attack's target), the
//    k attack steps against the student, the student's forward on the
//    adversarial and on the clean batch and its two backwards (the natural
//    term's gradient flows through both), the peer's forward and backward
//    on the adversarial batch, and both optimizer steps.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_MODEL_ADVERSARIALCOST_H
#define SLUICE_COMPILER_ANALYSIS_MODEL_ADVERSARIALCOST_H

#include <cstdint>
#include <string>

namespace sluice::adversarial {

/// The costs of one network, in seconds per sample (forward, inputGradient,
/// backward) and per step (perStep).
struct PassCosts {
  double forward = 0;
  /// The data gradients of every layer, the first included (an attack step).
  double inputGradient = 0;
  /// A training backward: weight gradients of every layer and data
  /// gradients of all but the first.
  double backward = 0;
  /// Per optimizer step, independent of the batch (optimizer update,
  /// gradient communication).
  double perStep = 0;
};

enum class Technique { None, Pgd, Dbac, PeerAid };
const char *techniqueName(Technique t);

/// An adversarial training job.
struct AttackSpec {
  Technique technique = Technique::None;
  int64_t steps = 0; ///< PGD steps k
  /// Attacked fraction of each batch at the first and at the last step
  /// (PGD, PeerAiD: both the same; DBAC: the schedule).
  double fractionStart = 1, fractionEnd = 1;
  int64_t pseudoBatches = 1; ///< DBAC: batches attacked together
  /// "" or what is wrong.
  std::string check() const;
};

/// The attacked samples of `batch` at step `step` (0-based) of `steps`:
/// round(f batch), f linear from fractionStart to fractionEnd. The runtime
/// attacks exactly this many (runtime/src/train/Adversarial.cpp).
int64_t attackedSamples(const AttackSpec &spec, int64_t batch, int64_t step,
                        int64_t steps);

struct EpochCost {
  double seconds = 0;       ///< the epoch
  double attackSeconds = 0; ///< of which the attack steps
  double peerSeconds = 0;   ///< of which the peer's passes (PeerAiD)
  int64_t attacked = 0;     ///< samples attacked in the epoch
  /// The same epoch trained plainly (no attack, no peer).
  double plainSeconds = 0;
  double overhead() const {
    return plainSeconds > 0 ? seconds / plainSeconds : 0;
  }
};

/// The time of an epoch of `steps` steps of `batch` samples. `peer` is used
/// by PeerAiD only.
EpochCost epochCost(const PassCosts &student, const PassCosts &peer,
                    const AttackSpec &spec, int64_t batch, int64_t steps);

} // namespace sluice::adversarial

#endif // SLUICE_COMPILER_ANALYSIS_MODEL_ADVERSARIALCOST_H
