//===- AlgoCompile.h - Graph algorithms to code: JIT, objects ---*- C++ -*-===//
//
// What `sluicec --run` and `sluicec -c` do with the graph dialect MLIRGen
// produced: lower a copy of it to the LLVM dialect (graph-to-llvm and the
// upstream conversions), then either JIT it and run a job with
// libsluicert's algorithm runtime (sluice/algo.h), writing the outputs, or
// write an object file and a C header declaring the algorithms.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_GRAPH_ALGOCOMPILE_H
#define SLUICE_COMPILER_TARGET_GRAPH_ALGOCOMPILE_H

#include "compiler/Target/LLVM/Codegen.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "sluice/algo.h"
#include "sluice/algo_gpu.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice::target {

class HostJit;

/// A copy of `module` with every algorithm lowered to LLVM-dialect
/// functions (graph-to-llvm; a remark per loop with `remarks`).
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
lowerAlgorithmsToLLVM(mlir::ModuleOp module, bool remarks);

/// Writes a C header declaring every algorithm's function, its parameter
/// block and its properties (runtime/include/sluice/algo.h); its first
/// comment says what the object file was built for (`builtFor`,
/// describeHostCpu).
void writeAlgorithmHeader(mlir::ModuleOp module, llvm::StringRef guardName,
                          llvm::StringRef builtFor, llvm::raw_ostream &os);

/// Compiles the algorithms of `module` to a PIC object file for the host's
/// architecture and `cpus` (one CPU, or several dispatched at load time) at
/// `objectPath` and writes the header at `headerPath`.
mlir::LogicalResult compileAlgorithmsToObject(mlir::ModuleOp module,
                                              llvm::StringRef objectPath,
                                              llvm::StringRef headerPath,
                                              llvm::ArrayRef<HostCpu> cpus);

/// One algorithm of a module, JIT-compiled.
class CompiledAlgorithm {
public:
  /// Lowers and compiles `algo` (with the other algorithms of its module);
  /// with `gpu`, also its loops' kernels to PTX (AlgoGpu.h), which run()
  /// attaches to its context (sluice/algo_gpu.h).
  static mlir::FailureOr<std::unique_ptr<CompiledAlgorithm>>
  compile(graph::AlgorithmOp algo, bool remarks, bool gpu = false,
          llvm::StringRef libdevice = "");
  ~CompiledAlgorithm();

  /// What one run produced: every property's values (num_vertices each)
  /// and the algorithm's outputs as columns over them.
  /// Move-only: the columns point into `storage`.
  struct Result {
    Result() = default;
    Result(Result &&) = default;
    Result &operator=(Result &&) = default;
    Result(const Result &) = delete;
    Result &operator=(const Result &) = delete;

    std::vector<std::vector<uint64_t>> storage;
    std::vector<sluice_algo_column_t> outputs;
    std::vector<std::string> outputNames;
    uint64_t passes = 0;
    double seconds = 0;
    uint32_t threads = 0;
    uint64_t gpuLaunches = 0; ///< kernels launched (on the GPU)
    sluice_algo_gpu_stats_t gpuStats{}; ///< where the GPU's time went
    /// What each tiled loop ran with (sluice_algo_tile_note).
    std::vector<std::string> tileNotes;
    /// What each binned push loop ran with (sluice_algo_bins_note).
    std::vector<std::string> binNotes;
    std::vector<std::string> orderNotes; ///< sluice_algo_order_note's
  };

  /// Runs on `graph` with `threads` (0: every core) and the parameter values
  /// of `params` over the defaults. Errors (a parameter without a value, a
  /// fault) are located diagnostics at the job's `where`, or at the op that
  /// faulted.
  mlir::FailureOr<Result> run(const sluice_graph_t *graph,
                              mlir::DictionaryAttr params, uint32_t threads,
                              bool quiet, mlir::Operation *where);

private:
  CompiledAlgorithm() = default;
  graph::AlgorithmOp algo;
  std::unique_ptr<HostJit> jit;
  void (*entry)(sluice_algo_ctx_t *, const int64_t *, void **) = nullptr;
  /// With a GPU: the kernels' PTX and names (each a loop function's; not
  /// the `_lanes` twins, which bind finds with them).
  bool gpu = false;
  std::string ptx;
  std::vector<std::string> kernels;
};

/// `sluicec --run` of an algorithm job.
struct AlgoRunOptions {
  std::string job;      ///< empty: the only algorithm job
  uint32_t threads = 0; ///< 0: the job's, the schedule's, or every core
  std::string out;      ///< overrides the job's `output`
  std::string baseDir;  ///< relative outputs are resolved against it
  bool quiet = false;
  bool remarks = false;
  bool graphCache = false;
  /// Run an algorithm scheduled `target: gpu` on the CPU (--target=cpu).
  bool forceCpu = false;
  /// Run on the GPU whatever the schedule says (--target=gpu).
  bool gpu = false;
  /// libdevice for the kernels' math built-ins (--libdevice).
  std::string libdevice;
  /// Run on this graph instead of loading the one the algorithm declares
  /// (Python's in-memory graphs); the caller keeps it alive.
  const sluice_graph_t *graph = nullptr;
  /// Keep the properties in AlgoRunReport::result (Python reads them as
  /// arrays) in addition to writing the outputs a path names.
  bool keepResult = false;
  /// Write the outputs to `out` or the job's `output` (Python asks only
  /// when it names a path).
  bool writeOutputs = true;
  /// Runs of the kernel on the loaded graph (--algo-trials, at least 1):
  /// the first (cold) run's outputs are the ones written; the others are
  /// timed only (warm: the graph and the code already touched), as GAPBS's
  /// trials after its first.
  uint32_t trials = 1;
};

/// What a run did (for the summary sluicec prints).
struct AlgoRunReport {
  std::string job, algorithm, graph, output, graphCache;
  uint64_t vertices = 0, edges = 0, passes = 0;
  uint32_t threads = 0;
  bool gpu = false; ///< the loops ran as GPU kernels
  uint64_t gpuLaunches = 0;
  sluice_algo_gpu_stats_t gpuStats{};
  double seconds = 0, compileSeconds = 0, loadSeconds = 0;
  /// The kernel times of the runs after the first (AlgoRunOptions::trials).
  std::vector<double> warmSeconds;
  std::vector<std::string> tileNotes; ///< CompiledAlgorithm::Result's
  std::vector<std::string> binNotes;  ///< CompiledAlgorithm::Result's
  std::vector<std::string> orderNotes; ///< CompiledAlgorithm::Result's
  /// With AlgoRunOptions::keepResult: the outputs, over `graph`.
  std::optional<CompiledAlgorithm::Result> result;
  /// With keepResult, the graph the run loaded (null when one was given):
  /// the original ids of `result`'s vertices.
  std::shared_ptr<sluice_graph_t> loadedGraph;
};

/// Finds the job, loads its graph (through its binary cache with
/// `graphCache`), compiles and runs the algorithm and writes its outputs
/// (text, or .npy when the path ends in .npy). Errors are located.
mlir::FailureOr<AlgoRunReport> runAlgorithmJob(mlir::ModuleOp module,
                                               const AlgoRunOptions &options);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_GRAPH_ALGOCOMPILE_H
