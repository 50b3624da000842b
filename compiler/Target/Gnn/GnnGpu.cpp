//===- GnnGpu.cpp - Gnn train jobs' aggregation kernels to PTX ------------===//
//
// gnn-to-gpu on a copy of the module (the other jobs erased when one is
// asked for), the kernels described from their `sluice.gnn_kernel`
// attributes, the gpu.module lowered to NVVM and moved into a plain
// module, and LLVM's NVPTX back end. The kernels use no libdevice
// function.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Gnn/GnnGpu.h"

#include "compiler/Conversion/Passes.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Model/IR/ModelOps.h"
#include "sluice/gnn_gpu.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;

namespace {

/// One entry per kernel: its name, job, model, kind, direction, the
/// threads it runs, its argument struct and block size.
llvm::json::Value describe(gpu::GPUModuleOp gpuModule, StringRef chip) {
  llvm::json::Array kernels;
  for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>()) {
    auto d = fn->getAttrOfType<DictionaryAttr>("sluice.gnn_kernel");
    if (!d)
      continue;
    auto str = [&](StringRef key) {
      auto a = d.getAs<StringAttr>(key);
      return a ? a.getValue().str() : std::string();
    };
    bool forward = str("direction") == "forward";
    kernels.push_back(llvm::json::Object{
        {"kernel", fn.getName()},
        {"job", str("job")},
        {"model", str("model")},
        {"kind", str("kind")},
        {"direction", str("direction")},
        {"threads", forward ? "num_dst * in" : "num_src * in"},
        {"args", forward ? "sluice_gnn_gpu_forward_args_t*"
                         : "sluice_gnn_gpu_backward_args_t*"},
        {"block", SLUICE_GNN_GPU_BLOCK}});
  }
  return llvm::json::Object{{"chip", chip},
                            {"module", gpuModule.getName()},
                            {"kernels", std::move(kernels)}};
}

} // namespace

LogicalResult sluice::target::lowerGnnJobsToPtx(ModuleOp module, StringRef chip,
                                                std::string &ptx,
                                                std::string &json,
                                                StringRef only) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  for (auto job : llvm::make_early_inc_range(copy->getOps<model::GnnTrainOp>()))
    if (!only.empty() && job.getSymName() != only)
      job.erase();
  if (copy->getOps<model::GnnTrainOp>().empty())
    return emitError(module.getLoc())
           << "the program declares no gnn train job"
           << (only.empty() ? "" : (" named '" + only + "'").str())
           << ": nothing to compile for the GPU";
  // gnn-to-gpu, the description (from the gpu.funcs), then the device
  // code's conversions (buildGnnToNVVMPipeline in two steps).
  if (failed(runPasses(*copy, [](OpPassManager &pm) {
        pm.addPass(conversion::createGnnToGPU());
      })))
    return failure();
  auto gpuModules = copy->getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return emitError(module.getLoc()) << "gnn-to-gpu produced no gpu.module";
  json.clear();
  llvm::raw_string_ostream(json)
      << llvm::formatv("{0:2}", describe(*gpuModules.begin(), chip)) << "\n";
  if (failed(runPasses(*copy, buildAlgoKernelsToNVVMPipeline)))
    return failure();
  gpu::GPUModuleOp gpuModule = *copy->getOps<gpu::GPUModuleOp>().begin();
  OwningOpRef<ModuleOp> device =
      moveIntoModule(*gpuModule.getBody(), gpuModule.getLoc());
  std::string error;
  if (failed(emitPtx(*device, chip, /*libdevice=*/"", ptx, error)))
    return emitError(module.getLoc()) << "PTX generation failed: " << error;
  return success();
}

LogicalResult sluice::target::compileGnnJobsToPtx(ModuleOp module,
                                                  StringRef ptxPath,
                                                  StringRef jsonPath,
                                                  StringRef only) {
  std::string ptx, json;
  if (failed(lowerGnnJobsToPtx(module, "sm_90", ptx, json, only)))
    return failure();
  for (auto [path, text] :
       {std::pair<StringRef, StringRef>{ptxPath, ptx}, {jsonPath, json}})
    if (failed(writeTextFile(module.getLoc(), path,
                             [&](llvm::raw_ostream &os) { os << text; })))
      return failure();
  return success();
}
