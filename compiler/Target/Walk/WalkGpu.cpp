//===- WalkGpu.cpp - Walk programs to PTX ---------------------------------===//
//
// walk-to-gpu, then scf-to-cf, convert-gpu-to-nvvm and convert-math-to-llvm
// (inside the gpu.module) and reconcile-unrealized-casts; the gpu.module's
// LLVM/NVVM functions are moved into a plain module and compiled by LLVM's
// NVPTX back end, with the libdevice functions they call linked in.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/Walk/WalkGpu.h"

#include "compiler/Conversion/WalkToGPU/KernelArgs.h"
#include "compiler/Pipelines/PassPipelines.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Walk/IR/WalkOps.h"
#include "dialects/Walk/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::target;

namespace {

std::string typeName(Type t) {
  if (isa<walk::ListType>(t))
    return "list";
  if (t.isInteger(1))
    return "bool";
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

llvm::json::Value describe(ModuleOp module, StringRef chip) {
  llvm::json::Array kernels;
  for (walk::WalkOp w : module.getOps<walk::WalkOp>()) {
    llvm::json::Array params, state, args;
    for (auto [name, type] : llvm::zip(w.getParamNames(), w.getParamTypes()))
      params.push_back(llvm::json::Object{
          {"name", cast<StringAttr>(name).getValue()},
          {"type", typeName(cast<TypeAttr>(type).getValue())},
          // How the launcher fills the slot: "scalar" as is, "list" as a
          // device pointer to a sluice_walk_list_t (sluice_walk_run_gpu_ex,
          // SLUICE_WALK_PARAM_LIST).
          {"kind", isa<walk::ListType>(cast<TypeAttr>(type).getValue())
                       ? "list"
                       : "scalar"}});
    for (auto [name, type] : llvm::zip(w.getStateNames(), w.getStateTypes()))
      state.push_back(llvm::json::Object{
          {"name", cast<StringAttr>(name).getValue()},
          {"type", typeName(cast<TypeAttr>(type).getValue())}});
    // One argument, a sluice_walk_gpu_args_t * (walk_gpu.h): its fields.
    for (const conversion::KernelArgField &f : conversion::kernelArgFields())
      args.push_back(llvm::json::Object{{"name", f.name}, {"type", f.type}});
    kernels.push_back(llvm::json::Object{
        {"walk", w.getSymName()},
        {"kernel", ("sluice_walk_" + w.getSymName()).str()},
        {"order", w.getOrder()},
        {"sampler", walk::stringifyStepMethod(w.getScheduleAttr().getMethod())},
        {"threads_per_walker", w.getScheduleAttr().getThreadsPerWalker()},
        {"params", std::move(params)},
        {"state", std::move(state)},
        {"args_struct", "sluice_walk_gpu_args_t"},
        {"args", std::move(args)}});
  }
  return llvm::json::Object{{"chip", chip},
                            {"module", "sluice_walks"},
                            {"kernels", std::move(kernels)}};
}

/// The math built-ins' device versions are libdevice's: convert-gpu-to-nvvm
/// lowers math.sqrt on f64 to a call of __nv_sqrt, and so on. Without the
/// file `libdevice`, an error at each call (one per source position: the
/// upper bound repeats the weight's calls).
LogicalResult checkLibdevice(gpu::GPUModuleOp gpuModule, StringRef libdevice) {
  if (!libdevice.empty() && llvm::sys::fs::exists(libdevice))
    return success();
  llvm::MapVector<Location, StringRef> calls;
  gpuModule.walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (callee && callee->starts_with(kLibdevicePrefix))
      calls.insert(
          {call.getLoc(), callee->drop_front(kLibdevicePrefix.size())});
  });
  for (auto [loc, function] : calls) {
    InFlightDiagnostic diag = emitError(loc)
                              << "'" << (function == "fabs" ? "abs" : function)
                              << "' on the GPU needs libdevice (the CUDA "
                                 "toolkit's nvvm/libdevice/libdevice.10.bc), ";
    if (libdevice.empty())
      diag << "and none is configured";
    else
      diag << "which was not found at '" << libdevice << "'";
    diag << "; pass --libdevice=<file>, or run the walk on the CPU "
            "(--target=cpu)";
  }
  return failure(!calls.empty());
}

} // namespace

LogicalResult sluice::target::lowerWalksToPtx(ModuleOp module, StringRef chip,
                                              std::string &ptx,
                                              std::string &json,
                                              StringRef only,
                                              StringRef libdevice) {
  if (module.getOps<walk::WalkOp>().empty())
    return emitError(module.getLoc())
           << "the program declares no walk: nothing to compile with -c";
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  // The walks (only `only` when given) and their graphs; jobs have no
  // device code.
  for (Operation &op : llvm::make_early_inc_range(copy->getOps()))
    if (!isa<walk::WalkDialect>(op.getDialect()) || isa<walk::JobOp>(op) ||
        (!only.empty() && isa<walk::WalkOp>(op) &&
         cast<walk::WalkOp>(op).getSymName() != only))
      op.erase();
  // The GPU target: every walk scheduled for it (its requested sampler
  // kept), then described and lowered from that schedule.
  if (failed(runPasses(*copy, [](OpPassManager &pm) {
        buildWalkSchedulePipeline(pm, "gpu");
      })))
    return failure();
  llvm::raw_string_ostream(json) << llvm::formatv("{0:2}", describe(*copy, chip))
                                 << "\n";

  if (failed(runPasses(*copy, buildWalkToNVVMPipeline)))
    return failure();

  // The device code alone, as a plain LLVM/NVVM-dialect module.
  auto gpuModules = copy->getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty())
    return emitError(module.getLoc()) << "walk-to-gpu produced no gpu.module";
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  if (failed(checkLibdevice(gpuModule, libdevice)))
    return failure();
  OwningOpRef<ModuleOp> device =
      moveIntoModule(*gpuModule.getBody(), gpuModule.getLoc());
  // convert-gpu-to-nvvm gives every function a C interface wrapper and
  // external linkage; only the kernels are entry points: the helpers are
  // internal (inlined and dropped by the optimiser), the wrappers unused.
  // The declarations (libdevice's functions) stay external: emitPtx links
  // their definitions.
  for (auto fn : llvm::make_early_inc_range(device->getOps<LLVM::LLVMFuncOp>())) {
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

LogicalResult sluice::target::compileWalksToPtx(ModuleOp module,
                                                StringRef ptxPath,
                                                StringRef jsonPath,
                                                StringRef libdevice) {
  std::string ptx, json;
  if (failed(lowerWalksToPtx(module, "sm_90", ptx, json, "", libdevice)))
    return failure();
  for (auto [path, text] :
       {std::pair<StringRef, StringRef>{ptxPath, ptx}, {jsonPath, json}})
    if (failed(writeTextFile(module.getLoc(), path,
                             [&](llvm::raw_ostream &os) { os << text; })))
      return failure();
  return success();
}
