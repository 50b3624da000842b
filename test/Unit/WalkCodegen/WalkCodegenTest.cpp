//===- WalkCodegenTest.cpp - Compiled walks vs hand-written kernels -------===//
//
// A walk written in .sluice goes through the whole compiler (parse, Sema,
// MLIRGen, walk-to-llvm, JIT) and runWalkJob; the same walk is run with
// walk-rt's hand-written reference kernel (bench/walks/ReferenceKernels)
// on the same graph with the same options and seed. The engine draws the
// same random numbers for both, so the walk files must be byte-identical
// exactly when the compiled kernel computes the same weights, stops and
// state updates as the reference.
//
//===----------------------------------------------------------------------===//
#include "bench/walks/ReferenceKernels.h"
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Walk/GraphLoadOptions.h"
#include "compiler/Target/Walk/WalkCompile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace sluice;

namespace {

// A small undirected graph with triangles, a pendant vertex, a self loop
// and ids that are not dense (compacted on load; written back as is).
const char *kGraph = "# tiny\n"
                     "0 1\n0 2\n1 2\n2 3\n3 4\n4 5\n5 3\n2 5\n"
                     "1 6\n6 7\n7 1\n7 8\n8 20\n20 21\n21 7\n5 5\n";
// Labels 0..4 (metapath's schema).
const char *kLabels = "0 0\n1 1\n2 2\n3 3\n4 4\n5 0\n6 2\n7 1\n8 3\n"
                      "20 4\n21 2\n";

class WalkCodegen : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("sluice-walk-cg", dir));
    write("g.txt", kGraph);
    write("g.labels", kLabels);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string path(llvm::StringRef name) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, name);
    return p.str().str();
  }
  void write(llvm::StringRef name, llvm::StringRef text) {
    std::ofstream(path(name)) << text.str();
  }
  static std::string read(const std::string &p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  /// Compiles `source` and runs its only job; returns the walks written.
  std::string runCompiled(const std::string &source, double costRatio = 0) {
    write("prog.sluice", source);
    mlir::DialectRegistry registry;
    registerSluiceDialects(registry);
    mlir::MLIRContext ctx(registry);
    ctx.loadAllAvailableDialects();
    llvm::SourceMgr sourceMgr;
    std::string diagnostics;
    llvm::raw_string_ostream diagOs(diagnostics);
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx, diagOs);
    Compilation c(ctx, sourceMgr);
    EXPECT_TRUE(mlir::succeeded(c.parse(path("prog.sluice"))) &&
                mlir::succeeded(c.check()) && mlir::succeeded(c.lower()))
        << diagnostics;
    if (!c.module())
      return "";
    target::WalkRunOptions options;
    options.walksOut = path("compiled.walks");
    options.quiet = true;
    options.costRatio = costRatio;
    auto report = target::runWalkJob(c.module(), options);
    EXPECT_TRUE(mlir::succeeded(report)) << diagnostics;
    if (mlir::failed(report))
      return "";
    EXPECT_GT(report->walks, 0u);
    return read(options.walksOut);
  }

  /// Runs the reference kernel of `w` with the same graph options as
  /// runWalkJob (compact ids, original ids in the output).
  std::string runReference(walkref::Workload w, const void *params,
                           sluice_walk_options_t options, bool labels) {
    sluice_graph_load_options_t load;
    sluice_graph_load_options_init(&load);
    load.format = SLUICE_GRAPH_FORMAT_SNAP;
    load.flags = target::runtimeLoadFlags(walk::GraphFormat::Snap, true,
                                          walk::Duplicates::Merge,
                                          walk::SelfLoops::Drop) |
                 SLUICE_GRAPH_LOAD_QUIET;
    std::string labelPath = path("g.labels");
    load.vertex_labels_path = labels ? labelPath.c_str() : nullptr;
    sluice_graph_t *graph = nullptr;
    sluice_error_t error;
    EXPECT_EQ(sluice_graph_load(path("g.txt").c_str(), &load, &graph, &error),
              SLUICE_STATUS_OK)
        << error.message;
    sluice_walk_writer_t *writer = nullptr;
    std::string out = path("reference.walks");
    EXPECT_EQ(sluice_walk_writer_open(out.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                      options.max_length,
                                      SLUICE_WALK_WRITE_ORIGINAL_IDS, graph,
                                      &writer, &error),
              SLUICE_STATUS_OK)
        << error.message;
    options.quiet = 1;
    EXPECT_EQ(sluice_walk_run(graph, walkref::kernel(w), params, &options,
                              writer, nullptr, &error),
              SLUICE_STATUS_OK)
        << error.message;
    EXPECT_EQ(sluice_walk_writer_commit(writer, &error), SLUICE_STATUS_OK);
    sluice_walk_writer_release(writer);
    sluice_graph_release(graph);
    return read(out);
  }

  llvm::SmallString<128> dir;
};

TEST_F(WalkCodegen, Node2VecMatchesTheReferenceKernel) {
  std::string compiled = runCompiled(R"(
graph g = load("g.txt", format: snap, undirected)
walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on g {
  length 12
  weight(prev, cur, next, w) =
    if next == prev then w / p
    else if has_edge(prev, next) then w
    else w / q
}
schedule node2vec { sampler: reservoir }
job j = walk node2vec on g { p: 0.25, q: 4.0, walks_per_vertex: 7, seed: 42 }
)");
  walkref::Params params(walkref::Workload::Node2Vec);
  params.setNode2Vec(0.25, 4.0);
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = 12;
  options.walks_per_vertex = 7;
  options.seed = 42;
  options.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  std::string reference = runReference(walkref::Workload::Node2Vec,
                                       params.data(), options, false);
  ASSERT_FALSE(reference.empty());
  EXPECT_EQ(compiled, reference);
  // Different parameters give different walks: the test can fail.
  walkref::Params defaults(walkref::Workload::Node2Vec);
  EXPECT_NE(compiled, runReference(walkref::Workload::Node2Vec,
                                   defaults.data(), options, false));
}

TEST_F(WalkCodegen, MetaPathStateAndListsMatchTheReferenceKernel) {
  std::string compiled = runCompiled(R"(
graph g = load("g.txt", format: snap, undirected, labels: "g.labels")
walk metapath(schema: [i64] = [0, 1, 2, 3, 4]) on g {
  length 9
  state hop: i64 = 0
  weight(cur, next, w) =
    if label(next) == schema[(hop + 1) % size(schema)] then w else 0.0
  update(cur, next) { hop += 1 }
}
schedule metapath { sampler: reservoir }
job j = walk metapath on g { walks_per_vertex: 5, seed: 3 }
)");
  walkref::Params params(walkref::Workload::MetaPath);
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = 9;
  options.walks_per_vertex = 5;
  options.seed = 3;
  options.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  std::string reference = runReference(walkref::Workload::MetaPath,
                                       params.data(), options, true);
  ASSERT_FALSE(reference.empty());
  EXPECT_EQ(compiled, reference);
  // Some walks end early (no neighbour with the next label), some do not.
  EXPECT_NE(compiled.find('\n'), std::string::npos);
}

// Under the cost model the sampler chosen per vertex depends on the sum
// bounds: walk-bounds derives them from the label mass of cur over the
// schema (walk.label_mass -> sluice_kernel_label_mass), as the reference
// kernel's hand-written bounds do, so with the same r both draw the same
// walks; a different choice would consume the random numbers differently.
TEST_F(WalkCodegen, MetaPathCostModelMatchesTheReferenceKernel) {
  for (double r : {0.5, 1.0, 4.0}) {
    std::string compiled = runCompiled(R"(
graph g = load("g.txt", format: snap, undirected, labels: "g.labels")
walk metapath(schema: [i64] = [0, 1, 2, 3, 4]) on g {
  length 9
  state hop: i64 = 0
  weight(cur, next, w) =
    if label(next) == schema[(hop + 1) % size(schema)] then w else 0.0
  update(cur, next) { hop += 1 }
}
schedule metapath { sampler: auto }
job j = walk metapath on g { walks_per_vertex: 5, seed: 3 }
)",
                                       r);
    walkref::Params params(walkref::Workload::MetaPath);
    sluice_walk_options_t options;
    sluice_walk_options_init(&options);
    options.max_length = 9;
    options.walks_per_vertex = 5;
    options.seed = 3;
    options.sampler = SLUICE_WALK_SAMPLER_AUTO;
    options.cost_ratio = r;
    std::string reference = runReference(walkref::Workload::MetaPath,
                                         params.data(), options, true);
    ASSERT_FALSE(reference.empty());
    EXPECT_EQ(compiled, reference) << "r = " << r;
  }
}

TEST_F(WalkCodegen, StartAndStopProbabilityMatchTheReferenceKernel) {
  std::string compiled = runCompiled(R"(
graph g = load("g.txt", format: snap, undirected)
walk ppr(source: i64 = 20, restart: f64 = 0.2) on g {
  start [source]
  stop probability restart
  length 30
  weight(cur, next, w) = w
}
schedule ppr { sampler: reservoir }
job j = walk ppr on g { walks_per_vertex: 200, seed: 1 }
)");
  walkref::Params params(walkref::Workload::PPR);
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = 30;
  options.walks_per_vertex = 200;
  options.seed = 1;
  options.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  options.stop_probability = 0.2;
  // Original id 20 is CSR vertex 9 after compaction (ids 0..8, 20, 21).
  uint32_t source = 9;
  options.starts = &source;
  options.num_starts = 1;
  std::string reference = runReference(walkref::Workload::PPR, params.data(),
                                       options, false);
  ASSERT_FALSE(reference.empty());
  EXPECT_EQ(compiled, reference);
  EXPECT_EQ(compiled.rfind("20 ", 0), 0u) << "walks start at vertex 20";
}

} // namespace
