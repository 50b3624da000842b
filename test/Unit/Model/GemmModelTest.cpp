//===- GemmModelTest.cpp - GPU GEMM time by shape and precision -----------===//
//
// The GEMM model (compiler/Analysis/Model/GemmModel.h) at the published
// measurement its RTX 4090 eta is fitted on, and against the closed forms
// of its parts: wave and tile quantization, the memory roofline, the TF32
// rate. The held-out checks are the planners' validation rows (Ratel,
// FlexGen: test/Unit/Offload, docs/offload.md), none of which was used to
// fit.
//
// Published point (xytpai/PeakGemm README, "Performance": bf16 GEMM with
// fp32 accumulate, m = n = k = 8192, RTX 4090, 165.2 TFLOPS peak):
// 163.5 TFLOPS.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Model/GemmModel.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace sluice::model;

namespace {

GemmDevice rtx4090() {
  return {165.2e12, *gemmEfficiencyOf("GeForce RTX 4090"), 1008e9, 128};
}

double tflops(const GemmShape &g, const GemmDevice &d) {
  return g.flops() / gemmTime(g, d) / 1e12;
}

TEST(GemmModel, FittedPointRtx4090) {
  // The point eta was fitted on: reproduced by construction (4096 tiles
  // fill 32 waves of 128 SMs exactly).
  GemmShape g{8192, 8192, 8192, 1, GemmDtype::BF16, {}};
  EXPECT_NEAR(tflops(g, rtx4090()), 163.5, 0.01);
}

TEST(GemmModel, WaveQuantization) {
  // 128 SMs: 2 full waves of tiles run at eta; one more tile costs a
  // whole third wave.
  GemmDevice d = rtx4090();
  d.memoryBandwidth = 0;
  const double eta = d.efficiency;
  GemmShape full{128 * 16, 128 * 16, 4096, 1, GemmDtype::F16, {}}; // 256
  EXPECT_NEAR(gemmEfficiency(full, d), eta, 1e-12);
  GemmShape ragged{128 * 16 + 1, 128 * 16, 4096, 1, GemmDtype::F16, {}};
  // 17 x 16 = 272 tiles: 3 waves for the work of 2.125.
  EXPECT_NEAR(gemmEfficiency(ragged, d),
              eta * ragged.flops() / (3 * 128 * 2.0 * 128 * 128 * 4096), 1e-12);
  // Without an SM count: tile quantization only.
  d.sms = 0;
  EXPECT_NEAR(gemmEfficiency(ragged, d), eta * (128.0 * 16 + 1) / (17 * 128),
              1e-12);
}

TEST(GemmModel, ThinGemmsAreBoundByMemory) {
  // One token through a 5120 x 15360 projection: the weights' bytes over
  // the memory bandwidth.
  GemmDevice d = rtx4090();
  GemmShape gemv{1, 15360, 5120, 1, GemmDtype::F16, {}};
  double bytes = 2.0 * (5120 + 5120.0 * 15360 + 15360);
  EXPECT_NEAR(gemmTime(gemv, d), bytes / 1008e9, 1e-15);
  EXPECT_LT(gemmEfficiency(gemv, d), 0.01);
}

TEST(GemmModel, Fp32RunsAtTheTf32Rate) {
  GemmDevice d = rtx4090();
  GemmShape h{8192, 8192, 8192, 1, GemmDtype::F16, {}};
  GemmShape f = h;
  f.dtype = GemmDtype::F32;
  EXPECT_NEAR(gemmTime(f, d), 2 * gemmTime(h, d), 1e-12);
  EXPECT_NEAR(gemmEfficiency(f, d), gemmEfficiency(h, d), 1e-12);
  EXPECT_EQ(gemmDtypeOfBytes(4), GemmDtype::F32);
  EXPECT_EQ(gemmDtypeOfBytes(2), GemmDtype::F16);
}

TEST(GemmModel, BatchedAndFusedShapes) {
  GemmDevice d = rtx4090();
  d.memoryBandwidth = 0;
  // 40 heads x 8 sequences of 1024 x 1024 x 256: 8 x 8 tiles each, 2560
  // tiles = 20 waves.
  GemmShape att{1024, 1024, 256, 320, GemmDtype::F16, 1e6};
  EXPECT_NEAR(gemmEfficiency(att, d), d.efficiency, 1e-12);
  // The fused kernel's own traffic sets its memory bound.
  d.memoryBandwidth = 1e9;
  EXPECT_NEAR(gemmTime(att, d),
              std::max(1e6 / 1e9, att.flops() / (165.2e12 * d.efficiency)),
              1e-12);
  EXPECT_EQ(gemmTime(GemmShape{0, 1, 1, 1, GemmDtype::F16, {}}, d), 0);
}

TEST(GemmModel, UnknownGpusHaveNoFittedEfficiency) {
  EXPECT_FALSE(gemmEfficiencyOf("Tesla T4").has_value());
  EXPECT_TRUE(gemmEfficiencyOf("GeForce RTX 4090").has_value());
}

} // namespace
