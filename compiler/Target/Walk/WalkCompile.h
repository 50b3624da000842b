//===- WalkCompile.h - Walk programs to kernels: JIT, objects, headers -*- C++ -*-===//
//
// What `sluicec --run` and `sluicec -c` do with the walk dialect that
// MLIRGen produced: lower a copy of it to the LLVM dialect (walk-bounds,
// then walk-to-llvm), and either JIT it and run a job with libsluicert's
// walk engine, or write an object file and a C header declaring the
// kernels and their parameter blocks.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_WALK_WALKCOMPILE_H
#define SLUICE_COMPILER_TARGET_WALK_WALKCOMPILE_H

#include "compiler/Target/LLVM/Codegen.h"
#include "sluice/graph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace sluice::target {

/// A copy of `module` with every walk lowered to kernel functions and
/// descriptors in the LLVM dialect (walk-bounds, then walk-to-llvm).
/// Errors are reported through the context's diagnostic engine.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
lowerWalksToLLVM(mlir::ModuleOp module);

/// Writes a C header declaring, for every walk of `module`, its kernel
/// descriptor, its setup functions and a struct for its parameter block;
/// its first comment says what the object file was built for (`builtFor`,
/// describeHostCpu).
void writeWalkHeader(mlir::ModuleOp module, llvm::StringRef guardName,
                     llvm::StringRef builtFor, llvm::raw_ostream &os);

/// Compiles the walks of `module` to a PIC object file for the host's
/// architecture and `cpus` (one CPU, or several dispatched at load time) at
/// `objectPath` and writes the header at `headerPath`.
mlir::LogicalResult compileWalksToObject(mlir::ModuleOp module,
                                         llvm::StringRef objectPath,
                                         llvm::StringRef headerPath,
                                         llvm::ArrayRef<HostCpu> cpus);

/// `sluicec --run`: which job and how.
struct WalkRunOptions {
  std::string job;      ///< empty: the only walk job of the module
  uint32_t threads = 0; ///< 0: the job's, the schedule's, or all cores
  std::string walksOut; ///< overrides the job's `output`
  /// Overrides the job's `walks_dtype` ("i32", "i64"; empty: the job's).
  std::string walksDtype;
  bool shuffleWalks = false; ///< shuffles even when the job does not
  std::string baseDir;  ///< relative outputs are resolved against it
  bool quiet = false;   ///< no engine progress lines
  /// The cost model's r = c_rej / c_res for `sampler: auto`; 0 = calibrate
  /// at start-up. Walks drawn by the cost model depend on r (it decides
  /// which sampler consumes the random numbers), so a run reproduces
  /// another one bit for bit only with the same seed and the same r.
  double costRatio = 0;
  /// Cap on the vertices per walk (0: none). Required for a walk without
  /// `length` (its walks end by `stop probability` / `stop` or at the cap);
  /// lowers `length` when smaller.
  uint64_t maxLength = 0;
  /// A walk scheduled for the GPU: the libdevice file linked into its PTX
  /// when it uses a math built-in.
  std::string libdevice = defaultLibdevicePath().str();
  /// Remark at the graph what its load dropped and merged (`--remarks`).
  bool remarks = false;
  /// Keep a text graph's binary CSR cache next to it and use it when it is
  /// up to date (GraphCache.h). sluicec turns it on unless
  /// `--no-graph-cache`; other callers ask for it.
  bool graphCache = false;
  /// Walk this graph instead of loading the one the walk declares
  /// (Python's in-memory graphs); the caller keeps it alive. Start
  /// vertices must be in it.
  const sluice_graph_t *graph = nullptr;
};

/// What a run did (for the summary sluicec prints).
struct WalkRunReport {
  std::string job, walk, graph, output; ///< output empty: not written
  uint64_t vertices = 0, edges = 0;
  /// What the load did to the edges it read ("948464 edges read: 78303
  /// self loops dropped, ..."), from sluice_graph_load_stats.
  std::string graphLoad;
  uint64_t walks = 0, steps = 0;
  double seconds = 0;        ///< the engine's walking time
  double compileSeconds = 0; ///< lowering + JIT
  double loadSeconds = 0;    ///< graph load (text, or its cache)
  double cacheSeconds = 0;   ///< writing the graph's cache
  /// "read PATH", "written PATH", "not written (why)"; empty: no cache.
  std::string graphCache;
  uint64_t rejectionSteps = 0, reservoirSteps = 0, aliasSteps = 0;
  double costRatio = 0;   ///< the r the cost model used (0: not used)
  bool calibrated = false; ///< r was measured at start-up
  uint32_t maxLength = 0;  ///< the vertices-per-walk bound the run used
};

/// Runs a walk job: JIT-compiles its walk, loads the graph (keeping the
/// start vertices that have no edge), builds the parameter block from the
/// job's values and the walk's defaults, runs sluice_walk_run and writes
/// the walks. Errors are located diagnostics.
mlir::FailureOr<WalkRunReport> runWalkJob(mlir::ModuleOp module,
                                          const WalkRunOptions &options);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_WALK_WALKCOMPILE_H
