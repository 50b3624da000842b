//===- PassPipelines.h - every pass manager the compiler runs ---*- C++ -*-===//
//
// Each pipeline sluicec runs is built here and run by runPasses, whose
// PassManager applies the command-line options (--mlir-print-ir-after-all,
// --mlir-timing, --mlir-pass-statistics, ...), so they see every pass:
// walk-bounds, walk-select-sampler, graph-attach-schedule,
// graph-check-parallel-writes, model-cost, the
// topology and plan passes and the lowerings of walks for the CPU and the
// GPU.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_PIPELINES_PASSPIPELINES_H
#define SLUICE_COMPILER_PIPELINES_PASSPIPELINES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace sluice {

/// Registers the pass manager's command-line options (a tool calls it
/// before parsing its command line); runPasses applies them from then on.
void registerPassManagerOptions();

/// Runs the passes `build` adds on `module`, with the command-line options
/// applied when the tool registered them.
mlir::LogicalResult
runPasses(mlir::ModuleOp module,
          llvm::function_ref<void(mlir::OpPassManager &)> build);

/// walk-select-sampler for `target` ("cpu", "gpu" or "" for each walk's
/// own).
void buildWalkSchedulePipeline(mlir::OpPassManager &pm,
                               llvm::StringRef target);

/// graph-attach-schedule: every loop of every algorithm gets its
/// #graph.schedule (with `remarks`, a remark per algorithm and loop); then
/// graph-check-parallel-writes, the legality of its parallel updates.
/// graph-hoist-source-terms: the source-only terms of edges loops are
/// computed once per vertex (with `remarks`, a remark per term).
void buildGraphSchedulePipeline(mlir::OpPassManager &pm, bool remarks);

/// The walks to the LLVM dialect for the host: walk-to-llvm, the upstream
/// conversions, walk-kernel-descriptors.
void buildWalkToLLVMPipeline(mlir::OpPassManager &pm);

/// The algorithms to the LLVM dialect for the host: graph-to-llvm (with
/// a remark per loop when `remarks`), then the upstream conversions.
void buildGraphToLLVMPipeline(mlir::OpPassManager &pm, bool remarks);

/// The walks (scheduled for the GPU) to a gpu.module in the NVVM dialect:
/// walk-to-gpu, scf-to-cf, convert-gpu-to-nvvm, reconcile casts.
void buildWalkToNVVMPipeline(mlir::OpPassManager &pm);

/// The algorithms to host functions and a gpu.module of kernels
/// (graph-to-gpu; a remark per loop with `remarks`). The host functions
/// are graph-to-llvm's, before the upstream conversions.
void buildGraphToGPUPipeline(mlir::OpPassManager &pm, bool remarks);

/// graph-to-gpu's gpu.module to the NVVM dialect: scf-to-cf,
/// convert-gpu-to-nvvm, math-to-llvm, reconcile casts (nested in the
/// gpu.module; the host functions are left as they are).
void buildAlgoKernelsToNVVMPipeline(mlir::OpPassManager &pm);

/// The align jobs to CPU functions in the LLVM dialect (what sluicec -c
/// compiles): align-to-llvm, scf-to-cf, arith, cf and func to LLVM,
/// reconcile casts.
void buildAlignToLLVMPipeline(mlir::OpPassManager &pm);

/// The align jobs to a gpu.module in the NVVM dialect: align-to-gpu, then
/// in the gpu.module scf-to-cf, convert-gpu-to-nvvm, reconcile casts.
void buildAlignToNVVMPipeline(mlir::OpPassManager &pm);

/// The gnn train jobs' aggregation kernels to a gpu.module in the NVVM
/// dialect: gnn-to-gpu, then buildAlgoKernelsToNVVMPipeline's device-code
/// conversions.
void buildGnnToNVVMPipeline(mlir::OpPassManager &pm);

/// Registers every Sluice pass by name (topo, walk, plan, model and the
/// conversions), so that options such as --mlir-print-ir-after=<pass>
/// find them.
void registerSluicePasses();

/// Registers the pipelines with sluice-opt: `sluice-walk-to-llvm`,
/// `sluice-walk-to-nvvm`, `sluice-graph-to-llvm`, `sluice-graph-to-nvvm`
/// `sluice-align-to-llvm` and `sluice-align-to-nvvm`.
void registerWalkPipelines();

} // namespace sluice

#endif // SLUICE_COMPILER_PIPELINES_PASSPIPELINES_H
