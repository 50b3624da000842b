//===- Frontend.cpp - Parsing Sluice programs and their imports -----------===//
//
// parseModule runs the Bison parser (Parser.y) over one SourceMgr buffer;
// loadProgram follows imports depth-first, relative to the importing file,
// parsing each file once (keyed by its real path) and reporting missing
// files and import cycles at the import that names them.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/Frontend.h"

#include "Parser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace sluice;

mlir::Location sluice::toLocation(mlir::MLIRContext *ctx,
                                  const ast::SourceLoc &loc) {
  if (loc.line == 0 || loc.fileName().empty())
    return mlir::UnknownLoc::get(ctx);
  return mlir::FileLineColLoc::get(ctx, loc.file, loc.line, loc.col);
}

mlir::LogicalResult sluice::parseModule(llvm::SourceMgr &sourceMgr,
                                        unsigned bufferId,
                                        mlir::MLIRContext *ctx,
                                        ast::Module &module) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  llvm::StringRef file = buffer->getBufferIdentifier();
  if (module.path.empty())
    module.path = file.str();
  llvm::StringRef text = buffer->getBuffer();
  detail::ParseContext parseCtx(ctx, file, module);
  return mlir::success(detail::parseBuffer(parseCtx, text));
}

mlir::FailureOr<size_t> sluice::lexBuffer(llvm::SourceMgr &sourceMgr,
                                          unsigned bufferId,
                                          mlir::MLIRContext *ctx) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  ast::Module module;
  detail::ParseContext parseCtx(ctx, buffer->getBufferIdentifier(), module);
  mlir::FailureOr<size_t> tokens =
      detail::lexAll(parseCtx, buffer->getBuffer());
  if (mlir::failed(tokens) || parseCtx.errorCount != 0)
    return mlir::failure();
  return tokens;
}

namespace {

/// Depth-first import loader.
class Loader {
public:
  Loader(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx,
         ast::Program &program)
      : sourceMgr(sourceMgr), ctx(ctx), program(program) {}

  /// Loads `path`; `from` is the import naming it (null for the main file).
  void load(const std::string &path, const ast::ImportDecl *from);

  bool failed = false;

private:
  enum class State { Loading, Done };

  mlir::InFlightDiagnostic error(const ast::ImportDecl *from,
                                 const std::string &path) {
    failed = true;
    if (from)
      return mlir::emitError(toLocation(ctx, from->pathRange));
    // The main file: the message names it.
    return mlir::emitError(mlir::UnknownLoc::get(ctx));
  }

  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *ctx;
  ast::Program &program;
  llvm::StringMap<State> states;  ///< by real path
  std::vector<std::string> stack; ///< files being loaded, as opened
  std::vector<std::string> stackKeys;
};

void Loader::load(const std::string &path, const ast::ImportDecl *from) {
  // Key files by their real path so that `a/../b.sluice` and `b.sluice` are
  // the same file.
  llvm::SmallString<256> real;
  std::string key = path;
  if (!llvm::sys::fs::real_path(path, real))
    key = std::string(real);

  auto it = states.find(key);
  if (it != states.end()) {
    if (it->second == State::Done)
      return;
    // An import cycle: the chain from the first visit of `key`.
    std::string chain;
    for (size_t i = 0; i < stack.size(); ++i) {
      if (chain.empty() && stackKeys[i] != key)
        continue;
      chain += "'" + stack[i] + "' -> ";
    }
    chain += "'" + path + "'";
    error(from, path) << "import cycle: " << chain;
    return;
  }

  if (llvm::sys::fs::is_directory(path)) {
    error(from, path) << "cannot open '" << path << "': it is a directory";
    return;
  }
  // Devices such as /dev/zero never end; pipes (/dev/stdin) are fine.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) &&
      (st.type() == llvm::sys::fs::file_type::character_file ||
       st.type() == llvm::sys::fs::file_type::block_file)) {
    error(from, path) << "cannot open '" << path << "': it is a device";
    return;
  }
  auto bufferOrErr = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!bufferOrErr) {
    error(from, path) << (from ? "cannot open imported file '"
                               : "cannot open file '")
                      << path << "': " << bufferOrErr.getError().message();
    return;
  }
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(*bufferOrErr), llvm::SMLoc());

  states[key] = State::Loading;
  stack.push_back(path);
  stackKeys.push_back(key);

  auto module = std::make_unique<ast::Module>();
  module->path = path;
  if (mlir::failed(parseModule(sourceMgr, bufferId, ctx, *module)))
    failed = true;

  // Imports first, each relative to this file's folder.
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  for (const ast::DeclPtr &d : module->decls) {
    auto *import = llvm::dyn_cast<ast::ImportDecl>(d.get());
    if (!import)
      continue;
    if (import->path.empty()) {
      failed = true;
      mlir::emitError(toLocation(ctx, import->pathRange))
          << "empty import path";
      continue;
    }
    llvm::SmallString<256> resolved;
    if (llvm::sys::path::is_absolute(import->path)) {
      resolved = import->path;
    } else {
      resolved = dir;
      llvm::sys::path::append(resolved, import->path);
    }
    load(std::string(resolved), import);
  }

  stack.pop_back();
  stackKeys.pop_back();
  states[key] = State::Done;
  program.modules.push_back(std::move(module));
}

} // namespace

mlir::LogicalResult sluice::loadProgram(llvm::StringRef path,
                                        llvm::SourceMgr &sourceMgr,
                                        mlir::MLIRContext *ctx,
                                        ast::Program &program) {
  Loader loader(sourceMgr, ctx, program);
  loader.load(path.str(), nullptr);
  // Without a main module there is nothing to work on.
  if (program.modules.empty())
    return mlir::failure();
  return mlir::failure(loader.failed);
}
