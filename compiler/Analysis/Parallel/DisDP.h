//===- DisDP.h - Disaggregated model-sharded data parallelism ---*- C++ -*-===//
//
// DisDP (shared/papers/00-disdp.txt): model-sharded data parallelism
// (ZeRO-3) with its collectives in the network and its optimizer states on a
// parameter server (PS) attached to a reducing switch, against conventional
// ZeRO-3, where the GPU (and its host) run compute, NCCL collectives and the
// optimizer one after the other. docs/parallel.md ("DisDP") states the
// model; every duration below is an input, so the timelines are plain
// arithmetic over a DisdpProblem:
//
//  - conventional ZeRO-3, serialised: per micro-batch, per layer in forward
//    order [fetch the parameter shard from the host] [ring all-gather]
//    [forward]; per layer in backward order [fetch] [all-gather] [backward]
//    [ring reduce-scatter of the gradients]; after the last micro-batch the
//    optimizer step of every layer (on the GPU, or offloaded to the host
//    CPUs: gradient shard down, update, parameter shard up);
//  - DisDP: four resources run at once: the GPUs' compute, the network's
//    downstream (the PS's parameters multicast by the switch: the in-network
//    all-gather), its upstream (gradients reduced in the switch on their way
//    to the PS: the in-network reduce-scatter) and the PS's optimizer. A
//    layer's gather may start once the compute two layers back has ended
//    (two parameter buffers on the GPU: one computing, one arriving); the
//    PS updates a layer once its last micro-batch's gradients arrived. The
//    iteration ends when all four are idle.
//
// costsFromTopology() derives the durations from a topology: the collectives
// from the flow planners (compiler/Analysis/Flow/Collectives.h), the compute
// from the 3D planner's roofline (ParallelModel.h), the optimizer rates from
// the CPUs' memory bandwidth (the offload planner's CPU Adam rate).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDP_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDP_H

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::parallel {

/// One iteration's durations, in seconds, per layer (the gathering unit) and
/// per micro-batch where they repeat.
struct DisdpProblem {
  int64_t gpus = 0;         ///< data-parallel ways d
  int64_t layers = 0;       ///< L
  int64_t microBatches = 1; ///< m per GPU per iteration
  double forward = 0;       ///< one layer, one micro-batch, one GPU
  double backward = 0;
  // Conventional ZeRO-3.
  double ringAllGather = 0;     ///< one layer's fp16 parameters, NCCL ring
  double ringReduceScatter = 0; ///< one layer's fp16 gradients
  /// Per gather: the GPU's parameter shard from host memory (ZeRO-Infinity
  /// parameter offload; 0 when the shards stay on the GPU).
  double paramFetch = 0;
  double baselineOptimizer = 0; ///< one layer's step, after the backward
  // DisDP.
  double netAllGather = 0;     ///< one layer, PS -> switch -> every GPU
  double netReduceScatter = 0; ///< one layer, every GPU -> switch -> PS
  double psUpdate = 0;         ///< the PS's update of one layer

  /// Empty when usable, else what is wrong.
  std::string validate() const;
};

/// What a lane did when (the trace draws these).
struct DisdpSpan {
  enum class Lane { Compute, Down, Up, Optimizer };
  Lane lane = Lane::Compute;
  std::string name; ///< "F 3", "AG 3", "RS 3", "step 3", "fetch 3"
  int64_t microBatch = 0;
  double start = 0, end = 0;
};

struct DisdpTimeline {
  double iteration = 0;
  /// Busy time per lane over the iteration (compute, down, up, optimizer).
  double compute = 0, down = 0, up = 0, optimizer = 0;
  std::vector<DisdpSpan> spans;
};

struct DisdpResult {
  DisdpTimeline baseline; ///< conventional ZeRO-3, serialised
  DisdpTimeline disdp;
  double speedup() const {
    return disdp.iteration > 0 ? baseline.iteration / disdp.iteration : 0;
  }
};

/// The serialised ZeRO-3 iteration: m L (2 fetch + 2 AG + F + B + RS) +
/// L step.
DisdpTimeline simulateZero3(const DisdpProblem &p);
/// The disaggregated iteration (event simulation of the four lanes).
DisdpTimeline simulateDisdp(const DisdpProblem &p);
/// Both (validate() first: the simulations assume a valid problem).
DisdpResult planDisdp(const DisdpProblem &p);

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDP_H
