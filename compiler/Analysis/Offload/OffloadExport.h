//===- OffloadExport.h - Offload plans as JSON, traces, tables -*- C++ -*-===//
//
// Writers for the planners' results (llvm::json):
//  - the plan itself as JSON (decisions, predictions, the schedule);
//  - a Chrome/Perfetto trace of the fine-tuning iteration (or of a batched
//    generation), one track per
//    stream (GPU compute, H2D, D2H, SSD read, SSD write, CPU optimizer,
//    CSD optimizer), loadable in ui.perfetto.dev or chrome://tracing;
//  - the closest DeepSpeed ZeRO-Infinity configuration;
//  - FlexGen's Policy for inference plans;
//  - human-readable summaries (tables).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADEXPORT_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADEXPORT_H

#include "compiler/Analysis/Model/DeepSpeedSections.h"
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace sluice::offload {

/// The fine-tuning plan: job, machine, decisions, predictions, per-tier
/// memory, per-link bytes and the schedule (actions in issue order).
llvm::json::Value finetunePlanToJson(const FinetunePlan &plan,
                                     const FinetuneJob &job,
                                     const Machine &machine);

/// Chrome trace event format ("traceEvents" with complete events, times in
/// microseconds, one thread per stream named by metadata events).
llvm::json::Value finetuneTrace(const FinetunePlan &plan);

/// The same for a batched generation (inferenceSchedule): tracks GPU
/// compute, H2D, D2H, SSD read and SSD write; events named by actionLabel,
/// with `layer` and `step` arguments.
llvm::json::Value inferenceTrace(llvm::ArrayRef<Action> schedule);

/// The name of an action in traces and plan IR: tensor, what, "L<layer>"
/// (or "head"), " mb<k>" with `microBatches`, " t<k>" for a decode step of
/// an inference (`inference`, step > 0).
std::string actionLabel(const Action &a, bool microBatches, bool inference);

struct DeepSpeedOptions {
  std::string nvmePath = "/local_nvme";
  /// Precision, optimizer and scheduler (model/DeepSpeedSections.h).
  model::TrainingSettings training;
};

/// DeepSpeed's ZeRO-Infinity configuration closest to `plan`: ZeRO stage 3,
/// offload_param / offload_optimizer devices (cpu or nvme; CSD homes map
/// to nvme, DeepSpeed has no near-storage update), pinned buffers sized to
/// the largest parameter tensor, pipelined NVMe optimizer reads/writes,
/// per-layer optimizer sub-groups, aio settings and CPU activation
/// checkpointing. Errors for an infeasible plan.
llvm::Expected<llvm::json::Value>
deepSpeedConfig(const FinetunePlan &plan, const FinetuneJob &job,
                const Machine &machine, const DeepSpeedOptions &opts = {});

/// The search, one line per micro-batch tried: "micro-batch 8 x 2:
/// chosen, 13.5 s (...)", "micro-batch 16 x 1: infeasible, smallest need
/// GPU memory: need 23 GiB, have 21.6 GiB usable", "micro-batch 4 x 4: best
/// 14.1 s (...), slower: ...".
std::vector<std::string> finetuneSearchLines(const FinetunePlan &plan);

/// A table: decisions, time and TFLOPS, memory per tier, bytes and busy
/// time per stream, the search per micro-batch; or the binding constraint
/// of an infeasible job.
std::string finetuneSummary(const FinetunePlan &plan, const FinetuneJob &job,
                            const Machine &machine);

/// The inference plan with FlexGen's Policy fields (gpu_batch_size,
/// num_gpu_batches, w/cache/act gpu and cpu percents, overlap,
/// compress_weight, compress_cache) and the predictions.
llvm::json::Value inferencePlanToJson(const InferencePlan &plan,
                                      const InferenceJob &job,
                                      const Machine &machine);

std::string inferenceSummary(const InferencePlan &plan,
                             const InferenceJob &job, const Machine &machine);

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_OFFLOADEXPORT_H
