//===- AlgoGpuIntegrationTest.cpp - compiled algorithms, GPU against CPU --===//
//
// Inputs/gpu-algos.sluice compiled by sluicec at build time: the host code
// as a CPU object (gpu-algos.o, gpu-algos.h) and the loops' kernels as PTX
// (gpu-algos.ptx). Each case runs an algorithm on the CPU (checked against
// a reference where one is cheap) and then with the PTX attached
// (sluice/algo_gpu.h): BFS depths, SSSP distances and CC labels must be
// equal, PageRank within 1e-9 relative. Without a CUDA device the GPU half
// skips with the driver's reason; the CPU half and the argument checks run
// everywhere. Graphs: facebook (undirected), email-Eu-core and Slashdot
// (directed) from $SLUICE_GPU_DATA or ../shared/data (skipped when absent).
// Each GPU half prints its time and the CPU's (`[   time   ]` lines).
//
//===----------------------------------------------------------------------===//
#include "test/Unit/AlgoGpu/AlgoGpuTestSupport.h"

#include "sluice/gpu.h"

using namespace sluice::algogpu;

namespace {

class AlgoGpu : public SharedGraphTest {
protected:
  void SetUp() override {
    // Slashdot's and luxembourg_osm's CPU halves alone take seconds: only
    // where their GPU halves run.
    sluice_error_t reason;
    if ((std::string(GetParam()) == "soc-Slashdot0902.txt.gz" ||
         std::string(GetParam()) == "luxembourg_osm.el.gz") &&
        !sluice_gpu_available(&reason))
      GTEST_SKIP() << "no GPU: " << reason.message;
    loadGraph();
  }
};

TEST_P(AlgoGpu, BfsDepthsEqual) { checkBfs(graph.get(), attachPtx); }
TEST_P(AlgoGpu, SsspDistancesEqual) { checkSssp(graph.get(), attachPtx); }
TEST_P(AlgoGpu, ComponentLabelsEqual) {
  checkComponents(graph.get(), attachPtx);
}
TEST_P(AlgoGpu, TrianglesEqual) { checkTriangles(graph.get(), attachPtx); }
TEST_P(AlgoGpu, PageRankPullWithin1e9) {
  checkPageRankPull(graph.get(), attachPtx);
}
TEST_P(AlgoGpu, PageRankPushToToleranceWithin1e9) {
  checkPageRankPush(graph.get(), attachPtx);
}

TEST_P(AlgoGpu, PageRankCooWithin1e9) {
  checkPageRankCoo(graph.get(), attachPtx);
}

TEST_P(AlgoGpu, BetweennessWithin1e9) {
  checkBetweenness(graph.get(), attachPtx);
}

INSTANTIATE_TEST_SUITE_P(SharedGraphs, AlgoGpu,
                         ::testing::ValuesIn(kDeviceGraphs), sharedGraphName);

// The pull loops' two kernels on the device, each equal to the CPU, with
// their kernel times printed per graph (scripts/device-stage.sh runs the
// PullWarp* cases on Slashdot and luxembourg_osm to set
// SLUICE_ALGO_GPU_LANES_MIN_DEGREE).
class AlgoGpuLanes : public AlgoGpu {};
TEST_P(AlgoGpuLanes, PullWarpOrThreadPageRankWithin1e9) {
  checkPageRankBothKernels(graph.get(), attachPtx);
}
TEST_P(AlgoGpuLanes, PullWarpOrThreadComponentLabelsEqual) {
  checkComponentsPulledBothKernels(graph.get(), attachPtx);
}
INSTANTIATE_TEST_SUITE_P(SharedGraphs, AlgoGpuLanes,
                         ::testing::ValuesIn(kLanesGraphs), sharedGraphName);

TEST(AlgoGpuArtifacts, ThePtxHasEveryKernelAndItsInfo) {
  ASSERT_TRUE(fileExists(ptxPath())) << ptxPath();
  std::string ptx = readFile(ptxPath());
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  std::string json = readFile(ptxPath() + ".json");
  for (const Bound &b : kKernels) {
    EXPECT_NE(ptx.find(std::string(".entry ") + b.kernel + "("),
              std::string::npos)
        << b.kernel;
    EXPECT_NE(ptx.find(std::string(b.kernel) + "_info"), std::string::npos)
        << b.kernel;
    EXPECT_NE(json.find(std::string("\"kernel\": \"") + b.kernel + "\""),
              std::string::npos)
        << b.kernel;
  }
}

// The `_lanes` twins (a warp per item) of the loops that may split their
// edges, bound with their kernels; BFS's bottom-up step (an early exit)
// has none.
TEST(AlgoGpuArtifacts, ThePtxHasTheWarpPerItemTwins) {
  ASSERT_TRUE(fileExists(ptxPath())) << ptxPath();
  std::string ptx = readFile(ptxPath());
  for (const char *twin : {"sluice_algo_pagerank_gather_pull_lanes",
                           "sluice_algo_ccpull_spread_pull_lanes",
                           "sluice_algo_sssp_relax_push_lanes",
                           "sluice_algo_bfs_expand_push_lanes"}) {
    EXPECT_NE(ptx.find(std::string(".entry ") + twin + "("), std::string::npos)
        << twin;
    EXPECT_NE(ptx.find(std::string(twin) + "_info"), std::string::npos) << twin;
  }
  EXPECT_EQ(ptx.find(".entry sluice_algo_bfs_expand_pull_lanes("),
            std::string::npos);
  EXPECT_NE(ptx.find("shfl.sync.bfly.b32"), std::string::npos);
}

TEST(AlgoGpuErrors, ArgumentsAreCheckedBeforeTheDevice) {
  EdgeGraph e = fromEdges(3, {0, 1}, {1, 2});
  ASSERT_TRUE(e.ctx) << e.error;
  sluice_algo_ctx_t *ctx = e.ctx.get();
  sluice_error_t error;
  EXPECT_EQ(sluice_algo_gpu_attach(nullptr, "", &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "sluice_algo_gpu_attach: NULL argument");
  EXPECT_EQ(sluice_algo_gpu_attach(ctx, nullptr, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_algo_gpu_bind(ctx, sluice_algo_bfs_expand_push,
                                 "sluice_algo_bfs_expand_push", &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(
      error.message,
      "sluice_algo_gpu_bind: no GPU attached (sluice_algo_gpu_attach)");
  EXPECT_EQ(sluice_algo_gpu_bind(ctx, nullptr, "x", &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_algo_gpu_launches(ctx), 0u);
  // Without a device, attaching says why; with one, binding a kernel the
  // module lacks is NOT_FOUND and a second attach is refused.
  std::string ptx = readFile(ptxPath());
  sluice_status_t s = sluice_algo_gpu_attach(ctx, ptx.c_str(), &error);
  if (s == SLUICE_STATUS_UNSUPPORTED) {
    EXPECT_STRNE(error.message, "");
    return;
  }
  ASSERT_EQ(s, SLUICE_STATUS_OK) << error.message;
  EXPECT_EQ(sluice_algo_gpu_attach(ctx, ptx.c_str(), &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_algo_gpu_bind(ctx, sluice_algo_bfs_expand_push,
                                 "sluice_algo_nothing", &error),
            SLUICE_STATUS_NOT_FOUND);
}

TEST(AlgoGpuErrors, AnUnboundLoopFaultsTheRun) {
  std::string why;
  GraphPtr graph = loadSnap("facebook_combined.txt.gz", true, why);
  if (!graph)
    GTEST_SKIP() << why;
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = nullptr;
  sluice_error_t error;
  ASSERT_EQ(sluice_algo_ctx_create(graph.get(), &options, &ctx, &error),
            SLUICE_STATUS_OK);
  std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)> owner(
      ctx, sluice_algo_ctx_release);
  std::string ptx = readFile(ptxPath());
  sluice_status_t s = sluice_algo_gpu_attach(ctx, ptx.c_str(), &error);
  if (s == SLUICE_STATUS_UNSUPPORTED)
    GTEST_SKIP() << "no GPU: " << error.message;
  ASSERT_EQ(s, SLUICE_STATUS_OK) << error.message;
  std::vector<uint64_t> comp(sluice_graph_num_vertices(graph.get()));
  void *props[] = {comp.data()};
  sluice_algo_params_cc_t params{};
  sluice_algo_cc(ctx, &params, props);
  const char *message = nullptr;
  EXPECT_EQ(sluice_algo_fault_site(ctx, &message), SLUICE_ALGO_GPU_FAULT_SITE);
  EXPECT_STREQ(message, "GPU: a loop function has no kernel bound "
                        "(sluice_algo_gpu_bind)");
}

} // namespace
