//===- RuntimeSchedule.h - A fine-tuning plan as a runtime schedule -*- C++ -*-===//
//
// Turns the fine-tune planner's decisions into the per-layer schedule the
// offload runtime executes (runtime/src/train/ScheduleFile.h, format
// "sluice-offload-schedule" version 1; docs/offload-runtime.md):
//
//  - parameters: home on the device; when the plan homes them off the GPU
//    (host or NVMe), each layer's parameters leave the device after each
//    use and come back one entry ahead (the plan's two GPU layer buffers);
//  - Adam states: on the device (plan: GPU), in host memory (plan: host),
//    or in host memory swapped out between updates (plan: NVMe);
//  - activations: every plan moves checkpoints and swapped activations off
//    the GPU after the forward pass and fetches them for the backward;
//  - gradients: with active gradient offloading the optimizer entry of a
//    layer runs right after its backward entry and consumes the gradient
//    in place; otherwise the optimizer runs after the backward pass and
//    the gradients wait off the device;
//  - a layer's inputs are prefetched during the entry before (two entries
//    before when that one is an optimizer entry, so they hide under a
//    matrix product); an entry is marked io_hidden when its prefetch was
//    issued during a forward or backward entry.
//
// The runtime's tier manager has one tier below memory (swap files), so the
// plan's host and NVMe tiers for device tensors both become swap files.
// Near-storage updates (CSD) have no runtime counterpart: an error.
//
// The exporter also predicts, by its own simulation of the trainer's tier
// operations, the device and host memory peaks (emitted as the schedule's
// budgets; a swap-out's memory counts until the end of the entry after the
// one that issued it, so that writes can overlap the next compute instead
// of blocking the next allocation) and the payload bytes each home tier writes and reads in a
// steady-state step (a commit every step).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_RUNTIMESCHEDULE_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_RUNTIMESCHEDULE_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::offload {

/// The model the runtime trains: the MLP of runtime/src/train/Mlp.h,
/// widths[0] inputs ... widths[L] outputs (L layers, one per transformer
/// layer of the plan), fp32, `batch` rows; or, with `paramCounts` set, a
/// model given by the floats of each runtime layer's parameters and saved
/// input (the transformer of runtime/src/train/Transformer.h:
/// transformerRuntimeModel).
struct RuntimeModel {
  std::vector<int64_t> widths;
  int64_t batch = 0;
  /// The schedule's "abft" (checksums on the layer GEMMs,
  /// runtime/src/train/Abft.h): "off", "fail" or "recompute"; empty: the
  /// key is not written (off).
  std::string abft;
  /// Per runtime layer (when not empty; widths is then unused).
  std::vector<int64_t> paramCounts, actCounts;
  /// Runtime layers beyond the plan's transformer layers (the runtime
  /// transformer's embedding and head: 2), which get the same decisions.
  int64_t extraLayers = 0;
  /// For messages and the schedule's "plan" ("MLP", "transformer ...").
  std::string name = "MLP";

  int64_t layers() const {
    return paramCounts.empty() ? int64_t(widths.size()) - 1
                               : int64_t(paramCounts.size());
  }
  int64_t paramCount(int64_t l) const;
  int64_t actCount(int64_t l) const;
};

/// The runtime's transformer for the planned model `m` with `batch`
/// sequences: blocks = m.layers, d = m.hidden, m.heads, ffn, m.seq,
/// m.vocab; runtime layers: the embedding, one per block, the (untied)
/// head. An error for what the runtime's transformer does not have
/// (grouped-query attention, a gated MLP, RMSNorm, rotary positions,
/// experts, linear layers without biases) or sizes it refuses.
llvm::Expected<RuntimeModel>
transformerRuntimeModel(const model::TransformerConfig &m, int64_t batch);

/// The schedule document for `plan` (feasible, with job.model.layers ==
/// model.widths.size() - 1), or an error saying why none can be made.
llvm::Expected<llvm::json::Value>
finetuneRuntimeSchedule(const FinetunePlan &plan, const FinetuneJob &job,
                        const FinetuneOptions &opts, const RuntimeModel &model);

/// Parses "64,128,128,16" into widths (each in 1..65536, at least two).
llvm::Expected<std::vector<int64_t>> parseWidths(llvm::StringRef text);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_RUNTIMESCHEDULE_H
