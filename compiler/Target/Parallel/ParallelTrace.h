//===- ParallelTrace.h - One training iteration as a Perfetto trace -*- C++ -*-===//
//
// The trace of one iteration of each planned `train` job (plan.parallel),
// in the Chrome trace-event JSON that ui.perfetto.dev loads: a process per
// job, four lanes per GPU (compute: forward and backward of every
// micro-batch, the optimizer step; the pipeline's p2p sends to the next
// and to the previous stage; the data-parallel gradient reduction), from
// the simulated 1F1B
// schedule (compiler/Analysis/Parallel/PipelineSchedule.h) with the plan's
// per-stage times. Up to 64 GPUs every GPU has its lanes; beyond, the GPUs
// of data-parallel replica 0 (the other replicas run the same timeline).
// Interleaved schedules (virtual stages > 1) show every chunk's forward and
// backward ("F 3 c1": micro-batch 3, chunk 1).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_PARALLEL_PARALLELTRACE_H
#define SLUICE_COMPILER_TARGET_PARALLEL_PARALLELTRACE_H

#include "dialects/Plan/IR/PlanOps.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::target {

mlir::LogicalResult writeParallelTrace(llvm::ArrayRef<plan::ParallelOp> plans,
                                       llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_PARALLEL_PARALLELTRACE_H
