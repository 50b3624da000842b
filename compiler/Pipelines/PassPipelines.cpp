//===- PassPipelines.cpp - every pass manager the compiler runs -----------===//
#include "compiler/Pipelines/PassPipelines.h"

#include "compiler/Conversion/Passes.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "dialects/Model/Transforms/Passes.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Topo/Transforms/Passes.h"
#include "dialects/Walk/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

/// Whether the tool registered the pass manager's command-line options
/// (applyPassManagerCLOptions fails when they are not).
static bool passManagerOptionsRegistered = false;

void sluice::registerPassManagerOptions() {
  registerPassManagerCLOptions();
  passManagerOptionsRegistered = true;
}

LogicalResult
sluice::runPasses(ModuleOp module,
                  llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (passManagerOptionsRegistered && failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

void sluice::buildWalkSchedulePipeline(OpPassManager &pm, StringRef target) {
  walk::WalkSelectSamplerOptions options;
  options.target = target.str();
  pm.addPass(walk::createWalkSelectSampler(options));
}

void sluice::buildGraphSchedulePipeline(OpPassManager &pm, bool remarks) {
  graph::GraphAttachScheduleOptions options;
  options.remarks = remarks;
  pm.addPass(graph::createGraphAttachSchedule(options));
  // The legality of parallel updates needs each loop's direction and
  // parallelism, so it runs once the schedules are attached.
  pm.addPass(graph::createGraphCheckParallelWrites());
  // On the loops the legality proof covers: reads their frontier shares.
  graph::GraphUniformSourceReadsOptions uniform;
  uniform.remarks = remarks;
  pm.addPass(graph::createGraphUniformSourceReads(uniform));
  // After the schedules: the vertices loops it inserts get theirs.
  graph::GraphHoistSourceTermsOptions hoist;
  hoist.remarks = remarks;
  pm.addPass(graph::createGraphHoistSourceTerms(hoist));
}

void sluice::buildWalkToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createWalkToLLVM());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (tan, atan2, ...) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(conversion::createWalkKernelDescriptors());
}

void sluice::buildGraphToLLVMPipeline(OpPassManager &pm, bool remarks) {
  conversion::GraphToLLVMOptions options;
  options.remarks = remarks;
  pm.addPass(conversion::createGraphToLLVM(options));
  // The loops' control flow and arithmetic; math without an LLVM intrinsic
  // becomes a libm call, as for walks. The functions are llvm.func already.
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass()); // libm declarations
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void sluice::buildGraphToGPUPipeline(OpPassManager &pm, bool remarks) {
  conversion::GraphToGPUOptions options;
  options.remarks = remarks;
  pm.addPass(conversion::createGraphToGPU(options));
}

void sluice::buildAlgoKernelsToNVVMPipeline(OpPassManager &pm) {
  // Only the device code: the host functions go through graph-to-llvm's
  // pipeline when they are compiled (sluicec -c without --target=gpu).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertSCFToCFPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createConvertMathToLLVMPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

void sluice::buildAlignToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createAlignToLLVM());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void sluice::buildAlignToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createAlignToGPU());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertSCFToCFPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createReconcileUnrealizedCastsPass());
}

void sluice::buildGnnToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createGnnToGPU());
  // The same device-code conversions as the algorithms' kernels.
  buildAlgoKernelsToNVVMPipeline(pm);
}

void sluice::registerSluicePasses() {
  topo::registerTopoPasses();
  walk::registerWalkPasses();
  plan::registerPlanPasses();
  model::registerModelPasses();
  graph::registerGraphPasses();
  conversion::registerConversionPasses();
}

void sluice::registerWalkPipelines() {
  PassPipelineRegistration<>(
      "sluice-walk-to-llvm",
      "The walks to LLVM-dialect functions and kernel descriptors for the "
      "host (what sluicec -c and --run compile)",
      buildWalkToLLVMPipeline);
  PassPipelineRegistration<>(
      "sluice-walk-to-nvvm",
      "The walks (scheduled for the GPU) to a gpu.module in the NVVM "
      "dialect (what sluicec -c --target=gpu compiles to PTX)",
      buildWalkToNVVMPipeline);
  PassPipelineRegistration<>(
      "sluice-graph-to-llvm",
      "The algorithms to LLVM-dialect functions for the host (what sluicec "
      "--run and -c compile)",
      [](OpPassManager &pm) { buildGraphToLLVMPipeline(pm, false); });
  PassPipelineRegistration<>(
      "sluice-graph-to-nvvm",
      "The algorithms to host functions and their loops' kernels in a "
      "gpu.module in the NVVM dialect (what sluicec -c --target=gpu "
      "compiles to PTX)",
      [](OpPassManager &pm) {
        buildGraphToGPUPipeline(pm, false);
        buildAlgoKernelsToNVVMPipeline(pm);
      });
  PassPipelineRegistration<>(
      "sluice-align-to-nvvm",
      "The align jobs to a gpu.module of warp-per-pair kernels in the NVVM "
      "dialect (what sluicec --emit=ptx compiles to PTX)",
      buildAlignToNVVMPipeline);
  PassPipelineRegistration<>(
      "sluice-align-to-llvm",
      "The align jobs to one-pair CPU functions in the LLVM dialect (what "
      "sluicec -c compiles to an object file)",
      buildAlignToLLVMPipeline);
  PassPipelineRegistration<>(
      "sluice-gnn-to-nvvm",
      "The gnn train jobs' aggregation kernels in a gpu.module in the NVVM "
      "dialect (what sluicec --emit=ptx and -c --target=gpu compile to PTX)",
      buildGnnToNVVMPipeline);
}

void sluice::buildWalkToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createWalkToGPU());
  pm.addPass(createConvertSCFToCFPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  // What convert-gpu-to-nvvm leaves of math: math.absi (it calls libdevice
  // for float math only), lowered as on the CPU (llvm.intr.abs).
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertMathToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
