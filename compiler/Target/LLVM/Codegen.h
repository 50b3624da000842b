//===- Codegen.h - LLVM-dialect modules to machine code ---------*- C++ -*-===//
//
// The back end shared by every Sluice lowering that ends in the LLVM
// dialect (walk kernels today): translation to LLVM IR, optimisation,
// host object files (PIC), PTX for NVIDIA GPUs through LLVM's NVPTX target,
// and an in-process JIT (mlir::ExecutionEngine, ORC) whose external symbols
// are resolved from an explicit table (the runtime's C functions), never
// from whatever the process happens to export.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_LLVM_CODEGEN_H
#define SLUICE_COMPILER_TARGET_LLVM_CODEGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class ExecutionEngine;
} // namespace mlir

namespace sluice::target {

/// Registers the LLVM IR translations of the builtin, LLVM and NVVM
/// dialects (what translateToLLVMIR needs).
void registerLLVMTranslations(mlir::DialectRegistry &registry);

/// Translates a module that is entirely in the LLVM (and NVVM) dialect to
/// LLVM IR. Reports a located error and returns null on failure.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmCtx);

/// The CPU a host object is compiled for (sluicec --mcpu and --mattr, as
/// llc's -mcpu and -mattr), on the host's architecture.
struct HostCpu {
  /// "generic" (the architecture's baseline: x86-64 has SSE2 only; the
  /// object runs on any CPU of the architecture), "native" (this machine's
  /// CPU and features) or a CPU name LLVM knows for the architecture
  /// ("x86-64-v3", "znver4"; `sluicec --mcpu=help` lists them).
  std::string name = "generic";
  /// LLVM feature names, each with + or -, separated by commas
  /// ("+avx2,-fma"), applied over the CPU's own features.
  std::string features;
};

/// The host's target triple (what host objects are compiled for).
std::string hostTriple();

/// `cpu` checked and made explicit for the host's triple: "native" becomes
/// the host CPU's name with the host's features (sorted) before
/// `cpu.features`; any other name must be one the target knows, and every
/// feature one of its features. `error` says what is wrong otherwise.
mlir::FailureOr<HostCpu> resolveHostCpu(const HostCpu &cpu, std::string &error);

/// Lists the CPU names and the features LLVM knows for the host's triple
/// (sluicec --mcpu=help).
void printHostCpus(llvm::raw_ostream &os);

/// What an object compiled for `cpus` runs on, for the comment of a
/// generated header: "built for x86_64-pc-linux-gnu, CPU x86-64-v3: needs a
/// CPU with its instruction set" ("native" is named with the host's CPU),
/// then the features asked for; for several CPUs, "CPUs x86-64-v3,
/// x86-64: each function runs the code of the first CPU the machine
/// supports, chosen when the program is loaded (runs on any CPU of the
/// architecture)".
std::string describeHostCpu(llvm::ArrayRef<HostCpu> cpus);

/// Writes `module` (LLVM dialect) as a position-independent object file for
/// the host's architecture and `cpus` (each resolved by resolveHostCpu
/// here too), optimised at -O`optLevel`. One CPU: the object is that CPU's
/// code. Several (checkCpuList, CpuDispatch.h): every function is compiled
/// once per CPU and each exported one dispatches, when the program is
/// loaded, to the first CPU the machine supports. `error` gets the reason
/// on failure.
mlir::LogicalResult writeHostObject(mlir::ModuleOp module, llvm::StringRef path,
                                    unsigned optLevel,
                                    llvm::ArrayRef<HostCpu> cpus,
                                    std::string &error);

/// The libdevice bitcode file this build was configured with (CMake cache
/// variable SLUICE_LIBDEVICE; docs/build.md). It need not exist.
llvm::StringRef defaultLibdevicePath();

/// The prefix of libdevice's functions (__nv_sqrt, __nv_exp, ...), which
/// convert-gpu-to-nvvm calls for math ops.
inline constexpr llvm::StringLiteral kLibdevicePrefix = "__nv_";

/// Compiles `module` (LLVM + NVVM dialects, kernels marked nvvm.kernel) to
/// PTX text for `chip` ("sm_90") with LLVM's NVPTX back end. When the
/// module calls libdevice functions, the bitcode file `libdevice` is linked
/// in first (only the functions called, internalised, so that they are
/// inlined and the PTX declares no external function). `error` gets the
/// reason on failure, e.g. a function that neither the module nor
/// libdevice defines.
mlir::LogicalResult emitPtx(mlir::ModuleOp module, llvm::StringRef chip,
                            llvm::StringRef libdevice, std::string &ptx,
                            std::string &error);

/// A new module holding the operations of `body` (a gpu.module's, after
/// the NVVM lowering) but its terminator, moved out of it: what emitPtx
/// compiles.
mlir::OwningOpRef<mlir::ModuleOp> moveIntoModule(mlir::Block &body,
                                                 mlir::Location loc);

/// Writes what `write` prints to the text file `path`. A located error at
/// `loc` when it cannot be opened or written; nothing is left behind then.
mlir::LogicalResult
writeTextFile(mlir::Location loc, llvm::StringRef path,
              llvm::function_ref<void(llvm::raw_ostream &)> write);

/// An LLVM-dialect module compiled in process.
class HostJit {
public:
  /// Compiles `module` at -O`optLevel`. `symbols` maps each external
  /// function the module calls to its address.
  static std::unique_ptr<HostJit>
  create(mlir::ModuleOp module, const llvm::StringMap<void *> &symbols,
         unsigned optLevel, std::string &error);
  ~HostJit();

  /// The address of a function or global defined by the module, or null
  /// (with `error` set) when there is none.
  void *lookup(llvm::StringRef name, std::string &error) const;

private:
  HostJit();
  /// The optimiser's target machine: the module is optimised when it is
  /// first looked up, after ExecutionEngine::create released its own.
  std::unique_ptr<llvm::TargetMachine> optimizerTarget;
  std::unique_ptr<mlir::ExecutionEngine> engine;
};

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_LLVM_CODEGEN_H
