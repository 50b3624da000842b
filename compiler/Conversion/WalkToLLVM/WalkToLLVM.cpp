//===- WalkToLLVM.cpp - walk.walk to kernel functions and descriptors -----===//
//
// The `walk-to-llvm` pass (see Passes.td): outlines each region of a
// walk.walk into a function with the walk kernel ABI's signature, lowers the
// walk ops inside to frame loads/stores and libsluicert calls, runs the
// upstream conversions to the LLVM dialect, and emits one
// `sluice_walk_kernel_t` global per walk.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Conversion/WalkToLLVM/WalkAbi.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <vector>

namespace sluice::conversion {
#define GEN_PASS_DEF_WALKTOLLVM
#include "compiler/Conversion/Passes.h.inc"
} // namespace sluice::conversion

using namespace mlir;
using namespace sluice;
using namespace sluice::conversion;

namespace {

/// The upstream conversions that finish the job once no walk op is left.
void buildUpstreamLowering(OpPassManager &pm) {
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (tan, atan2, ...) becomes a libm call.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

struct WalkToLLVMPass
    : public sluice::conversion::impl::WalkToLLVMBase<WalkToLLVMPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    WalkToLLVMBase::getDependentDialects(registry);
    OpPassManager pm("builtin.module");
    buildUpstreamLowering(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::vector<KernelInfo> kernels;
    SmallVector<walk::WalkOp> walks(module.getOps<walk::WalkOp>());
    for (walk::WalkOp w : walks) {
      FailureOr<KernelInfo> info = outlineWalk(module, w);
      if (failed(info))
        return signalPassFailure();
      kernels.push_back(std::move(*info));
    }
    // The walk ops are all outlined; graph and job ops have no code.
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<walk::WalkDialect>(op.getDialect()))
        op.erase();

    OpPassManager pm("builtin.module");
    buildUpstreamLowering(pm);
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();

    for (const KernelInfo &info : kernels)
      if (failed(emitKernelDescriptor(module, info)))
        return signalPassFailure();

    // Only what the pass lowers must be gone: ops of the dialects that
    // describe other things (a topology, plans, models) stay as they are.
    WalkResult leftover = module.walk<WalkOrder::PreOrder>([](Operation *op) {
      if (isa<ModuleOp>(op) || isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      if (!isa<walk::WalkDialect, func::FuncDialect, arith::ArithDialect,
               math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect>(
              op->getDialect()) &&
          !isa<UnrealizedConversionCastOp>(op))
        return WalkResult::skip();
      op->emitError("walk-to-llvm: '")
          << op->getName() << "' was not lowered to the LLVM dialect";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
