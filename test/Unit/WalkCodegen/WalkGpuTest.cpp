//===- WalkGpuTest.cpp - Compiled walks on the GPU vs the CPU engine ------===//
//
// A node2vec walk in .sluice is compiled twice by the whole compiler: to
// PTX (walk-to-gpu, convert-gpu-to-nvvm, NVPTX) and for the CPU (walk-to-llvm,
// JIT, sluicec --run's path). The GPU kernel draws the same Philox numbers
// as the CPU engine's rejection mode (WalkRng keying, the same trial cap
// and exact fallback), so with `sampler: rejection` and the same seed the
// walk files must be byte-identical. Without a GPU the run must say
// UNSUPPORTED (with the reason) and the comparison is skipped.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/Passes.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/LLVM/Codegen.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "test/Unit/WalkCodegen/GpuEmulation.h"

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace sluice;

namespace {

const char *kGraph = "# tiny\n"
                     "0 1\n0 2\n1 2\n2 3\n3 4\n4 5\n5 3\n2 5\n"
                     "1 6\n6 7\n7 1\n7 8\n8 20\n20 21\n21 7\n5 5\n";

const char *kProgram = R"(
graph g = load("g.txt", format: snap, undirected)
walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on g {
  length 12
  weight(prev, cur, next, w) =
    if next == prev then w / p
    else if has_edge(prev, next) then w
    else w / q
}
schedule node2vec { sampler: rejection, target: gpu }
job j = walk node2vec on g { p: 0.25, q: 4.0, walks_per_vertex: 7, seed: 42 }
)";

class WalkGpu : public gpuemu::CompiledProgramTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(compileProgram(kProgram, {{"g.txt", kGraph}}));
    std::string json;
    ASSERT_TRUE(mlir::succeeded(target::lowerWalksToPtx(
        compilation->module(), "sm_90", ptx, json)))
        << diagnostics;
    graph = loadGraph("g.txt");
    ASSERT_TRUE(graph);
    sluice_walk_options_init(&options);
    options.max_length = 12;
    options.walks_per_vertex = 7;
    options.seed = 42;
    options.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  }
  void TearDown() override {
    sluice_graph_release(graph);
    CompiledProgramTest::TearDown();
  }

  std::string ptx;
  sluice_graph_t *graph = nullptr;
  sluice_walk_options_t options;
  const double params[2] = {0.25, 4.0};
};

TEST_F(WalkGpu, ThePtxHasTheKernel) {
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find(".entry sluice_walk_node2vec("), std::string::npos);
}

TEST_F(WalkGpu, BadArgumentsAreRejectedBeforeTheDevice) {
  sluice_error_t error;
  EXPECT_EQ(sluice_walk_run_gpu(nullptr, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &options, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("graph is NULL"),
            std::string::npos);
  EXPECT_EQ(sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec",
                                nullptr, 2, &options, nullptr, nullptr,
                                &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_walk_options_t alias = options;
  alias.sampler = SLUICE_WALK_SAMPLER_ALIAS;
  EXPECT_EQ(sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &alias, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("sample by rejection"),
            std::string::npos);
  sluice_walk_options_t zero = options;
  zero.max_length = 0;
  EXPECT_EQ(sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &zero, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  uint32_t badStart = 1000;
  sluice_walk_options_t starts = options;
  starts.starts = &badStart;
  starts.num_starts = 1;
  sluice_status_t s =
      sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec", params,
                          2, &starts, nullptr, nullptr, &error);
  EXPECT_EQ(s, SLUICE_STATUS_OUT_OF_RANGE) << error.message;
}

TEST_F(WalkGpu, MatchesTheCpuEngineForTheSameSeed) {
  sluice_error_t error;
  sluice_walk_writer_t *writer = nullptr;
  std::string gpuOut = path("gpu.walks");
  ASSERT_EQ(sluice_walk_writer_open(gpuOut.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                    options.max_length,
                                    SLUICE_WALK_WRITE_ORIGINAL_IDS, graph,
                                    &writer, &error),
            SLUICE_STATUS_OK)
      << error.message;
  sluice_walk_stats_t stats;
  sluice_status_t status =
      sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec", params,
                          2, &options, writer, &stats, &error);
  if (!sluice_gpu_available(nullptr)) {
    sluice_walk_writer_release(writer);
    EXPECT_EQ(status, SLUICE_STATUS_UNSUPPORTED);
    EXPECT_GT(std::strlen(error.message), 0u);
    GTEST_SKIP() << "no GPU: " << error.message;
  }
  ASSERT_EQ(status, SLUICE_STATUS_OK) << error.message;
  ASSERT_EQ(sluice_walk_writer_commit(writer, &error), SLUICE_STATUS_OK);
  sluice_walk_writer_release(writer);
  EXPECT_EQ(stats.walks, 7u * sluice_graph_num_vertices(graph));

  target::WalkRunOptions run;
  run.walksOut = path("cpu.walks");
  run.quiet = true;
  auto report = target::runWalkJob(compilation->module(), run);
  ASSERT_TRUE(mlir::succeeded(report)) << diagnostics;
  std::string cpu = read(run.walksOut);
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(read(gpuOut), cpu);
  EXPECT_EQ(stats.steps, report->steps);
}

/// The kernel walk-to-gpu generates, compiled for the host instead
/// (GpuEmulation.h): this runs exactly the device code's logic (Philox, the
/// sampler, the graph queries) one walker at a time.
using gpuemu::Kernel;

TEST_F(WalkGpu, TheDeviceCodeEmulatedOnTheHostMatchesTheCpuEngine) {
  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  auto kernel = reinterpret_cast<Kernel>(
      jit->lookup("sluice_walk_node2vec", error));
  ASSERT_TRUE(kernel) << error;

  gpuemu::Launch launch(graph);
  launch.params = params;
  launch.walksPerVertex = options.walks_per_vertex;
  launch.maxLength = options.max_length;
  launch.seed = static_cast<int64_t>(options.seed);
  int64_t len = launch.maxLength, walkers = launch.walkers();
  std::vector<uint32_t> rows, lengths;
  launch.runRejection(kernel, rows, lengths);

  sluice_error_t rtError;
  sluice_walk_writer_t *writer = nullptr;
  std::string emuOut = path("emulated.walks");
  ASSERT_EQ(sluice_walk_writer_open(emuOut.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                    len, SLUICE_WALK_WRITE_ORIGINAL_IDS, graph,
                                    &writer, &rtError),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_append(writer, rows.data(), lengths.data(),
                                      walkers, &rtError),
            SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_walk_writer_commit(writer, &rtError), SLUICE_STATUS_OK);
  sluice_walk_writer_release(writer);

  target::WalkRunOptions run;
  run.walksOut = path("cpu.walks");
  run.quiet = true;
  auto report = target::runWalkJob(compilation->module(), run);
  ASSERT_TRUE(mlir::succeeded(report)) << diagnostics;
  std::string cpu = read(run.walksOut);
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(read(emuOut), cpu);

  // Another seed gives other walks: the comparison can fail.
  std::vector<uint32_t> other, otherLengths;
  launch.seed = 43;
  launch.runRejection(kernel, other, otherLengths);
  EXPECT_NE(other, rows);
}

/// A weight that comes out negative at run time counts as 0 (language.md,
/// 10.1; walk.h): the neighbour is never chosen, on the CPU (sluicec --run's
/// path) and by the GPU kernels (rejection and reservoir, emulated), and a
/// vertex whose every weight is negative ends the walk. Even vertices have
/// label 0, odd ones label 1; the weight is -w towards odd vertices, so
/// after the first step a walk only visits 0, 2 and 4, and ends at 4 (whose
/// neighbours 3 and 5 are odd) when it ends early.
class NegativeWeights : public gpuemu::CompiledProgramTest {};

TEST_F(NegativeWeights, AreNeverChosenOnTheCpuOrTheGpu) {
  const char *program = R"(
graph g = load("g.txt", format: snap, undirected, labels: "g.labels")
walk rej on g {
  length 10
  weight(cur, next, w) = if label(next) == 1 then 0.0 - w else w
}
walk res on g {
  length 10
  weight(cur, next, w) = if label(next) == 1 then 0.0 - w else w
}
schedule rej { sampler: rejection, target: gpu }
schedule res { sampler: reservoir, target: gpu }
job cpu_rej = walk rej on g { walks_per_vertex: 20, seed: 3 }
job cpu_res = walk res on g { walks_per_vertex: 20, seed: 3 }
)";
  const char *graphText = "0 1\n0 2\n1 2\n2 3\n3 4\n4 5\n5 0\n1 3\n";
  const char *labels = "0 0\n1 1\n2 0\n3 1\n4 0\n5 1\n";
  ASSERT_NO_FATAL_FAILURE(
      compileProgram(program, {{"g.txt", graphText}, {"g.labels", labels}}));
  sluice_graph_t *graph = loadGraph("g.txt", "g.labels");
  ASSERT_TRUE(graph);
  const int64_t len = 10;
  auto check = [&](const std::vector<uint32_t> &rows,
                   const std::vector<uint32_t> &lengths,
                   const std::string &what) {
    ASSERT_EQ(lengths.size(), 6u * 20) << what;
    uint64_t early = 0;
    for (size_t w = 0; w < lengths.size(); ++w) {
      const uint32_t *row = &rows[w * len];
      for (uint32_t k = 1; k < lengths[w]; ++k)
        EXPECT_EQ(row[k] % 2, 0u) << what << ": walker " << w << " step " << k;
      if (lengths[w] < len) {
        EXPECT_EQ(row[lengths[w] - 1], 4u) << what << ": walker " << w;
        ++early;
      }
    }
    EXPECT_GT(early, 0u) << what;
  };
  // The CPU engine, as sluicec --run runs it: ids are the file's, read back
  // from the text output.
  for (const char *job : {"cpu_rej", "cpu_res"}) {
    target::WalkRunOptions run;
    run.job = job;
    run.walksOut = path(std::string(job) + ".walks");
    run.quiet = true;
    auto report = target::runWalkJob(compilation->module(), run);
    ASSERT_TRUE(mlir::succeeded(report)) << diagnostics;
    std::istringstream in(read(run.walksOut));
    std::vector<uint32_t> rows, lengths;
    for (std::string line; std::getline(in, line);) {
      std::istringstream ids(line);
      std::vector<uint32_t> walk;
      for (uint32_t v; ids >> v;)
        walk.push_back(v);
      lengths.push_back(static_cast<uint32_t>(walk.size()));
      walk.resize(len, 0);
      rows.insert(rows.end(), walk.begin(), walk.end());
    }
    check(rows, lengths, job);
  }
  // The GPU kernels' device code, emulated on the host (the graph's ids are
  // the file's: 0..5 compact to themselves).
  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  gpuemu::Launch launch(graph);
  launch.walksPerVertex = 20;
  launch.maxLength = len;
  launch.seed = 3;
  auto rejection =
      reinterpret_cast<gpuemu::Kernel>(jit->lookup("sluice_walk_rej", error));
  ASSERT_TRUE(rejection) << error;
  std::vector<uint32_t> rows, lengths;
  launch.runRejection(rejection, rows, lengths);
  check(rows, lengths, "gpu rejection");
  auto reservoir =
      reinterpret_cast<gpuemu::Kernel>(jit->lookup("sluice_walk_res", error));
  ASSERT_TRUE(reservoir) << error;
  rows.clear();
  lengths.clear();
  EXPECT_TRUE(launch.runReservoir(reservoir, rows, lengths));
  check(rows, lengths, "gpu reservoir");
  sluice_graph_release(graph);
}

} // namespace
