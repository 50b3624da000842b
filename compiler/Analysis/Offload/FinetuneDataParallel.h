//===- FinetuneDataParallel.h - Offloaded fine-tuning on several GPUs -*- C++
//-*-===//
//
// Fine-tuning with offload on a machine with several identical GPUs: data
// parallelism with ZeRO-3 sharding (each GPU runs batch / G sequences,
// parameters are gathered block by block, gradients reduce-scattered, the
// model states live once in host memory or on the NVMe array and one CPU
// optimizer updates them). planFinetune() plans one GPU count (a Machine
// whose `gpus` is G, from machineForGpus()); this searches the counts and
// keeps the fastest, so that a job on four GPUs whose iteration the CPU
// optimizer or a shared PCIe uplink bounds says so instead of planning
// GPUs that buy nothing. docs/offload.md, "Several GPUs".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEDATAPARALLEL_H
#define SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEDATAPARALLEL_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "llvm/ADT/ArrayRef.h"

namespace sluice::offload {

/// Two GPU counts whose iteration times differ by less than this fraction
/// are equally fast; the plan keeps the fewer GPUs.
constexpr double kDataParallelTie = 0.01;

struct DataParallelPlan {
  FinetunePlan plan;  ///< gpuCounts and fewerGpusReason filled in
  size_t machine = 0; ///< the index of the machine it was planned on
};

/// Plans `job` on each of `machines` (the same GPU model, `gpus` 1, 2, ...
/// in increasing order; counts that do not divide the batch are skipped
/// with that reason) and returns the fastest feasible plan, the fewest
/// GPUs among those within kDataParallelTie of it. When none is feasible,
/// the plan of the most GPUs that split the batch (with its binding
/// constraint). Errors: no machines, or planFinetune()'s input errors.
llvm::Expected<DataParallelPlan>
planFinetuneOverGpus(const FinetuneJob &job, llvm::ArrayRef<Machine> machines,
                     const FinetuneOptions &opts = {});

} // namespace sluice::offload

#endif // SLUICE_COMPILER_ANALYSIS_OFFLOAD_FINETUNEDATAPARALLEL_H
