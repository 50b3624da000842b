//===- DeepSpeedSections.h - Precision, optimizer, scheduler ----*- C++ -*-===//
//
// The parts of a DeepSpeed configuration that come from the job rather
// than from the plan, shared by the offload and the 3D-parallel exporters:
//  - precision: "fp16" (dynamic loss scaling) for fp16 models, "bf16" for
//    bf16 models (no loss scaling: bf16 has fp32's exponent range), neither
//    for fp32 models;
//  - "optimizer": the job's optimizer as DeepSpeed names it, with the job's
//    `lr` when given (weight decay 0.01 for AdamW, DeepSpeed's betas and
//    eps otherwise); none for Adafactor, which DeepSpeed does not have (it
//    then uses the client optimizer passed to deepspeed.initialize);
//  - "scheduler": with `steps` and `lr`, WarmupDecayLR over `steps` steps
//    with a linear warm-up over the first 1% (at least one step) to `lr`.
// DeepSpeed offloads optimizer states only for its CPU optimizers (Adam,
// AdamW, Lion): a plan that keeps SGD or Adafactor states off the GPU has
// no DeepSpeed equivalent and is an error that says so.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_MODEL_DEEPSPEEDSECTIONS_H
#define SLUICE_COMPILER_ANALYSIS_MODEL_DEEPSPEEDSECTIONS_H

#include "compiler/Analysis/Model/TransformerCost.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>

namespace sluice::model {

enum class Precision { Fp16, Bf16, Fp32 };

/// What a job says about its training, beyond the plan.
struct TrainingSettings {
  Precision precision = Precision::Fp16;
  Optimizer optimizer = Optimizer::Adam;
  double lr = 0;     ///< 0: not given (no lr written, no scheduler)
  int64_t steps = 0; ///< 0: not given (no scheduler)
};

/// Adds the precision, "optimizer" and "scheduler" sections to `cfg`.
/// `statesOffGpu`: the plan keeps the optimizer states in host memory or
/// on a drive (DeepSpeed's offload_optimizer).
llvm::Error addDeepSpeedTraining(llvm::json::Object &cfg,
                                 const TrainingSettings &settings,
                                 bool statesOffGpu);

} // namespace sluice::model

#endif // SLUICE_COMPILER_ANALYSIS_MODEL_DEEPSPEEDSECTIONS_H
