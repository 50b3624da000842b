//===- AbftTest.cpp - Checked GEMMs and injected computation faults -------===//
//
// The checksummed layer kernels of Abft.h: the same bits as the plain
// kernels, no false alarm on random layers of many shapes and magnitudes,
// every injected bit flip above the rounding threshold detected (over all
// 32 bits), and the offload trainer under injected faults: with
// `recompute` it trains to exactly the reference's bits, with `fail` the
// faulty step fails cleanly, the committed state is intact and training
// resumes to the same bits; without checks the faults corrupt the model.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Abft.h"
#include "runtime/src/train/OffloadTrainer.h"

#include "test/Unit/Offload/TestDir.h"

#include <cstring>
#include <gtest/gtest.h>
#include <random>

using namespace sluice::train;
using sluice::test::ScratchDir;

namespace {

std::vector<float> randomVector(size_t n, float scale, std::mt19937_64 &rng) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

struct Shape {
  uint32_t in, out, batch;
  float scale;
};

const Shape kShapes[] = {{1, 1, 1, 1.0f},      {7, 3, 5, 1e-3f},
                         {64, 128, 32, 1.0f},  {128, 16, 64, 30.0f},
                         {33, 65, 17, 1e3f},   {256, 256, 8, 0.1f}};

TEST(Abft, SameBitsAsThePlainKernelsAndNoFalseAlarm) {
  std::mt19937_64 rng(3);
  AbftGuard guard(AbftMode::Fail, FaultInjection{});
  for (const Shape &s : kShapes)
    for (int trial = 0; trial < 5; ++trial) {
      auto param = randomVector(size_t(s.in) * s.out + s.out, s.scale, rng);
      auto x = randomVector(size_t(s.batch) * s.in, s.scale, rng);
      auto dZ = randomVector(size_t(s.batch) * s.out, s.scale, rng);
      for (bool relu : {false, true}) {
        std::vector<float> y1(size_t(s.batch) * s.out), y2(y1.size());
        forwardLayer(s.in, s.out, s.batch, param.data(), x.data(), y1.data(),
                     relu);
        AbftFault fault;
        ASSERT_TRUE(guard.forward(s.in, s.out, s.batch, param.data(),
                                  x.data(), y2.data(), relu, fault))
            << fault.where << " " << fault.got << " " << fault.expected;
        EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * 4), 0);
      }
      std::vector<float> g1(param.size()), g2(param.size()),
          dx1(x.size()), dx2(x.size());
      backwardLayer(s.in, s.out, s.batch, param.data(), x.data(), dZ.data(),
                    g1.data(), dx1.data());
      AbftFault fault;
      ASSERT_TRUE(guard.backward(s.in, s.out, s.batch, param.data(),
                                 x.data(), dZ.data(), g2.data(), dx2.data(),
                                 fault))
          << fault.where << " " << fault.got << " " << fault.expected;
      EXPECT_EQ(std::memcmp(g1.data(), g2.data(), g1.size() * 4), 0);
      EXPECT_EQ(std::memcmp(dx1.data(), dx2.data(), dx1.size() * 4), 0);
    }
  EXPECT_EQ(guard.stats().detected, 0u);
  EXPECT_EQ(guard.stats().injected, 0u);
}

TEST(Abft, EveryFlipAboveTheThresholdIsDetected) {
  std::mt19937_64 rng(5);
  FaultInjection f;
  f.probability = 1.0; // a flip in every GEMM, any of the 32 bits
  f.seed = 11;
  AbftGuard guard(AbftMode::Fail, f);
  uint64_t detections = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Shape &s = kShapes[trial % 6];
    auto param = randomVector(size_t(s.in) * s.out + s.out, s.scale, rng);
    auto x = randomVector(size_t(s.batch) * s.in, s.scale, rng);
    auto dZ = randomVector(size_t(s.batch) * s.out, s.scale, rng);
    std::vector<float> y(size_t(s.batch) * s.out), g(param.size()),
        dx(x.size());
    AbftFault fault;
    detections += !guard.forward(s.in, s.out, s.batch, param.data(),
                                 x.data(), y.data(), true, fault);
    detections += !guard.backward(s.in, s.out, s.batch, param.data(),
                                  x.data(), dZ.data(), g.data(), dx.data(),
                                  fault);
  }
  const AbftStats &st = guard.stats();
  EXPECT_GE(st.injected, 800u);
  // The detection rate over flips rounding cannot hide: 100%.
  EXPECT_EQ(st.detectedInjected, st.injectedDetectable);
  // Sign, exponent and high mantissa bits: most flips are detectable.
  EXPECT_GT(st.injectedDetectable, st.injected / 2);
  EXPECT_LE(st.detected, st.injected); // no alarm without a flip
  EXPECT_GE(detections, st.injectedDetectable / 2);
}

TEST(Abft, RecomputeCorrectsFaultsRetriesAreBounded) {
  std::mt19937_64 rng(9);
  const Shape s = kShapes[2];
  auto param = randomVector(size_t(s.in) * s.out + s.out, 1.0f, rng);
  auto x = randomVector(size_t(s.batch) * s.in, 1.0f, rng);
  std::vector<float> want(size_t(s.batch) * s.out), y(want.size());
  forwardLayer(s.in, s.out, s.batch, param.data(), x.data(), want.data(),
               true);
  FaultInjection f;
  f.probability = 1.0;
  f.minBit = 30; // the top exponent bit: always far above the threshold
  f.maxBit = 30;
  AbftGuard always(AbftMode::Recompute, f, 3);
  AbftFault fault;
  EXPECT_FALSE(always.forward(s.in, s.out, s.batch, param.data(), x.data(),
                              y.data(), true, fault));
  EXPECT_EQ(always.stats().gemms, 4u); // the GEMM and 3 recomputes
  EXPECT_NE(fault.where.find("forward output"), std::string::npos);
  f.probability = 0.5;
  AbftGuard half(AbftMode::Recompute, f, 8);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(half.forward(s.in, s.out, s.batch, param.data(), x.data(),
                             y.data(), true, fault));
    ASSERT_EQ(std::memcmp(y.data(), want.data(), y.size() * 4), 0);
  }
  EXPECT_GT(half.stats().recomputed, 10u);
  EXPECT_EQ(half.stats().detected, half.stats().recomputed);
}

TEST(Abft, InjectionOnlyInsideItsWindow) {
  FaultInjection f;
  f.probability = 1.0;
  f.windowStartNs = 3600ull * 1000000000ull; // an hour into the step
  f.windowNs = 1000000;                      // 1 ms
  AbftGuard guard(AbftMode::Fail, f);
  guard.startStep();
  std::vector<float> p(5 * 4 + 4, 0.5f), x(2 * 5, 1.0f), y(2 * 4);
  AbftFault fault;
  EXPECT_TRUE(guard.forward(5, 4, 2, p.data(), x.data(), y.data(), false,
                            fault));
  EXPECT_EQ(guard.stats().injected, 0u);
  EXPECT_EQ(FaultInjection{2.0}.check(), "the fault probability must be in [0, 1]");
}

MlpConfig smallModel() {
  MlpConfig c;
  c.widths = {24, 48, 40, 8};
  c.batch = 12;
  c.learningRate = 1e-2f;
  c.seed = 42;
  return c;
}

struct TrainRun {
  std::unique_ptr<OffloadTrainer> trainer;
  sluice_io_engine_t *engine = nullptr;
  ~TrainRun() {
    trainer.reset();
    sluice_io_engine_destroy(engine);
  }
};

sluice_status_t startRun(TrainRun &r, const ScratchDir &dir, AbftMode mode,
                         FaultInjection faults, bool restore,
                         sluice_error_t *err) {
  if (!r.engine) {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = SLUICE_IO_BACKEND_THREADS;
    o.block_size = 8192;
    if (sluice_io_engine_create(&o, &r.engine, err) != SLUICE_STATUS_OK)
      return SLUICE_STATUS_INTERNAL;
  }
  OffloadOptions o;
  o.swapDir = dir.path;
  o.engine = r.engine;
  o.schedule = OffloadSchedule::swapAll(3, 1);
  o.abft = mode;
  o.faults = faults;
  o.abftRetries = 8; // 0.3^9: a GEMM faulty nine times in a row is rare
  r.trainer.reset();
  return restore ? OffloadTrainer::restore(smallModel(), o, r.trainer, err)
                 : OffloadTrainer::create(smallModel(), o, r.trainer, err);
}

std::vector<float> referenceParams(int steps, uint32_t layer) {
  ReferenceTrainer ref(smallModel());
  for (int s = 0; s < steps; ++s)
    ref.step();
  return ref.params(layer);
}

TEST(AbftTrainer, RecomputeTrainsToTheReferenceBitsUnderFaults) {
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  FaultInjection f;
  f.probability = 0.3;
  f.minBit = 23; // exponent and sign: always detectable
  ASSERT_EQ(startRun(r, dir, AbftMode::Recompute, f, false, &err),
            SLUICE_STATUS_OK)
      << err.message;
  for (int s = 0; s < 8; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  const AbftStats &st = r.trainer->stats().abft;
  EXPECT_GT(st.injected, 10u);
  // Every flip rounding cannot hide is caught (an exponent flip of a tiny
  // value, e.g. -0 from 0, may change nothing that matters) and redone.
  EXPECT_EQ(st.detectedInjected, st.injectedDetectable);
  EXPECT_GT(st.detected, st.injected * 9 / 10);
  EXPECT_EQ(st.recomputed, st.detected);
  for (uint32_t l = 0; l < 3; ++l) {
    std::vector<float> got;
    ASSERT_EQ(r.trainer->params(l, got, &err), SLUICE_STATUS_OK);
    auto want = referenceParams(8, l);
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << l;
  }
}

TEST(AbftTrainer, UncheckedFaultsCorruptTheModelSilently) {
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  FaultInjection f;
  f.probability = 0.3;
  f.minBit = 23;
  ASSERT_EQ(startRun(r, dir, AbftMode::Off, f, false, &err), SLUICE_STATUS_OK);
  for (int s = 0; s < 8; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK);
  EXPECT_GT(r.trainer->stats().abft.injected, 10u);
  bool differs = false;
  for (uint32_t l = 0; l < 3; ++l) {
    std::vector<float> got;
    ASSERT_EQ(r.trainer->params(l, got, &err), SLUICE_STATUS_OK);
    auto want = referenceParams(8, l);
    differs |= std::memcmp(got.data(), want.data(), got.size() * 4) != 0;
  }
  EXPECT_TRUE(differs);
}

TEST(AbftTrainer, FailModeFailsTheStepAndKeepsTheCommittedState) {
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  ASSERT_EQ(startRun(r, dir, AbftMode::Fail, FaultInjection{}, false, &err),
            SLUICE_STATUS_OK);
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK);
  // Faults from now on: step 4 fails with a located message.
  FaultInjection f;
  f.probability = 1.0;
  f.minBit = 30;
  f.maxBit = 30;
  ASSERT_EQ(startRun(r, dir, AbftMode::Fail, f, true, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_DATA_CORRUPT);
  const std::string msg = err.message;
  EXPECT_NE(msg.find("training step 4 failed (the committed state of step 3 "
                     "is intact)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("computation fault in the forward of layer 0"),
            std::string::npos)
      << msg;
  // Restored without faults, training continues to the reference bits.
  ASSERT_EQ(startRun(r, dir, AbftMode::Fail, FaultInjection{}, true, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(r.trainer->committedSteps(), 3u);
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  for (uint32_t l = 0; l < 3; ++l) {
    std::vector<float> got;
    ASSERT_EQ(r.trainer->params(l, got, &err), SLUICE_STATUS_OK);
    auto want = referenceParams(6, l);
    ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0) << l;
  }
}

} // namespace
