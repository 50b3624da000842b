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
/// layer of the plan), fp32, `batch` rows.
struct RuntimeModel {
  std::vector<int64_t> widths;
  int64_t batch = 0;
  /// The schedule's "abft" (checksums on the layer GEMMs,
  /// runtime/src/train/Abft.h): "off", "fail" or "recompute"; empty: the
  /// key is not written (off).
  std::string abft;
};

/// The schedule document for `plan` (feasible, with job.model.layers ==
/// model.widths.size() - 1), or an error saying why none can be made.
llvm::Expected<llvm::json::Value>
finetuneRuntimeSchedule(const FinetunePlan &plan, const FinetuneJob &job,
                        const FinetuneOptions &opts, const RuntimeModel &model);

/// Parses "64,128,128,16" into widths (each in 1..65536, at least two).
llvm::Expected<std::vector<int64_t>> parseWidths(llvm::StringRef text);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_RUNTIMESCHEDULE_H
