//===- TrainModel.cpp - The MLP as a TrainModel; the in-memory trainer ----===//
#include "runtime/src/train/TrainModel.h"

using namespace sluice::train;

void MlpModel::beginStep(uint64_t step, float *input) {
  const size_t outCount = size_t(config.batch) * config.widths[config.layers()];
  y.assign(outCount, 0.0f);
  target.assign(outCount, 0.0f);
  dZ.assign(outCount, 0.0f);
  makeBatch(config, step, input, target.data());
}

bool MlpModel::forward(uint32_t l, const float *param, const float *act,
                       float *next, AbftGuard &guard, AbftFault &fault) {
  const uint32_t L = config.layers();
  if (!guard.forward(config.widths[l], config.widths[l + 1], config.batch,
                     param, act, l + 1 < L ? next : y.data(), l + 1 < L, fault))
    return false;
  if (l + 1 == L)
    stepLoss = mseLoss(y.data(), target.data(), y.size(), dZ.data());
  return true;
}

bool MlpModel::backward(uint32_t l, const float *param, const float *act,
                        float *grad, AbftGuard &guard, AbftFault &fault) {
  dX.assign(l ? config.activationCount(l) : 0, 0.0f);
  if (!guard.backward(config.widths[l], config.widths[l + 1], config.batch,
                      param, act, dZ.data(), grad, l ? dX.data() : nullptr,
                      fault))
    return false;
  dZ.swap(dX);
  return true;
}

InMemoryTrainer::InMemoryTrainer(const TrainModel &m)
    : model(m.clone()), guard(AbftMode::Off, FaultInjection{}) {
  const uint32_t L = model->layers();
  param.resize(L);
  grad.resize(L);
  this->m.resize(L);
  v.resize(L);
  act.resize(L);
  for (uint32_t l = 0; l < L; ++l) {
    param[l].resize(model->paramCount(l));
    model->initParams(l, param[l].data());
    grad[l].assign(model->paramCount(l), 0.0f);
    this->m[l].assign(model->paramCount(l), 0.0f);
    v[l].assign(model->paramCount(l), 0.0f);
    act[l].assign(model->activationCount(l), 0.0f);
  }
}

float InMemoryTrainer::lossAndGradients(uint64_t s) {
  const uint32_t L = model->layers();
  AbftFault fault;
  model->beginStep(s, act[0].data());
  // The guard is off and injects nothing: these never fail.
  for (uint32_t l = 0; l < L; ++l)
    model->forward(l, param[l].data(), act[l].data(),
                   l + 1 < L ? act[l + 1].data() : nullptr, guard, fault);
  for (uint32_t l = L; l-- > 0;)
    model->backward(l, param[l].data(), act[l].data(), grad[l].data(), guard,
                    fault);
  return model->loss();
}

float InMemoryTrainer::step() {
  const uint64_t s = done + 1;
  const float loss = lossAndGradients(s);
  const AdamParams adam = model->adam();
  for (uint32_t l = 0; l < model->layers(); ++l)
    adamStep(adam, s, param[l].size(), param[l].data(), grad[l].data(),
             m[l].data(), v[l].data());
  done = s;
  return loss;
}
