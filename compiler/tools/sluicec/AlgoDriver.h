//===- AlgoDriver.h - sluicec's graph algorithm paths -----------*- C++ -*-===//
//
// What sluicec does with a program's algorithms for --run, -c and
// --emit=llvm, over compiler/Target/Graph/AlgoCompile.h: the summary it
// prints and the checks of the options that apply.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_ALGODRIVER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_ALGODRIVER_H

#include "compiler/Target/Graph/AlgoCompile.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// --run of an algorithm job; prints the summary to `os`. Returns the exit
/// code.
int runAlgorithmJobAndReport(mlir::ModuleOp module,
                             const target::AlgoRunOptions &options,
                             llvm::raw_ostream &os);

/// -c of a program's algorithms: `object` (for the host's architecture and
/// `cpus`) and its header beside it.
int compileAlgorithms(mlir::ModuleOp module, llvm::StringRef object,
                      llvm::ArrayRef<target::HostCpu> cpus);

/// --emit=llvm of a program's algorithms (LLVM IR before optimisation).
int emitAlgorithmLLVM(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_ALGODRIVER_H
