//===- PassPipelines.cpp - every pass manager the compiler runs -----------===//
#include "compiler/Pipelines/PassPipelines.h"

#include "compiler/Conversion/Passes.h"
#include "dialects/Walk/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

LogicalResult
sluice::runPasses(ModuleOp module,
                  llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

void sluice::buildWalkSchedulePipeline(OpPassManager &pm, StringRef target) {
  walk::WalkSelectSamplerOptions options;
  options.target = target.str();
  pm.addPass(walk::createWalkSelectSampler(options));
}

void sluice::buildWalkToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createWalkToLLVM());
}

void sluice::buildWalkToNVVMPipeline(OpPassManager &pm) {
  pm.addPass(conversion::createWalkToGPU());
  pm.addPass(createConvertSCFToCFPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
