//===- WalkDriver.cpp - sluicec --run of a walk job -----------------------===//
//
// See WalkDriver.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluicec/WalkDriver.h"
#include "dialects/Walk/IR/WalkLimits.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace sluice;

int sluice::runWalkJobAndReport(mlir::ModuleOp module,
                                const target::WalkRunOptions &options,
                                llvm::raw_ostream &os) {
  if (options.threads > walk::kMaxWalkThreads) {
    llvm::errs() << "sluicec: error: --walk-threads must be at most "
                 << walk::kMaxWalkThreads << ", got " << options.threads
                 << "\n";
    return 1;
  }
  if (!options.walksDtype.empty() && options.walksDtype != "i32" &&
      options.walksDtype != "i64") {
    llvm::errs() << "sluicec: error: --walks-dtype must be i32 or i64, got '"
                 << options.walksDtype << "'\n";
    return 1;
  }
  if (options.costRatio < 0 || !std::isfinite(options.costRatio)) {
    llvm::errs() << "sluicec: error: --cost-ratio must be a finite number "
                    ">= 0 (0: calibrate), got "
                 << options.costRatio << "\n";
    return 1;
  }
  auto report = target::runWalkJob(module, options);
  if (mlir::failed(report))
    return 1;
  double seconds = report->seconds > 0 ? report->seconds : 1e-9;
  os << "job " << report->job << ": walk " << report->walk << " on graph "
     << report->graph << " (" << report->vertices << " vertices, "
     << report->edges << " edges)\n";
  os << "  graph:    " << report->graphLoad << "\n";
  if (!report->graphCache.empty())
    os << "  cache:    " << report->graphCache << "\n";
  os << "  walks:    " << report->walks << "\n";
  os << "  steps:    " << report->steps << "\n";
  os << llvm::format("  time:     %.3f s walking, %.3f s compiling, %.3f s "
                     "loading the graph",
                     report->seconds, report->compileSeconds,
                     report->loadSeconds);
  if (report->cacheSeconds > 0)
    os << llvm::format(", %.3f s writing its cache", report->cacheSeconds);
  os << "\n";
  os << llvm::format("  steps/s:  %.4g\n  walks/s:  %.4g\n",
                     report->steps / seconds, report->walks / seconds);
  os << "  samplers: " << report->rejectionSteps << " rejection, "
     << report->reservoirSteps << " reservoir, " << report->aliasSteps
     << " alias steps\n";
  if (report->costRatio > 0)
    os << llvm::format("  cost model: r = %.17g", report->costRatio)
       << (report->calibrated
               ? " (calibrated; --cost-ratio with this value reproduces "
                 "these walks exactly)"
               : "")
       << "\n";
  os << "  output:   "
     << (report->output.empty() ? std::string("(none: the job has no output; "
                                              "use --walks-out)")
                                : report->output)
     << "\n";
  return 0;
}
