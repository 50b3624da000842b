//===- CompileDriver.cpp - sluicec -c: one artefact per program kind ------===//
//
// See CompileDriver.h. The kinds are tried in this order: align jobs (a
// program without walks and algorithms), gnn train jobs (idem), algorithms
// (a program without walks), walks.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluicec/CompileDriver.h"
#include "compiler/Target/Align/AlignCompile.h"
#include "compiler/Target/Align/AlignGpu.h"
#include "compiler/Target/Gnn/GnnGpu.h"
#include "compiler/Target/Gnn/GnnRun.h"
#include "compiler/Target/Graph/AlgoGpu.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "compiler/tools/sluicec/AlgoDriver.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Model/IR/ModelOps.h"
#include "dialects/Seq/IR/SeqOps.h"
#include "dialects/Walk/IR/WalkOps.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace sluice;

namespace {

/// -o, or the input's stem with `extension`.
std::string outputOr(const CompileRequest &r, llvm::StringRef extension) {
  if (r.output != "-")
    return r.output;
  return (llvm::sys::path::stem(r.input) + extension).str();
}

/// The C header beside `object`: its extension replaced by .h.
llvm::SmallString<256> headerBeside(llvm::StringRef object) {
  llvm::SmallString<256> header(object);
  llvm::sys::path::replace_extension(header, "h");
  if (header == object)
    header += ".h";
  return header;
}

int exitCode(mlir::LogicalResult result) { return mlir::failed(result); }

/// The gnn train job `job` names, or the first (isGnnTrainJob holds).
model::GnnTrainOp gnnTrainJob(mlir::ModuleOp module, llvm::StringRef job) {
  for (model::GnnTrainOp op : module.getOps<model::GnnTrainOp>())
    if (job.empty() || op.getSymName() == job)
      return op;
  llvm_unreachable("isGnnTrainJob holds, so the job exists");
}

} // namespace

int sluice::compileProgram(mlir::ModuleOp module, const CompileRequest &r) {
  const bool noWalks = module.getOps<walk::WalkOp>().empty();
  const bool noAlgorithms = module.getOps<graph::AlgorithmOp>().empty();
  // Align jobs (docs/align.md, "sluicec -c"): the kernels as an object file
  // and a C header, or with --target=gpu as PTX and JSON.
  if (noWalks && noAlgorithms && !module.getOps<seq::AlignOp>().empty()) {
    if (r.gpu) {
      std::string ptx = outputOr(r, ".ptx");
      return exitCode(
          target::compileAlignJobsToPtx(module, ptx, ptx + ".json"));
    }
    std::string object = outputOr(r, ".o");
    return exitCode(target::compileAlignJobsToObject(
        module, object, headerBeside(object), r.cpus));
  }
  // GNN training (docs/gnn.md): on the CPU; -c --target=gpu writes the
  // aggregation kernels (PTX and their JSON), which sluice/gnn_gpu.h runs.
  if (noWalks && noAlgorithms && target::isGnnTrainJob(module, r.job)) {
    if (!r.gpu) {
      model::GnnTrainOp op = gnnTrainJob(module, r.job);
      op.emitError() << "not supported yet: -c of gnn train job '"
                     << op.getSymName()
                     << "' for the CPU (its trainer is the runtime's, "
                        "sluice/gnn.h; --run trains, -c --target=gpu writes "
                        "its aggregation kernels)";
      return 1;
    }
    std::string ptx = outputOr(r, ".ptx");
    return exitCode(
        target::compileGnnJobsToPtx(module, ptx, ptx + ".json", r.job));
  }
  // Algorithms (docs/algorithms.md): the loops' kernels as PTX for sm_90
  // and their description as JSON (the host code is the CPU object's), or
  // the CPU object and its header.
  if (noWalks && !noAlgorithms) {
    if (r.gpu) {
      std::string ptx = outputOr(r, ".ptx");
      return exitCode(target::compileAlgorithmsToPtx(module, ptx, ptx + ".json",
                                                     r.libdevice, r.remarks));
    }
    return compileAlgorithms(module, outputOr(r, ".o"), r.cpus);
  }
  // Walks: lower() scheduled every walk for --target (default cpu).
  if (r.gpu) {
    std::string ptx = outputOr(r, ".ptx");
    return exitCode(
        target::compileWalksToPtx(module, ptx, ptx + ".json", r.libdevice));
  }
  std::string object = outputOr(r, ".o");
  return exitCode(target::compileWalksToObject(module, object,
                                               headerBeside(object), r.cpus));
}
