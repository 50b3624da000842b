//===- WalkGpuListIntegrationTest.cpp - List parameters, vertex_of, batches
//===//
//
// The walks of Inputs/list-walks.sluice, compiled at build time to PTX and
// to a CPU object: metapath with its schema as a list parameter (uploaded
// by sluice_walk_run_gpu_ex as the JSON's "kind" says), an overrun of the
// list (the run fails with the CPU engine's message), and `vertex_of` on
// a graph with dense ids and on a copy with sparse ones (the id map on the
// device). The GPU walks must be byte-identical to the CPU engine's
// (rejection, same seed), also when the walkers are launched in small
// batches. The math built-ins' walks (test/WalkCodegen/Inputs/
// math-builtins.sluice, PTX with libdevice linked in) on the same labelled
// graph: byte-identical too. Runtime only; the GPU parts skip without a
// CUDA driver or device, the argument checks and the CPU side run
// everywhere.
//
//===----------------------------------------------------------------------===//
#include "list-walks.h"
#include "test/Unit/WalkGpu/GpuWalkSupport.h"
#ifdef SLUICE_GPU_MATH_WALKS
#include "math-walks.h"
#endif

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"
#include "sluice/walk_output.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace sluice::gpuwalks;

namespace {

std::string listPtxPath() { return artifactsDir() + "/list-walks.ptx"; }

/// The parameter kinds of `kernel` in the JSON description, in slot order
/// (the "kind" fields of its "params" objects: only those have one).
std::vector<int32_t> paramKinds(const std::string &json,
                                const std::string &kernel) {
  std::vector<int32_t> kinds;
  for (const std::string &k : kernelObjects(json)) {
    if (jsonField(k, "kernel") != kernel)
      continue;
    for (size_t at = k.find("\"kind\":"); at != std::string::npos;
         at = k.find("\"kind\":", at + 1))
      kinds.push_back(jsonField(k.substr(at), "kind") == "list"
                          ? SLUICE_WALK_PARAM_LIST
                          : SLUICE_WALK_PARAM_SCALAR);
  }
  return kinds;
}

class WalkGpuLists : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    scratch = new TempDir("sluice-walk-gpu-list");
    std::string path = findGraph("facebook_combined.txt.gz");
    if (path.empty() || scratch->dir.empty())
      return;
    sluice_error_t error;
    sluice_graph_t *plain = nullptr;
    if (loadSnap(path, true, false, &plain, &error) != SLUICE_STATUS_OK)
      return;
    // Labels 0..4 from a hash of the id; a copy with sparse ids
    // (3 id + 5: not dense, so vertex_of searches the id map).
    std::string labels = scratch->dir + "/fb.labels";
    std::string sparse = scratch->dir + "/fb-sparse.txt";
    FILE *lf = std::fopen(labels.c_str(), "w");
    FILE *sf = std::fopen(sparse.c_str(), "w");
    uint32_t nv = static_cast<uint32_t>(sluice_graph_num_vertices(plain));
    const uint64_t *off = sluice_graph_offsets(plain);
    const uint32_t *tg = sluice_graph_targets(plain);
    for (uint32_t v = 0; lf && sf && v < nv; ++v) {
      uint64_t id = sluice_graph_original_id(plain, v);
      std::fprintf(lf, "%llu %llu\n", (unsigned long long)id,
                   (unsigned long long)((id * 2654435761u >> 7) % 5));
      for (uint64_t e = off[v]; e < off[v + 1]; ++e)
        if (tg[e] > v)
          std::fprintf(
              sf, "%llu %llu\n", (unsigned long long)(3 * id + 5),
              (unsigned long long)(3 * sluice_graph_original_id(plain, tg[e]) +
                                   5));
    }
    if (lf)
      std::fclose(lf);
    if (sf)
      std::fclose(sf);
    sluice_graph_release(plain);
    sluice_graph_load_options_t load;
    sluice_graph_load_options_init(&load);
    load.format = SLUICE_GRAPH_FORMAT_SNAP;
    // What list-walks.sluice's load(..., undirected) asks for
    // (GraphLoadOptions.h): the simple graph, compacted ids.
    load.flags = SLUICE_GRAPH_LOAD_COMPACT_IDS | SLUICE_GRAPH_LOAD_QUIET |
                 SLUICE_GRAPH_LOAD_UNDIRECTED |
                 SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES |
                 SLUICE_GRAPH_LOAD_DEDUPLICATE |
                 SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
    load.vertex_labels_path = labels.c_str();
    if (sluice_graph_load(path.c_str(), &load, &labelled, &error) !=
        SLUICE_STATUS_OK)
      labelled = nullptr;
    load.vertex_labels_path = nullptr;
    if (sluice_graph_load(sparse.c_str(), &load, &sparseIds, &error) !=
        SLUICE_STATUS_OK)
      sparseIds = nullptr;
  }
  static void TearDownTestSuite() {
    sluice_graph_release(labelled);
    sluice_graph_release(sparseIds);
    labelled = sparseIds = nullptr;
    delete scratch;
  }
  void SetUp() override {
    if (!labelled || !sparseIds)
      GTEST_SKIP() << "facebook_combined.txt.gz not found (set "
                      "SLUICE_GPU_DATA) or not loadable";
    std::string why;
    ptx = readArtifact(listPtxPath(), why);
    ASSERT_FALSE(ptx.empty()) << why;
    json = readArtifact(listPtxPath() + ".json", why);
    ASSERT_FALSE(json.empty()) << why;
  }

  /// Runs `kernel` (its `name` in the PTX) on the CPU engine or the GPU
  /// into a text walk file; the message in `message`.
  sluice_status_t run(bool gpu, const sluice_graph_t *g,
                      const sluice_walk_kernel_t *kernel,
                      const std::string &name, const void *params,
                      const sluice_walk_options_t &options,
                      const std::string &file, std::string &message,
                      uint64_t walkersPerLaunch = 0,
                      sluice_walk_stats_t *stats = nullptr) {
    sluice_error_t error;
    sluice_walk_writer_t *writer = nullptr;
    sluice_status_t st = sluice_walk_writer_open(
        file.c_str(), SLUICE_WALK_FORMAT_TEXT, options.max_length,
        SLUICE_WALK_WRITE_ORIGINAL_IDS, g, &writer, &error);
    if (st != SLUICE_STATUS_OK) {
      message = error.message;
      return st;
    }
    std::vector<int32_t> kinds = paramKinds(json, "sluice_walk_" + name);
    sluice_walk_gpu_options_t gpuOptions;
    sluice_walk_gpu_options_init(&gpuOptions);
    gpuOptions.param_kinds = kinds.data();
    gpuOptions.walkers_per_launch = walkersPerLaunch;
    if (gpu && kinds.size() != kernel->num_params) {
      message = "the JSON gives " + std::to_string(kinds.size()) +
                " parameter kinds for " + name;
      sluice_walk_writer_release(writer);
      return SLUICE_STATUS_INTERNAL;
    }
    st = gpu ? sluice_walk_run_gpu_ex(g, ptx.c_str(),
                                      ("sluice_walk_" + name).c_str(), params,
                                      kernel->num_params, &options,
                                      &gpuOptions, writer, stats, &error)
             : sluice_walk_run(g, kernel, params, &options, writer, stats,
                               &error);
    if (st == SLUICE_STATUS_OK)
      st = sluice_walk_writer_commit(writer, &error);
    if (st != SLUICE_STATUS_OK)
      message = error.message;
    sluice_walk_writer_release(writer);
    return st;
  }
  sluice_walk_options_t options(int64_t length, uint64_t seed) {
    sluice_walk_options_t o;
    sluice_walk_options_init(&o);
    o.max_length = static_cast<uint32_t>(length);
    o.seed = seed;
    o.walks_per_vertex = 2;
    o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
    o.quiet = 1;
    o.threads = 1;
    return o;
  }
  static std::string read(const std::string &path) {
    bool ok = false;
    return readFile(path, ok);
  }

  static TempDir *scratch;
  static sluice_graph_t *labelled, *sparseIds;
  std::string ptx, json;
};
TempDir *WalkGpuLists::scratch = nullptr;
sluice_graph_t *WalkGpuLists::labelled = nullptr;
sluice_graph_t *WalkGpuLists::sparseIds = nullptr;

TEST_F(WalkGpuLists, TheJsonSaysWhichParametersAreLists) {
  EXPECT_EQ(paramKinds(json, "sluice_walk_metapath"),
            std::vector<int32_t>{SLUICE_WALK_PARAM_LIST});
  EXPECT_EQ(paramKinds(json, "sluice_walk_homing"),
            std::vector<int32_t>{SLUICE_WALK_PARAM_SCALAR});
  EXPECT_NE(ptx.find(".entry sluice_walk_metapath("), std::string::npos);
  EXPECT_NE(ptx.find(".entry sluice_walk_homing("), std::string::npos);
}

TEST_F(WalkGpuLists, BadListsAndBatchSizesAreRejectedBeforeTheDevice) {
  const int64_t data[] = {1, 2};
  sluice_walk_list_t negative = {data, -1}, noData = {nullptr, 2};
  int32_t list = SLUICE_WALK_PARAM_LIST, bogus = 7;
  sluice_walk_options_t o = options(10, 1);
  sluice_walk_gpu_options_t g;
  sluice_walk_gpu_options_init(&g);
  sluice_error_t error;
  for (const sluice_walk_list_t *bad : {&negative, &noData}) {
    g.param_kinds = &list;
    EXPECT_EQ(sluice_walk_run_gpu_ex(labelled, ptx.c_str(),
                                     "sluice_walk_metapath", &bad, 1, &o, &g,
                                     nullptr, nullptr, &error),
              SLUICE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(error.message).find("list parameter 0"),
              std::string::npos)
        << error.message;
  }
  const sluice_walk_list_t *fine = &negative;
  g.param_kinds = &bogus;
  EXPECT_EQ(sluice_walk_run_gpu_ex(labelled, ptx.c_str(),
                                   "sluice_walk_metapath", &fine, 1, &o, &g,
                                   nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("param_kinds[0] is 7"),
            std::string::npos)
      << error.message;
  // SLUICE_GPU_WALKERS_PER_LAUNCH must be a positive integer.
  g.param_kinds = nullptr;
  int64_t hub = 0;
  ::setenv("SLUICE_GPU_WALKERS_PER_LAUNCH", "0", 1);
  EXPECT_EQ(sluice_walk_run_gpu_ex(labelled, ptx.c_str(), "sluice_walk_homing",
                                   &hub, 1, &o, &g, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.message).find("SLUICE_GPU_WALKERS_PER_LAUNCH"),
            std::string::npos)
      << error.message;
  ::unsetenv("SLUICE_GPU_WALKERS_PER_LAUNCH");
}

TEST_F(WalkGpuLists, MetapathMatchesTheCpuEngineInAnyBatchSize) {
  const int64_t schema[] = {2, 0, 4, 1, 3, 1};
  sluice_walk_list_t list = {schema, 6};
  sluice_walk_params_metapath_t params = {&list};
  sluice_walk_options_t o = options(80, 11);
  std::string base = scratch->dir + "/metapath";
  std::string message;
  sluice_walk_stats_t cpuStats{};
  ASSERT_EQ(run(false, labelled, &sluice_walk_kernel_metapath, "metapath",
                &params, o, base + ".cpu", message, 0, &cpuStats),
            SLUICE_STATUS_OK)
      << message;
  // The schema shapes the walks: they go beyond their first step.
  EXPECT_GT(cpuStats.steps, 2 * cpuStats.walks);
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  std::string cpu = read(base + ".cpu");
  ASSERT_FALSE(cpu.empty());
  for (uint64_t batch : {0, 1000, 7}) {
    std::string file = base + ".gpu" + std::to_string(batch);
    sluice_walk_stats_t stats{};
    ASSERT_EQ(run(true, labelled, &sluice_walk_kernel_metapath, "metapath",
                  &params, o, file, message, batch, &stats),
              SLUICE_STATUS_OK)
        << message;
    EXPECT_EQ(stats.steps, cpuStats.steps) << "batch " << batch;
    EXPECT_TRUE(read(file) == cpu) << "batch " << batch << ": files differ ("
                                   << file << " vs " << base << ".cpu)";
  }
}

TEST_F(WalkGpuLists, AnOverrunFailsWithTheCpuEnginesMessage) {
  sluice_walk_params_overrun_t params = SLUICE_WALK_PARAMS_OVERRUN_DEFAULTS;
  sluice_walk_options_t o = options(20, 3);
  std::string base = scratch->dir + "/overrun", cpuMessage, gpuMessage;
  ASSERT_EQ(run(false, labelled, &sluice_walk_kernel_overrun, "overrun",
                &params, o, base + ".cpu", cpuMessage),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_NE(cpuMessage.find("list index 3 out of range (the list has 3 "
                            "elements)"),
            std::string::npos)
      << cpuMessage;
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  // Every walker faults; the smallest one's fault is the report, in one
  // launch and in batches.
  for (uint64_t batch : {0, 5}) {
    EXPECT_EQ(run(true, labelled, &sluice_walk_kernel_overrun, "overrun",
                  &params, o, base + ".gpu", gpuMessage, batch),
              SLUICE_STATUS_OUT_OF_RANGE);
    EXPECT_EQ(gpuMessage, cpuMessage) << "batch " << batch;
  }
}

TEST_F(WalkGpuLists, VertexOfMatchesTheCpuEngineOnDenseAndSparseIds) {
  ASSERT_EQ(sluice_graph_original_ids(labelled), nullptr);
  ASSERT_NE(sluice_graph_original_ids(sparseIds), nullptr);
  sluice_error_t reason;
  bool haveGpu = sluice_gpu_available(&reason);
  for (auto [g, hub] : {std::pair{labelled, int64_t(107)},
                        std::pair{sparseIds, int64_t(3 * 107 + 5)}}) {
    sluice_walk_params_homing_t params = {hub};
    sluice_walk_options_t o = options(40, 5);
    std::string base = scratch->dir + "/homing" + std::to_string(hub);
    std::string message;
    ASSERT_EQ(run(false, g, &sluice_walk_kernel_homing, "homing", &params, o,
                  base + ".cpu", message),
              SLUICE_STATUS_OK)
        << message;
    if (!haveGpu)
      continue;
    ASSERT_EQ(run(true, g, &sluice_walk_kernel_homing, "homing", &params, o,
                  base + ".gpu", message, 999),
              SLUICE_STATUS_OK)
        << message;
    EXPECT_TRUE(read(base + ".gpu") == read(base + ".cpu"))
        << "hub " << hub << ": files differ";
  }
  if (!haveGpu)
    GTEST_SKIP() << "no GPU: " << reason.message;
}

// abs (of an i64 and an f64), sqrt, exp and log in weights: libdevice's
// functions on the device, libm's on the host; math-builtins.sluice uses
// exp and log only in comparisons far from their thresholds, so the walks
// of a seed are the same on both (gpu-math-builtins.test runs the same
// check through sluicec where the toolchain and a GPU meet).
TEST_F(WalkGpuLists, MathBuiltinsWalkAsOnTheCpu) {
#ifndef SLUICE_GPU_MATH_WALKS
  GTEST_SKIP() << "built without libdevice (SLUICE_LIBDEVICE): no "
                  "math-walks.ptx";
#else
  std::string why;
  ptx = readArtifact(artifactsDir() + "/math-walks.ptx", why);
  ASSERT_FALSE(ptx.empty()) << why;
  json = readArtifact(artifactsDir() + "/math-walks.ptx.json", why);
  ASSERT_FALSE(json.empty()) << why;
  struct Math {
    const char *name;
    const sluice_walk_kernel_t *kernel;
  };
  const Math walks[] = {{"abs_i64", &sluice_walk_kernel_abs_i64},
                        {"abs_f64", &sluice_walk_kernel_abs_f64},
                        {"root", &sluice_walk_kernel_root},
                        {"grow", &sluice_walk_kernel_grow},
                        {"shrink", &sluice_walk_kernel_shrink}};
  std::vector<std::string> cpuFiles;
  const uint64_t noParams = 0;
  for (const Math &w : walks) {
    sluice_walk_options_t o = options(8, 7);
    std::string base = scratch->dir + "/math-" + w.name, message;
    sluice_walk_stats_t cpuStats{}, gpuStats{};
    ASSERT_EQ(run(false, labelled, w.kernel, w.name, &noParams, o,
                  base + ".cpu", message, 0, &cpuStats),
              SLUICE_STATUS_OK)
        << w.name << ": " << message;
    EXPECT_EQ(cpuStats.bound_violations, 0u) << w.name;
    cpuFiles.push_back(read(base + ".cpu"));
    EXPECT_NE(ptx.find(std::string(".entry sluice_walk_") + w.name + "("),
              std::string::npos)
        << w.name;
    sluice_error_t reason;
    if (!sluice_gpu_available(&reason))
      continue;
    ASSERT_EQ(run(true, labelled, w.kernel, w.name, &noParams, o, base + ".gpu",
                  message, 0, &gpuStats),
              SLUICE_STATUS_OK)
        << w.name << ": " << message;
    EXPECT_EQ(gpuStats.steps, cpuStats.steps) << w.name;
    EXPECT_TRUE(read(base + ".gpu") == cpuFiles.back())
        << w.name << ": the GPU's walks differ from the CPU engine's";
  }
  // The weights decide: the built-ins' walks differ from each other.
  for (size_t i = 1; i < cpuFiles.size(); ++i)
    EXPECT_NE(cpuFiles[i], cpuFiles[0]) << walks[i].name;
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message << " (the CPU half ran)";
#endif
}

} // namespace
