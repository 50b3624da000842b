//===- AlgoGpu.cpp - Graph algorithms' loops to PTX -----------------------===//
//
// graph-to-gpu on a copy of the module (the graph dialect only), the
// kernels described from their `sluice.algo_kernel` attributes, the
// gpu.module lowered to NVVM and moved into a plain module (helpers
// internal, so that the copies of the CPU loop functions are inlined into
// their kernels), and LLVM's NVPTX back end.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Graph/AlgoGpu.h"

#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "sluice/algo_gpu.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

namespace {

llvm::json::Value describe(gpu::GPUModuleOp gpuModule, StringRef chip) {
  llvm::json::Array kernels;
  for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>()) {
    auto d = fn->getAttrOfType<DictionaryAttr>("sluice.algo_kernel");
    if (!d)
      continue;
    auto str = [&](StringRef key) {
      auto a = d.getAs<StringAttr>(key);
      return a ? a.getValue().str() : std::string();
    };
    auto num = [&](StringRef key) {
      auto a = d.getAs<IntegerAttr>(key);
      return a ? a.getInt() : int64_t(0);
    };
    kernels.push_back(llvm::json::Object{
        {"kernel", fn.getName()},
        {"host_function", str("host_function")},
        {"algorithm", str("algorithm")},
        {"loop", str("loop")},
        {"variant", str("variant")},
        {"shape", str("shape")},
        {"env_slots", num("env_slots")},
        {"locals", num("locals")},
        {"threads_per_item", num("threads_per_item")},
        {"info", (fn.getName() + "_info").str()},
        {"args", llvm::json::Array{"sluice_algo_gpu_ctx_t*", "u64*", "i64"}},
        {"block", SLUICE_ALGO_GPU_BLOCK}});
  }
  return llvm::json::Object{{"chip", chip},
                            {"module", gpuModule.getName()},
                            {"kernels", std::move(kernels)}};
}

} // namespace

LogicalResult sluice::target::lowerAlgorithmsToPtx(
    ModuleOp module, StringRef chip, StringRef libdevice, bool remarks,
    std::string &ptx, std::string &json, StringRef only) {
  if (module.getOps<graph::AlgorithmOp>().empty())
    return emitError(module.getLoc())
           << "the program declares no algorithm: nothing to compile with -c "
              "--target=gpu";
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  for (Operation &op : llvm::make_early_inc_range(copy->getOps())) {
    auto algo = dyn_cast<graph::AlgorithmOp>(op);
    if (!isa<graph::GraphDialect>(op.getDialect()) ||
        (algo && !only.empty() && algo.getSymName() != only))
      op.erase();
  }
  if (failed(runPasses(*copy, [&](OpPassManager &pm) {
        buildGraphToGPUPipeline(pm, remarks);
      })))
    return failure();
  auto gpuModules = copy->getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return emitError(module.getLoc()) << "graph-to-gpu produced no gpu.module";
  llvm::raw_string_ostream(json)
      << llvm::formatv("{0:2}", describe(*gpuModules.begin(), chip)) << "\n";
  // The host functions are -c's (for the CPU); only the kernels here.
  for (Operation &op : llvm::make_early_inc_range(copy->getOps()))
    if (!isa<gpu::GPUModuleOp>(op))
      op.erase();
  if (failed(runPasses(*copy, buildAlgoKernelsToNVVMPipeline)))
    return failure();

  gpu::GPUModuleOp gpuModule = *copy->getOps<gpu::GPUModuleOp>().begin();
  OwningOpRef<ModuleOp> device =
      moveIntoModule(*gpuModule.getBody(), gpuModule.getLoc());
  // Kernels and the `_info` globals are the module's interface; the copies
  // of the loop functions and the runtime's device versions are internal
  // (inlined); declarations (libdevice's) stay for emitPtx to link.
  for (auto fn :
       llvm::make_early_inc_range(device->getOps<LLVM::LLVMFuncOp>())) {
    if (fn->hasAttr("nvvm.kernel") || fn.isExternal())
      continue;
    if (fn.getName().starts_with("_mlir_ciface_")) {
      fn.erase();
      continue;
    }
    fn.setLinkage(LLVM::Linkage::Internal);
    fn->removeAttr("llvm.emit_c_interface");
    fn->removeAttr("sym_visibility");
  }
  std::string error;
  if (failed(emitPtx(*device, chip, libdevice, ptx, error)))
    return emitError(module.getLoc()) << "PTX generation failed: " << error;
  return success();
}

LogicalResult sluice::target::compileAlgorithmsToPtx(ModuleOp module,
                                                     StringRef ptxPath,
                                                     StringRef jsonPath,
                                                     StringRef libdevice,
                                                     bool remarks) {
  std::string ptx, json;
  if (failed(
          lowerAlgorithmsToPtx(module, "sm_90", libdevice, remarks, ptx, json)))
    return failure();
  for (auto [path, text] :
       {std::pair<StringRef, StringRef>{ptxPath, ptx}, {jsonPath, json}})
    if (failed(writeTextFile(module.getLoc(), path,
                             [&](llvm::raw_ostream &os) { os << text; })))
      return failure();
  return success();
}
