//===- WalkGpuSampler.h - Which sampler a walk's GPU kernel uses -*- C++ -*-===//
//
// walk-to-gpu, the kernels' JSON description (sluicec -c --target=gpu) and
// the walk-bounds remarks share this rule: a walk without an upper bound of
// its weight (no `upper_bound` region, or `unbounded`) or scheduled with
// `sampler: reservoir` samples by weighted reservoir with a warp (32
// threads) per walker; every other walk by rejection with one thread per
// walker (docs/walk-codegen.md, "GPU").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_IR_WALKGPUSAMPLER_H
#define SLUICE_DIALECTS_WALK_IR_WALKGPUSAMPLER_H

#include "dialects/Walk/IR/WalkOps.h"

namespace sluice::walk {

/// Threads per walker of a reservoir kernel (one warp).
inline constexpr int64_t kGpuReservoirThreads = 32;

/// Whether `walk`'s GPU kernel samples by reservoir (a warp per walker).
inline bool gpuUsesReservoir(WalkOp walk) {
  std::optional<llvm::StringRef> sampler = walk.getSampler();
  return walk.getUpperBound().empty() || walk.getUnbounded() ||
         (sampler && *sampler == "reservoir");
}

} // namespace sluice::walk

#endif // SLUICE_DIALECTS_WALK_IR_WALKGPUSAMPLER_H
