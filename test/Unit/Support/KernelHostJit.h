//===- KernelHostJit.h - GPU kernels JIT-compiled for the host in tests ---===//
//
// The set-up the host-run tests of GPU kernels share (AlgoGpuEmulationTest,
// AlignGpuHostRunTest, GnnGpuHostRunTest): a context with the dialects a
// lowered module holds, a Sluice program parsed, checked and lowered in it,
// and, once a test has turned the kernels into host functions (each its own
// way: the thread and block ids as arguments, a warp's lanes), the host
// module lowered to the LLVM dialect and JIT-compiled. Failures are
// messages in `error` (with the diagnostics), not aborts: a test reports
// them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_SUPPORT_KERNELHOSTJIT_H
#define SLUICE_TEST_UNIT_SUPPORT_KERNELHOSTJIT_H

#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace sluice::test {

struct KernelHostJit {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream os{diagnostics};
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
  std::unique_ptr<Compilation> compilation;
  std::unique_ptr<target::HostJit> jit;
  std::string error;

  KernelHostJit() {
    registerSluiceDialects(registry);
    registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                    mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                    mlir::gpu::GPUDialect>();
    target::registerLLVMTranslations(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
    handler = std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr,
                                                                 ctx.get(), os);
    compilation = std::make_unique<Compilation>(*ctx, sourceMgr);
  }

  /// The program at `path` (`what` names it in errors) parsed, checked and
  /// lowered: a copy of its module, or null with `error` set.
  mlir::OwningOpRef<mlir::ModuleOp> compile(const char *path,
                                            llvm::StringRef what) {
    if (mlir::failed(compilation->parse(path)) ||
        mlir::failed(compilation->check()) ||
        mlir::failed(compilation->lower())) {
      error = "cannot compile " + what.str() + ": " + diagnostics;
      return nullptr;
    }
    return mlir::OwningOpRef<mlir::ModuleOp>(
        llvm::cast<mlir::ModuleOp>(compilation->module()->clone()));
  }

  /// Runs `pass` (`what` names it in errors) on `module`; false with
  /// `error` set.
  bool run(mlir::ModuleOp module, std::unique_ptr<mlir::Pass> pass,
           llvm::StringRef what) {
    mlir::PassManager pm(ctx.get());
    pm.addPass(std::move(pass));
    if (mlir::succeeded(pm.run(module)))
      return true;
    error = what.str() + " failed: " + diagnostics;
    return false;
  }

  /// `host` (func, scf, arith, math and LLVM ops) lowered to the LLVM
  /// dialect and JIT-compiled into `jit` with `symbols` (the emulation's
  /// C functions it calls); false with `error` set.
  bool jitHost(mlir::ModuleOp host, const llvm::StringMap<void *> &symbols) {
    mlir::PassManager lower(ctx.get());
    lower.addPass(mlir::createConvertSCFToCFPass());
    lower.addPass(mlir::createConvertMathToLLVMPass());
    lower.addPass(mlir::createArithToLLVMConversionPass());
    lower.addPass(mlir::createConvertControlFlowToLLVMPass());
    lower.addPass(mlir::createConvertFuncToLLVMPass());
    lower.addPass(mlir::createReconcileUnrealizedCastsPass());
    if (mlir::failed(lower.run(host))) {
      error = "lowering the host kernels failed: " + diagnostics;
      return false;
    }
    jit = target::HostJit::create(host, symbols, 2, error);
    return jit != nullptr;
  }
};

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_SUPPORT_KERNELHOSTJIT_H
