//===- DisDPCosts.h - DisDP's durations from a topology ---------*- C++ -*-===//
//
// Builds the DisdpProblem (DisDP.h) of a train job on a topology with a
// reducing switch and a parameter server (docs/parallel.md, "DisDP"):
//  - compute: the 3D planner's roofline forward and backward of one
//    micro-batch (tp 1 pp 1 dp d), split evenly over the layers;
//  - parameters: the model's exact count, split evenly over the layers (the
//    embedding and head ride with them), 2 bytes each (fp16/bf16);
//  - conventional ZeRO-3: the ring all-gather and reduce-scatter of one
//    layer routed over the topology (planRingCollective); the optimizer on
//    the hosts' CPUs when the topology gives them (ZeRO-Offload: gradient
//    shard down, the offload planner's CPU Adam rate, parameter shard up),
//    else on the GPU (16 B/param read and written at its memory
//    bandwidth); parameter shards fetched from host memory before every
//    gather when the GPU cannot hold them (ZeRO-Infinity);
//  - DisDP: the in-network all-gather and reduce-scatter of one layer
//    (planInNetworkCollective over the switches with `reduce: true`), each
//    at least the layer over the PS's cut to the reducers; the PS's update
//    at the CPU Adam rate of its memory bandwidth.
// Every collective time is divided by ModelOptions::collectiveEfficiency.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDPCOSTS_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDPCOSTS_H

#include "compiler/Analysis/Parallel/DisDP.h"
#include "compiler/Analysis/Parallel/ParallelModel.h"
#include "compiler/Analysis/TopoGraph.h"
#include "llvm/Support/Error.h"

namespace sluice::parallel {

struct DisdpPlan {
  DisdpProblem problem;
  DisdpResult result;
  std::string topology;
  std::string parameterServer;
  std::vector<std::string> reducers; ///< the switches' paths
  std::vector<std::string> gpus;     ///< in ring/group order
  int64_t microBatch = 1;
  /// The least recomputation under which both layouts fit.
  model::Recompute recompute = model::Recompute::None;
  double parameters = 0; ///< the model's
  /// Conventional ZeRO-3: where its optimizer runs ("host cpus" or "gpu")
  /// and whether parameter shards live in host memory.
  bool baselineOffloadsOptimizer = false;
  bool baselineOffloadsParams = false;
  /// Bytes per GPU (calibrated) and usable, both layouts; PS bytes.
  double baselineGpuMemory = 0, disdpGpuMemory = 0, gpuAvailable = 0;
  double psMemory = 0, psAvailable = 0;
  double psBandwidth =
      0; ///< the PS's cut to the reducers, B/s (min of both ways)
};

/// The plan of `job` on topology `g` (named `name`) with the parameter
/// server `psPath` (a `cpu` device with `memory` and `memory_bandwidth`).
/// Fails with what is missing or does not fit, with numbers.
llvm::Expected<DisdpPlan> planDisdpOnTopology(const analysis::TopoGraph &g,
                                              llvm::StringRef name,
                                              const TrainJob &job,
                                              llvm::StringRef psPath,
                                              const ModelOptions &opts = {});

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_DISDPCOSTS_H
