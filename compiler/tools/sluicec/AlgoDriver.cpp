//===- AlgoDriver.cpp - sluicec's graph algorithm paths -------------------===//
#include "compiler/tools/sluicec/AlgoDriver.h"

#include "compiler/Target/LLVM/Codegen.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <vector>

using namespace sluice;

int sluice::runAlgorithmJobAndReport(mlir::ModuleOp module,
                                     const target::AlgoRunOptions &options,
                                     llvm::raw_ostream &os) {
  auto report = target::runAlgorithmJob(module, options);
  if (mlir::failed(report))
    return 1;
  os << "job " << report->job << ": algorithm " << report->algorithm
     << " on graph " << report->graph << " (" << report->vertices
     << " vertices, " << report->edges << " edges)\n";
  if (!report->graphCache.empty())
    os << "  cache:    " << report->graphCache << "\n";
  os << "  threads:  " << report->threads << "\n";
  os << "  passes:   " << report->passes << " parallel loops run\n";
  if (report->gpu) {
    const sluice_algo_gpu_stats_t &st = report->gpuStats;
    os << "  gpu:      " << report->gpuLaunches
       << " kernel launches (the host code on the threads above)\n";
    os << llvm::format("  gpu time: %.6f s in kernels, %.6f s in %llu + %llu "
                       "copies (%.1f MiB up, %.1f MiB back; %llu property "
                       "copies skipped, %llu left on the device)\n",
                       st.kernel_seconds, st.copy_seconds,
                       (unsigned long long)st.copies_to_device,
                       (unsigned long long)st.copies_from_device,
                       st.bytes_to_device / 1048576.0,
                       st.bytes_from_device / 1048576.0,
                       (unsigned long long)st.properties_kept,
                       (unsigned long long)st.properties_deferred);
  }
  for (const std::string &note : report->tileNotes)
    os << "  tiles:    " << note << "\n";
  for (const std::string &note : report->binNotes)
    os << "  bins:     " << note << "\n";
  for (const std::string &note : report->orderNotes)
    os << "  order:    " << note << "\n";
  // Microseconds for the kernel: small graphs' kernels run in milliseconds.
  os << llvm::format("  time:     %.6f s running, %.3f s compiling, %.3f s "
                     "loading the graph\n",
                     report->seconds, report->compileSeconds,
                     report->loadSeconds);
  if (!report->warmSeconds.empty()) {
    std::vector<double> warm = report->warmSeconds;
    std::sort(warm.begin(), warm.end());
    size_t k = warm.size();
    double median = k % 2 ? warm[k / 2] : (warm[k / 2 - 1] + warm[k / 2]) / 2;
    os << llvm::format("  trials:   %zu runs: the first %.6f s (its outputs "
                       "are written), then median %.6f s (min %.6f, max "
                       "%.6f)\n",
                       k + 1, report->seconds, median, warm.front(),
                       warm.back());
  }
  os << "  output:   "
     << (report->output.empty()
             ? std::string("(none: the job has no output; use -o)")
             : report->output)
     << "\n";
  return 0;
}

int sluice::compileAlgorithms(mlir::ModuleOp module, llvm::StringRef object,
                              llvm::ArrayRef<target::HostCpu> cpus) {
  llvm::SmallString<256> header(object);
  llvm::sys::path::replace_extension(header, "h");
  if (header == object)
    header += ".h";
  return mlir::failed(
             target::compileAlgorithmsToObject(module, object, header, cpus))
             ? 1
             : 0;
}

int sluice::emitAlgorithmLLVM(mlir::ModuleOp module, llvm::raw_ostream &os) {
  auto lowered = target::lowerAlgorithmsToLLVM(module, false);
  if (mlir::failed(lowered))
    return 1;
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> ir =
      target::translateToLLVMIR(**lowered, llvmCtx);
  if (!ir) {
    mlir::emitError(module.getLoc())
        << "the algorithms' LLVM dialect does not translate to LLVM IR";
    return 1;
  }
  ir->print(os, nullptr);
  return 0;
}
