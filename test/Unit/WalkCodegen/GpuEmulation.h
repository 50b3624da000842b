//===- GpuEmulation.h - walk-to-gpu's device code run on the host -*- C++ -*-===//
//
// The kernels walk-to-gpu generates, compiled for the host instead of the
// GPU, so that tests without a GPU run exactly the device code's logic:
// the gpu.module's functions go into a plain module, each kernel becomes a
// func.func with one more argument, the global thread id (block_id := that
// id, block_dim := 1, thread_id := 0), every gpu.shuffle (xor, width 32)
// becomes a call of sluice_emu_shuffle_xor, the math ops become calls of
// libdevice's functions as on the device (__nv_sqrt, ...; the JIT gives
// them libm's definitions), and the upstream CPU conversions and the JIT
// do the rest.
//
// WarpEmulator runs the 32 lanes of a warp as cooperative fibers on one
// thread: at every shuffle a lane publishes its value and yields; once all
// 32 lanes have published (one round-robin round) each reads its partner's.
// That is a warp's shfl.sync when the lanes run in lockstep (the same
// shuffles in the same order), which the emulator checks.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H
#define SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H

#include "compiler/Target/LLVM/Codegen.h"

#include "compiler/Pipelines/Compilation.h"

#include "sluice/graph.h"
#include "sluice/walk.h"
#include "sluice/walk_gpu.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sluice::gpuemu {

/// A walk kernel compiled for the host: its one argument (a
/// sluice_walk_gpu_args_t, walk_gpu.h, with host addresses), then the
/// global thread id.
using Kernel = void (*)(const sluice_walk_gpu_args_t *, int64_t);

/// The kernel's fault record (what sluice_walk_run_gpu uploads): a
/// sluice_walk_fault_t, then the smallest faulting walker.
struct FaultRecord {
  sluice_walk_fault_t fault{};
  uint64_t firstWalker = UINT64_MAX;
};

/// The arguments of the launches of one run over `graph`, as
/// sluice_walk_run_gpu passes them (host pointers instead of device ones):
/// the graph's arrays and per-vertex aggregates, every vertex a start.
struct Launch {
  explicit Launch(const sluice_graph_t *graph);
  const sluice_graph_t *graph;
  std::vector<float> wmax, wmin, wsum;
  std::vector<uint32_t> starts;
  const void *params = nullptr; ///< the slots (lists: host list pointers)
  int64_t walksPerVertex = 1, maxLength = 1, seed = 0;
  double stopProbability = 0;
  FaultRecord *fault = nullptr;
  int64_t walkers() const {
    return static_cast<int64_t>(starts.size()) * walksPerVertex;
  }
  /// Runs thread `thread` of the launch of walkers [base, base + count),
  /// which writes rows / lengths from index 0.
  void thread(Kernel kernel, int64_t base, int64_t count, uint32_t *rows,
              uint32_t *lengths, int64_t thread) const;
  /// Every walker of a rejection kernel (one thread each), in launches of
  /// `batch` walkers (0: one launch) whose rows / lengths are appended in
  /// walker order.
  void runRejection(Kernel kernel, std::vector<uint32_t> &rows,
                    std::vector<uint32_t> &lengths, int64_t batch = 0) const;
  /// The same for a reservoir kernel (a warp of 32 per walker, the lanes
  /// as fibers); false when the lanes left lockstep.
  bool runReservoir(Kernel kernel, std::vector<uint32_t> &rows,
                    std::vector<uint32_t> &lengths, int64_t batch = 0) const;
};

/// Runs walk-to-gpu on a copy of `source` and JIT-compiles the device code
/// for the host (nullptr with `error` set on failure).
std::unique_ptr<target::HostJit> emulateKernels(mlir::ModuleOp source,
                                                std::string &error);

/// The 32 lanes of one warp as fibers.
class WarpEmulator {
public:
  static constexpr int kLanes = 32;
  /// Runs `body(lane)` for every lane to completion, switching lanes at
  /// every shuffle. False when the lanes did not run in lockstep (their
  /// shuffle counts differed at a round's end).
  bool run(const std::function<void(int lane)> &body);
  /// Shuffles (exchanges) each lane made in the last run.
  uint64_t shuffles() const { return exchanges; }
  /// sluice_emu_shuffle_xor, for the JIT's symbol map.
  static uint32_t shuffleXor(uint32_t value, uint32_t offset);

private:
  uint64_t exchanges = 0;
};

/// The set-up of the GPU walk tests: a .sluice program and its input
/// files written into a fresh directory and compiled by the whole compiler
/// (parse, check, lower), diagnostics collected; graphs loaded as sluicec
/// loads a SNAP text file.
class CompiledProgramTest : public ::testing::Test {
protected:
  /// Writes `files` (name, text) and `program` (as prog.sluice) and
  /// compiles it; a fatal failure on any error (call it under
  /// ASSERT_NO_FATAL_FAILURE).
  void compileProgram(
      const std::string &program,
      const std::vector<std::pair<std::string, std::string>> &files);
  void TearDown() override;

  std::string path(llvm::StringRef name) const;
  void write(llvm::StringRef name, llvm::StringRef text) const;
  static std::string read(const std::string &path);
  /// The SNAP file `name` of the directory, undirected, ids compacted,
  /// with the vertex labels of file `labels` when not empty and the weights
  /// of its third column when `weighted`; NULL (and a failure) when it
  /// does not load. The caller releases it.
  sluice_graph_t *loadGraph(llvm::StringRef name, llvm::StringRef labels = "",
                            bool weighted = false);

  llvm::SmallString<128> dir;
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream diagOs{diagnostics};
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
  std::unique_ptr<Compilation> compilation;
};

} // namespace sluice::gpuemu

#endif // SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H
