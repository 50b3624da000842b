//===- SemaTestHelpers.h - Running Sema in unit tests ----------*- C++ -*-===//
//
// Parses a source string, runs checkProgram over it and collects the
// diagnostics as "line:col: message" strings (notes as "line:col: note:
// message").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_FRONTEND_SEMATESTHELPERS_H
#define SLUICE_TEST_UNIT_FRONTEND_SEMATESTHELPERS_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/Sema.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <memory>
#include <string>
#include <vector>

namespace sluice::test {

/// Collects every diagnostic emitted in `ctx` while alive.
class DiagCollector {
public:
  explicit DiagCollector(mlir::MLIRContext &ctx) : ctx(ctx) {
    id = ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      errors.push_back(format(d.getLocation(), d.str()));
      all.push_back(errors.back());
      for (mlir::Diagnostic &n : d.getNotes())
        all.push_back(format(n.getLocation(), "note: " + n.str()));
      return mlir::success();
    });
  }
  ~DiagCollector() { ctx.getDiagEngine().eraseHandler(id); }

  std::vector<std::string> errors; ///< errors only, "line:col: message"
  std::vector<std::string> all;    ///< errors and notes, in order

private:
  static std::string format(mlir::Location loc, const std::string &msg) {
    if (auto flc = loc->findInstanceOf<mlir::FileLineColLoc>())
      return std::to_string(flc.getLine()) + ":" +
             std::to_string(flc.getColumn()) + ": " + msg;
    return "?:?: " + msg;
  }
  mlir::MLIRContext &ctx;
  mlir::DiagnosticEngine::HandlerID id;
};

/// One parse + check of a source string.
struct SemaRun {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  ast::Program program;
  bool parsed = false;
  bool checked = false;
  std::vector<std::string> parseErrors;
  std::vector<std::string> errors;
  std::vector<std::string> all;
};

inline std::unique_ptr<SemaRun> runSema(llvm::StringRef source) {
  auto run = std::make_unique<SemaRun>();
  unsigned id = run->sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, "test.sluice"),
      llvm::SMLoc());
  run->program.modules.push_back(std::make_unique<ast::Module>());
  {
    DiagCollector diags(run->ctx);
    run->parsed = mlir::succeeded(parseModule(run->sourceMgr, id, &run->ctx,
                                              *run->program.modules.back()));
    run->parseErrors = diags.errors;
  }
  if (!run->parsed)
    return run;
  DiagCollector diags(run->ctx);
  run->checked = mlir::succeeded(checkProgram(run->program, &run->ctx));
  run->errors = diags.errors;
  run->all = diags.all;
  return run;
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_FRONTEND_SEMATESTHELPERS_H
