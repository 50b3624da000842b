//===- Adversarial.h - Adversarial training of the small MLP ----*- C++ -*-===//
//
// Real adversarial training on the CPU, with the kernels of Mlp.h (so the
// attack's GEMMs are the trainer's GEMMs, and docs/adversarial.md's cost
// model is checked against the same loops):
//
//  * PGD (Madry et al.): from a uniform random start in the L-inf ball of
//    radius epsilon around the clean input, k steps of x <- clip(proj(x +
//    alpha sign(dLoss/dx))), projection onto the ball and clipping to the
//    input range [-1, 1] (the synthetic inputs' range, Mlp.h makeBatch);
//  * DBAC: the attacked fraction of each batch grows linearly over the run
//    from `fractionStart` to `fractionEnd`; the attacked samples of
//    `pseudoBatches` consecutive batches are gathered and attacked together
//    (with the weights at the start of the group), then the batches train
//    one by one with their adversarial samples in place;
//  * PeerAiD (Jung et al.): a peer network trained beside the student. The
//    attack targets the student, moving its output away from the peer's
//    output on the clean input; the peer learns the adversarial examples
//    (MSE to the target plus gamma x MSE to the student's output); the
//    student learns the target, the peer's output on the adversarial batch
//    (lambda2) and its own output on the clean batch (lambda3, the gradient
//    flowing through both of its forwards).
//
// The loss is the MLP's 0.5 x mean squared error (Mlp.h) where the papers use
// cross-entropy and KL divergence: the passes, and so the costs, are the
// same. Everything is single-threaded with fixed seeds: the same config gives
// the same bits.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_ADVERSARIAL_H
#define SLUICE_RUNTIME_SRC_TRAIN_ADVERSARIAL_H

#include "runtime/src/train/Mlp.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::train {

struct AdversarialConfig {
  MlpConfig student;
  /// PeerAiD's peer: empty for none; else its widths (same input and output
  /// widths as the student's).
  std::vector<uint32_t> peerWidths;
  uint32_t pgdSteps = 0; ///< 0: plain training
  float epsilon = 0.1f;  ///< L-inf radius
  float stepSize = 0.025f;
  float fractionStart = 1, fractionEnd = 1;  ///< attacked fraction (DBAC)
  uint32_t pseudoBatches = 1;                ///< DBAC
  float gamma = 1, lambda2 = 1, lambda3 = 1; ///< PeerAiD's loss weights
  uint64_t steps = 16; ///< steps of the run (DBAC's schedule spans them)
  /// "" or what is wrong.
  std::string check() const;
};

/// The samples of `batch` attacked at step `step` (0-based) of `steps`:
/// round(f batch), f linear from fractionStart to fractionEnd
/// (compiler/Analysis/Model/AdversarialCost.h, attackedSamples).
uint32_t attackedSamples(const AdversarialConfig &config, uint64_t step);

/// An MLP with its parameters, gradients, Adam moments and two activation
/// slots (PeerAiD's student keeps the adversarial and the clean forward).
class Net {
public:
  Net(const MlpConfig &config, uint32_t maxRows);
  const MlpConfig &config() const { return cfg; }
  uint32_t layers() const { return cfg.layers(); }
  /// y (rows x out) = f(x (rows x in)); keeps the activations in `slot`.
  void forward(uint32_t slot, uint32_t rows, const float *x, float *y);
  /// Weight gradients of the last forward of `slot` for output gradient dY,
  /// added to the gradients when `accumulate`.
  void backward(uint32_t slot, uint32_t rows, const float *dY, bool accumulate);
  /// dLoss/dx (rows x in) of the last forward of `slot`: data gradients of
  /// every layer, no weight gradient.
  void inputGradient(uint32_t slot, uint32_t rows, const float *dY, float *dX);
  void adamStep(uint64_t step);
  const std::vector<float> &params(uint32_t layer) const {
    return param[layer];
  }
  const std::vector<float> &gradients(uint32_t layer) const {
    return grad[layer];
  }

private:
  MlpConfig cfg;
  uint32_t maxRows;
  std::vector<std::vector<float>> param, grad, m, v, scratch;
  std::vector<std::vector<float>> act[2];
  std::vector<float> dA, dB;
};

/// 0.5 x mean of (y - target)^2 over count values; dY = dLoss/dy.
float regressionLoss(const float *y, const float *target, size_t count,
                     float *dY);

struct PgdParams {
  uint32_t steps = 1;
  float epsilon = 0.1f, stepSize = 0.025f;
  float lo = -1, hi = 1; ///< the input range
  uint64_t seed = 1;     ///< of the random start
};
/// PGD on `rows` samples x against `net` (slot 0), maximizing
/// regressionLoss(net(adv), target). Writes adv (rows x in).
void pgdAttack(Net &net, uint32_t rows, const float *x, const float *target,
               const PgdParams &p, float *adv);

struct EpochStats {
  double seconds = 0;          ///< the whole epoch, wall clock
  double cpuSeconds = 0;       ///< the whole epoch, the thread's CPU time
  double attackCpuSeconds = 0; ///< in pgdAttack, CPU time
  double meanLoss = 0;      ///< the student's loss on its training batches
  uint64_t attacked = 0;    ///< samples attacked
  uint64_t steps = 0;
};

class AdversarialTrainer {
public:
  /// config.check() must be "".
  explicit AdversarialTrainer(const AdversarialConfig &config);
  /// Trains the run's config.steps steps.
  EpochStats epoch();
  const Net &student() const { return studentNet; }
  const Net *peer() const { return hasPeer ? &peerNet : nullptr; }

private:
  void trainPlain(const float *x, const float *target, EpochStats &stats);
  void trainPeer(const float *clean, const float *x, const float *target,
                 EpochStats &stats);

  AdversarialConfig config;
  bool hasPeer;
  Net studentNet, peerNet;
  uint64_t done = 0; ///< optimizer steps taken
  std::vector<float> yS, yN, yP, dS, dN, dP;
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_ADVERSARIAL_H
