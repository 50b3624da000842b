//===- Frontend.cpp - Parsing Sluice programs and their imports -----------===//
//
// parseModule runs the Bison parser (Parser.y) over one SourceMgr buffer;
// loadProgram follows imports depth-first (an explicit stack, so import
// chains of any length), relative to the importing file, parsing each file
// once (keyed by its real path) and reporting missing files and import
// cycles at the import that names them.
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

std::string sluice::relativeToSource(const ast::SourceRange &where,
                                     llvm::StringRef path) {
  if (path.empty() || llvm::sys::path::is_absolute(path))
    return path.str();
  llvm::SmallString<256> full(
      llvm::sys::path::parent_path(where.begin.fileName()));
  llvm::sys::path::append(full, path);
  return full.str().str();
}

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

/// Depth-first import loader. It keeps the files being loaded on an
/// explicit stack rather than recursing, so that a chain of imports of any
/// length needs no more native stack than one file.
class Loader {
public:
  Loader(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *ctx,
         ast::Program &program)
      : sourceMgr(sourceMgr), ctx(ctx), program(program) {}

  /// Loads `path` and everything it imports; modules are appended to the
  /// program imports first (post-order).
  void run(const std::string &path);

  bool failed = false;

private:
  enum class State { Loading, Done };

  /// A file being loaded: its imports are followed one at a time.
  struct Frame {
    std::string path; ///< as opened
    std::string key;  ///< real path
    std::unique_ptr<ast::Module> module;
    size_t nextDecl = 0; ///< the next declaration to look at for imports
  };

  /// Opens and parses `path`, named by `from` (null for the main file), and
  /// pushes it; reports a missing file or a cycle at `from` instead.
  void enter(const std::string &path, const ast::ImportDecl *from);
  /// The next import of `frame` to follow, with its resolved path.
  const ast::ImportDecl *nextImport(Frame &frame, std::string &resolved);

  mlir::InFlightDiagnostic error(const ast::ImportDecl *from) {
    failed = true;
    if (from)
      return mlir::emitError(toLocation(ctx, from->pathRange));
    // The main file: the message names it.
    return mlir::emitError(mlir::UnknownLoc::get(ctx));
  }

  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *ctx;
  ast::Program &program;
  llvm::StringMap<State> states; ///< by real path
  std::vector<Frame> stack;      ///< files being loaded, outermost first
};

void Loader::run(const std::string &path) {
  enter(path, nullptr);
  while (!stack.empty()) {
    std::string resolved;
    if (const ast::ImportDecl *import = nextImport(stack.back(), resolved)) {
      enter(resolved, import);
      continue;
    }
    // Every import of the innermost file is loaded: it is done.
    Frame done = std::move(stack.back());
    stack.pop_back();
    states[done.key] = State::Done;
    program.modules.push_back(std::move(done.module));
  }
}

const ast::ImportDecl *Loader::nextImport(Frame &frame, std::string &resolved) {
  // Imports in order, each relative to the importing file's folder.
  std::vector<ast::DeclPtr> &decls = frame.module->decls;
  while (frame.nextDecl < decls.size()) {
    auto *import =
        llvm::dyn_cast_or_null<ast::ImportDecl>(decls[frame.nextDecl++].get());
    if (!import)
      continue;
    if (import->path.empty()) {
      failed = true;
      mlir::emitError(toLocation(ctx, import->pathRange))
          << "empty import path";
      continue;
    }
    llvm::SmallString<256> full;
    if (llvm::sys::path::is_absolute(import->path)) {
      full = import->path;
    } else {
      full = llvm::sys::path::parent_path(frame.path);
      llvm::sys::path::append(full, import->path);
    }
    resolved = std::string(full);
    return import;
  }
  return nullptr;
}

void Loader::enter(const std::string &path, const ast::ImportDecl *from) {
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
    for (const Frame &f : stack) {
      if (chain.empty() && f.key != key)
        continue;
      chain += "'" + f.path + "' -> ";
    }
    chain += "'" + path + "'";
    error(from) << "import cycle: " << chain;
    return;
  }

  if (llvm::sys::fs::is_directory(path)) {
    error(from) << "cannot open '" << path << "': it is a directory";
    return;
  }
  // Devices such as /dev/zero never end; pipes (/dev/stdin) are fine.
  llvm::sys::fs::file_status st;
  if (!llvm::sys::fs::status(path, st) &&
      (st.type() == llvm::sys::fs::file_type::character_file ||
       st.type() == llvm::sys::fs::file_type::block_file)) {
    error(from) << "cannot open '" << path << "': it is a device";
    return;
  }
  auto bufferOrErr = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!bufferOrErr) {
    error(from) << (from ? "cannot open imported file '" : "cannot open file '")
                << path << "': " << bufferOrErr.getError().message();
    return;
  }
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(*bufferOrErr), llvm::SMLoc());

  states[key] = State::Loading;
  auto module = std::make_unique<ast::Module>();
  module->path = path;
  if (mlir::failed(parseModule(sourceMgr, bufferId, ctx, *module)))
    failed = true;
  stack.push_back(Frame{path, std::move(key), std::move(module)});
}

} // namespace

mlir::LogicalResult sluice::loadProgram(llvm::StringRef path,
                                        llvm::SourceMgr &sourceMgr,
                                        mlir::MLIRContext *ctx,
                                        ast::Program &program) {
  Loader loader(sourceMgr, ctx, program);
  loader.run(path.str());
  // Without a main module there is nothing to work on.
  if (program.modules.empty())
    return mlir::failure();
  return mlir::failure(loader.failed);
}
