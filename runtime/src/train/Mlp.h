//===- Mlp.h - A small fp32 MLP: kernels and an in-memory trainer -*- C++ -*-===//
//
// Layers y = x W + b (W stored [in][out]), ReLU between layers, mean
// squared error against a synthetic target, Adam. Every kernel is a plain
// single-threaded loop with a fixed summation order, so the same inputs give
// the same bits wherever the tensors were stored in between; the offloaded
// trainer and ReferenceTrainer call the same functions.
//
// A layer's parameter tensor is [W (in*out) | b (out)]; gradient and Adam
// moments have the same layout.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_MLP_H
#define SLUICE_RUNTIME_SRC_TRAIN_MLP_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::train {

/// SplitMix64: the next word of the stream `state` (the trainers'
/// deterministic inputs and initial weights).
inline uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1) from the stream `state`.
inline float uniform(uint64_t &state) {
  return static_cast<float>((splitmix(state) >> 40) * (1.0 / 8388608.0)) - 1.0f;
}

/// Adam's hyper-parameters (shared by every model the trainers train).
struct AdamParams {
  float learningRate = 1e-3f;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
};

struct MlpConfig {
  /// widths[0] inputs, widths[L] outputs: L layers.
  std::vector<uint32_t> widths = {64, 128, 128, 16};
  uint32_t batch = 32;
  float learningRate = 1e-3f;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  uint64_t seed = 1;

  uint32_t layers() const {
    return widths.empty() ? 0 : static_cast<uint32_t>(widths.size() - 1);
  }
  size_t paramCount(uint32_t layer) const {
    return size_t(widths[layer]) * widths[layer + 1] + widths[layer + 1];
  }
  size_t activationCount(uint32_t layer) const {
    return size_t(batch) * widths[layer];
  }
  /// "" or what is wrong with the configuration.
  std::string check() const;
  AdamParams adam() const { return {learningRate, beta1, beta2, epsilon}; }
};

/// Deterministic initial parameters of `layer` (uniform +-1/sqrt(in)).
void initParams(const MlpConfig &config, uint32_t layer, float *param);
/// The inputs (batch x widths[0]) and targets (batch x widths[L]) of step
/// `step` (1-based), a function of (seed, step) only.
void makeBatch(const MlpConfig &config, uint64_t step, float *input,
               float *target);

void forwardLayer(uint32_t in, uint32_t out, uint32_t batch,
                  const float *param, const float *x, float *y, bool relu);
/// 0.5 * mean squared error; dY = dLoss/dY.
float mseLoss(const float *y, const float *target, size_t count, float *dY);
/// dZ: gradient w.r.t. the layer's pre-activation output. Writes grad; if
/// dXMasked is not null, writes dX * (x > 0), the previous layer's dZ.
void backwardLayer(uint32_t in, uint32_t out, uint32_t batch,
                   const float *param, const float *x, const float *dZ,
                   float *grad, float *dXMasked);
/// dX = dZ W^T (batch x in), unmasked: backwardLayer's input gradient
/// before the ReLU mask (the checked kernels of Abft.h check it unmasked).
void inputGradient(uint32_t in, uint32_t out, uint32_t batch, const float *W,
                   const float *dZ, float *dX);
/// One Adam step (1-based `step`) over `count` values.
void adamStep(const AdamParams &adam, uint64_t step, size_t count, float *param,
              const float *grad, float *m, float *v);
/// adamStep with the MLP's hyper-parameters.
void adamUpdate(const MlpConfig &config, uint64_t step, size_t count,
                float *param, const float *grad, float *m, float *v);

/// Trains with every tensor in memory: the bit-exact reference.
class ReferenceTrainer {
public:
  explicit ReferenceTrainer(const MlpConfig &config);
  /// Runs step steps()+1; returns the loss.
  float step();
  uint64_t steps() const { return done; }
  const std::vector<float> &params(uint32_t layer) const {
    return param[layer];
  }

private:
  MlpConfig config;
  uint64_t done = 0;
  std::vector<std::vector<float>> param, grad, m, v, act;
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_MLP_H
