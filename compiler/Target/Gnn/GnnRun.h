//===- GnnRun.h - sluicec --run of a gnn train job --------------*- C++ -*-===//
//
// Finds the model.gnn_train job, loads its graph as the declaration says
// (labels included: they are the classes), and trains through the
// runtime's sluice_gnn_train (sluice/gnn.h), reporting each epoch; with
// --target=gpu the job's aggregation kernels (GnnGpu.h) run on the GPU
// through sluice/gnn_gpu.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GNN_GNNRUN_H
#define SLUICE_COMPILER_TARGET_GNN_GNNRUN_H

#include "sluice/gnn.h"
#include "sluice/gnn_gpu.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace sluice::target {

struct GnnRunOptions {
  std::string job;       ///< empty: the only gnn train job
  uint32_t threads = 0;  ///< 0: the job's, else every core
  std::string out;       ///< JSON report; empty: the job's `output`
  bool graphCache = true;
  bool quiet = false;    ///< no per-epoch lines
  /// --target=gpu: the dense layers' aggregation runs on the GPU
  /// (gnn-to-gpu's kernels through sluice/gnn_gpu.h), the rest on the CPU.
  bool gpu = false;
};

struct GnnRunReport {
  std::string job, model, graph, kind, features, graphCache, output;
  uint64_t vertices = 0, edges = 0;
  uint32_t threads = 0;
  uint32_t layers = 0;
  uint32_t heads = 1; ///< attention heads (gat); 1 for the other kinds
  uint32_t tile = 0; ///< the job's `tile`; 0: auto
  double loadSeconds = 0;
  std::vector<sluice_gnn_epoch_t> epochs;
  sluice_gnn_result_t result{};
  std::string gpuDevice; ///< --target=gpu: the device's name
  sluice_gnn_gpu_stats_t gpuStats{};
};

/// True when --run with `job` means a gnn train job: `job` names one, or
/// is empty and the module's only runnable jobs are gnn train jobs.
bool isGnnTrainJob(mlir::ModuleOp module, llvm::StringRef job);

/// Trains; epoch lines go to `progress` (unless quiet). Errors are emitted
/// at the job, the model or the graph.
mlir::FailureOr<GnnRunReport> runGnnTrainJob(mlir::ModuleOp module,
                                             const GnnRunOptions &options,
                                             llvm::raw_ostream &progress);

/// The summary sluicec prints.
void printGnnRunReport(const GnnRunReport &report, llvm::raw_ostream &os);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GNN_GNNRUN_H
