//===- GnnGpuIntegrationTest.cpp - GNN aggregation kernels on a GPU -------===//
//
// The PTX that sluicec compiled at build time from Inputs/gnn-kernels.sluice
// (artifacts/gnn-kernels.ptx, or $SLUICE_GPU_ARTIFACTS/gnn-kernels.ptx),
// run through sluice_gnn_gpu_forward/backward (sluice/gnn_gpu.h) on random
// blocks and compared with the CPU trainer's aggregation
// (runtime/src/gnn/Aggregate.cpp) bit for bit, forward and backward, for
// the sage and the gcn job. Runtime-only (libsluicert + gtest): staged for
// the GPU machine by scripts/device-stage.sh. Without a GPU the device
// cases skip with the driver's reason; the artefacts, the transpose and the
// argument checks run everywhere.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/GnnGpu/GnnGpuCases.h"

#include "sluice/gpu.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace sluice;
using namespace sluice::test::gnngpu;

namespace {

std::string artifactsDir() {
  const char *env = std::getenv("SLUICE_GPU_ARTIFACTS");
  return env && *env ? env : SLUICE_GPU_GNN_DIR;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string &ptx() {
  static const std::string text = readFile(artifactsDir() + "/gnn-kernels.ptx");
  return text;
}

struct Kind {
  const char *job, *name;
  sluice_gnn_kind_t kind;
  bool sage;
};
const Kind kKinds[] = {{"meansum", "sage", SLUICE_GNN_SAGE, true},
                       {"normsum", "gcn", SLUICE_GNN_GCN, false}};

/// The device, or a skip with the driver's reason.
#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    sluice_error_t reason;                                                     \
    if (!sluice_gpu_available(&reason))                                        \
      GTEST_SKIP() << "no GPU: " << reason.message;                            \
  } while (0)

/// An open handle for `k`, closed at scope exit.
struct Handle {
  sluice_gnn_gpu_t *gpu = nullptr;
  sluice_error_t error{};
  sluice_status_t status;
  explicit Handle(const Kind &k)
      : status(
            sluice_gnn_gpu_open(ptx().c_str(), k.job, k.kind, &gpu, &error)) {}
  ~Handle() { sluice_gnn_gpu_close(gpu); }
};

std::vector<float> gpuForward(sluice_gnn_gpu_t *gpu, const rt::gnn::Block &b,
                              bool sage, const std::vector<float> &h,
                              uint32_t in) {
  std::vector<float> agg(size_t(b.numDst) * (sage ? 2 : 1) * in, 1e30f);
  sluice_gnn_block_t v = view(b);
  sluice_error_t error;
  EXPECT_EQ(sluice_gnn_gpu_forward(gpu, &v, h.data(), in, agg.data(), &error),
            SLUICE_STATUS_OK)
      << error.message;
  return agg;
}

std::vector<float> gpuBackward(sluice_gnn_gpu_t *gpu, const rt::gnn::Block &b,
                               const std::vector<float> &dA, uint32_t in,
                               std::vector<float> dH) {
  sluice_gnn_block_t v = view(b);
  sluice_error_t error;
  EXPECT_EQ(sluice_gnn_gpu_backward(gpu, &v, dA.data(), in, dH.data(), &error),
            SLUICE_STATUS_OK)
      << error.message;
  return dH;
}

TEST(GnnGpuArtifacts, ThePtxAndJsonDescribeFourKernels) {
  ASSERT_FALSE(ptx().empty()) << "no " << artifactsDir() << "/gnn-kernels.ptx";
  EXPECT_NE(ptx().find(".target sm_90"), std::string::npos);
  // Separate multiplies and adds, rounded as on the CPU.
  EXPECT_EQ(ptx().find("fma."), std::string::npos);
  EXPECT_EQ(ptx().find(".ftz"), std::string::npos);
  EXPECT_NE(ptx().find("mul.rn.f32"), std::string::npos);
  EXPECT_NE(ptx().find("add.rn.f32"), std::string::npos);
  std::string json = readFile(artifactsDir() + "/gnn-kernels.ptx.json");
  for (const Kind &k : kKinds)
    for (const char *direction : {"forward", "backward"}) {
      std::string name =
          std::string("sluice_gnn_") + k.job + "_" + k.name + "_" + direction;
      EXPECT_NE(ptx().find(".entry " + name + "("), std::string::npos) << name;
      EXPECT_NE(json.find("\"kernel\": \"" + name + "\""), std::string::npos)
          << name;
    }
  EXPECT_NE(json.find("\"kind\": \"gcn\""), std::string::npos);
  EXPECT_NE(json.find("\"block\": " + std::to_string(SLUICE_GNN_GPU_BLOCK)),
            std::string::npos);
}

// src 0 gets d0's self term, d0's edge 1, d1's edge; src 1 d0's edges 0
// and 2, then d1's self term; src 2 nothing.
TEST(GnnGpuTranspose, ListsEachSrcsTermsInTheScattersOrder) {
  const uint32_t offsets[] = {0, 3, 4};
  const uint32_t nbr[] = {1, 0, 1, 0};
  const float coef[] = {0.5f, 0.25f, 2.0f, 3.0f};
  const float self[] = {7.0f, 9.0f};
  sluice_gnn_block_t b = {2, 3, offsets, nbr, coef, self};
  uint32_t t[4], slot[6];
  float c[6];
  sluice_error_t error;
  ASSERT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_SAGE, t, slot, c, &error),
            SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(std::vector<uint32_t>(t, t + 4),
            (std::vector<uint32_t>{0, 3, 6, 6}));
  EXPECT_EQ(std::vector<uint32_t>(slot, slot + 6),
            (std::vector<uint32_t>{0, 1, 3, 1, 1, 2}));
  EXPECT_EQ(std::vector<float>(c, c + 6),
            (std::vector<float>{1.0f, 0.25f, 3.0f, 0.5f, 2.0f, 1.0f}));
  ASSERT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_GCN, t, slot, c, &error),
            SLUICE_STATUS_OK);
  EXPECT_EQ(std::vector<uint32_t>(slot, slot + 6),
            (std::vector<uint32_t>{0, 0, 2, 0, 0, 2}));
  EXPECT_EQ(std::vector<float>(c, c + 6),
            (std::vector<float>{7.0f, 0.25f, 3.0f, 0.5f, 2.0f, 9.0f}));
}

TEST(GnnGpuErrors, ArgumentsAreCheckedBeforeTheDevice) {
  sluice_gnn_gpu_t *gpu = nullptr;
  sluice_error_t error;
  EXPECT_EQ(
      sluice_gnn_gpu_open(nullptr, "meansum", SLUICE_GNN_SAGE, &gpu, &error),
      SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "sluice_gnn_gpu_open: the PTX or the job name "
                              "is NULL or empty");
  EXPECT_EQ(
      sluice_gnn_gpu_open(ptx().c_str(), "", SLUICE_GNN_SAGE, &gpu, &error),
      SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_gnn_gpu_open(ptx().c_str(), "meansum", SLUICE_GNN_GAT, &gpu,
                                &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "sluice_gnn_gpu_open: kind 2 has no GPU "
                              "aggregation kernels (sage and gcn do)");
  // A sage job's kernels are not a gcn job's: the names carry the kind.
  EXPECT_EQ(sluice_gnn_gpu_open(ptx().c_str(), "meansum", SLUICE_GNN_GCN, &gpu,
                                &error),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_STREQ(error.message, "sluice_gnn_gpu_open: the PTX has no kernel "
                              "'sluice_gnn_meansum_gcn_forward'");
  EXPECT_EQ(gpu, nullptr);
  EXPECT_EQ(
      sluice_gnn_gpu_forward(nullptr, nullptr, nullptr, 1, nullptr, &error),
      SLUICE_STATUS_INVALID_ARGUMENT);

  const uint32_t offsets[] = {0, 2, 1};
  const uint32_t nbr[] = {0, 5};
  const float coef[] = {1, 1};
  uint32_t t[8], slot[8];
  float c[8];
  sluice_gnn_block_t b = {3, 2, offsets, nbr, coef, nullptr};
  EXPECT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_SAGE, t, slot, c, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "sluice_gnn_block_transpose: the block has 3 dst rows but 2 "
               "src rows (dst rows are the first src rows)");
  b = {2, 3, offsets, nbr, coef, nullptr};
  EXPECT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_SAGE, t, slot, c, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "sluice_gnn_block_transpose: the block's offsets decrease at "
               "dst 1");
  const uint32_t good[] = {0, 2, 2};
  b = {2, 3, good, nbr, coef, nullptr};
  EXPECT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_SAGE, t, slot, c, &error),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(error.message, "sluice_gnn_block_transpose: edge 1 has src row "
                              "5, the block has 3");
  const uint32_t inRange[] = {0, 2};
  b = {2, 3, good, inRange, coef, nullptr};
  EXPECT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_SAGE, t, slot, c, &error),
            SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(sluice_gnn_block_transpose(&b, SLUICE_GNN_GCN, t, slot, c, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "sluice_gnn_block_transpose: a gcn block needs self_coef");
}

TEST(GnnGpuErrors, WithoutAGpuOpenIsUnsupported) {
  sluice_error_t reason;
  if (sluice_gpu_available(&reason))
    GTEST_SKIP() << "a GPU is present";
  Handle h(kKinds[0]);
  EXPECT_EQ(h.status, SLUICE_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(h.error.message), "");
  EXPECT_EQ(h.gpu, nullptr);
}

TEST(GnnGpuDevice, ForwardAndBackwardEqualTheCpuBitForBit) {
  SKIP_WITHOUT_GPU();
  for (const Kind &k : kKinds) {
    Handle h(k);
    ASSERT_EQ(h.status, SLUICE_STATUS_OK) << h.error.message;
    uint64_t seed = 1000, launches = 0;
    for (const Shape &s : shapes()) {
      SCOPED_TRACE(std::string(k.name) + " dst " + std::to_string(s.dst) +
                   " src " + std::to_string(s.src) + " in " +
                   std::to_string(s.in));
      rt::gnn::Block b = randomBlock(s.dst, s.src, s.maxDegree, k.sage, ++seed);
      std::vector<float> x = randomRows(size_t(s.src) * s.in, ++seed);
      EXPECT_EQ(firstDifference(cpuForward(b, k.sage, x, s.in),
                                gpuForward(h.gpu, b, k.sage, x, s.in)),
                "");
      std::vector<float> dA =
          randomRows(size_t(s.dst) * (k.sage ? 2 : 1) * s.in, ++seed);
      std::vector<float> dH = randomRows(size_t(s.src) * s.in, ++seed);
      EXPECT_EQ(firstDifference(cpuBackward(b, k.sage, dA, s.in, dH),
                                gpuBackward(h.gpu, b, dA, s.in, dH)),
                "");
      launches += 2;
    }
    sluice_gnn_gpu_stats_t st;
    sluice_gnn_gpu_stats(h.gpu, &st);
    EXPECT_EQ(st.launches, launches);
    EXPECT_GT(st.bytes_to_device, 0u);
    EXPECT_GT(st.bytes_from_device, 0u);
  }
}

// A block of a large mini-batch's size (50,000 dst, 250,000 src, up to 20
// neighbours each, 128 features): equal to the CPU, with the times.
TEST(GnnGpuDevice, ALargeBlockEqualsTheCpuAndIsTimed) {
  SKIP_WITHOUT_GPU();
  using Clock = std::chrono::steady_clock;
  const uint32_t in = 128;
  for (const Kind &k : kKinds) {
    Handle h(k);
    ASSERT_EQ(h.status, SLUICE_STATUS_OK) << h.error.message;
    rt::gnn::Block b = randomBlock(50000, 250000, 20, k.sage, 77);
    std::vector<float> x = randomRows(size_t(250000) * in, 78);
    std::vector<float> dA =
        randomRows(size_t(50000) * (k.sage ? 2 : 1) * in, 79);
    std::vector<float> dH(size_t(250000) * in, 0.0f);
    Clock::time_point t0 = Clock::now();
    std::vector<float> cpuA = cpuForward(b, k.sage, x, in);
    std::vector<float> cpuH = cpuBackward(b, k.sage, dA, in, dH);
    double cpu = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(firstDifference(cpuA, gpuForward(h.gpu, b, k.sage, x, in)), "");
    EXPECT_EQ(firstDifference(cpuH, gpuBackward(h.gpu, b, dA, in, dH)), "");
    sluice_gnn_gpu_stats_t st;
    sluice_gnn_gpu_stats(h.gpu, &st);
    std::printf("[ info ] %s on %s: %zu edges x %u features; CPU (1 thread) "
                "%.4f s; GPU kernels %.4f s, uploads %.4f s (%.1f MB), "
                "downloads %.4f s (%.1f MB), transpose %.4f s\n",
                k.name, sluice_gnn_gpu_device_name(h.gpu), b.nbr.size(), in,
                cpu, st.kernel_seconds, st.upload_seconds,
                st.bytes_to_device / 1e6, st.download_seconds,
                st.bytes_from_device / 1e6, st.transpose_seconds);
  }
}

// An aggregator's error fails the training with its status and message;
// gat takes no aggregator; an aggregator needs both functions.
TEST(GnnGpuErrors, AnAggregatorsErrorFailsTheTraining) {
  GraphPtr g = plantedGraph(16, 3);
  ASSERT_TRUE(g);
  std::vector<float> features = randomRows(48 * 8, 4);
  sluice_gnn_options_t o = plantedOptions(SLUICE_GNN_GCN, features.data());
  sluice_gnn_aggregator_t failing = {
      [](void *, const sluice_gnn_block_t *, const float *, uint32_t, float *,
         sluice_error_t *error) {
        std::snprintf(error->message, sizeof(error->message), "device lost");
        return SLUICE_STATUS_INTERNAL;
      },
      [](void *, const sluice_gnn_block_t *, const float *, uint32_t, float *,
         sluice_error_t *) { return SLUICE_STATUS_OK; },
      nullptr};
  o.aggregator = &failing;
  sluice_gnn_result_t r{};
  sluice_error_t error{};
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, &r, &error), SLUICE_STATUS_INTERNAL);
  EXPECT_STREQ(error.message, "the aggregator failed: device lost");
  failing.backward = nullptr;
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, &r, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "the aggregator has no forward or no backward");
  o.kind = SLUICE_GNN_GAT;
  sluice_gnn_aggregator_t gpuLike{};
  sluice_gnn_gpu_aggregator(nullptr, &gpuLike);
  o.aggregator = &gpuLike;
  EXPECT_EQ(sluice_gnn_train(g.get(), &o, &r, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message,
               "an aggregator serves sage and gcn layers, not gat");
}

// Training with sluice_gnn_gpu_aggregator (the dense layers' aggregation
// on the GPU, the rest on the CPU) gives the CPU training's losses and
// accuracies in every bit.
TEST(GnnGpuDevice, TrainingOnTheGpuAggregatorEqualsTheCpu) {
  SKIP_WITHOUT_GPU();
  GraphPtr g = plantedGraph(16, 3);
  ASSERT_TRUE(g);
  std::vector<float> features = randomRows(48 * 8, 4);
  for (const Kind &k : kKinds) {
    SCOPED_TRACE(k.name);
    sluice_gnn_options_t o = plantedOptions(k.kind, features.data());
    const std::string cpu = trainLog(g.get(), o);
    ASSERT_EQ(cpu.rfind("error", 0), std::string::npos) << cpu;
    Handle h(k);
    ASSERT_EQ(h.status, SLUICE_STATUS_OK) << h.error.message;
    sluice_gnn_aggregator_t aggregator{};
    sluice_gnn_gpu_aggregator(h.gpu, &aggregator);
    o.aggregator = &aggregator;
    EXPECT_EQ(trainLog(g.get(), o), cpu);
    sluice_gnn_gpu_stats_t st;
    sluice_gnn_gpu_stats(h.gpu, &st);
    EXPECT_GT(st.launches, 0u);
  }
}

} // namespace
