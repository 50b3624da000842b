//===- MLIRGenAlign.h - Lowering align jobs ---------------------*- C++ -*-===//
//
// Each `align` job becomes a `seq.align` (docs/align.md) with its FASTA
// paths resolved against the file that names them and minimap2's defaults
// for the scoring it leaves out (match 2, mismatch 4, gap_open 4,
// gap_extend 2, band 100, zdrop 400, as `minimap2 -x map-ont` extends).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENALIGN_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENALIGN_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// True for `align` jobs.
bool isAlignJob(const ast::Decl &d);

/// Appends a seq.align for every align job of `program` to `module`.
mlir::LogicalResult lowerAlignJobs(mlir::ModuleOp module,
                                   const ast::Program &program,
                                   const ConstEnv &globals);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENALIGN_H
