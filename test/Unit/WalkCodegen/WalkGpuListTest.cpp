//===- WalkGpuListTest.cpp - List parameters, vertex_of, batches on the GPU ===//
//
// walk-to-gpu's kernels with a list parameter (metapath: list_get and
// list_size on a device sluice_walk_list_t), with `vertex_of` (an original
// id in the weight: the sorted id map of a compacted graph, or id_base on a
// dense one) and launched in batches of walkers, run on the host through
// GpuEmulation.h. With `sampler: rejection` and the same seed their walks
// must be byte-identical to the CPU engine's (sluicec --run's path), for
// any batch size; a list index out of range must leave the fault the CPU
// engine reports (the smallest faulting walker, its step, vertex, index).
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Walk/WalkCompile.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "test/Unit/WalkCodegen/GpuEmulation.h"

#include "sluice/walk_gpu.h"
#include "sluice/walk_support.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <string>
#include <vector>

using namespace sluice;

namespace {

// Ids 0..8, 20, 21: compacted (the id map is not the identity).
const char *kGraph = "# tiny\n"
                     "0 1\n0 2\n1 2\n2 3\n3 4\n4 5\n5 3\n2 5\n"
                     "1 6\n6 7\n7 1\n7 8\n8 20\n20 21\n21 7\n5 5\n";
const char *kLabels = "0 0\n1 1\n2 2\n3 0\n4 1\n5 2\n6 0\n7 2\n8 1\n"
                      "20 0\n21 1\n";
// Ids 0..5: dense (vertex = id - id_base, no id map).
const char *kDense = "# dense\n0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n1 4\n2 5\n";

const char *kProgram = R"(
graph g = load("g.txt", format: snap, undirected, labels: "g.labels")
graph d = load("d.txt", format: snap, undirected)
walk metapath(schema: [i64] = [0, 1, 2]) on g {
  length 12
  state hop: i64 = 0
  weight(cur, next, w) =
    if label(next) == schema[(hop + 1) % size(schema)] then w else 0.0
  update(cur, next) { hop += 1 }
}
schedule metapath { sampler: rejection, target: gpu }
walk bad(schema: [i64] = [1, 1, 1]) on g {
  length 12
  state hop: i64 = 0
  weight(cur, next, w) = if schema[hop] > 0 then w else 0.0
  update(cur, next) { hop += 1 }
}
schedule bad { sampler: rejection }
walk homing on g {
  length 12
  weight(cur, next, w) = if next == 20 then 8.0 * w else w
}
schedule homing { sampler: rejection }
walk homing_dense on d {
  length 12
  weight(cur, next, w) = if next == 4 then 8.0 * w else w
}
schedule homing_dense { sampler: rejection }
job mp = walk metapath on g { schema: [1, 0, 2, 1], walks_per_vertex: 9, seed: 9 }
job mp_default = walk metapath on g { walks_per_vertex: 9, seed: 5 }
job fault = walk bad on g { walks_per_vertex: 2, seed: 1 }
job home = walk homing on g { walks_per_vertex: 9, seed: 4 }
job home_dense = walk homing_dense on d { walks_per_vertex: 9, seed: 4 }
)";

class WalkGpuLists : public gpuemu::CompiledProgramTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(compileProgram(
        kProgram,
        {{"g.txt", kGraph}, {"g.labels", kLabels}, {"d.txt", kDense}}));
    graph = loadGraph("g.txt", "g.labels");
    dense = loadGraph("d.txt");
    ASSERT_TRUE(graph && dense);
    std::string error;
    jit = gpuemu::emulateKernels(compilation->module(), error);
    ASSERT_TRUE(jit) << error << diagnostics;
  }
  void TearDown() override {
    sluice_graph_release(graph);
    sluice_graph_release(dense);
    CompiledProgramTest::TearDown();
  }

  gpuemu::Kernel kernel(const std::string &walk) {
    std::string error;
    auto k = reinterpret_cast<gpuemu::Kernel>(
        jit->lookup("sluice_walk_" + walk, error));
    EXPECT_TRUE(k) << error;
    return k;
  }
  /// The walks of `rows` / `lengths` as the text writer writes them.
  std::string text(const sluice_graph_t *g, const std::vector<uint32_t> &rows,
                   const std::vector<uint32_t> &lengths, uint32_t len,
                   const std::string &name) {
    sluice_error_t error;
    sluice_walk_writer_t *writer = nullptr;
    std::string out = path(name);
    EXPECT_EQ(sluice_walk_writer_open(out.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                      len, SLUICE_WALK_WRITE_ORIGINAL_IDS, g,
                                      &writer, &error),
              SLUICE_STATUS_OK);
    EXPECT_EQ(sluice_walk_writer_append(writer, rows.data(), lengths.data(),
                                        lengths.size(), &error),
              SLUICE_STATUS_OK);
    EXPECT_EQ(sluice_walk_writer_commit(writer, &error), SLUICE_STATUS_OK);
    sluice_walk_writer_release(writer);
    return read(out);
  }
  /// The CPU engine's walks of `job` (sluicec --run's path), as text.
  std::string cpu(const std::string &job) {
    target::WalkRunOptions run;
    run.job = job;
    run.walksOut = path(job + ".cpu.walks");
    run.quiet = true;
    auto report = target::runWalkJob(compilation->module(), run);
    EXPECT_TRUE(mlir::succeeded(report)) << diagnostics;
    return read(run.walksOut);
  }

  std::unique_ptr<target::HostJit> jit;
  sluice_graph_t *graph = nullptr, *dense = nullptr;
};

TEST_F(WalkGpuLists, ThePtxTakesTheListAndTheJsonSaysItIsOne) {
  std::string ptx, json;
  ASSERT_TRUE(mlir::succeeded(target::lowerWalksToPtx(
      compilation->module(), "sm_90", ptx, json, "metapath")))
      << diagnostics;
  EXPECT_NE(ptx.find(".entry sluice_walk_metapath("), std::string::npos);
  auto parsed = llvm::json::parse(json);
  ASSERT_TRUE(bool(parsed));
  const llvm::json::Object *k =
      (*parsed->getAsObject()->getArray("kernels"))[0].getAsObject();
  const llvm::json::Object *p = (*k->getArray("params"))[0].getAsObject();
  EXPECT_EQ(p->getString("name"), "schema");
  EXPECT_EQ(p->getString("kind"), "list");
  // One argument, a sluice_walk_gpu_args_t: its fields.
  EXPECT_EQ(k->getString("args_struct"), "sluice_walk_gpu_args_t");
  const llvm::json::Array *args = k->getArray("args");
  ASSERT_EQ(args->size(), sizeof(sluice_walk_gpu_args_t) / 8);
  EXPECT_EQ((*args)[19].getAsObject()->getString("name"), "walker_base");
  EXPECT_EQ((*args)[20].getAsObject()->getString("name"), "fault");
}

TEST_F(WalkGpuLists, MetapathMatchesTheCpuEngineInAnyBatchSize) {
  gpuemu::Kernel k = kernel("metapath");
  ASSERT_TRUE(k);
  // The job's schema [1, 0, 2, 1]: the slot points to the list.
  const int64_t schema[] = {1, 0, 2, 1};
  sluice_walk_list_t list = {schema, 4};
  const sluice_walk_list_t *slot = &list;
  gpuemu::FaultRecord fault;
  gpuemu::Launch launch(graph);
  launch.params = &slot;
  launch.walksPerVertex = 9;
  launch.maxLength = 12;
  launch.seed = 9;
  launch.fault = &fault;
  std::vector<uint32_t> rows, lengths;
  launch.runRejection(k, rows, lengths);
  EXPECT_EQ(fault.fault.code, 0);
  EXPECT_EQ(fault.firstWalker, UINT64_MAX);
  std::string cpuWalks = cpu("mp");
  ASSERT_FALSE(cpuWalks.empty());
  EXPECT_EQ(text(graph, rows, lengths, 12, "mp.emu.walks"), cpuWalks);
  // The schema decides: some walk goes past its first step (the walks are
  // not all cut short), and each step goes to the label it asks for.
  const int32_t *labels = sluice_graph_vertex_labels(graph);
  uint64_t steps = 0;
  for (size_t w = 0; w < lengths.size(); ++w)
    for (uint32_t s = 1; s < lengths[w]; ++s, ++steps)
      EXPECT_EQ(labels[rows[w * 12 + s]], schema[s % 4]) << "walker " << w;
  EXPECT_GT(steps, lengths.size());

  // Batches of 1, 7 and 10 walkers: the same walks (walker ids key the
  // random numbers, not thread ids).
  for (int64_t batch : {1, 7, 10}) {
    std::vector<uint32_t> r, l;
    launch.runRejection(k, r, l, batch);
    EXPECT_EQ(r, rows) << "batch " << batch;
    EXPECT_EQ(l, lengths) << "batch " << batch;
  }

  // The walk's default schema [0, 1, 2] is another list: other walks, and
  // the CPU engine's for the job without a schema.
  const int64_t fallback[] = {0, 1, 2};
  sluice_walk_list_t other = {fallback, 3};
  slot = &other;
  launch.seed = 5;
  std::vector<uint32_t> r, l;
  launch.runRejection(k, r, l, 5);
  EXPECT_NE(r, rows);
  EXPECT_EQ(text(graph, r, l, 12, "mp2.emu.walks"), cpu("mp_default"));
}

TEST_F(WalkGpuLists, ABadIndexLeavesTheCpuEnginesFault) {
  gpuemu::Kernel k = kernel("bad");
  ASSERT_TRUE(k);
  const int64_t schema[] = {1, 1, 1};
  sluice_walk_list_t list = {schema, 3};
  const sluice_walk_list_t *slot = &list;
  gpuemu::FaultRecord fault;
  gpuemu::Launch launch(graph);
  launch.params = &slot;
  launch.walksPerVertex = 2;
  launch.maxLength = 12;
  launch.seed = 1;
  launch.fault = &fault;
  std::vector<uint32_t> rows, lengths;
  // Walkers 2k+1 only (base 1, 3, ...): the smallest faulting walker is
  // the record's, not the first thread's.
  for (int64_t base = launch.walkers() - 1; base >= 1; base -= 2) {
    std::vector<uint32_t> r(12), l(1);
    launch.thread(k, base, 1, r.data(), l.data(), 0);
  }
  EXPECT_EQ(fault.fault.code, SLUICE_WALK_FAULT_LIST_INDEX);
  EXPECT_EQ(fault.firstWalker, 1u);
  EXPECT_EQ(fault.fault.index, 3);
  EXPECT_EQ(fault.fault.size, 3);
  EXPECT_EQ(fault.fault.step, 3);
  // The first fault filled the record: the last walker's (the launches
  // above ran from the last walker down).
  EXPECT_EQ(fault.fault.walker, uint64_t(launch.walkers() - 1));

  // Every walker in one launch, in thread order: walker 0 faults first.
  fault = gpuemu::FaultRecord();
  launch.runRejection(k, rows, lengths);
  ASSERT_EQ(fault.fault.code, SLUICE_WALK_FAULT_LIST_INDEX);
  EXPECT_EQ(fault.firstWalker, 0u);
  EXPECT_EQ(fault.fault.walker, 0u);
  EXPECT_EQ(fault.fault.cur, rows[3]);
  char what[160];
  sluice_walk_fault_describe(&fault.fault, what, sizeof(what));
  // The CPU engine reports the same walker, step, vertex and index.
  std::string expected =
      "walk 'bad': walker 0 (start vertex 0) at step 3, vertex " +
      std::to_string(sluice_graph_original_id(graph, rows[3])) + ": " + what;
  target::WalkRunOptions run;
  run.job = "fault";
  run.walksOut = path("fault.cpu.walks");
  run.quiet = true;
  run.threads = 1;
  EXPECT_TRUE(mlir::failed(target::runWalkJob(compilation->module(), run)));
  EXPECT_NE(diagnostics.find(expected), std::string::npos)
      << diagnostics << "\nexpected: " << expected;

  // A null list is empty: the first index faults, with size 0.
  slot = nullptr;
  fault = gpuemu::FaultRecord();
  std::vector<uint32_t> r(12), l(1);
  launch.thread(k, 0, 1, r.data(), l.data(), 0);
  EXPECT_EQ(fault.fault.code, SLUICE_WALK_FAULT_LIST_INDEX);
  EXPECT_EQ(fault.fault.index, 0);
  EXPECT_EQ(fault.fault.size, 0);
  EXPECT_EQ(fault.fault.step, 0);
}

TEST_F(WalkGpuLists, VertexOfMatchesTheCpuEngineOnCompactedAndDenseIds) {
  ASSERT_NE(sluice_graph_original_ids(graph), nullptr);
  ASSERT_EQ(sluice_graph_original_ids(dense), nullptr);
  for (auto [walk, job, g, hub] :
       {std::tuple{"homing", "home", graph, uint64_t(20)},
        std::tuple{"homing_dense", "home_dense", dense, uint64_t(4)}}) {
    gpuemu::Kernel k = kernel(walk);
    ASSERT_TRUE(k);
    gpuemu::Launch launch(g);
    launch.walksPerVertex = 9;
    launch.maxLength = 12;
    launch.seed = 4;
    std::vector<uint32_t> rows, lengths;
    launch.runRejection(k, rows, lengths, 13);
    EXPECT_EQ(text(g, rows, lengths, 12, std::string(job) + ".emu.walks"),
              cpu(job))
        << walk;
    // The hub weighs 8: it gets more than twice the visits of an unweighted
    // walk's stationary share, degree / (2 |E|).
    uint32_t v = sluice_graph_vertex_of(g, hub);
    uint64_t visits = 0, steps = 0;
    for (size_t w = 0; w < lengths.size(); ++w)
      for (uint32_t s = 1; s < lengths[w]; ++s, ++steps)
        visits += rows[w * 12 + s] == v;
    EXPECT_GT(visits * sluice_graph_num_edges(g),
              2 * steps * sluice_graph_degree(g, v))
        << walk;
  }
}

} // namespace
