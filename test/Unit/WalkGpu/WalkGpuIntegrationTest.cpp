//===- WalkGpuIntegrationTest.cpp - Compiled walks: GPU vs CPU engine -----===//
//
// The walks of Inputs/gpu-walks.sluice, compiled at build time by sluicec
// to PTX (sm_90) and to a CPU object, run on real graphs by the CPU engine
// (sluice_walk_run, rejection sampler) and by sluice_walk_run_gpu with the
// same seed and parameters: the walk files must be byte-identical
// (docs/walk-codegen.md, "GPU": the kernels draw the engine's Philox
// numbers). Runtime only: this binary links libsluicert and the object,
// not LLVM, so it runs on a GPU machine without the toolchain
// (scripts/device-stage.sh, docs/gpu-testing.md). Without a CUDA driver or
// device the GPU tests skip with the reason; the argument checks and the
// CPU side run everywhere.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/WalkGpu/GpuWalkSupport.h"

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"
#include "sluice/walk_output.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sluice::gpuwalks;

namespace {

/// The walk files' directory, removed at exit.
TempDir &tempDir() {
  static TempDir d("sluice-walk-gpu-int");
  return d;
}

std::string ptxText(std::string &why) { return readArtifact(ptxPath(), why); }

/// The graphs of the suite, loaded once. A weighted copy of facebook gets
/// a deterministic weight in [1, 13] per edge (exercises the weight array
/// and the per-vertex aggregates on the device).
struct GraphSpec {
  std::string name, file;
  bool undirected, weighted;
};

const std::vector<GraphSpec> &graphSpecs() {
  static const std::vector<GraphSpec> specs = {
      {"facebook", "facebook_combined.txt.gz", true, false},
      {"facebook_weighted", "facebook_combined.txt.gz", true, true},
      {"email", "email-Eu-core.txt.gz", false, false},
  };
  return specs;
}

std::string weightedCopy(const std::string &path, std::string &why) {
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (loadSnap(path, true, false, &g, &error) != SLUICE_STATUS_OK) {
    why = error.message;
    return {};
  }
  std::string out = tempDir().dir + "/facebook-weighted.txt";
  FILE *f = std::fopen(out.c_str(), "w");
  if (!f) {
    sluice_graph_release(g);
    why = "cannot write " + out;
    return {};
  }
  const uint64_t *offsets = sluice_graph_offsets(g);
  const uint32_t *targets = sluice_graph_targets(g);
  uint32_t nv = static_cast<uint32_t>(sluice_graph_num_vertices(g));
  for (uint32_t u = 0; u < nv; ++u)
    for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      uint32_t v = targets[e];
      if (v < u)
        continue;
      uint64_t h = (uint64_t(u) * 2654435761u) ^ (uint64_t(v) * 40503u);
      std::fprintf(f, "%llu %llu %g\n",
                   (unsigned long long)sluice_graph_original_id(g, u),
                   (unsigned long long)sluice_graph_original_id(g, v),
                   1.0 + double(h % 97) / 8.0);
    }
  std::fclose(f);
  sluice_graph_release(g);
  return out;
}

/// The graph `name`, or NULL with `why` (not found, load error).
/// (Loaded once per process and released at exit.)
const sluice_graph_t *graph(const std::string &name, std::string &why) {
  struct Release {
    void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
  };
  static std::map<std::string, std::unique_ptr<sluice_graph_t, Release>>
      loaded;
  static std::map<std::string, std::string> failed;
  if (loaded.count(name))
    return loaded[name].get();
  if (failed.count(name)) {
    why = failed[name];
    return nullptr;
  }
  for (const GraphSpec &s : graphSpecs()) {
    if (s.name != name)
      continue;
    std::string path = findGraph(s.file);
    if (path.empty()) {
      failed[name] = why = s.file + " not found (set SLUICE_GPU_DATA)";
      return nullptr;
    }
    if (s.weighted && (path = weightedCopy(path, why)).empty()) {
      failed[name] = why;
      return nullptr;
    }
    sluice_graph_t *g = nullptr;
    sluice_error_t error;
    if (loadSnap(path, s.undirected, s.weighted, &g, &error) !=
        SLUICE_STATUS_OK) {
      failed[name] = why = path + ": " + error.message;
      return nullptr;
    }
    loaded[name].reset(g);
    return g;
  }
  why = "unknown graph " + name;
  return nullptr;
}

/// One comparison: a walk on a graph with parameters and a run shape.
struct Case {
  std::string walk, graph;
  std::vector<double> f64; // parameter slots as doubles (i64 slots: below)
  std::vector<int> i64Slots; // indices of slots that are int64
  uint32_t walksPerVertex;
  uint64_t seed;
  std::string id() const {
    std::string s = walk + "_on_" + graph + "_seed" + std::to_string(seed);
    return s;
  }
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << c.id();
}

std::vector<uint64_t> slots(const Case &c) {
  std::vector<uint64_t> out(c.f64.size());
  for (size_t i = 0; i < c.f64.size(); ++i) {
    bool isInt = false;
    for (int j : c.i64Slots)
      isInt |= size_t(j) == i;
    if (isInt) {
      int64_t v = static_cast<int64_t>(c.f64[i]);
      std::memcpy(&out[i], &v, 8);
    } else {
      std::memcpy(&out[i], &c.f64[i], 8);
    }
  }
  return out;
}

/// Runs `c` on the CPU engine (rejection) or the GPU into a text walk
/// file; returns the status and fills `file`, `stats`, `error`.
sluice_status_t runCase(const Case &c, bool gpu, const std::string &ptx,
                        const std::string &file, sluice_walk_stats_t &stats,
                        std::string &message, uint64_t seedOverride = 0) {
  std::string why;
  const sluice_graph_t *g = graph(c.graph, why);
  const CompiledWalk *walk = findWalk(c.walk);
  if (!g || !walk) {
    message = walk ? why : "unknown walk " + c.walk;
    return SLUICE_STATUS_NOT_FOUND;
  }
  std::vector<uint64_t> params = slots(c);
  if (params.size() != walk->kernel->num_params) {
    message = "the case has " + std::to_string(params.size()) +
              " parameters, the kernel " +
              std::to_string(walk->kernel->num_params);
    return SLUICE_STATUS_INVALID_ARGUMENT;
  }
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  std::vector<uint32_t> starts;
  if (!walkOptions(*walk, g, params.data(), options, starts, message))
    return SLUICE_STATUS_INVALID_ARGUMENT;
  options.walks_per_vertex = c.walksPerVertex;
  options.seed = seedOverride ? seedOverride : c.seed;
  options.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  if (gpu) {
    // The kernel kind as the JSON description says (all of gpu-walks are
    // rejection kernels, one thread per walker).
    bool ok = false;
    std::string json = readFile(ptxPath() + ".json", ok);
    if (!ok || !samplerFromJson(json, walk->ptxKernel(), options.sampler)) {
      message = ptxPath() + ".json does not describe " + walk->ptxKernel();
      return SLUICE_STATUS_NOT_FOUND;
    }
  }
  options.quiet = 1;
  sluice_error_t error;
  sluice_walk_writer_t *writer = nullptr;
  sluice_status_t st = sluice_walk_writer_open(
      file.c_str(), SLUICE_WALK_FORMAT_TEXT, options.max_length,
      SLUICE_WALK_WRITE_ORIGINAL_IDS, g, &writer, &error);
  if (st != SLUICE_STATUS_OK) {
    message = error.message;
    return st;
  }
  std::memset(&stats, 0, sizeof(stats));
  st = gpu ? sluice_walk_run_gpu(g, ptx.c_str(), walk->ptxKernel().c_str(),
                                 params.data(), walk->kernel->num_params,
                                 &options, writer, &stats, &error)
           : sluice_walk_run(g, walk->kernel, params.data(), &options, writer,
                             &stats, &error);
  if (st == SLUICE_STATUS_OK)
    st = sluice_walk_writer_commit(writer, &error);
  if (st != SLUICE_STATUS_OK)
    message = error.message;
  sluice_walk_writer_release(writer);
  return st;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char *g : {"facebook", "email"}) {
    out.push_back({"node2vec", g, {0.25, 4.0}, {}, 2, 42});
    out.push_back({"node2vec", g, {2.0, 0.5}, {}, 1, 7});
    out.push_back({"deepwalk", g, {}, {}, 2, 42});
    out.push_back({"ppr", g, {0, 0.2}, {0}, 20000, 1});
    out.push_back({"ppr2", g, {0.2, 0.2}, {}, 4, 1});
  }
  out.push_back({"node2vec", "facebook_weighted", {0.25, 4.0}, {}, 2, 42});
  out.push_back({"deepwalk", "facebook_weighted", {}, {}, 2, 42});
  out.push_back({"ppr2", "facebook_weighted", {0.2, 0.2}, {}, 2, 3});
  return out;
}

class GpuMatchesCpu : public ::testing::TestWithParam<Case> {};

TEST_P(GpuMatchesCpu, ByteIdenticalWalks) {
  const Case &c = GetParam();
  ASSERT_FALSE(tempDir().dir.empty());
  std::string why;
  if (!graph(c.graph, why))
    GTEST_SKIP() << "graph " << c.graph << ": " << why;
  std::string ptx = ptxText(why);
  ASSERT_FALSE(ptx.empty()) << why;

  std::string base = tempDir().dir + "/" + c.id();
  sluice_walk_stats_t cpuStats, gpuStats;
  std::string message;
  ASSERT_EQ(runCase(c, false, ptx, base + ".cpu", cpuStats, message),
            SLUICE_STATUS_OK)
      << message;
  EXPECT_GT(cpuStats.steps, 0u);
  EXPECT_EQ(cpuStats.bound_violations, 0u);

  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  sluice_status_t st =
      runCase(c, true, ptx, base + ".gpu", gpuStats, message);
  ASSERT_EQ(st, SLUICE_STATUS_OK)
      << "sluice_walk_run_gpu(" << c.walk << "): "
      << sluice_status_message(st) << ": " << message;
  EXPECT_EQ(gpuStats.walks, cpuStats.walks);
  EXPECT_EQ(gpuStats.steps, cpuStats.steps);
  bool ok1 = false, ok2 = false;
  std::string cpu = readFile(base + ".cpu", ok1);
  std::string gpu = readFile(base + ".gpu", ok2);
  ASSERT_TRUE(ok1 && ok2);
  ASSERT_FALSE(cpu.empty());
  if (cpu != gpu) {
    // Say where they part: the first differing walk (line).
    size_t line = 0, i = 0;
    while (i < cpu.size() && i < gpu.size() && cpu[i] == gpu[i])
      line += cpu[i++] == '\n';
    auto lineAt = [&](const std::string &s) {
      size_t b = s.rfind('\n', i ? i - 1 : 0);
      b = (b == std::string::npos || i == 0) ? 0 : b + 1;
      return s.substr(b, s.find('\n', b) - b);
    };
    ADD_FAILURE() << c.id() << ": GPU and CPU walks differ first at walk "
                  << line << " (0-based)\n  cpu: " << lineAt(cpu)
                  << "\n  gpu: " << lineAt(gpu) << "\n(files kept in "
                  << base << ".{cpu,gpu})";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Walks, GpuMatchesCpu, ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<Case> &info) {
      return info.param.id();
    });

// The build-time artefacts are where the binary looks.
TEST(WalkGpuArtifacts, ThePtxHasEveryKernelForSm90) {
  std::string why;
  std::string ptx = ptxText(why);
  ASSERT_FALSE(ptx.empty()) << why;
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  for (const CompiledWalk &w : compiledWalks())
    EXPECT_NE(ptx.find(".entry " + w.ptxKernel() + "("), std::string::npos)
        << w.name;
  bool ok = false;
  std::string json = readFile(ptxPath() + ".json", ok);
  ASSERT_TRUE(ok) << ptxPath() << ".json";
  for (const CompiledWalk &w : compiledWalks()) {
    EXPECT_NE(json.find("\"" + w.ptxKernel() + "\""), std::string::npos)
        << w.name;
    // Rejection kernels: one thread per walker.
    EXPECT_EQ(threadsPerWalker(json, w.ptxKernel()), 1) << w.name;
  }
  EXPECT_EQ(kernelObjects(json).size(), compiledWalks().size());
}

// The CPU side alone: the compiled kernels are deterministic across thread
// counts, and a seed changes the walks (the comparison above can fail).
TEST(WalkGpuCpuSide, DeterministicAcrossThreadsAndSeedSensitive) {
  std::string why;
  const sluice_graph_t *g = graph("facebook", why);
  if (!g)
    GTEST_SKIP() << why;
  sluice_walk_params_node2vec_t params = {0.25, 4.0};
  sluice_walk_options_t options;
  sluice_walk_options_init(&options);
  options.max_length = 20;
  options.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  options.quiet = 1;
  options.seed = 5;
  auto run = [&](uint32_t threads, uint64_t seed) {
    options.threads = threads;
    options.seed = seed;
    std::string file = tempDir().dir + "/det-" + std::to_string(threads) +
                       "-" + std::to_string(seed);
    sluice_error_t error;
    sluice_walk_writer_t *writer = nullptr;
    EXPECT_EQ(sluice_walk_writer_open(file.c_str(), SLUICE_WALK_FORMAT_TEXT,
                                      20, 0, g, &writer, &error),
              SLUICE_STATUS_OK);
    EXPECT_EQ(sluice_walk_run(g, &sluice_walk_kernel_node2vec, &params,
                              &options, writer, nullptr, &error),
              SLUICE_STATUS_OK)
        << error.message;
    EXPECT_EQ(sluice_walk_writer_commit(writer, &error), SLUICE_STATUS_OK);
    sluice_walk_writer_release(writer);
    bool ok = false;
    return readFile(file, ok);
  };
  std::string one = run(1, 5);
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(run(4, 5), one);
  EXPECT_NE(run(1, 6), one);
}

class WalkGpuErrors : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    g = graph("facebook", why);
    if (!g)
      GTEST_SKIP() << why;
    ptx = ptxText(why);
    ASSERT_FALSE(ptx.empty()) << why;
    sluice_walk_options_init(&options);
    options.max_length = 10;
    options.sampler = SLUICE_WALK_SAMPLER_REJECTION;
    options.quiet = 1;
  }
  sluice_status_t run(const char *kernel, const char *ptxText,
                      const sluice_walk_options_t &o,
                      sluice_walk_writer_t *writer = nullptr,
                      const void *p = nullptr) {
    return sluice_walk_run_gpu(g, ptxText, kernel, p ? p : params, 2, &o,
                               writer, nullptr, &error);
  }
  std::string message() const { return error.message; }
  const sluice_graph_t *g = nullptr;
  std::string ptx;
  sluice_walk_options_t options;
  sluice_error_t error;
  const double params[2] = {2.0, 0.5};
};

// Checked before the device is opened: the same on every machine.
TEST_F(WalkGpuErrors, ArgumentsAreCheckedBeforeTheDevice) {
  EXPECT_EQ(sluice_walk_run_gpu(nullptr, ptx.c_str(), "sluice_walk_node2vec",
                                params, 2, &options, nullptr, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message().find("graph is NULL"), std::string::npos) << message();
  EXPECT_EQ(run("sluice_walk_node2vec", nullptr, options),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message().find("ptx is NULL"), std::string::npos) << message();
  EXPECT_EQ(run("", ptx.c_str(), options), SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_walk_run_gpu(g, ptx.c_str(), "sluice_walk_node2vec",
                                nullptr, 2, &options, nullptr, nullptr,
                                &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message().find("params is NULL"), std::string::npos) << message();
  // Alias tables are not on the GPU (RESERVOIR launches a warp kernel:
  // WalkGpuReservoirIntegrationTest.cpp).
  sluice_walk_options_t o = options;
  o.sampler = SLUICE_WALK_SAMPLER_ALIAS;
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), o),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message().find("sampler alias"), std::string::npos) << message();
  o = options;
  o.max_length = 0;
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), o),
            SLUICE_STATUS_INVALID_ARGUMENT);
  o = options;
  o.walks_per_vertex = 0;
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), o),
            SLUICE_STATUS_INVALID_ARGUMENT);
  o = options;
  o.stop_probability = 1.5;
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), o),
            SLUICE_STATUS_INVALID_ARGUMENT);
  uint32_t bad = uint32_t(sluice_graph_num_vertices(g));
  o = options;
  o.starts = &bad;
  o.num_starts = 1;
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), o),
            SLUICE_STATUS_OUT_OF_RANGE)
      << message();
  EXPECT_NE(message().find("not in the graph"), std::string::npos)
      << message();
  // A writer narrower than max_length.
  sluice_walk_writer_t *writer = nullptr;
  std::string file = tempDir().dir + "/narrow.walks";
  ASSERT_EQ(sluice_walk_writer_open(file.c_str(), SLUICE_WALK_FORMAT_TEXT, 5,
                                    0, g, &writer, &error),
            SLUICE_STATUS_OK);
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), options, writer),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message().find("at most 5"), std::string::npos) << message();
  sluice_walk_writer_release(writer);
}

// Without a driver or device: UNSUPPORTED with the reason, nothing else.
TEST_F(WalkGpuErrors, WithoutAGpuTheRunIsUnsupported) {
  sluice_error_t reason;
  if (sluice_gpu_available(&reason))
    GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), options),
            SLUICE_STATUS_UNSUPPORTED);
  EXPECT_GT(std::strlen(error.message), 0u);
}

// On the device: errors of the driver are reported, not crashed on.
TEST_F(WalkGpuErrors, DeviceErrorsCarryTheDriversMessage) {
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  // A kernel the module does not have.
  sluice_status_t st = run("sluice_walk_nosuchwalk", ptx.c_str(), options);
  EXPECT_NE(st, SLUICE_STATUS_OK);
  EXPECT_NE(message().find("sluice_walk_nosuchwalk"), std::string::npos)
      << sluice_status_message(st) << ": " << message();
  // PTX the JIT refuses: the message carries its log.
  std::string broken = ptx;
  size_t at = broken.find(".entry sluice_walk_node2vec(");
  ASSERT_NE(at, std::string::npos);
  broken.insert(broken.find('{', at) + 1, "\n  this_is_not_ptx %r1;\n");
  st = run("sluice_walk_node2vec", broken.c_str(), options);
  EXPECT_NE(st, SLUICE_STATUS_OK);
  EXPECT_FALSE(message().empty());
  std::printf("[ info ] JIT error as reported: %s\n", message().c_str());
  // The device is usable again afterwards.
  EXPECT_EQ(run("sluice_walk_node2vec", ptx.c_str(), options),
            SLUICE_STATUS_OK)
      << message();
}

// On the device: the same seed twice gives the same walks, another seed
// other walks; many walkers (several thousand blocks) in one launch.
TEST(WalkGpuDevice, DeterministicSeedSensitiveAndLargeLaunch) {
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason))
    GTEST_SKIP() << "no GPU: " << reason.message;
  std::string why;
  if (!graph("facebook", why))
    GTEST_SKIP() << why;
  std::string ptx = ptxText(why);
  ASSERT_FALSE(ptx.empty()) << why;
  Case c{"node2vec", "facebook", {2.0, 0.5}, {}, 64, 11};
  std::string base = tempDir().dir + "/det-gpu";
  sluice_walk_stats_t a, b, d;
  std::string message;
  ASSERT_EQ(runCase(c, true, ptx, base + ".1", a, message), SLUICE_STATUS_OK)
      << message;
  ASSERT_EQ(runCase(c, true, ptx, base + ".2", b, message), SLUICE_STATUS_OK)
      << message;
  ASSERT_EQ(runCase(c, true, ptx, base + ".3", d, message, 12),
            SLUICE_STATUS_OK)
      << message;
  EXPECT_EQ(a.walks, 64u * sluice_graph_num_vertices(graph("facebook", why)));
  bool ok = false;
  std::string w1 = readFile(base + ".1", ok), w2 = readFile(base + ".2", ok),
              w3 = readFile(base + ".3", ok);
  EXPECT_EQ(w1, w2);
  EXPECT_NE(w1, w3);
  std::printf("[ info ] %llu walks, %llu steps, kernel %.3f s (%.3g steps/s)\n",
              (unsigned long long)a.walks, (unsigned long long)a.steps,
              a.seconds, a.seconds > 0 ? double(a.steps) / a.seconds : 0.0);
}

} // namespace
