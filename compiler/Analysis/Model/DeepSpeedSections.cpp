//===- DeepSpeedSections.cpp - Precision, optimizer, scheduler ------------===//
#include "compiler/Analysis/Model/DeepSpeedSections.h"

#include <algorithm>

using namespace sluice;
using namespace sluice::model;
using llvm::json::Object;

llvm::Error model::addDeepSpeedTraining(Object &cfg,
                                        const TrainingSettings &s,
                                        bool statesOffGpu) {
  const OptimizerCost oc = optimizerCost(s.optimizer);
  if (statesOffGpu && !oc.deepspeedOffloads)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine("DeepSpeed offloads the optimizer states of Adam, AdamW "
                    "and Lion only (its CPU optimizers); this plan keeps ") +
            optimizerName(s.optimizer) +
            "'s states off the GPU, which DeepSpeed cannot run");
  switch (s.precision) {
  case Precision::Fp16:
    cfg["fp16"] = Object{{"enabled", true},
                         {"loss_scale", 0},
                         {"initial_scale_power", 16}};
    break;
  case Precision::Bf16:
    cfg["bf16"] = Object{{"enabled", true}};
    break;
  case Precision::Fp32:
    break;
  }
  // DeepSpeed has no Adafactor: without an "optimizer" section it uses the
  // client optimizer given to deepspeed.initialize.
  if (s.optimizer != Optimizer::Adafactor) {
    Object params;
    if (s.lr > 0)
      params["lr"] = s.lr;
    if (s.optimizer == Optimizer::AdamW)
      params["weight_decay"] = 0.01;
    cfg["optimizer"] = Object{{"type", oc.deepspeedType},
                              {"params", std::move(params)}};
  }
  if (s.lr > 0 && s.steps > 0)
    cfg["scheduler"] = Object{
        {"type", "WarmupDecayLR"},
        {"params", Object{{"total_num_steps", s.steps},
                          {"warmup_min_lr", 0},
                          {"warmup_max_lr", s.lr},
                          {"warmup_num_steps",
                           std::max<int64_t>(1, s.steps / 100)}}}};
  return llvm::Error::success();
}
