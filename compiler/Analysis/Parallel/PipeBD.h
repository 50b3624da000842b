//===- PipeBD.h - Pipelined blockwise distillation plans ---------*- C++
//-*-===//
//
// Pipe-BD (shared/papers/17-pipe-bd.txt; the formula in
// shared/reference/planning-models.md): blockwise distillation trains every
// student block j to reproduce teacher block j's output from teacher block
// j - 1's output. The baseline trains the blocks one after another, each
// data parallel on all N GPUs, and for block j runs the teacher from block
// 0 to j again for every batch. Pipe-BD runs the blocks as a pipeline:
// stage i holds a contiguous range of blocks and k_i GPUs (sum k_i = N),
// runs each teacher block once per batch and forwards its output to the
// next stage, and trains its student blocks data parallel over its k_i
// GPUs (hybrid parallelism). A batch's steady-state time is the slowest
// stage's
//   max_i [ sum_{j in stage i} (T_j(B / k_i) + AR_j(k_i)) + P2P(boundary_i) ].
// planPipeBD finds the split and the k_i minimising it exactly (dynamic
// programming over (blocks done, GPUs used), stages on consecutive GPUs),
// and the baseline's time for the same work. A stage whose GPUs cannot hold
// its blocks (the frozen teacher weights, the student's weights, gradients
// and optimizer states, and the stored activations of the samples resident
// at once, times a calibration factor, against the GPU memory less a
// reserve) is never chosen; the baseline's memory is reported beside it.
//
// No IR: the model-plan-distill pass fills DistillJob from a distill
// model's teacher and student transformers.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPEBD_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPEBD_H

#include "compiler/Analysis/Parallel/ParallelCluster.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace sluice::parallel {

/// One block pair, per sample.
struct DistillBlock {
  double teacherFlops = 0;      ///< teacher block forward
  double studentFlops = 0;      ///< student block forward + backward
  double studentParamBytes = 0; ///< its gradients, all-reduced per batch
  double outputBytes = 0;       ///< the teacher block's output activation
  double teacherParamBytes = 0; ///< the frozen teacher block's weights
  /// The student block's weights, gradients and optimizer states.
  double studentStateBytes = 0;
  /// Per sample: what the student block stores for its backward pass plus
  /// the teacher block's working activations.
  double activationBytes = 0;
};

struct DistillJob {
  std::vector<DistillBlock> blocks;
  int64_t batch = 0; ///< samples per batch (global)
  /// Fraction of the GPU peak the blocks' kernels attain.
  double efficiency = 0.5;
  /// Fraction of link bandwidth collectives and p2p attain.
  double commEfficiency = 0.85;
  /// Samples whose activations a GPU holds at once (the job's micro-batch);
  /// 0: every sample it computes per batch.
  int64_t residentSamples = 0;
  double memoryCalibration = 1.10; ///< as the 3D-parallel planner's
  double memoryReserve = 2.0 * 1024 * 1024 * 1024; ///< bytes per GPU
};

struct PipeBDStage {
  int64_t firstBlock = 0, blocks = 0;         ///< blocks [firstBlock, +blocks)
  int64_t firstGpu = 0, gpus = 0;             ///< GPUs [firstGpu, +gpus)
  double compute = 0, allReduce = 0, p2p = 0; ///< per batch, s
  double memory = 0;                          ///< bytes per GPU, calibrated
  double time() const { return compute + allReduce + p2p; }
};

struct PipeBDPlan {
  std::vector<PipeBDStage> stages;
  double batchTime = 0;       ///< the slowest stage, s per batch (all blocks)
  double baselineTime = 0;    ///< block by block, summed over the blocks
  double memoryAvailable = 0; ///< bytes per GPU (memory less the reserve)
  double baselineMemory = 0;  ///< the baseline's largest need per GPU
  bool baselineFits() const { return baselineMemory <= memoryAvailable; }
  double speedup() const {
    return batchTime > 0 ? baselineTime / batchTime : 0;
  }
};

/// Per-batch times of one stage: blocks [b0, b0 + nb) on GPUs
/// [g0, g0 + k) (exposed for the tests' brute force).
PipeBDStage pipeBDStage(const DistillJob &job, const ParallelCluster &cluster,
                        int64_t b0, int64_t nb, int64_t g0, int64_t k);

/// The block-by-block data-parallel baseline: per batch, for every block j
/// the teacher's blocks 0..j, student block j and its all-reduce over all
/// GPUs, summed over j.
double pipeBDBaseline(const DistillJob &job, const ParallelCluster &cluster);

/// The baseline's largest memory need per GPU (calibrated): for block j
/// the teacher's blocks 0..j, student block j's states and activations.
double pipeBDBaselineMemory(const DistillJob &job,
                            const ParallelCluster &cluster);

/// The optimal plan among those whose stages fit in GPU memory; an error
/// when the job or the cluster cannot be planned (no blocks, batch < 1, no
/// GPU, a non-positive rate) or when no split fits (with the block that
/// needs the most and its numbers).
llvm::Expected<PipeBDPlan> planPipeBD(const DistillJob &job,
                                      const ParallelCluster &cluster);

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_PIPEBD_H
