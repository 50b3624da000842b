//===- Mlp.cpp - A small fp32 MLP: kernels and an in-memory trainer -------===//
#include "runtime/src/train/Mlp.h"

#include <cmath>
#include <cstring>

using namespace sluice::train;

std::string MlpConfig::check() const {
  if (widths.size() < 2)
    return "an MLP needs at least one layer (two widths)";
  for (uint32_t w : widths)
    if (w == 0 || w > 65536)
      return "layer width " + std::to_string(w) + " is outside 1..65536";
  if (batch == 0 || batch > 65536)
    return "batch " + std::to_string(batch) + " is outside 1..65536";
  if (!(learningRate > 0) || !(beta1 >= 0 && beta1 < 1) ||
      !(beta2 >= 0 && beta2 < 1) || !(epsilon > 0))
    return "Adam needs lr > 0, 0 <= beta < 1 and epsilon > 0";
  return "";
}

void sluice::train::initParams(const MlpConfig &config, uint32_t layer,
                               float *param) {
  uint64_t state = config.seed * 1000003u + layer * 7919u + 17;
  const uint32_t in = config.widths[layer], out = config.widths[layer + 1];
  const float scale = 1.0f / std::sqrt(static_cast<float>(in));
  for (size_t i = 0; i < size_t(in) * out; ++i)
    param[i] = uniform(state) * scale;
  for (size_t i = 0; i < out; ++i)
    param[size_t(in) * out + i] = 0.0f;
}

void sluice::train::makeBatch(const MlpConfig &config, uint64_t step,
                              float *input, float *target) {
  uint64_t state = config.seed ^ (step * 0xD1B54A32D192ED03ull);
  const uint32_t in = config.widths.front(), out = config.widths.back();
  for (size_t i = 0; i < size_t(config.batch) * in; ++i)
    input[i] = uniform(state);
  // A smooth target the network can learn: sums of sines of the inputs.
  for (uint32_t b = 0; b < config.batch; ++b)
    for (uint32_t o = 0; o < out; ++o) {
      float acc = 0;
      for (uint32_t k = o % in; k < in; k += out)
        acc += std::sin(input[size_t(b) * in + k] * (1.0f + 0.25f * o));
      target[size_t(b) * out + o] = acc;
    }
}

void sluice::train::forwardLayer(uint32_t in, uint32_t out, uint32_t batch,
                                 const float *param, const float *x, float *y,
                                 bool relu) {
  const float *W = param, *bias = param + size_t(in) * out;
  for (uint32_t b = 0; b < batch; ++b) {
    float *row = y + size_t(b) * out;
    std::memcpy(row, bias, sizeof(float) * out);
    const float *xr = x + size_t(b) * in;
    for (uint32_t k = 0; k < in; ++k) {
      const float xv = xr[k];
      const float *wr = W + size_t(k) * out;
      for (uint32_t o = 0; o < out; ++o)
        row[o] += xv * wr[o];
    }
    if (relu)
      for (uint32_t o = 0; o < out; ++o)
        row[o] = row[o] > 0 ? row[o] : 0.0f;
  }
}

float sluice::train::mseLoss(const float *y, const float *target,
                             size_t count, float *dY) {
  double loss = 0;
  const float scale = 1.0f / static_cast<float>(count);
  for (size_t i = 0; i < count; ++i) {
    float d = y[i] - target[i];
    loss += 0.5 * double(d) * d;
    dY[i] = d * scale;
  }
  return static_cast<float>(loss / double(count));
}

void sluice::train::backwardLayer(uint32_t in, uint32_t out, uint32_t batch,
                                  const float *param, const float *x,
                                  const float *dZ, float *grad,
                                  float *dXMasked) {
  const float *W = param;
  float *gW = grad, *gb = grad + size_t(in) * out;
  std::memset(grad, 0, sizeof(float) * (size_t(in) * out + out));
  for (uint32_t b = 0; b < batch; ++b) {
    const float *dz = dZ + size_t(b) * out;
    const float *xr = x + size_t(b) * in;
    for (uint32_t k = 0; k < in; ++k) {
      const float xv = xr[k];
      float *gr = gW + size_t(k) * out;
      for (uint32_t o = 0; o < out; ++o)
        gr[o] += xv * dz[o];
    }
    for (uint32_t o = 0; o < out; ++o)
      gb[o] += dz[o];
  }
  if (!dXMasked)
    return;
  inputGradient(in, out, batch, W, dZ, dXMasked);
  for (size_t i = 0, n = size_t(batch) * in; i < n; ++i)
    if (!(x[i] > 0))
      dXMasked[i] = 0.0f;
}

void sluice::train::inputGradient(uint32_t in, uint32_t out, uint32_t batch,
                                  const float *W, const float *dZ,
                                  float *dX) {
  for (uint32_t b = 0; b < batch; ++b) {
    const float *dz = dZ + size_t(b) * out;
    float *dx = dX + size_t(b) * in;
    for (uint32_t k = 0; k < in; ++k) {
      const float *wr = W + size_t(k) * out;
      float acc = 0;
      for (uint32_t o = 0; o < out; ++o)
        acc += dz[o] * wr[o];
      dx[k] = acc;
    }
  }
}

void sluice::train::adamUpdate(const MlpConfig &c, uint64_t step,
                               size_t count, float *param, const float *grad,
                               float *m, float *v) {
  adamStep(c.adam(), step, count, param, grad, m, v);
}

void sluice::train::adamStep(const AdamParams &c, uint64_t step, size_t count,
                             float *param, const float *grad, float *m,
                             float *v) {
  const float c1 = 1.0f - std::pow(c.beta1, static_cast<float>(step));
  const float c2 = 1.0f - std::pow(c.beta2, static_cast<float>(step));
  for (size_t i = 0; i < count; ++i) {
    const float g = grad[i];
    m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * g;
    v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * g * g;
    const float mh = m[i] / c1, vh = v[i] / c2;
    param[i] -= c.learningRate * mh / (std::sqrt(vh) + c.epsilon);
  }
}

ReferenceTrainer::ReferenceTrainer(const MlpConfig &config) : config(config) {
  const uint32_t L = config.layers();
  param.resize(L);
  grad.resize(L);
  m.resize(L);
  v.resize(L);
  act.resize(L);
  for (uint32_t l = 0; l < L; ++l) {
    param[l].resize(config.paramCount(l));
    initParams(config, l, param[l].data());
    grad[l].assign(config.paramCount(l), 0.0f);
    m[l].assign(config.paramCount(l), 0.0f);
    v[l].assign(config.paramCount(l), 0.0f);
    act[l].assign(config.activationCount(l), 0.0f);
  }
}

float ReferenceTrainer::step() {
  const uint32_t L = config.layers();
  const uint64_t s = done + 1;
  const size_t outCount = size_t(config.batch) * config.widths[L];
  std::vector<float> y(outCount), target(outCount), dZ(outCount), dX;
  makeBatch(config, s, act[0].data(), target.data());
  for (uint32_t l = 0; l < L; ++l) {
    float *out = l + 1 < L ? act[l + 1].data() : y.data();
    forwardLayer(config.widths[l], config.widths[l + 1], config.batch,
                 param[l].data(), act[l].data(), out, l + 1 < L);
  }
  float loss = mseLoss(y.data(), target.data(), outCount, dZ.data());
  for (uint32_t l = L; l-- > 0;) {
    dX.assign(l ? config.activationCount(l) : 0, 0.0f);
    backwardLayer(config.widths[l], config.widths[l + 1], config.batch,
                  param[l].data(), act[l].data(), dZ.data(), grad[l].data(),
                  l ? dX.data() : nullptr);
    dZ.swap(dX);
  }
  for (uint32_t l = 0; l < L; ++l)
    adamUpdate(config, s, config.paramCount(l), param[l].data(),
               grad[l].data(), m[l].data(), v[l].data());
  done = s;
  return loss;
}
