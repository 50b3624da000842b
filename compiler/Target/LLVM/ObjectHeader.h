//===- ObjectHeader.h - sluicec -c: an object and its C header -*- C++ -*-===//
//
// What the CPU paths of `sluicec -c` (walks, graph algorithms, align jobs)
// share once their program is lowered to the LLVM dialect: the object file
// for one or several CPUs (writeHostObject) and the C header beside it,
// written both or neither. Each path keeps its own lowering and header text.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_LLVM_OBJECTHEADER_H
#define SLUICE_COMPILER_TARGET_LLVM_OBJECTHEADER_H

#include "compiler/Target/LLVM/Codegen.h"

#include <string>

namespace sluice::target {

/// The include guard of the header `headerPath`: `<prefix>_<STEM>_H`, the
/// file name's stem in upper case, every character that is neither a
/// letter nor a digit made `_` ("SLUICE_WALKS" and "out/my-prog.h":
/// SLUICE_WALKS_MY_PROG_H).
std::string headerGuard(llvm::StringRef prefix, llvm::StringRef headerPath);

/// The lines of a generated C header after its opening comment's own
/// lines: the comment's last line (what the object file runs on,
/// `builtFor`), the include guard, `#include "<include>"` and the opening
/// of `extern "C"` for C++.
void beginCHeader(llvm::raw_ostream &os, llvm::StringRef guard,
                  llvm::StringRef builtFor, llvm::StringRef include);

/// The end of a header begun with beginCHeader.
void endCHeader(llvm::raw_ostream &os, llvm::StringRef guard);

/// Prints a header's text given its include guard and what the object file
/// runs on (describeHostCpu).
using HeaderWriter = llvm::function_ref<void(
    llvm::StringRef guard, llvm::StringRef builtFor, llvm::raw_ostream &os)>;

/// Writes `lowered` (LLVM dialect) as the object file `objectPath` for
/// `cpus` at -O`optLevel` (writeHostObject), and the header `headerPath`
/// with `writeHeader` (guard: headerGuard(guardPrefix, headerPath)). The
/// header is opened first and kept only once the object is written: both
/// files or neither. Errors (a file that cannot be opened or written, a
/// CPU the target does not know) are located at `loc`.
mlir::LogicalResult
writeObjectAndHeader(mlir::ModuleOp lowered, mlir::Location loc,
                     llvm::StringRef objectPath, llvm::StringRef headerPath,
                     unsigned optLevel, llvm::ArrayRef<HostCpu> cpus,
                     llvm::StringRef guardPrefix, HeaderWriter writeHeader);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_LLVM_OBJECTHEADER_H
