//===- CpuDispatch.h - One object, code for several CPUs --------*- C++ -*-===//
//
// `sluicec -c --mcpu=A,B,...`: every function of an LLVM module compiled
// once per CPU of the list, and each exported function an ELF ifunc whose
// resolver picks, once at load time, the first CPU of the list that the
// running machine supports. This is what clang emits for
// `__attribute__((target_clones(...)))`: the clones differ only in their
// "target-cpu"/"target-features" attributes; the resolver asks libgcc's
// (or compiler-rt's) `__cpu_indicator_init`, `__cpu_model` and
// `__cpu_features2`, with the bit masks of llvm::X86::getCpuSupportsMask.
// x86-64 only (ELF ifuncs and those libraries' CPU model).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_LLVM_CPUDISPATCH_H
#define SLUICE_COMPILER_TARGET_LLVM_CPUDISPATCH_H

#include "compiler/Target/LLVM/Codegen.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace sluice::target {

/// Checks a list of several CPUs (--mcpu=A,B,..., each known to LLVM):
/// the host's architecture is x86-64, no CPU is named twice, the last one
/// is a baseline every x86-64 machine runs (generic or x86-64), and no CPU
/// carries --mattr features (a clone is one CPU's code). `error` says
/// which rule is broken.
mlir::LogicalResult checkCpuList(llvm::ArrayRef<HostCpu> cpus,
                                 std::string &error);

/// Rewrites `module` (not yet optimised) to hold code for each CPU of
/// `cpus` (resolved by resolveHostCpu, checked by checkCpuList, in the
/// order written; the last one is the baseline):
///  - the module's functions are the baseline's code, with its
///    "target-cpu"; every other CPU gets a copy of each defined function
///    (`name.cpu`, the CPU's name with `_` for `-`: `f.x86_64_v3`;
///    internal unless the original is exported), whose calls
///    and function addresses refer to that CPU's copies;
///  - each exported function `f`, and each whose address a global holds
///    (a walk kernel's descriptor), becomes `f.<baseline>` and `f` an
///    ifunc (same linkage) whose resolver `f.resolver` returns the first
///    CPU's copy whose features the running machine has; the globals
///    point at the ifunc. Exported copies and resolvers are hidden.
/// `names` are the CPUs as written (native included), for the copies'
/// names.
mlir::LogicalResult addCpuDispatch(llvm::Module &module,
                                   llvm::ArrayRef<HostCpu> cpus,
                                   llvm::ArrayRef<std::string> names,
                                   std::string &error);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_LLVM_CPUDISPATCH_H
