//===- AlignGpu.cpp - Align jobs to PTX -----------------------------------===//
//
// align-to-gpu on a copy of the module (the seq dialect only), the
// gpu.module lowered to NVVM and moved into a plain module, and LLVM's
// NVPTX back end. The kernels use no libdevice function.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Align/AlignGpu.h"

#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Seq/IR/SeqOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace sluice;

LogicalResult sluice::target::lowerAlignJobsToPtx(ModuleOp module,
                                                  StringRef chip,
                                                  std::string &ptx,
                                                  StringRef only) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  for (Operation &op : llvm::make_early_inc_range(copy->getOps())) {
    auto job = dyn_cast<seq::AlignOp>(op);
    if (!job || (!only.empty() && job.getSymName() != only))
      op.erase();
  }
  if (copy->getOps<seq::AlignOp>().empty())
    return emitError(module.getLoc())
           << "the program declares no align job"
           << (only.empty() ? "" : (" named '" + only + "'").str())
           << ": nothing to compile for the GPU";
  if (failed(runPasses(*copy, buildAlignToNVVMPipeline)))
    return failure();
  auto gpuModules = copy->getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return emitError(module.getLoc()) << "align-to-gpu produced no gpu.module";
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  OwningOpRef<ModuleOp> device =
      moveIntoModule(*gpuModule.getBody(), gpuModule.getLoc());
  std::string error;
  if (failed(emitPtx(*device, chip, /*libdevice=*/"", ptx, error)))
    return emitError(module.getLoc()) << "PTX generation failed: " << error;
  return success();
}
