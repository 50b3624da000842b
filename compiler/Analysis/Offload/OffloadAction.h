//===- OffloadAction.h - Timed actions of offload plans ---------*- C++ -*-===//
//
// The streams of the offload planners' overlap model and the timed actions
// on them: a fine-tuning iteration (FinetunePlan::schedule) and a batched
// generation (inferenceSchedule) are lists of these, which the Chrome trace
// and the plan IR (plan.schedule) are written from.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADACTION_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADACTION_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace sluice::offload {

/// The resources of the overlap model; each runs its actions in order.
enum class Stream {
  GpuCompute,
  H2D,
  D2H,
  SsdRead,
  SsdWrite,
  CpuOptimizer,
  CsdOptimizer,
  /// Collectives between data-parallel GPUs over links that bypass the
  /// host (Machine::peerBandwidth); unused on one GPU.
  Peer,
  /// Inference: decode attention on the CPU over a CPU-resident KV cache.
  CpuCompute
};
constexpr unsigned kNumStreams = 9;
llvm::StringRef streamName(Stream s); // "GPU compute", "H2D", ...

/// One timed action of a plan's schedule (a fine-tuning iteration or a
/// batched generation).
struct Action {
  Stream stream = Stream::GpuCompute;
  double start = 0; ///< seconds from the iteration start
  double end = 0;
  double bytes = 0;   ///< moved (transfers) or streamed (optimizer)
  double flops = 0;   ///< GPU compute actions
  std::string tensor; ///< e.g. "params", "activations", "grads", "adam"
  std::string what;   ///< e.g. "forward", "prefetch", "swap-out", "update"
  /// Layer index; -1 for the embedding/head block.
  int64_t layer = 0;
  int64_t microBatch = 0;
  /// Inference: 0 = the prefill, k >= 1 = the decoding of token k.
  int64_t step = 0;
};

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADACTION_H
