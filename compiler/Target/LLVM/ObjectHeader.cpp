//===- ObjectHeader.cpp - sluicec -c: an object file and its C header -----===//
//
// The object file and header pair of `sluicec -c` (ObjectHeader.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/LLVM/ObjectHeader.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

std::string sluice::target::headerGuard(llvm::StringRef prefix,
                                        llvm::StringRef headerPath) {
  std::string guard =
      (prefix + "_" + llvm::sys::path::stem(headerPath).upper() + "_H").str();
  for (char &c : guard)
    if (!llvm::isAlnum(c))
      c = '_';
  return guard;
}

void sluice::target::beginCHeader(llvm::raw_ostream &os, llvm::StringRef guard,
                                  llvm::StringRef builtFor,
                                  llvm::StringRef include) {
  os << " * The object file: " << builtFor << ". */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"" << include << "\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
}

void sluice::target::endCHeader(llvm::raw_ostream &os, llvm::StringRef guard) {
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
     << guard << " */\n";
}

LogicalResult sluice::target::writeObjectAndHeader(
    ModuleOp lowered, Location loc, llvm::StringRef objectPath,
    llvm::StringRef headerPath, unsigned optLevel, llvm::ArrayRef<HostCpu> cpus,
    llvm::StringRef guardPrefix, HeaderWriter writeHeader) {
  std::error_code ec;
  llvm::ToolOutputFile header(headerPath, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return emitError(loc) << "cannot write '" << headerPath
                          << "': " << ec.message();
  writeHeader(headerGuard(guardPrefix, headerPath), describeHostCpu(cpus),
              header.os());
  header.os().flush();
  if (header.os().has_error()) {
    header.os().clear_error();
    return emitError(loc) << "cannot write '" << headerPath << "'";
  }
  std::string error;
  if (failed(writeHostObject(lowered, objectPath, optLevel, cpus, error)))
    return emitError(loc) << error;
  header.keep();
  return success();
}
