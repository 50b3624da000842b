//===- AlignDriver.h - sluicec's align jobs ---------------------*- C++ -*-===//
//
// sluicec --run of an `align` job (a seq.align, docs/align.md): the job
// chosen, the run on the runtime's wavefront kernel (sluice/align.h) or,
// with --target=gpu, align-to-gpu's kernel (sluice/align_gpu.h), its
// errors located in the FASTA files, and the summary printed.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_ALIGNDRIVER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_ALIGNDRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace sluice {

struct AlignRunOptions {
  std::string job;      ///< empty: the program's only job
  std::string output;   ///< empty: the job's
  unsigned threads = 0; ///< 0: the job's (0 there: every core)
  bool gpu = false;     ///< --target=gpu: the align-to-gpu kernel
};

/// Whether --run of `job` (empty: the only job) runs an align job.
bool isAlignRun(mlir::ModuleOp module, llvm::StringRef job);

/// Runs it and prints the summary to `os`; returns the exit code.
int runAlignJob(mlir::ModuleOp module, const AlignRunOptions &options,
                llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_ALIGNDRIVER_H
