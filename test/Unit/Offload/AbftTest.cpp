//===- AbftTest.cpp - Checked GEMMs and injected computation faults -------===//
//
// The checksummed layer kernels of Abft.h: the same bits as the plain
// kernels, no false alarm on random layers of many shapes and magnitudes,
// every injected bit flip above the rounding threshold detected (over all
// 32 bits), lower-triangular strided products (causal attention); the
// transformer's GEMMs all checked (counted in closed form, a fault in each
// detected and named), no false alarm on odd shapes; and the offload
// trainer under injected faults, on each model of TrainModels.h: with
// `recompute` it trains to exactly the reference's bits, with `fail` the
// faulty step fails cleanly, the committed state is intact and training
// resumes to the same bits; without checks the faults corrupt the model;
// the schedule's "abft" key turns the checks on.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Abft.h"
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Offload/TrainModels.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <iterator>
#include <random>
#include <set>

using namespace sluice::train;
using namespace sluice::test;

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

TEST(Abft, LinearBackwardIsTheUnmaskedKernel) {
  std::mt19937_64 rng(4);
  AbftGuard guard(AbftMode::Fail, FaultInjection{});
  for (const Shape &s : kShapes) {
    auto param = randomVector(size_t(s.in) * s.out + s.out, s.scale, rng);
    auto x = randomVector(size_t(s.batch) * s.in, s.scale, rng);
    auto dZ = randomVector(size_t(s.batch) * s.out, s.scale, rng);
    std::vector<float> g1(param.size()), g2(param.size()), dx1(x.size()),
        dx2(x.size());
    backwardLayer(s.in, s.out, s.batch, param.data(), x.data(), dZ.data(),
                  g1.data(), nullptr);
    inputGradient(s.in, s.out, s.batch, param.data(), dZ.data(), dx1.data());
    AbftFault fault;
    ASSERT_TRUE(guard.linearBackward(s.in, s.out, s.batch, param.data(),
                                     x.data(), dZ.data(), g2.data(), dx2.data(),
                                     fault))
        << fault.where;
    EXPECT_EQ(std::memcmp(g1.data(), g2.data(), g1.size() * 4), 0);
    EXPECT_EQ(std::memcmp(dx1.data(), dx2.data(), dx1.size() * 4), 0);
  }
  EXPECT_EQ(guard.stats().gemms, 2 * std::size(kShapes));
  EXPECT_EQ(guard.stats().detected, 0u);
}

/// Causal attention scores S = Q K^T scale (lower triangle), Q and K
/// strided rows of a fused QKV buffer, written by a plain loop: no false
/// alarm; a wrong kernel (one that forgets the diagonal's last term) is
/// caught; the upper triangle (NaN here) is neither read nor hit by an
/// injected flip; every flip above the threshold is detected.
TEST(Abft, LowerTriangularStridedProducts) {
  std::mt19937_64 rng(6);
  const size_t T = 13, hd = 6, ld = 3 * hd + 5;
  const float scale = 1.0f / std::sqrt(float(hd));
  auto qk = randomVector(T * ld, 2.0f, rng);
  const float *q = qk.data(), *k = qk.data() + hd;
  std::vector<float> S(T * T);
  Product p;
  p.a = {q, ld, 1};
  p.b = {k, 1, ld};
  p.scale = scale;
  p.c = S.data();
  p.rows = p.cols = p.ldc = T;
  p.inner = hd;
  p.terms = hd + 1;
  p.lower = true;
  p.what = "attention scores";
  auto scores = [&](size_t drop) {
    return [&, drop] {
      for (size_t t = 0; t < T; ++t)
        for (size_t u = 0; u <= t; ++u) {
          float dot = 0;
          for (size_t i = 0; i + (u == t ? drop : 0) < hd; ++i)
            dot += q[t * ld + i] * k[u * ld + i];
          S[t * T + u] = dot * scale;
        }
    };
  };
  auto upperIsNaN = [&] {
    for (size_t t = 0; t < T; ++t)
      for (size_t u = t + 1; u < T; ++u)
        if (!std::isnan(S[t * T + u]))
          return false;
    return true;
  };
  std::fill(S.begin(), S.end(), NAN);
  AbftGuard clean(AbftMode::Fail, FaultInjection{});
  AbftFault fault;
  EXPECT_TRUE(clean.product(scores(0), p, fault)) << fault.where;
  EXPECT_TRUE(upperIsNaN());
  EXPECT_FALSE(clean.product(scores(1), p, fault));
  EXPECT_NE(fault.where.find("of the attention scores"), std::string::npos)
      << fault.where;
  FaultInjection f;
  f.probability = 1.0;
  f.seed = 2;
  AbftGuard guard(AbftMode::Fail, f);
  for (int trial = 0; trial < 300; ++trial)
    guard.product(scores(0), p, fault);
  EXPECT_TRUE(upperIsNaN());
  const AbftStats &st = guard.stats();
  EXPECT_EQ(st.injected, 300u);
  EXPECT_EQ(st.detectedInjected, st.injectedDetectable);
  EXPECT_GT(st.injectedDetectable, st.injected / 3);
  EXPECT_LE(st.detected, st.injected);
}

/// The transformer with checks on odd shapes (one head; four heads and an
/// odd sequence; one position; a wide vocabulary): no false alarm over
/// training steps, the same bits as unchecked training.
TEST(AbftTransformer, NoFalseAlarmAndTheSameBitsOnOddShapes) {
  std::vector<TransformerConfig> shapes(4, smallTransformerConfig());
  shapes[0].heads = 1;
  shapes[1].heads = 4;
  shapes[1].seq = 9;
  shapes[1].ffn = 12;
  shapes[2].seq = 1;
  shapes[3].vocab = 200;
  shapes[3].dModel = 24;
  shapes[3].blocks = 1;
  for (const TransformerConfig &c : shapes) {
    const TransformerModel model(c);
    auto want = referenceRun(model, 4);
    Engine e;
    ScratchDir dir;
    OffloadOptions o =
        optionsFor(dir, e.engine, OffloadSchedule::keepAll(c.layers()));
    o.abft = AbftMode::Fail;
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(model, o, t, &err), SLUICE_STATUS_OK)
        << err.message;
    for (int s = 0; s < 4; ++s)
      ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
    EXPECT_GT(t->stats().abft.gemms, 0u);
    expectBitEqual(*t, want[4], "checked training");
  }
}

/// The transformer block's GEMMs under the guard: how many go through it
/// per step (a closed form), and a fault in each of them detected and
/// named (seeds searched until every GEMM has failed once).
TEST(AbftTransformer, EveryGemmIsCheckedAndNamed) {
  const TransformerConfig c = smallTransformerConfig();
  const uint64_t BH = uint64_t(c.batch) * c.heads;
  {
    // Per block: forward 4 projections + 2 BH attention products, again
    // in the backward (recomputed), + 2 x 4 projection gradients + 4 BH
    // attention gradients; the head: forward, forward again and 2.
    Engine e;
    ScratchDir dir;
    std::unique_ptr<OffloadTrainer> trainer;
    sluice_error_t err;
    OffloadOptions o =
        optionsFor(dir, e.engine, OffloadSchedule::keepAll(c.layers()));
    o.abft = AbftMode::Fail;
    ASSERT_EQ(OffloadTrainer::create(TransformerModel(c), o, trainer, &err),
              SLUICE_STATUS_OK)
        << err.message;
    ASSERT_EQ(trainer->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
    EXPECT_EQ(trainer->stats().abft.gemms,
              c.blocks * (2 * (4 + 2 * BH) + 8 + 4 * BH) + 4);
    EXPECT_EQ(trainer->stats().abft.detected, 0u);
  }
  const TransformerModel model(c);
  std::vector<float> param(c.paramCount(1));
  model.initParams(1, param.data());
  std::mt19937_64 rng(8);
  auto x = randomVector(c.rows() * c.dModel, 1.0f, rng);
  auto dOut = randomVector(c.rows() * c.dModel, 0.1f, rng);
  const std::set<std::string> want = {
      "QKV projection / forward output",
      "QKV projection / weight gradient",
      "QKV projection / input gradient",
      "attention output projection / forward output",
      "attention output projection / weight gradient",
      "attention output projection / input gradient",
      "MLP up-projection / forward output",
      "MLP up-projection / weight gradient",
      "MLP up-projection / input gradient",
      "MLP down-projection / forward output",
      "MLP down-projection / weight gradient",
      "MLP down-projection / input gradient",
      "attention / attention scores",
      "attention / attention output",
      "attention / probability gradient",
      "attention / value gradient",
      "attention / query gradient",
      "attention / key gradient"};
  std::set<std::string> seen;
  for (uint64_t seed = 1; seed <= 5000 && seen.size() < want.size(); ++seed) {
    FaultInjection f;
    f.probability = 0.03;
    f.minBit = f.maxBit = 30; // far above any threshold
    f.seed = seed;
    AbftGuard g(AbftMode::Fail, f);
    BlockScratch s;
    std::vector<float> out(x.size()), grad(param.size()), dX(x.size());
    AbftFault fault;
    if (blockForward(c, param.data(), x.data(), s, out.data(), g, fault) &&
        blockBackward(c, param.data(), s, dOut.data(), grad.data(), dX.data(),
                      g, fault)) {
      EXPECT_EQ(g.stats().injected, 0u);
      continue;
    }
    ASSERT_EQ(g.stats().detected, 1u);
    const std::string &w = fault.where;
    const size_t colon = w.find(": "), of = w.rfind(" of the ");
    ASSERT_NE(colon, std::string::npos) << w;
    ASSERT_NE(of, std::string::npos) << w;
    const std::string gemm = w.compare(0, 22, "attention of sequence ") == 0
                                 ? "attention"
                                 : w.substr(0, colon);
    seen.insert(gemm + " / " + w.substr(of + 8));
  }
  EXPECT_EQ(seen, want);
}

struct TrainRun {
  std::unique_ptr<OffloadTrainer> trainer;
  Engine engine;
};

sluice_status_t startRun(TrainRun &r, const ScratchDir &dir,
                         const TrainModel &model, AbftMode mode,
                         FaultInjection faults, bool restore,
                         sluice_error_t *err) {
  OffloadOptions o = optionsFor(dir, r.engine.engine,
                                OffloadSchedule::swapAll(model.layers(), 1));
  o.abft = mode;
  o.faults = faults;
  o.abftRetries = 8; // 0.3^9: a GEMM faulty nine times in a row is rare
  r.trainer.reset();
  return restore ? OffloadTrainer::restore(model, o, r.trainer, err)
                 : OffloadTrainer::create(model, o, r.trainer, err);
}

class AbftTrainer : public testing::TestWithParam<ModelCase> {
protected:
  std::unique_ptr<TrainModel> model() const { return GetParam().make(); }
};

TEST_P(AbftTrainer, RecomputeTrainsToTheReferenceBitsUnderFaults) {
  const auto m = model();
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  FaultInjection f;
  f.probability = 0.3;
  f.minBit = 23; // exponent and sign: always detectable
  ASSERT_EQ(startRun(r, dir, *m, AbftMode::Recompute, f, false, &err),
            SLUICE_STATUS_OK)
      << err.message;
  std::vector<float> losses;
  auto want = referenceRun(*m, 8, &losses);
  for (int s = 0; s < 8; ++s) {
    float loss = 0;
    ASSERT_EQ(r.trainer->step(&loss, &err), SLUICE_STATUS_OK) << err.message;
    EXPECT_EQ(std::memcmp(&loss, &losses[s], sizeof loss), 0) << s;
  }
  const AbftStats &st = r.trainer->stats().abft;
  EXPECT_GT(st.injected, 10u);
  // Every flip rounding cannot hide is caught (an exponent flip of a tiny
  // value, e.g. -0 from 0, may change nothing that matters) and redone.
  EXPECT_EQ(st.detectedInjected, st.injectedDetectable);
  EXPECT_GT(st.detected, st.injected * 9 / 10);
  EXPECT_EQ(st.recomputed, st.detected);
  expectBitEqual(*r.trainer, want[8], "recompute under faults");
}

TEST_P(AbftTrainer, UncheckedFaultsCorruptTheModelSilently) {
  const auto m = model();
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  FaultInjection f;
  f.probability = 0.3;
  f.minBit = 23;
  ASSERT_EQ(startRun(r, dir, *m, AbftMode::Off, f, false, &err),
            SLUICE_STATUS_OK);
  for (int s = 0; s < 8; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK);
  EXPECT_GT(r.trainer->stats().abft.injected, 10u);
  EXPECT_EQ(r.trainer->stats().abft.detected, 0u);
  auto want = referenceRun(*m, 8);
  bool differs = false;
  for (uint32_t l = 0; l < m->layers(); ++l) {
    std::vector<float> got;
    ASSERT_EQ(r.trainer->params(l, got, &err), SLUICE_STATUS_OK);
    differs |= std::memcmp(got.data(), want[8][l].data(), got.size() * 4) != 0;
  }
  EXPECT_TRUE(differs);
}

TEST_P(AbftTrainer, FailModeFailsTheStepAndKeepsTheCommittedState) {
  const auto m = model();
  auto want = referenceRun(*m, 6);
  ScratchDir dir;
  TrainRun r;
  sluice_error_t err;
  ASSERT_EQ(startRun(r, dir, *m, AbftMode::Fail, FaultInjection{}, false, &err),
            SLUICE_STATUS_OK);
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK);
  EXPECT_EQ(r.trainer->stats().abft.detected, 0u); // no false alarm
  // Faults from now on: step 4 fails with a located message.
  FaultInjection f;
  f.probability = 1.0;
  f.minBit = 30;
  f.maxBit = 30;
  ASSERT_EQ(startRun(r, dir, *m, AbftMode::Fail, f, true, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_DATA_CORRUPT);
  const std::string msg = err.message;
  EXPECT_NE(msg.find("training step 4 failed (the committed state of step 3 "
                     "is intact)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("computation fault in the forward of layer " +
                     std::to_string(GetParam().firstGemmLayer) + ": "),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(checksum "), std::string::npos) << msg;
  EXPECT_EQ(r.trainer->stats().abft.detected, 1u);
  EXPECT_EQ(r.trainer->committedSteps(), 3u);
  EXPECT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_FAILED_PRECONDITION);
  // Restored without faults: the store holds step 3 bit for bit, and
  // training continues to the reference bits.
  ASSERT_EQ(startRun(r, dir, *m, AbftMode::Fail, FaultInjection{}, true, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(r.trainer->committedSteps(), 3u);
  expectBitEqual(*r.trainer, want[3], "restored after the failed step");
  for (int s = 0; s < 3; ++s)
    ASSERT_EQ(r.trainer->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
  expectBitEqual(*r.trainer, want[6], "resumed");
}

/// The schedule's "abft" key (what sluice-plan-offload --abft writes)
/// turns the checks on when the options leave them off; recompute then
/// trains through injected faults to the reference bits.
TEST_P(AbftTrainer, TheScheduleTurnsTheChecksOn) {
  const auto m = model();
  auto want = referenceRun(*m, 3);
  for (AbftMode mode : {AbftMode::Off, AbftMode::Recompute}) {
    ScratchDir dir;
    Engine e;
    OffloadOptions o =
        optionsFor(dir, e.engine, OffloadSchedule::swapAll(m->layers(), 1));
    o.schedule.abft = mode;
    o.faults.probability = 0.3;
    o.faults.minBit = 23;
    o.abftRetries = 8;
    std::unique_ptr<OffloadTrainer> t;
    sluice_error_t err;
    ASSERT_EQ(OffloadTrainer::create(*m, o, t, &err), SLUICE_STATUS_OK)
        << err.message;
    for (int s = 0; s < 3; ++s)
      ASSERT_EQ(t->step(nullptr, &err), SLUICE_STATUS_OK) << err.message;
    const AbftStats &st = t->stats().abft;
    EXPECT_GT(st.injected, 3u) << abftModeName(mode);
    if (mode == AbftMode::Off) {
      EXPECT_EQ(st.detected, 0u);
      EXPECT_EQ(st.checkNs, 0u);
      continue;
    }
    EXPECT_GT(st.detected, 0u);
    EXPECT_EQ(st.recomputed, st.detected);
    expectBitEqual(*t, want[3], "schedule abft recompute");
  }
}

INSTANTIATE_TEST_SUITE_P(Models, AbftTrainer, testing::ValuesIn(trainModels()),
                         modelName);

} // namespace
