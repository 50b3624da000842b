//===- Frontend.h - Parsing Sluice programs --------------------*- C++ -*-===//
//
// Entry points of the Sluice front end. Diagnostics are reported through
// the MLIRContext's diagnostic engine with FileLineColLoc locations; the
// driver installs a SourceMgrDiagnosticHandler over the same SourceMgr so
// that errors print as file:line:col with the source line and a caret.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_FRONTEND_H
#define SLUICE_FRONTENDS_SLUICE_FRONTEND_H

#include "frontends/sluice/AST.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace sluice {

/// The mlir::Location of an AST position.
mlir::Location toLocation(mlir::MLIRContext *ctx, const ast::SourceLoc &loc);
inline mlir::Location toLocation(mlir::MLIRContext *ctx,
                                 const ast::SourceRange &range) {
  return toLocation(ctx, range.begin);
}

/// A path as written in the program (a job's input or output file),
/// relative to the file that names it at `where`; absolute or empty paths
/// as they are.
std::string relativeToSource(const ast::SourceRange &where,
                             llvm::StringRef path);

/// Parses the buffer `bufferId` of `sourceMgr`. Syntax errors are reported
/// (several per run: the parser recovers at declaration and item
/// boundaries) and make the result a failure; the module still holds every
/// declaration that parsed.
mlir::LogicalResult parseModule(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                mlir::MLIRContext *ctx, ast::Module &module);

/// Runs the scanner alone over the buffer `bufferId` of `sourceMgr` (no
/// parser) and returns the number of tokens before the end of the file.
/// Lexical errors are reported as by parseModule and make it a failure. For
/// benchmarks (bench/frontend) and tests of the scanner.
mlir::FailureOr<size_t> lexBuffer(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                                  mlir::MLIRContext *ctx);

/// Loads `path` into `sourceMgr`, parses it and, recursively, every file it
/// imports (paths relative to the importing file). Reports a missing file,
/// an import cycle and every syntax error; fails if any was reported.
mlir::LogicalResult loadProgram(llvm::StringRef path,
                                llvm::SourceMgr &sourceMgr,
                                mlir::MLIRContext *ctx, ast::Program &program);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_FRONTEND_H
