//===- BenchFrontend.cpp - Lexer, parser and Sema throughput --------------===//
//
// sluice-bench-frontend: generates Sluice inputs of given sizes and measures
// the front end on them, phase by phase:
//   lex    the scanner alone (sluice::lexBuffer), no parser;
//   parse  sluice::loadProgram: scanner, parser and AST;
//   sema   loadProgram then sluice::checkProgram.
// Inputs (--inputs): one token of the whole size (comment, line-comment,
// string, ident, blank) and many small declarations (lets: `let vN = N`,
// devices: `gpu gN` lines in one topology).
//
// Every (input, size, phase) runs in a fresh child process (this executable
// again, fork + exec), so that its peak RSS (wait4's ru_maxrss) is its own.
// The child times the phase with steady_clock, reading the file excluded;
// the parent reports the median over --repeat runs and the largest peak RSS.
// "base RSS" is a child that only reads the file: what every phase pays for
// the process and the MLIR context; "(peak - base) / size" is what the phase
// adds per byte of input. Output: a markdown table (MB = 10^6 bytes). Not a
// test: not registered with ctest. Results: bench/RESULTS.md.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/ToolVersion.h"
#include "frontends/sluice/Frontend.h"
#include "frontends/sluice/Sema.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace sluice;
namespace cl = llvm::cl;

static cl::OptionCategory benchCat("sluice-bench-frontend options");
static cl::list<double> sizesMB("sizes", cl::cat(benchCat), cl::CommaSeparated,
                                cl::desc("Input sizes in MB (default 2,70)"));
static cl::list<std::string>
    inputKinds("inputs", cl::cat(benchCat), cl::CommaSeparated,
               cl::desc("comment, line-comment, string, ident, blank, lets, "
                        "devices (default: all)"));
static cl::list<std::string>
    phases("phases", cl::cat(benchCat), cl::CommaSeparated,
           cl::desc("lex, parse, sema (default: all)"));
static cl::opt<unsigned> repeat("repeat", cl::cat(benchCat), cl::init(3),
                                cl::desc("Runs per case (median reported)"));
static cl::opt<std::string>
    workDir("dir", cl::cat(benchCat), cl::init(""),
            cl::desc("Folder for the generated inputs (default: a new "
                     "temporary folder, removed at the end)"));
// The child side (set by the parent, not by hand).
static cl::opt<std::string> childPhase("child-phase", cl::cat(benchCat), cl::Hidden);
static cl::opt<std::string> childInput("child-input", cl::cat(benchCat), cl::Hidden);

namespace {

/// Writes an input of `kind` of about `bytes` bytes to `path`.
bool generate(llvm::StringRef kind, size_t bytes, llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "cannot write '" << path << "': " << ec.message() << "\n";
    return false;
  }
  auto run = [&](char c, size_t n) {
    std::string chunk(std::min<size_t>(n, 1 << 20), c);
    for (size_t done = 0; done < n; done += chunk.size())
      os.write(chunk.data(), std::min(chunk.size(), n - done));
  };
  if (kind == "comment") {
    os << "/*";
    run('c', bytes);
    os << "*/\n";
  } else if (kind == "line-comment") {
    os << "// ";
    run('c', bytes);
    os << "\n";
  } else if (kind == "string") {
    os << "let s = \"";
    run('s', bytes);
    os << "\"\n";
  } else if (kind == "ident") {
    os << "let ";
    run('i', bytes);
    os << " = 1\n";
  } else if (kind == "blank") {
    run(' ', bytes);
    os << "\nlet x = 1\n";
  } else if (kind == "lets") {
    for (size_t i = 0; os.tell() < bytes; ++i)
      os << "let v" << i << " = " << i << "\n";
  } else if (kind == "devices") {
    os << "topology t {\n";
    for (size_t i = 0; os.tell() < bytes; ++i)
      os << "  gpu g" << i << "\n";
    os << "}\n";
  } else {
    llvm::errs() << "unknown input kind '" << kind << "'\n";
    return false;
  }
  return true;
}

/// The child: runs one phase over `path` and prints "<seconds> <tokens>".
int runChild(llvm::StringRef phase, llvm::StringRef path) {
  mlir::MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &ctx);
  auto start = std::chrono::steady_clock::now();
  size_t tokens = 0;
  bool ok = true;
  if (phase == "read") {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    ok = static_cast<bool>(buffer);
    start = std::chrono::steady_clock::now();
  } else if (phase == "lex") {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer)
      return 1;
    unsigned id = sourceMgr.AddNewSourceBuffer(std::move(*buffer), {});
    start = std::chrono::steady_clock::now();
    mlir::FailureOr<size_t> n = lexBuffer(sourceMgr, id, &ctx);
    ok = mlir::succeeded(n);
    tokens = ok ? *n : 0;
  } else {
    ast::Program program;
    ok = mlir::succeeded(loadProgram(path, sourceMgr, &ctx, program));
    if (ok && phase == "sema")
      ok = mlir::succeeded(checkProgram(program, &ctx));
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!ok)
    return 1;
  std::printf("%.6f %zu\n", seconds, tokens);
  return 0;
}

struct ChildResult {
  bool ok = false;
  double seconds = 0;
  size_t tokens = 0;
  long maxRssKB = 0;
};

/// Runs `exe --child-phase=phase --child-input=path` and collects its
/// output and peak RSS.
ChildResult spawn(const std::string &exe, llvm::StringRef phase,
                  llvm::StringRef path) {
  ChildResult r;
  int fds[2];
  if (pipe(fds) != 0)
    return r;
  std::string phaseArg = ("--child-phase=" + phase).str();
  std::string inputArg = ("--child-input=" + path).str();
  pid_t pid = fork();
  if (pid < 0)
    return r;
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 1);
    char *args[] = {const_cast<char *>(exe.c_str()),
                    const_cast<char *>(phaseArg.c_str()),
                    const_cast<char *>(inputArg.c_str()), nullptr};
    execv(exe.c_str(), args);
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  struct rusage usage = {};
  if (wait4(pid, &status, 0, &usage) != pid)
    return r;
  r.maxRssKB = usage.ru_maxrss;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         std::sscanf(out.c_str(), "%lf %zu", &r.seconds, &r.tokens) == 2;
  return r;
}

} // namespace

int main(int argc, char **argv) {
  sluice::installVersionPrinter("sluice-bench-frontend");
  cl::HideUnrelatedOptions(benchCat);
  cl::ParseCommandLineOptions(
      argc, argv, "sluice-bench-frontend: lexer, parser and Sema throughput\n");
  if (!childPhase.empty())
    return runChild(childPhase, childInput);

  std::vector<double> sizes(sizesMB.begin(), sizesMB.end());
  if (sizes.empty())
    sizes = {2, 70};
  std::vector<std::string> kinds(inputKinds.begin(), inputKinds.end());
  if (kinds.empty())
    kinds = {"comment", "line-comment", "string", "ident",
             "blank",   "lets",         "devices"};
  std::vector<std::string> phaseList(phases.begin(), phases.end());
  if (phaseList.empty())
    phaseList = {"lex", "parse", "sema"};
  for (const std::string &p : phaseList)
    if (p != "lex" && p != "parse" && p != "sema") {
      llvm::errs() << "unknown phase '" << p << "'; expected lex, parse or "
                   << "sema\n";
      return 1;
    }

  std::string exe = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&runChild));
  llvm::SmallString<256> dir(workDir);
  bool ownDir = dir.empty();
  if (ownDir &&
      llvm::sys::fs::createUniqueDirectory("sluice-bench-frontend", dir)) {
    llvm::errs() << "cannot create a temporary folder\n";
    return 1;
  }

  llvm::outs() << "| input | size (MB) | phase | tokens | time (s) | MB/s | "
                  "peak RSS (MB) | base RSS (MB) | (peak - base) / size |\n"
               << "|---|---:|---|---:|---:|---:|---:|---:|---:|\n";
  int rc = 0;
  for (const std::string &kind : kinds) {
    for (double mb : sizes) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, kind + ".sluice");
      if (!generate(kind, static_cast<size_t>(mb * 1e6), path))
        return 1;
      uint64_t fileSize = 0;
      llvm::sys::fs::file_size(path, fileSize);
      double fileMB = static_cast<double>(fileSize) / 1e6;
      ChildResult base = spawn(exe, "read", path);
      for (const std::string &phase : phaseList) {
        std::vector<double> times;
        ChildResult last;
        long maxRss = 0;
        for (unsigned i = 0; i < std::max(1u, unsigned(repeat)); ++i) {
          last = spawn(exe, phase, path);
          if (!last.ok)
            break;
          times.push_back(last.seconds);
          maxRss = std::max(maxRss, last.maxRssKB);
        }
        if (!last.ok) {
          llvm::outs() << "| " << kind << " | " << llvm::format("%.1f", fileMB)
                       << " | " << phase << " | failed | | | | | |\n";
          rc = 1;
          continue;
        }
        std::sort(times.begin(), times.end());
        double t = times[times.size() / 2];
        double rssMB = static_cast<double>(maxRss) * 1024 / 1e6;
        double baseMB = static_cast<double>(base.maxRssKB) * 1024 / 1e6;
        llvm::outs() << "| " << kind << " | " << llvm::format("%.1f", fileMB)
                     << " | " << phase << " | "
                     << (phase == "lex" ? std::to_string(last.tokens) : "")
                     << " | " << llvm::format("%.3f", t) << " | "
                     << llvm::format("%.0f", fileMB / std::max(t, 1e-9))
                     << " | " << llvm::format("%.0f", rssMB) << " | "
                     << llvm::format("%.0f", baseMB) << " | "
                     << llvm::format("%.1f", (rssMB - baseMB) / fileMB)
                     << " |\n";
        llvm::outs().flush();
      }
      llvm::sys::fs::remove(path);
    }
  }
  if (ownDir)
    llvm::sys::fs::remove(dir);
  return rc;
}
