//===- OffloadSchedule.h - Offload plans as plan.schedule -------*- C++ -*-===//
//
// One fine-tuning iteration of an offload plan (compiler/Analysis/Offload)
// as a `plan.schedule`, built from the same per-stream timeline the Chrome
// trace export uses (FinetunePlan::schedule):
//
//  - GPU compute, CPU optimizer, CSD optimizer and (inference) CPU
//    compute actions become `plan.compute` ops (device, stream, window,
//    `flops` or `bytes`);
//  - H2D, D2H, SSD read and SSD write actions become `plan.transfer` ops
//    between the topology's devices (the GPU and CPU machineFromTopo chose,
//    the nvme or csd drives), along the widest path, with the tensor class,
//    the action's label and stream; an SSD action is striped evenly over
//    the drives (one transfer per drive, all with the action's index as
//    `demand`);
//  - the schedule's makespan is the predicted iteration time, with
//    `tflops`, `peak_bytes` (per tier) and `link_bytes` (per link class).
//
// docs/offload.md ("The plan as IR") describes the mapping.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_OFFLOADSCHEDULE_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_OFFLOADSCHEDULE_H

#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"
#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "mlir/IR/Builders.h"

namespace sluice::model {

/// Builds `plan.schedule @name on @topology` for `plan` (feasible), whose
/// machine `machine` came from machineFromTopo on `graph`. Located errors
/// (at `loc`) for an infeasible plan, a machine without the topology's
/// device names, and devices the topology does not connect.
mlir::FailureOr<plan::ScheduleOp>
buildFinetuneSchedule(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::StringRef name, llvm::StringRef topology,
                      const offload::FinetunePlan &plan,
                      const offload::Machine &machine,
                      const analysis::TopoGraph &graph);

/// The same for a batched generation: `plan.schedule ... method
/// "offload-infer"` of `schedule` (inferenceSchedule of `plan`): GPU
/// compute as plan.compute, H2D/D2H between the CPU and the GPU, disk
/// reads and writes striped over the nvme drives; makespan the generation
/// time, `tflops` the attained rate, `peak_bytes` gpu/host/nvme and
/// `link_bytes` h2d/d2h/ssd_read/ssd_write.
mlir::FailureOr<plan::ScheduleOp> buildInferenceSchedule(
    mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
    llvm::StringRef topology, const offload::InferencePlan &plan,
    llvm::ArrayRef<offload::Action> schedule, const offload::Machine &machine,
    const analysis::TopoGraph &graph);

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_OFFLOADSCHEDULE_H
