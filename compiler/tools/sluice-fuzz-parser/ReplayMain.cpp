//===- ReplayMain.cpp - Run fuzz inputs without libFuzzer -----------------===//
//
// `<replay-tool> FILE|DIR...` feeds each file (directories: every file in
// them, sorted) to LLVMFuzzerTestOneInput. Linked into the replay binary of
// every fuzz target (sluice-fuzz-replay for the parser, the
// sluice-fuzz-*-replay binaries of compiler/tools/sluice-fuzz-readers); the
// test suite uses them to keep each committed corpus, including every input
// that once crashed, passing under the normal (g++) build.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/ToolVersion.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  const std::string tool = llvm::sys::path::filename(argv[0]).str();
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      llvm::outs() << "usage: " << tool
                   << " FILE|DIR...\n"
                      "Runs the fuzz target's entry point once on each file "
                      "(each regular file of each directory), in sorted "
                      "order.\n";
      return 0;
    }
    if (arg == "--version") {
      llvm::outs() << sluice::sluiceVersionText(tool.c_str());
      return 0;
    }
    if (arg.starts_with("-")) {
      llvm::errs() << tool << ": error: unknown option '" << arg
                   << "' (usage: " << tool << " FILE|DIR...)\n";
      return 2;
    }
    if (llvm::sys::fs::is_directory(argv[i])) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(argv[i], ec), end;
           it != end && !ec; it.increment(ec))
        if (llvm::sys::fs::is_regular_file(it->path()))
          files.push_back(it->path());
      if (ec) {
        llvm::errs() << tool << ": " << argv[i] << ": " << ec.message() << "\n";
        return 1;
      }
    } else {
      files.push_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string &f : files) {
    auto buf = llvm::MemoryBuffer::getFile(f);
    if (!buf) {
      llvm::errs() << tool << ": " << f << ": " << buf.getError().message()
                   << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*buf)->getBufferStart()),
        (*buf)->getBufferSize());
  }
  llvm::outs() << "replayed " << files.size() << " inputs\n";
  return 0;
}
