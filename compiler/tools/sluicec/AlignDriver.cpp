//===- AlignDriver.cpp - sluicec's align jobs -----------------------------===//
#include "compiler/tools/sluicec/AlignDriver.h"

#include "dialects/Seq/IR/SeqOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"

#include "sluice/align.h"

using namespace sluice;

/// The align jobs --run may mean: the one named `job`, else every one.
static llvm::SmallVector<seq::AlignOp> candidates(mlir::ModuleOp module,
                                                  llvm::StringRef job) {
  llvm::SmallVector<seq::AlignOp> ops;
  for (seq::AlignOp op : module.getOps<seq::AlignOp>())
    if (job.empty() || op.getSymName() == job)
      ops.push_back(op);
  return ops;
}

bool sluice::isAlignRun(mlir::ModuleOp module, llvm::StringRef job) {
  auto ops = candidates(module, job);
  if (ops.empty())
    return false;
  if (!job.empty())
    return true;
  // Without --job, only a program whose jobs are all align jobs.
  for (mlir::Operation &op : module.getBody()->getOperations()) {
    llvm::StringRef name = op.getName().getStringRef();
    if (name.ends_with(".job") || name == "model.gnn_train")
      return false;
  }
  return true;
}

int sluice::runAlignJob(mlir::ModuleOp module, const AlignRunOptions &options,
                        llvm::raw_ostream &os) {
  auto ops = candidates(module, options.job);
  if (ops.size() > 1) {
    std::string names;
    for (seq::AlignOp op : ops)
      names += (names.empty() ? "" : ", ") + op.getSymName().str();
    mlir::emitError(module.getLoc())
        << "the program has " << ops.size()
        << " align jobs; choose one with --job (" << names << ")";
    return 1;
  }
  seq::AlignOp op = ops.front();
  if (options.gpu) {
    op.emitError() << "not supported yet: --run --target=gpu of align job '"
                   << op.getSymName()
                   << "' (the wavefront kernel runs on the CPU; "
                      "--target=cpu or no --target runs it there)";
    return 1;
  }
  // Signed: a negative zdrop turns the Z-drop off.
  auto i32 = [](mlir::IntegerAttr a) { return int32_t(a.getInt()); };
  sluice_align_scoring_t scoring = {
      i32(op.getMatchAttr()),   i32(op.getMismatchAttr()),
      i32(op.getGapOpenAttr()), i32(op.getGapExtendAttr()),
      i32(op.getBandAttr()),    i32(op.getZdropAttr())};
  std::string output =
      options.output.empty() ? op.getOutput().str() : options.output;
  unsigned threads =
      options.threads ? options.threads : unsigned(i32(op.getThreadsAttr()));
  sluice_align_report_t report;
  sluice_error_t error;
  sluice_status_t status = sluice_align_fasta(
      op.getQuery().str().c_str(), op.getTarget().str().c_str(),
      output.empty() ? nullptr : output.c_str(), &scoring, threads, &report,
      &error);
  if (status != SLUICE_STATUS_OK) {
    // Errors in a FASTA file are located there; the others at the job.
    if (error.line > 0)
      mlir::emitError(mlir::FileLineColLoc::get(module.getContext(), error.path,
                                                error.line, error.column))
          << error.message;
    else
      op.emitError() << "align job '" << op.getSymName() << "': "
                     << (error.path[0] ? std::string(error.path) + ": " : "")
                     << error.message;
    return 1;
  }
  os << "job " << op.getSymName() << ": align extension, " << report.pairs
     << " pairs (" << report.query_bases << " query bases, "
     << report.target_bases << " target bases)\n";
  os << "  scoring:  match " << scoring.match << ", mismatch "
     << scoring.mismatch << ", gap " << scoring.gap_open << " + "
     << scoring.gap_extend << " per base, band " << scoring.band << ", zdrop "
     << scoring.zdrop << "\n";
  os << "  threads:  " << report.threads << "\n";
  os << "  zdropped: " << report.zdropped << " of " << report.pairs << "\n";
  os << llvm::format("  time:     %.6f s aligning, %.3f s reading\n",
                     report.align_seconds, report.read_seconds);
  os << "  output:   "
     << (output.empty() ? std::string("(none: the job has no output; use -o)")
                        : output)
     << "\n";
  return 0;
}
