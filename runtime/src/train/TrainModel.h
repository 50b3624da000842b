//===- TrainModel.h - A model the offload trainer can train ------*- C++
//-*-===//
//
// The offload trainer (OffloadTrainer.h) and the in-memory trainer below
// train any model that is a chain of layers: layer l has a parameter tensor
// (its gradient and Adam moments have the same size) and a saved
// activation, its input. One training step is
//
//   beginStep(s, act[0])                  the input batch of step s
//   forward(l, param[l], act[l], act[l+1]) for l = 0..L-1 (the last layer
//                                         gets no output: it computes the
//                                         loss and keeps what its backward
//                                         needs)
//   backward(l, param[l], act[l], grad[l]) for l = L-1..0 (the gradient
//                                         flowing between layers is the
//                                         model's own scratch)
//   Adam on (param[l], grad[l], m[l], v[l]) for every l, in any order after
//                                         the layer's backward
//
// The trainer decides where each tensor lives between these calls; the
// model computes. A model's calls must give the same bits for the same
// inputs wherever the tensors were stored (single-threaded loops with a
// fixed summation order), so that every schedule trains the same model.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_TRAINMODEL_H
#define SLUICE_RUNTIME_SRC_TRAIN_TRAINMODEL_H

#include "runtime/src/train/Abft.h"
#include "runtime/src/train/Mlp.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice::train {

class TrainModel {
public:
  virtual ~TrainModel() = default;
  /// A copy with fresh scratch state (each trainer owns one).
  virtual std::unique_ptr<TrainModel> clone() const = 0;
  /// "MLP", "transformer": for messages.
  virtual const char *kind() const = 0;
  /// "" or what is wrong with the configuration.
  virtual std::string check() const = 0;
  virtual uint32_t layers() const = 0;
  /// Floats of layer `layer`'s parameters (and of its gradient and moments).
  virtual size_t paramCount(uint32_t layer) const = 0;
  /// Floats of layer `layer`'s saved input.
  virtual size_t activationCount(uint32_t layer) const = 0;
  virtual AdamParams adam() const = 0;
  /// Deterministic initial parameters of `layer`.
  virtual void initParams(uint32_t layer, float *param) const = 0;

  /// Writes step `step`'s input (1-based; a function of the seed and the
  /// step only) into the first layer's saved activation and keeps its
  /// targets.
  virtual void beginStep(uint64_t step, float *input) = 0;
  /// Forward of `layer`; `next` is the next layer's saved activation, null
  /// for the last layer, which computes the loss. Every GEMM goes through
  /// `guard` (Abft.h: checked, faults injected, as it says). False (with
  /// `fault`) when a checked GEMM failed.
  virtual bool forward(uint32_t layer, const float *param, const float *act,
                       float *next, AbftGuard &guard, AbftFault &fault) = 0;
  /// The loss of the step's forward pass.
  virtual float loss() const = 0;
  /// Backward of `layer` (after the backward of layer+1): writes its
  /// parameter gradient and keeps the gradient of its input for layer-1.
  virtual bool backward(uint32_t layer, const float *param, const float *act,
                        float *grad, AbftGuard &guard, AbftFault &fault) = 0;
};

/// The MLP of Mlp.h as a TrainModel (the same kernels as ReferenceTrainer).
class MlpModel final : public TrainModel {
public:
  explicit MlpModel(const MlpConfig &config) : config(config) {}
  std::unique_ptr<TrainModel> clone() const override {
    return std::make_unique<MlpModel>(config);
  }
  const char *kind() const override { return "MLP"; }
  std::string check() const override { return config.check(); }
  uint32_t layers() const override { return config.layers(); }
  size_t paramCount(uint32_t layer) const override {
    return config.paramCount(layer);
  }
  size_t activationCount(uint32_t layer) const override {
    return config.activationCount(layer);
  }
  AdamParams adam() const override { return config.adam(); }
  void initParams(uint32_t layer, float *param) const override {
    sluice::train::initParams(config, layer, param);
  }
  void beginStep(uint64_t step, float *input) override;
  bool forward(uint32_t layer, const float *param, const float *act,
               float *next, AbftGuard &guard, AbftFault &fault) override;
  float loss() const override { return stepLoss; }
  bool backward(uint32_t layer, const float *param, const float *act,
                float *grad, AbftGuard &guard, AbftFault &fault) override;

private:
  MlpConfig config;
  std::vector<float> y, target, dZ, dX;
  float stepLoss = 0;
};

/// Trains a TrainModel with every tensor in memory: the bit-exact reference
/// of the offload trainer for any model.
class InMemoryTrainer {
public:
  /// `model` must be valid (check() empty); GEMMs are not checked.
  explicit InMemoryTrainer(const TrainModel &model);
  /// Runs step steps()+1; returns the loss.
  float step();
  uint64_t steps() const { return done; }
  const std::vector<float> &params(uint32_t layer) const {
    return param[layer];
  }
  std::vector<float> &mutableParams(uint32_t layer) { return param[layer]; }
  const std::vector<float> &grads(uint32_t layer) const { return grad[layer]; }
  /// Forward and backward of step `step` without the update: the loss, and
  /// the gradients in grads().
  float lossAndGradients(uint64_t step);

private:
  std::unique_ptr<TrainModel> model;
  AbftGuard guard;
  uint64_t done = 0;
  std::vector<std::vector<float>> param, grad, m, v, act;
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_TRAINMODEL_H
