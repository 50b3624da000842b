//===- WalkDriver.h - sluicec --run of a walk job ---------------*- C++ -*-===//
//
// The checks of the walk options sluicec takes (--walk-threads,
// --walks-dtype, --cost-ratio) and the summary it prints after a walk job,
// over compiler/Target/Walk/WalkCompile.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_SLUICEC_WALKDRIVER_H
#define SLUICE_COMPILER_TOOLS_SLUICEC_WALKDRIVER_H

#include "compiler/Target/Walk/WalkCompile.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// --run of a walk job with `options` (checked first: a bad value is one
/// error line naming the option); prints the summary to `os`. Returns the
/// exit code.
int runWalkJobAndReport(mlir::ModuleOp module,
                        const target::WalkRunOptions &options,
                        llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_COMPILER_TOOLS_SLUICEC_WALKDRIVER_H
