//===- AlignDriver.cpp - sluicec's align jobs -----------------------------===//
#include "compiler/tools/sluicec/AlignDriver.h"

#include "compiler/Target/Align/AlignGpu.h"
#include "dialects/Seq/IR/SeqOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Format.h"

#include "sluice/align.h"
#include "sluice/align_gpu.h"
#include "sluice/gpu.h"

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
  // Signed: a negative zdrop turns the Z-drop off.
  auto i32 = [](mlir::IntegerAttr a) { return int32_t(a.getInt()); };
  sluice_align_scoring_t scoring = {
      i32(op.getMatchAttr()),   i32(op.getMismatchAttr()),
      i32(op.getGapOpenAttr()), i32(op.getGapExtendAttr()),
      i32(op.getBandAttr()),    i32(op.getZdropAttr())};
  // --target=gpu: the job's kernel (align-to-gpu) to PTX, then the device;
  // without one, an error (no silent fallback to the CPU).
  std::string ptx;
  if (options.gpu) {
    if (mlir::failed(
            target::lowerAlignJobsToPtx(module, "sm_90", ptx, op.getSymName())))
      return 1;
    sluice_error_t reason;
    if (!sluice_gpu_available(&reason)) {
      op.emitError() << "cannot run align job '" << op.getSymName()
                     << "' on the GPU (--target=gpu): " << reason.message
                     << "; --target=cpu runs it on the CPU";
      return 1;
    }
  }
  std::string output =
      options.output.empty() ? op.getOutput().str() : options.output;
  unsigned threads =
      options.threads ? options.threads : unsigned(i32(op.getThreadsAttr()));
  sluice_align_report_t report;
  sluice_error_t error;
  char device[128] = "";
  sluice_align_gpu_stats_t stats{};
  std::string kernel = ("sluice_align_" + op.getSymName()).str();
  sluice_status_t status =
      options.gpu
          ? sluice_align_fasta_gpu(
                op.getQuery().str().c_str(), op.getTarget().str().c_str(),
                output.empty() ? nullptr : output.c_str(), &scoring,
                ptx.c_str(), kernel.c_str(), &report, device, &stats, &error)
          : sluice_align_fasta(op.getQuery().str().c_str(),
                               op.getTarget().str().c_str(),
                               output.empty() ? nullptr : output.c_str(),
                               &scoring, threads, &report, &error);
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
  if (options.gpu) {
    os << "  device:   " << device << " (" << kernel << ", a warp per pair)\n";
    // The kernel alone (device events), then what the call also paid.
    os << llvm::format("  gpu time: %.6f s in the kernel (%llu band cells, "
                       "%.2f GCUPS), %.3f s context, %.3f s PTX JIT, %.6f s "
                       "copies up, %.6f s back\n",
                       stats.kernel_seconds, (unsigned long long)stats.cells,
                       stats.kernel_seconds > 0
                           ? double(stats.cells) / stats.kernel_seconds / 1e9
                           : 0.0,
                       stats.open_seconds, stats.load_seconds,
                       stats.copy_to_device_seconds,
                       stats.copy_from_device_seconds);
  } else
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
