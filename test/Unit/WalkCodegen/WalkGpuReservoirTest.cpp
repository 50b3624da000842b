//===- WalkGpuReservoirTest.cpp - The warp-per-walker reservoir kernels ---===//
//
// walk-to-gpu's reservoir kernels (a warp of 32 threads per walker, lane l
// scanning cur's edges l, l + 32, ..., keys log(u) / w from Philox, a
// shuffle butterfly picking the largest) run on the host through
// GpuEmulation.h: the same IR as the PTX, with the 32 lanes as fibers and
// gpu.shuffle as an exchange between them. Their transitions are compared,
// by chi-square at significance 1e-4 with fixed seeds, with exact
// probabilities from an oracle written from the walks' definitions (it
// reads the graph through the C API); the statistic is shown to reject a
// wrong oracle. The graph has a hub of degree 70 so that lanes scan several
// candidates and the butterfly decides between lanes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Walk/WalkGpu.h"
#include "test/Unit/Support/ChiSquare.h"
#include "test/Unit/Support/HubGraph.h"
#include "test/Unit/WalkCodegen/GpuEmulation.h"

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"

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
#include <map>
#include <string>
#include <vector>

using namespace sluice;
using testsupport::chiSquare;
using testsupport::Fit;

namespace {

/// A hub (0) joined to 70 vertices on a path 1 - 2 - ... - 70.
std::string hubGraph() {
  std::string text = "# hub and path\n";
  for (int v = 1; v <= 70; ++v)
    text += "0 " + std::to_string(v) + "\n";
  for (int v = 1; v < 70; ++v)
    text += std::to_string(v) + " " + std::to_string(v + 1) + "\n";
  return text;
}

// node2vec scheduled with the reservoir sampler (it has an upper bound),
// and a walk whose weight has no upper bound (`step` is unbounded): the
// reservoir kernel is its only GPU kernel; and a walk reading edge labels.
const char *kProgram = R"(
graph g = load("g.txt", format: snap, undirected, edge_labels: "g.elabels")
walk node2vec(p: f64 = 2.0, q: f64 = 0.5) on g {
  length 16
  weight(prev, cur, next, w) =
    if next == prev then w / p
    else if has_edge(prev, next) then w
    else w / q
}
schedule node2vec { sampler: reservoir, target: gpu }
walk stepped on g {
  length 16
  weight(prev, cur, next, w) = w * (step + 1)
}
walk labelled on g {
  length 16
  weight(prev, cur, next, w) = if edge_label(cur, next) == 1 then 3.0 * w else w
}
schedule labelled { sampler: reservoir }
job j = walk node2vec on g { p: 0.25, q: 4.0, walks_per_vertex: 10, seed: 42 }
)";

class WalkGpuReservoir : public gpuemu::CompiledProgramTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(compileProgram(
        kProgram, {{"g.txt", hubGraph()}, {"g.elabels", "0 1 1\n"}}));
    graph = loadGraph("g.txt");
    ASSERT_TRUE(graph);
    nv = sluice_graph_num_vertices(graph);
    ne = sluice_graph_num_edges(graph);
  }
  void TearDown() override {
    sluice_graph_release(graph);
    CompiledProgramTest::TearDown();
  }

  struct Walks {
    std::vector<uint32_t> rows, lengths;
    bool lockstep = false;
  };
  /// Runs `kernel` (a reservoir kernel) for every walker, 32 lanes each,
  /// in launches of `batch` walkers (0: one launch).
  Walks run(gpuemu::Kernel kernel, const double *params, int64_t wpv,
            int64_t len, int64_t seed, int64_t walkers = -1,
            const sluice_graph_t *g = nullptr, int64_t batch = 0) {
    if (!g)
      g = graph;
    if (walkers < 0)
      walkers = nv * wpv;
    Walks out;
    gpuemu::Launch launch(g);
    launch.params = params;
    launch.walksPerVertex = wpv;
    launch.maxLength = len;
    launch.seed = seed;
    // walkers: the first walkers of every start (walkers <= nv * wpv).
    launch.starts.resize((walkers + wpv - 1) / wpv);
    out.lockstep = launch.runReservoir(kernel, out.rows, out.lengths, batch);
    out.rows.resize(walkers * len);
    out.lengths.resize(walkers);
    return out;
  }

  /// Weights of cur's neighbours (parallel to its CSR edges), having come
  /// from prev.
  using Oracle = std::function<double(uint32_t prev, uint32_t cur,
                                      uint32_t next, int64_t step)>;
  /// Pearson's chi-square of every transition (cur, next) against the
  /// oracle's exact law, summed over the contexts the walks visited: a
  /// transition from (prev, cur) at step s adds its law's probabilities to
  /// the expected counts of cur's cells.
  Fit fit(const Walks &walks, int64_t len, const Oracle &oracle,
          const sluice_graph_t *g = nullptr) {
    if (!g)
      g = graph;
    const uint64_t *off = sluice_graph_offsets(g);
    const uint32_t *tg = sluice_graph_targets(g);
    std::vector<uint64_t> counts(ne, 0);
    std::vector<double> expected(ne, 0.0);
    Fit bad;
    for (size_t w = 0; w < walks.lengths.size(); ++w) {
      const uint32_t *row = &walks.rows[w * len];
      for (uint32_t s = 1; s < walks.lengths[w]; ++s) {
        uint32_t cur = row[s - 1], next = row[s];
        uint32_t prev = s >= 2 ? row[s - 2] : cur;
        double sum = 0;
        for (uint64_t e = off[cur]; e < off[cur + 1]; ++e)
          sum += oracle(prev, cur, tg[e], s - 1);
        bool seen = false;
        for (uint64_t e = off[cur]; e < off[cur + 1]; ++e) {
          expected[e] += oracle(prev, cur, tg[e], s - 1) / sum;
          if (tg[e] == next && !seen) {
            ++counts[e];
            seen = true;
          }
        }
        if (!seen)
          ++bad.misses;
      }
    }
    Fit f = chiSquare(counts, expected);
    f.misses = bad.misses;
    return f;
  }

  sluice_graph_t *graph = nullptr;
  int64_t nv = 0, ne = 0;
  const double params[2] = {0.25, 4.0};
};

TEST_F(WalkGpuReservoir, ThePtxHasWarpKernelsAndTheJsonSaysSo) {
  std::string ptx, json;
  ASSERT_TRUE(mlir::succeeded(target::lowerWalksToPtx(
      compilation->module(), "sm_90", ptx, json)))
      << diagnostics;
  EXPECT_NE(ptx.find(".entry sluice_walk_node2vec("), std::string::npos);
  EXPECT_NE(ptx.find(".entry sluice_walk_stepped("), std::string::npos);
  EXPECT_NE(ptx.find("shfl.sync.bfly.b32"), std::string::npos);
  auto parsed = llvm::json::parse(json);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Array *kernels =
      parsed->getAsObject()->getArray("kernels");
  ASSERT_TRUE(kernels && kernels->size() == 3u);
  for (const llvm::json::Value &k : *kernels) {
    EXPECT_EQ(k.getAsObject()->getString("sampler"), "reservoir");
    EXPECT_EQ(k.getAsObject()->getInteger("threads_per_walker"), 32);
  }
}

TEST_F(WalkGpuReservoir, Node2VecFollowsItsExactLaw) {
  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  auto kernel = reinterpret_cast<gpuemu::Kernel>(
      jit->lookup("sluice_walk_node2vec", error));
  ASSERT_TRUE(kernel) << error;
  const int64_t len = 16, wpv = 4;
  Walks walks = run(kernel, params, wpv, len, 42);
  ASSERT_TRUE(walks.lockstep);
  for (uint32_t l : walks.lengths)
    ASSERT_EQ(l, uint32_t(len)); // no dead ends: every walk is whole
  auto node2vec = [&](double p, double q) {
    return [this, p, q](uint32_t prev, uint32_t cur, uint32_t next,
                        int64_t) {
      if (next == prev)
        return 1.0 / p;
      if (sluice_graph_has_edge(graph, prev, next))
        return 1.0;
      return 1.0 / q;
    };
  };
  Fit f = fit(walks, len, node2vec(0.25, 4.0));
  EXPECT_TRUE(f.passes()) << f.describe();
  EXPECT_GT(f.df, 150);
  // The statistic rejects a wrong law (p where 1/p belongs).
  Fit wrong = fit(walks, len, node2vec(4.0, 4.0));
  EXPECT_FALSE(wrong.passes()) << wrong.describe();

  // Deterministic: the same seed gives the same walks; another seed others.
  Walks again = run(kernel, params, wpv, len, 42, 16);
  EXPECT_TRUE(std::equal(again.rows.begin(), again.rows.end(),
                         walks.rows.begin()));
  Walks other = run(kernel, params, wpv, len, 43, 16);
  EXPECT_NE(other.rows, again.rows);
  // Launched in batches of 3 walkers (walker_base 0, 3, ...): the same.
  Walks batched = run(kernel, params, wpv, len, 42, 16, nullptr, 3);
  EXPECT_TRUE(batched.lockstep);
  EXPECT_EQ(batched.rows, again.rows);
  EXPECT_EQ(batched.lengths, again.lengths);
}

TEST_F(WalkGpuReservoir, AnUnboundedWalkFollowsItsExactLaw) {
  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  auto kernel = reinterpret_cast<gpuemu::Kernel>(
      jit->lookup("sluice_walk_stepped", error));
  ASSERT_TRUE(kernel) << error;
  const int64_t len = 12, wpv = 3;
  Walks walks = run(kernel, nullptr, wpv, len, 7);
  ASSERT_TRUE(walks.lockstep);
  // w * (step + 1) on an unweighted graph: uniform over cur's edges.
  auto uniform = [](uint32_t, uint32_t, uint32_t, int64_t) { return 1.0; };
  Fit f = fit(walks, len, uniform);
  EXPECT_TRUE(f.passes()) << f.describe();
  // The hub's cells against a law that favours low ids: rejected.
  auto skewed = [](uint32_t, uint32_t, uint32_t next, int64_t) {
    return next < 35 ? 3.0 : 1.0;
  };
  Fit wrong = fit(walks, len, skewed);
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
}

TEST_F(WalkGpuReservoir, EdgeLabelsAreReadOnTheDevice) {
  // The hub graph again, its edges labelled (test/Unit/Support/HubGraph.h).
  sluice_error_t rtError;
  sluice::testgraphs::GraphPtr release =
      sluice::testgraphs::hubGraph(true, &rtError);
  ASSERT_TRUE(release) << rtError.message;
  sluice_graph_t *labelled = release.get();
  ASSERT_EQ(sluice_graph_num_edges(labelled), uint64_t(ne));
  ASSERT_TRUE(sluice_graph_edge_labels(labelled));

  std::string error;
  auto jit = gpuemu::emulateKernels(compilation->module(), error);
  ASSERT_TRUE(jit) << error << diagnostics;
  auto kernel = reinterpret_cast<gpuemu::Kernel>(
      jit->lookup("sluice_walk_labelled", error));
  ASSERT_TRUE(kernel) << error;
  const int64_t len = 12, wpv = 3;
  Walks walks = run(kernel, nullptr, wpv, len, 11, -1, labelled);
  ASSERT_TRUE(walks.lockstep);
  const int32_t *el = sluice_graph_edge_labels(labelled);
  auto law = [&](double favoured) {
    return [=](uint32_t, uint32_t cur, uint32_t next, int64_t) {
      return el[sluice_graph_find_edge(labelled, cur, next)] == 1 ? favoured
                                                                  : 1.0;
    };
  };
  Fit f = fit(walks, len, law(3.0), labelled);
  EXPECT_TRUE(f.passes()) << f.describe();
  // Without the labels the kernel sees -1 everywhere: uniform, rejected by
  // the labelled law.
  Walks blind = run(kernel, nullptr, wpv, len, 11);
  Fit wrong = fit(blind, len, law(3.0), labelled);
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
}

TEST_F(WalkGpuReservoir, TheRuntimeLaunchesAWarpPerWalker) {
  std::string ptx, json;
  ASSERT_TRUE(mlir::succeeded(target::lowerWalksToPtx(
      compilation->module(), "sm_90", ptx, json, "node2vec")))
      << diagnostics;
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = 16;
  options.walks_per_vertex = 10;
  options.seed = 42;
  options.sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  sluice_error_t error;
  // Alias tables are not on the GPU.
  sluice_walk_options_t alias = options;
  alias.sampler = SLUICE_WALK_SAMPLER_ALIAS;
  EXPECT_EQ(sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &alias, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("sampler alias"),
            std::string::npos)
      << error.message;

  int64_t walkers = nv * options.walks_per_vertex;
  sluice_walk_stats_t stats;
  sluice_status_t status =
      sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec", params,
                          2, &options, nullptr, &stats, &error);
  if (!sluice_gpu_available(nullptr)) {
    EXPECT_EQ(status, SLUICE_STATUS_UNSUPPORTED);
    GTEST_SKIP() << "no GPU: " << error.message;
  }
  ASSERT_EQ(status, SLUICE_STATUS_OK) << error.message;
  EXPECT_EQ(stats.walks, uint64_t(walkers));
  EXPECT_EQ(stats.reservoir_steps, stats.steps);
  // Launched as one thread per walker, the warp kernel leaves walkers
  // unwritten: refused, not garbage.
  sluice_walk_options_t single = options;
  single.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  EXPECT_EQ(sluice_walk_run_gpu(graph, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &single, nullptr, nullptr, &error),
            SLUICE_STATUS_INTERNAL);
}

} // namespace
