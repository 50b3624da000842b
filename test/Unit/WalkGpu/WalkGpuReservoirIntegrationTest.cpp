//===- WalkGpuReservoirIntegrationTest.cpp - Warp-per-walker kernels ------===//
//
// The reservoir kernels of Inputs/reservoir-walks.sluice (a warp of 32
// threads per walker; node2vec scheduled `sampler: reservoir`, an unbounded
// walk, an edge-label walk), compiled at build time by sluicec to PTX for
// sm_90 with their JSON description, launched by sluice_walk_run_gpu with
// the sampler the JSON's "threads_per_walker" names. They do not draw the
// CPU engine's numbers (docs/walk-codegen.md, "GPU"), so their walks are
// checked against exact laws: on a hub of degree 70 joined to a path of 70
// (lanes scan 2-3 candidates, the butterfly decides), Pearson's chi-square
// at 1e-4 of every (cur, next) cell against oracles written from the walks'
// definitions, and the same counts reject a wrong law; every walk is whole;
// the same seed gives the same walks, the next seed others; the warp kernel
// launched as a thread per walker fails with INTERNAL. Runtime only (no
// LLVM): the GPU parts skip without a CUDA driver or device, the JSON and
// PTX checks run everywhere.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/Support/ChiSquare.h"
#include "test/Unit/Support/HubGraph.h"
#include "test/Unit/WalkGpu/GpuWalkSupport.h"

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"
#include "sluice/walk_output.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sluice::gpuwalks;
using sluice::testsupport::chiSquare;
using sluice::testsupport::Fit;

namespace {

const char *const kReservoirKernels[] = {"sluice_walk_n2v_reservoir",
                                         "sluice_walk_stepped",
                                         "sluice_walk_labelled"};
constexpr uint32_t kLength = 16; // every walk's `length` in the input

std::string reservoirPtxPath() {
  return artifactsDir() + "/reservoir-walks.ptx";
}

using sluice::testgraphs::GraphPtr;

/// The hub-and-path graph (test/Unit/Support/HubGraph.h).
GraphPtr hubGraph(bool labelled) {
  sluice_error_t error;
  GraphPtr g = sluice::testgraphs::hubGraph(labelled, &error);
  if (!g)
    ADD_FAILURE() << error.message;
  return g;
}

struct Walks {
  std::vector<std::vector<uint32_t>> walks;
  sluice_walk_stats_t stats;
};

class WalkGpuReservoirKernels : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    ptx = readArtifact(reservoirPtxPath(), why);
    ASSERT_FALSE(ptx.empty()) << why;
    json = readArtifact(reservoirPtxPath() + ".json", why);
    ASSERT_FALSE(json.empty()) << why;
    scratch = std::make_unique<TempDir>("sluice-walk-gpu-res");
    ASSERT_FALSE(scratch->dir.empty());
    dir = scratch->dir;
  }
  /// Skips the test without a GPU.
  bool needGpu() {
    sluice_error_t reason;
    if (sluice_gpu_available(&reason))
      return true;
    skipReason = std::string("no GPU: ") + reason.message;
    return false;
  }

  /// Runs `kernel` on `g`, `wpv` walks per vertex, with the sampler the
  /// JSON names (or `forced`); the walks as CSR ids.
  sluice_status_t run(const sluice_graph_t *g, const std::string &kernel,
                      const void *params, uint32_t numParams, uint32_t wpv,
                      uint64_t seed, Walks &out, std::string &message,
                      int forced = -1) {
    sluice_walk_options_t options;
    sluice_walk_options_init(&options);
    options.max_length = kLength;
    options.walks_per_vertex = wpv;
    options.seed = seed;
    options.quiet = 1;
    if (forced >= 0)
      options.sampler = static_cast<sluice_walk_sampler_t>(forced);
    else if (!samplerFromJson(json, kernel, options.sampler)) {
      message = "the JSON does not describe " + kernel;
      return SLUICE_STATUS_NOT_FOUND;
    }
    std::string file = dir + "/" + kernel + "-" + std::to_string(seed) +
                       "-" + std::to_string(runs++);
    sluice_error_t error;
    sluice_walk_writer_t *writer = nullptr;
    sluice_status_t st = sluice_walk_writer_open(
        file.c_str(), SLUICE_WALK_FORMAT_TEXT, kLength, 0, g, &writer, &error);
    if (st != SLUICE_STATUS_OK) {
      message = error.message;
      return st;
    }
    std::memset(&out.stats, 0, sizeof(out.stats));
    st = sluice_walk_run_gpu(g, ptx.c_str(), kernel.c_str(), params, numParams,
                             &options, writer, &out.stats, &error);
    if (st == SLUICE_STATUS_OK)
      st = sluice_walk_writer_commit(writer, &error);
    if (st != SLUICE_STATUS_OK)
      message = error.message;
    sluice_walk_writer_release(writer);
    if (st != SLUICE_STATUS_OK)
      return st;
    bool ok = false;
    std::istringstream lines(readFile(file, ok));
    out.walks.clear();
    for (std::string line; std::getline(lines, line);) {
      std::istringstream in(line);
      std::vector<uint32_t> walk;
      for (uint32_t v; in >> v;)
        walk.push_back(v);
      out.walks.push_back(std::move(walk));
    }
    return SLUICE_STATUS_OK;
  }

  /// Weight of (prev, cur) -> next at step `step`, up to a factor per
  /// context.
  using Oracle = std::function<double(uint32_t prev, uint32_t cur,
                                      uint32_t next, int64_t step)>;
  /// Pearson's chi-square of every transition (cur, next) against the
  /// oracle's exact law, summed over the contexts the walks visited: a
  /// transition from (prev, cur) adds its law's probabilities to the
  /// expected counts of cur's cells.
  static Fit fit(const Walks &walks, const sluice_graph_t *g,
                 const Oracle &oracle) {
    const uint64_t *off = sluice_graph_offsets(g);
    const uint32_t *tg = sluice_graph_targets(g);
    uint64_t ne = sluice_graph_num_edges(g);
    std::vector<uint64_t> counts(ne, 0);
    std::vector<double> expected(ne, 0.0);
    uint64_t misses = 0;
    for (const std::vector<uint32_t> &row : walks.walks)
      for (size_t s = 1; s < row.size(); ++s) {
        uint32_t cur = row[s - 1], next = row[s];
        uint32_t prev = s >= 2 ? row[s - 2] : cur;
        double sum = 0;
        for (uint64_t e = off[cur]; e < off[cur + 1]; ++e)
          sum += oracle(prev, cur, tg[e], int64_t(s) - 1);
        bool seen = false;
        for (uint64_t e = off[cur]; e < off[cur + 1]; ++e) {
          expected[e] += oracle(prev, cur, tg[e], int64_t(s) - 1) / sum;
          if (tg[e] == next && !seen) {
            ++counts[e];
            seen = true;
          }
        }
        misses += !seen;
      }
    Fit f = chiSquare(counts, expected);
    f.misses = misses;
    return f;
  }

  static void expectWhole(const Walks &w, uint64_t walkers) {
    ASSERT_EQ(w.walks.size(), walkers);
    EXPECT_EQ(w.stats.walks, walkers);
    EXPECT_EQ(w.stats.steps, walkers * (kLength - 1));
    EXPECT_EQ(w.stats.reservoir_steps, w.stats.steps);
    for (const std::vector<uint32_t> &row : w.walks)
      ASSERT_EQ(row.size(), kLength); // no dead ends: every walk is whole
  }

  std::unique_ptr<TempDir> scratch;
  std::string ptx, json, dir, skipReason;
  int runs = 0;
};

// Everywhere: the build-time artefacts are warp kernels, and the JSON says
// so (the sampler the launches below take from it).
TEST_F(WalkGpuReservoirKernels, TheJsonDescribesWarpKernels) {
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find("shfl.sync.bfly.b32"), std::string::npos);
  EXPECT_EQ(kernelObjects(json).size(), 3u);
  for (const char *k : kReservoirKernels) {
    EXPECT_NE(ptx.find(std::string(".entry ") + k + "("), std::string::npos)
        << k;
    EXPECT_EQ(threadsPerWalker(json, k), 32) << k;
    sluice_walk_sampler_t sampler = SLUICE_WALK_SAMPLER_AUTO;
    ASSERT_TRUE(samplerFromJson(json, k, sampler)) << k;
    EXPECT_EQ(sampler, SLUICE_WALK_SAMPLER_RESERVOIR) << k;
    for (const std::string &o : kernelObjects(json)) {
      if (jsonField(o, "kernel") == k) {
        EXPECT_EQ(jsonField(o, "sampler"), "reservoir") << k;
      }
    }
  }
  EXPECT_EQ(threadsPerWalker(json, "sluice_walk_nosuchwalk"), 0);
  sluice_walk_sampler_t unused;
  EXPECT_FALSE(samplerFromJson(json, "sluice_walk_nosuchwalk", unused));
}

// Everywhere: the chi-square of this file can fail. Walks drawn on the host
// from node2vec's exact law pass it; the same walks fail a wrong law.
TEST_F(WalkGpuReservoirKernels, TheFitRejectsAWrongLaw) {
  GraphPtr g = hubGraph(false);
  ASSERT_TRUE(g);
  const sluice_graph_t *gr = g.get();
  auto node2vec = [gr](double p, double q) -> Oracle {
    return [gr, p, q](uint32_t prev, uint32_t cur, uint32_t next, int64_t) {
      (void)cur;
      if (next == prev)
        return 1.0 / p;
      return sluice_graph_has_edge(gr, prev, next) ? 1.0 : 1.0 / q;
    };
  };
  Oracle law = node2vec(0.25, 4.0);
  const uint64_t *off = sluice_graph_offsets(gr);
  const uint32_t *tg = sluice_graph_targets(gr);
  Walks walks;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto uniform = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return double(state >> 11) * 0x1.0p-53;
  };
  for (uint32_t start = 0; start < 71; ++start)
    for (int k = 0; k < 4; ++k) {
      std::vector<uint32_t> row = {start};
      while (row.size() < kLength) {
        uint32_t cur = row.back();
        uint32_t prev = row.size() >= 2 ? row[row.size() - 2] : cur;
        double sum = 0;
        for (uint64_t e = off[cur]; e < off[cur + 1]; ++e)
          sum += law(prev, cur, tg[e], 0);
        double x = uniform() * sum;
        uint64_t e = off[cur];
        for (; e + 1 < off[cur + 1]; ++e)
          if ((x -= law(prev, cur, tg[e], 0)) < 0)
            break;
        row.push_back(tg[e]);
      }
      walks.walks.push_back(row);
    }
  Fit f = fit(walks, gr, law);
  EXPECT_TRUE(f.passes()) << f.describe();
  EXPECT_GT(f.df, 150);
  Fit wrong = fit(walks, gr, node2vec(4.0, 4.0));
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
}

// On the device: node2vec with the warp kernel follows its exact law;
// deterministic per seed, another seed gives other walks.
TEST_F(WalkGpuReservoirKernels, Node2VecFollowsItsExactLawOnTheDevice) {
  if (!needGpu())
    GTEST_SKIP() << skipReason;
  GraphPtr g = hubGraph(false);
  ASSERT_TRUE(g);
  const sluice_graph_t *gr = g.get();
  const double params[2] = {0.25, 4.0};
  Walks walks, again, other;
  std::string message;
  ASSERT_EQ(run(gr, "sluice_walk_n2v_reservoir", params, 2, 10, 42, walks,
                message),
            SLUICE_STATUS_OK)
      << message;
  expectWhole(walks, 710);
  auto node2vec = [gr](double p, double q) -> Oracle {
    return [gr, p, q](uint32_t prev, uint32_t, uint32_t next, int64_t) {
      if (next == prev)
        return 1.0 / p;
      return sluice_graph_has_edge(gr, prev, next) ? 1.0 : 1.0 / q;
    };
  };
  Fit f = fit(walks, gr, node2vec(0.25, 4.0));
  EXPECT_TRUE(f.passes()) << f.describe();
  EXPECT_GT(f.df, 150);
  Fit wrong = fit(walks, gr, node2vec(4.0, 4.0));
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
  std::printf("[ info ] n2v_reservoir: %s; wrong law: %s\n",
              f.describe().c_str(), wrong.describe().c_str());

  ASSERT_EQ(run(gr, "sluice_walk_n2v_reservoir", params, 2, 10, 42, again,
                message),
            SLUICE_STATUS_OK)
      << message;
  ASSERT_EQ(run(gr, "sluice_walk_n2v_reservoir", params, 2, 10, 43, other,
                message),
            SLUICE_STATUS_OK)
      << message;
  EXPECT_EQ(again.walks, walks.walks);
  EXPECT_NE(other.walks, walks.walks);
}

// On the device: the unbounded `w * (step + 1)` walk is uniform over cur's
// edges on an unweighted graph; a 3:1 skew is rejected.
TEST_F(WalkGpuReservoirKernels, AnUnboundedWalkFollowsItsExactLawOnTheDevice) {
  if (!needGpu())
    GTEST_SKIP() << skipReason;
  GraphPtr g = hubGraph(false);
  ASSERT_TRUE(g);
  Walks walks;
  std::string message;
  ASSERT_EQ(run(g.get(), "sluice_walk_stepped", nullptr, 0, 4, 7, walks,
                message),
            SLUICE_STATUS_OK)
      << message;
  expectWhole(walks, 284);
  Fit f = fit(walks, g.get(),
              [](uint32_t, uint32_t, uint32_t, int64_t) { return 1.0; });
  EXPECT_TRUE(f.passes()) << f.describe();
  Fit wrong = fit(walks, g.get(), [](uint32_t, uint32_t, uint32_t next,
                                     int64_t) {
    return next < 35 ? 3.0 : 1.0;
  });
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
  std::printf("[ info ] stepped: %s; skewed law: %s\n", f.describe().c_str(),
              wrong.describe().c_str());
}

// On the device: edge labels are uploaded (the 19th argument); a walk
// favouring label 1 (3:1) follows its law on the labelled graph, and on
// the same graph without labels (every edge_label -1: uniform) it does not.
TEST_F(WalkGpuReservoirKernels, EdgeLabelsAreReadOnTheDevice) {
  if (!needGpu())
    GTEST_SKIP() << skipReason;
  GraphPtr labelled = hubGraph(true), plain = hubGraph(false);
  ASSERT_TRUE(labelled && plain);
  const sluice_graph_t *gl = labelled.get();
  ASSERT_TRUE(sluice_graph_edge_labels(gl));
  const int32_t *el = sluice_graph_edge_labels(gl);
  Oracle law = [gl, el](uint32_t, uint32_t cur, uint32_t next, int64_t) {
    return el[sluice_graph_find_edge(gl, cur, next)] == 1 ? 3.0 : 1.0;
  };
  Walks walks, blind;
  std::string message;
  ASSERT_EQ(run(gl, "sluice_walk_labelled", nullptr, 0, 6, 11, walks,
                message),
            SLUICE_STATUS_OK)
      << message;
  expectWhole(walks, 426);
  Fit f = fit(walks, gl, law);
  EXPECT_TRUE(f.passes()) << f.describe();
  ASSERT_EQ(run(plain.get(), "sluice_walk_labelled", nullptr, 0, 6, 11, blind,
                message),
            SLUICE_STATUS_OK)
      << message;
  expectWhole(blind, 426);
  Fit wrong = fit(blind, gl, law);
  EXPECT_FALSE(wrong.passes()) << wrong.describe();
  std::printf("[ info ] labelled: %s; without labels: %s\n",
              f.describe().c_str(), wrong.describe().c_str());
}

// Launched as one thread per walker (REJECTION), the warp kernel leaves
// walkers unwritten: refused with INTERNAL, not garbage. Without a GPU the
// same call is UNSUPPORTED.
TEST_F(WalkGpuReservoirKernels, TheWarpKernelAsAThreadPerWalkerIsInternal) {
  GraphPtr g = hubGraph(false);
  ASSERT_TRUE(g);
  const double params[2] = {0.25, 4.0};
  Walks walks;
  std::string message;
  // Alias is refused before the device.
  sluice_status_t st =
      run(g.get(), "sluice_walk_n2v_reservoir", params, 2, 10, 42, walks,
          message, SLUICE_WALK_SAMPLER_ALIAS);
  EXPECT_EQ(st, SLUICE_STATUS_INVALID_ARGUMENT) << message;
  EXPECT_NE(message.find("sampler alias"), std::string::npos) << message;
  st = run(g.get(), "sluice_walk_n2v_reservoir", params, 2, 10, 42, walks,
           message, SLUICE_WALK_SAMPLER_REJECTION);
  if (!needGpu()) {
    EXPECT_EQ(st, SLUICE_STATUS_UNSUPPORTED) << message;
    GTEST_SKIP() << skipReason;
  }
  EXPECT_EQ(st, SLUICE_STATUS_INTERNAL) << message;
  EXPECT_NE(message.find("RESERVOIR for a reservoir kernel"),
            std::string::npos)
      << message;
}

} // namespace
