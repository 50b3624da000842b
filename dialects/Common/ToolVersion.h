//===- ToolVersion.h - --version of every Sluice tool ----------*- C++ -*-===//
//
// `TOOL --version` prints Sluice's version first and the LLVM/MLIR it was
// built with second (llvm::cl's default printed only LLVM's). Header only:
// the tools call installVersionPrinter before ParseCommandLineOptions, and
// the tools that parse their own flags print sluiceVersionText().
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_COMMON_TOOLVERSION_H
#define SLUICE_DIALECTS_COMMON_TOOLVERSION_H

#include "dialects/Common/Version.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace sluice {

/// "sluicec (Sluice) 0.5.0\n  built with LLVM/MLIR 19.1.7\n".
inline std::string sluiceVersionText(const char *tool) {
  return std::string(tool) + " (Sluice) " SLUICE_VERSION_STRING
                             "\n  built with LLVM/MLIR " LLVM_VERSION_STRING
                             "\n";
}

/// Makes llvm::cl's --version print sluiceVersionText(tool).
inline void installVersionPrinter(const char *tool) {
  static const char *name;
  name = tool;
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << sluiceVersionText(name); });
}

} // namespace sluice

#endif // SLUICE_DIALECTS_COMMON_TOOLVERSION_H
