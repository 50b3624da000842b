//===- ParallelExport.h - What Megatron-LM and DeepSpeed consume -*- C++
//-*-===//
//
// Writers over a plan.parallel op (what model-plan-parallel wrote for a
// `train` model.job):
//  - a summary: ways, predicted iteration time against Megatron-LM's default
//    rank order, TFLOP/s per GPU, memory per GPU, the stages and their GPUs;
//  - JSON of the same;
//  - a Megatron-LM launch script: the model and parallelism arguments, one
//    torchrun line per node with the node's CUDA_VISIBLE_DEVICES order, and
//    the rank map (global rank -> host, GPU), so that every rank runs on its
//    planned GPU (torchrun gives node n the ranks n*g .. n*g+g-1, local rank
//    l the l-th visible device);
//  - a DeepSpeed JSON whose batch keys hold for the world size
//    (train_batch_size = micro-batch x accumulation steps x dp);
//  - a Perfetto trace of one iteration (ParallelTrace.h).
// The hosts are the topology's (parallel::gpusByHost).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_PARALLEL_PARALLELEXPORT_H
#define SLUICE_COMPILER_TARGET_PARALLEL_PARALLELEXPORT_H

#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::target {

enum class ParallelFormat { Summary, Json, Megatron, DeepSpeed, Trace };

/// Writes every plan.parallel of `module` (only that of job `jobName` when
/// not empty) in `format`; `hosts` is the flat topology's GPUs by host.
/// Megatron and DeepSpeed write one plan: an error at the module when there
/// are several and no `jobName`.
mlir::LogicalResult writeParallelPlans(mlir::ModuleOp module,
                                       llvm::ArrayRef<parallel::HostGpus> hosts,
                                       llvm::StringRef jobName,
                                       ParallelFormat format,
                                       llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_PARALLEL_PARALLELEXPORT_H
