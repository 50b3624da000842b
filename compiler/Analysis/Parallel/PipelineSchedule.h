//===- PipelineSchedule.h - One training iteration, event by event -*- C++ -*-===//
//
// The 1F1B pipeline schedule of one iteration, simulated (PipeDream-Flush,
// Megatron-LM's default with one model chunk per stage, and its
// interleaved variant with v chunks per stage): every stage runs its
// warm-up forwards (p - s - 1; with v chunks (p - s - 1) 2 + (v - 1) p),
// then alternates one forward and one backward, then drains its
// backwards, in Megatron-LM's chunk order. A forward of micro-batch j on
// virtual stage k (chunk k / p on stage k % p) starts once its stage is
// free and the activations of j from virtual stage k - 1 have arrived (its
// forward plus one transfer); a backward once the gradients of j from
// virtual stage k + 1 have arrived. A stage's sends in one direction
// share its link and go one at a time. A chunk takes 1/v of the stage's
// forward and backward times. Every stage then reduces its gradients (data
// parallel) and steps the optimizer. No IR: the trace writer
// (compiler/Target/Parallel) and the tests use it.
//
// With zero transfer time and equal stages the makespan of the pipeline
// is (m + p - 1)(F + B), which is Pipette's closed form
// (ParallelModel.h, pipetteCriticalPath) with C = 0; with transfers the
// simulation charges every p2p on the path, where the closed form charges
// C once per round of p micro-batches.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPELINESCHEDULE_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPELINESCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::parallel {

struct PipelineEvent {
  enum class Kind {
    Forward,   ///< compute: one micro-batch's forward on the stage
    Backward,  ///< compute: its backward (recomputation included)
    SendAct,   ///< p2p: activations of the micro-batch to stage + 1
    SendGrad,  ///< p2p: gradients of the micro-batch to stage - 1
    AllReduce, ///< data-parallel gradient reduction of the stage
    Optimizer, ///< the optimizer step
  };
  Kind kind;
  int64_t stage = 0;
  int64_t microBatch = -1; ///< -1 for AllReduce and Optimizer
  double start = 0, end = 0;
  int64_t chunk = 0; ///< the model chunk (interleaved schedules)
};

struct PipelineTimes {
  int64_t stages = 1, microBatches = 1;
  /// Model chunks per stage (Megatron-LM's interleaved schedule when > 1;
  /// then the micro-batches must be a multiple of the stages).
  int64_t virtualStages = 1;
  /// One micro-batch on one stage, all its chunks, s.
  double forward = 0, backward = 0;
  double transfer = 0;  ///< one p2p transfer between adjacent stages, s
  /// Optimus-CC's epilogue: the gradient sends of micro-batches from
  /// `compressedFrom` on take `compressedTransfer` (compressed).
  int64_t compressedFrom = INT64_MAX;
  double compressedTransfer = 0;
  double allReduce = 0; ///< the gradient reduction of a stage, s
  double optimizer = 0; ///< the optimizer step, s
};

struct PipelineSchedule {
  std::vector<PipelineEvent> events; ///< per stage in its own order
  double pipelineEnd = 0;            ///< the last backward's end
  double makespan = 0;               ///< the last optimizer step's end
};

/// Simulates one iteration; false (with `why`) when the times or counts
/// are not valid (negative, non-finite, fewer than one stage, micro-batch
/// or chunk, interleaved with micro-batches not a multiple of the stages,
/// or more events than `maxEvents`).
bool simulate1F1B(const PipelineTimes &t, PipelineSchedule &out,
                  std::string &why, uint64_t maxEvents = 4u << 20);

const char *pipelineEventName(PipelineEvent::Kind k);

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPELINESCHEDULE_H
