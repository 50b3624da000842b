//===- FuzzParser.cpp - libFuzzer entry point over parser and Sema --------===//
//
// Feeds arbitrary bytes to the Sluice parser and, when they parse, to Sema.
// Imports are not followed (the fuzzer must not read arbitrary files); every
// diagnostic is swallowed. Any crash, assertion, sanitizer report or hang is
// a bug. Built as `sluice-fuzz-parser` with clang's -fsanitize=fuzzer when
// SLUICE_ENABLE_FUZZER=ON, and always as `sluice-fuzz-replay`, which runs
// the committed corpus as a regression test (see docs/fuzzing.md).
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/Sema.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->getDiagEngine().registerHandler([](mlir::Diagnostic &) {
      return mlir::success();
    });
    return c;
  }();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.sluice"),
      llvm::SMLoc());
  auto module = std::make_unique<sluice::ast::Module>();
  module->path = "fuzz.sluice";
  if (mlir::failed(sluice::parseModule(sourceMgr, 1, ctx, *module)))
    return 0;
  sluice::ast::Program program;
  program.modules.push_back(std::move(module));
  (void)sluice::checkProgram(program, ctx);
  return 0;
}
