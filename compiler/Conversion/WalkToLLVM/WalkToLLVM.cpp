//===- WalkToLLVM.cpp - walk.walk to kernel functions and descriptors -----===//
//
// The `walk-to-llvm` pass (see Passes.td): outlines each region of a
// walk.walk into a function with the walk kernel ABI's signature, lowers the
// walk ops inside to frame loads/stores and libsluicert calls and records
// each walk's descriptor as a #walk.kernel in the module's `walk.kernels`.
// The upstream conversions lower the rest (buildWalkToLLVMPipeline), then
// `walk-kernel-descriptors` emits one `sluice_walk_kernel_t` global per
// walk.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Conversion/WalkToLLVM/WalkAbi.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <vector>

namespace sluice::conversion {
#define GEN_PASS_DEF_WALKTOLLVM
#define GEN_PASS_DEF_WALKKERNELDESCRIPTORS
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

struct WalkToLLVMPass
    : public sluice::conversion::impl::WalkToLLVMBase<WalkToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Attribute> kernels;
    SmallVector<walk::WalkOp> walks(module.getOps<walk::WalkOp>());
    for (walk::WalkOp w : walks) {
      FailureOr<KernelInfo> info = outlineWalk(module, w);
      if (failed(info))
        return signalPassFailure();
      kernels.push_back(kernelAttr(module.getContext(), *info));
    }
    // The walk ops are all outlined; graph and job ops have no code.
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<walk::WalkDialect>(op.getDialect()))
        op.erase();
    // The descriptors wait for LLVM-dialect functions
    // (walk-kernel-descriptors, after the upstream conversions).
    if (!kernels.empty())
      module->setAttr(kKernelsAttrName,
                      ArrayAttr::get(module.getContext(), kernels));
  }
};

struct WalkKernelDescriptorsPass
    : public sluice::conversion::impl::WalkKernelDescriptorsBase<
          WalkKernelDescriptorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only what walk-to-llvm and the upstream conversions lower must be
    // gone: ops of the dialects that describe other things (a topology,
    // plans, models) stay as they are.
    WalkResult leftover = module.walk<WalkOrder::PreOrder>([](Operation *op) {
      if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      if (!isa<walk::WalkDialect, func::FuncDialect, arith::ArithDialect,
               math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect>(
              op->getDialect()) &&
          !isa<UnrealizedConversionCastOp>(op))
        return WalkResult::skip();
      op->emitError("walk-kernel-descriptors: '")
          << op->getName() << "' was not lowered to the LLVM dialect";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      return signalPassFailure();

    auto kernels = module->getAttrOfType<ArrayAttr>(kKernelsAttrName);
    if (!kernels)
      return;
    module->removeAttr(kKernelsAttrName);
    for (Attribute a : kernels) {
      auto kernel = dyn_cast<walk::KernelAttr>(a);
      if (!kernel) {
        module.emitError("walk-kernel-descriptors: '")
            << kKernelsAttrName << "' holds " << a
            << ", not a #walk.kernel";
        return signalPassFailure();
      }
      if (failed(emitKernelDescriptor(module, kernelInfo(module, kernel))))
        return signalPassFailure();
    }
  }
};

} // namespace
