//===- AdversarialTest.cpp - PGD, DBAC and PeerAiD on the MLP -------------===//
//
// The input gradient against central finite differences (in double, from
// the same weights); PGD stays in the epsilon ball and the input range and
// raises the loss above the clean input's and the random start's; DBAC's
// attacked samples match the cost model's; training is deterministic and
// PeerAiD trains its peer; the cost model's epoch against hand-computed
// sums.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Adversarial.h"

#include "compiler/Analysis/Model/AdversarialCost.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace sluice::train;
namespace adv = sluice::adversarial;

namespace {

MlpConfig tiny() {
  MlpConfig c;
  c.widths = {6, 10, 8, 3};
  c.batch = 4;
  c.seed = 5;
  return c;
}

/// The loss of `net` at x in double precision, from its float weights
/// (an independent forward: no Mlp.h kernel).
double lossAt(const Net &net, const std::vector<double> &x,
              const std::vector<float> &target, uint32_t rows) {
  const MlpConfig &c = net.config();
  std::vector<double> a = x;
  for (uint32_t l = 0; l < c.layers(); ++l) {
    const uint32_t in = c.widths[l], out = c.widths[l + 1];
    const std::vector<float> &p = net.params(l);
    std::vector<double> y(size_t(rows) * out);
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t o = 0; o < out; ++o) {
        double acc = p[size_t(in) * out + o];
        for (uint32_t k = 0; k < in; ++k)
          acc += a[size_t(r) * in + k] * double(p[size_t(k) * out + o]);
        y[size_t(r) * out + o] = l + 1 < c.layers() ? std::max(acc, 0.0) : acc;
      }
    a.swap(y);
  }
  double loss = 0;
  for (size_t i = 0; i < a.size(); ++i)
    loss += 0.5 * (a[i] - target[i]) * (a[i] - target[i]);
  return loss / double(a.size());
}

TEST(AdversarialTest, InputGradientMatchesFiniteDifferences) {
  MlpConfig c = tiny();
  Net net(c, c.batch);
  std::vector<float> x(c.batch * 6), t(c.batch * 3), y(t.size()), dY(t.size()),
      g(x.size());
  makeBatch(c, 1, x.data(), t.data());
  net.forward(0, c.batch, x.data(), y.data());
  regressionLoss(y.data(), t.data(), y.size(), dY.data());
  net.inputGradient(0, c.batch, dY.data(), g.data());
  const double h = 1e-5;
  int checked = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    std::vector<double> xp(x.begin(), x.end()), xm = xp;
    xp[i] += h;
    xm[i] -= h;
    const double fd =
        (lossAt(net, xp, t, c.batch) - lossAt(net, xm, t, c.batch)) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-4 + 1e-3 * std::fabs(fd)) << "input " << i;
    checked += std::fabs(fd) > 1e-4;
  }
  EXPECT_GT(checked, int(x.size()) / 2); // not a vacuous comparison
}

TEST(AdversarialTest, AccumulatedBackwardIsTheSum) {
  MlpConfig c = tiny();
  Net a(c, c.batch), b(c, c.batch);
  std::vector<float> x1(c.batch * 6), x2(x1.size()), t(c.batch * 3),
      y(t.size()), d1(t.size()), d2(t.size());
  makeBatch(c, 1, x1.data(), t.data());
  makeBatch(c, 2, x2.data(), t.data());
  a.forward(0, c.batch, x1.data(), y.data());
  regressionLoss(y.data(), t.data(), y.size(), d1.data());
  a.forward(1, c.batch, x2.data(), y.data());
  regressionLoss(y.data(), t.data(), y.size(), d2.data());
  a.backward(0, c.batch, d1.data(), false);
  a.backward(1, c.batch, d2.data(), true);
  // b: each gradient alone, summed here.
  std::vector<std::vector<float>> g1;
  b.forward(0, c.batch, x1.data(), y.data());
  b.backward(0, c.batch, d1.data(), false);
  for (uint32_t l = 0; l < c.layers(); ++l)
    g1.push_back(b.gradients(l));
  b.forward(0, c.batch, x2.data(), y.data());
  b.backward(0, c.batch, d2.data(), false);
  for (uint32_t l = 0; l < c.layers(); ++l)
    for (size_t i = 0; i < g1[l].size(); ++i)
      ASSERT_EQ(a.gradients(l)[i], g1[l][i] + b.gradients(l)[i])
          << "layer " << l << " value " << i;
}

TEST(AdversarialTest, PgdStaysInTheBallAndRaisesTheLoss) {
  MlpConfig c = tiny();
  c.batch = 16;
  Net net(c, c.batch);
  std::vector<float> x(c.batch * 6), t(c.batch * 3), adv(x.size()),
      start(x.size()), y(t.size()), dY(t.size());
  makeBatch(c, 3, x.data(), t.data());
  auto loss = [&](const std::vector<float> &in) {
    net.forward(0, c.batch, in.data(), y.data());
    return regressionLoss(y.data(), t.data(), y.size(), dY.data());
  };
  PgdParams p;
  p.epsilon = 0.2f;
  p.stepSize = 0.05f;
  p.seed = 9;
  p.steps = 0; // the random start alone
  pgdAttack(net, c.batch, x.data(), t.data(), p, start.data());
  p.steps = 10;
  pgdAttack(net, c.batch, x.data(), t.data(), p, adv.data());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_LE(std::fabs(adv[i] - x[i]), p.epsilon + 1e-6f) << i;
    EXPECT_GE(adv[i], -1.0f);
    EXPECT_LE(adv[i], 1.0f);
  }
  const float clean = loss(x), random = loss(start), attacked = loss(adv);
  EXPECT_GT(attacked, clean * 1.03f); // measured: +4.6%
  EXPECT_GT(attacked, random);
  // More steps do not lose the ball either.
  p.steps = 50;
  pgdAttack(net, c.batch, x.data(), t.data(), p, adv.data());
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_LE(std::fabs(adv[i] - x[i]), p.epsilon + 1e-6f);
}

AdversarialConfig run(uint32_t pgd) {
  AdversarialConfig a;
  a.student = tiny();
  a.student.batch = 8;
  a.pgdSteps = pgd;
  a.steps = 12;
  return a;
}

TEST(AdversarialTest, AttackedSamplesMatchTheCostModel) {
  AdversarialConfig a = run(3);
  a.fractionStart = 0.1f;
  a.fractionEnd = 0.9f;
  a.steps = 37;
  adv::AttackSpec s;
  s.technique = adv::Technique::Dbac;
  s.steps = 3;
  s.fractionStart = a.fractionStart;
  s.fractionEnd = a.fractionEnd;
  uint64_t total = 0;
  for (uint64_t i = 0; i < a.steps; ++i) {
    EXPECT_EQ(
        attackedSamples(a, i),
        adv::attackedSamples(s, a.student.batch, int64_t(i), int64_t(a.steps)))
        << i;
    total += attackedSamples(a, i);
  }
  EXPECT_EQ(attackedSamples(a, 0), 1u);  // round(0.1 x 8)
  EXPECT_EQ(attackedSamples(a, 36), 7u); // round(0.9 x 8)
  AdversarialTrainer trainer(a);
  EXPECT_EQ(trainer.epoch().attacked, total);
}

std::vector<float> allParams(const Net &n) {
  std::vector<float> all;
  for (uint32_t l = 0; l < n.layers(); ++l)
    all.insert(all.end(), n.params(l).begin(), n.params(l).end());
  return all;
}

TEST(AdversarialTest, TrainingIsDeterministic) {
  for (uint32_t pseudo : {1u, 3u}) {
    AdversarialConfig a = run(4);
    a.fractionStart = 0.25f;
    a.pseudoBatches = pseudo;
    a.peerWidths = {6, 12, 3};
    ASSERT_EQ(a.check(), "");
    AdversarialTrainer t1(a), t2(a);
    EpochStats s1 = t1.epoch(), s2 = t2.epoch();
    EXPECT_EQ(s1.meanLoss, s2.meanLoss);
    EXPECT_EQ(allParams(t1.student()), allParams(t2.student()));
    EXPECT_EQ(allParams(*t1.peer()), allParams(*t2.peer()));
  }
}

TEST(AdversarialTest, PeerIsTrainedAndTheAttackChangesTraining) {
  AdversarialConfig a = run(3);
  a.peerWidths = {6, 12, 3};
  AdversarialTrainer peer(a);
  std::vector<float> before = allParams(*peer.peer());
  peer.epoch();
  EXPECT_NE(allParams(*peer.peer()), before);
  AdversarialTrainer plain(run(0)), attacked(run(3));
  EpochStats p = plain.epoch(), q = attacked.epoch();
  EXPECT_EQ(p.attacked, 0u);
  EXPECT_EQ(q.attacked, 12u * 8u);
  EXPECT_NE(allParams(plain.student()), allParams(attacked.student()));
  // The adversarial batches are harder: a higher training loss.
  EXPECT_GT(q.meanLoss, p.meanLoss);
}

TEST(AdversarialTest, ConfigErrorsSayWhat) {
  AdversarialConfig a = run(3);
  a.peerWidths = {5, 3};
  EXPECT_EQ(a.check(), "the peer's input and output widths (5, 3) differ "
                       "from the student's (6, 3)");
  a = run(0);
  a.peerWidths = {6, 3};
  EXPECT_EQ(a.check(),
            "PeerAiD needs PGD steps (the peer learns adversarial examples)");
  a = run(3);
  a.fractionEnd = 1.5f;
  EXPECT_EQ(a.check(), "an attacked fraction is outside 0..1");
}

TEST(AdversarialCostTest, EpochMatchesHandSums) {
  adv::PassCosts s{1.0, 0.5, 2.0, 10.0}, p{4.0, 2.0, 8.0, 3.0};
  adv::AttackSpec none;
  adv::EpochCost c = adv::epochCost(s, p, none, 4, 3);
  EXPECT_DOUBLE_EQ(c.seconds, 3 * (4 * 3.0 + 10.0));
  EXPECT_DOUBLE_EQ(c.plainSeconds, c.seconds);
  adv::AttackSpec pgd;
  pgd.technique = adv::Technique::Pgd;
  pgd.steps = 2;
  c = adv::epochCost(s, p, pgd, 4, 3);
  // Each step: 4 samples x 2 steps x (1.0 + 0.5) = 12 s of attack.
  EXPECT_DOUBLE_EQ(c.attackSeconds, 36.0);
  EXPECT_DOUBLE_EQ(c.seconds, 66.0 + 36.0);
  adv::AttackSpec dbac = pgd;
  dbac.technique = adv::Technique::Dbac;
  dbac.fractionStart = 0;
  dbac.fractionEnd = 1;
  c = adv::epochCost(s, p, dbac, 4, 3);
  EXPECT_EQ(c.attacked, 0 + 2 + 4);
  EXPECT_DOUBLE_EQ(c.attackSeconds, 6 * 3.0);
  adv::AttackSpec peer = pgd;
  peer.technique = adv::Technique::PeerAid;
  c = adv::epochCost(s, p, peer, 4, 3);
  // Per step: peer clean forward 4 x 4, peer forward+backward 4 x 12,
  // peer optimizer 3; the student's second forward+backward 4 x 3.
  EXPECT_DOUBLE_EQ(c.peerSeconds, 3 * (16.0 + 48.0 + 3.0));
  EXPECT_DOUBLE_EQ(c.seconds, 66.0 + 36.0 + c.peerSeconds + 3 * 12.0);
  adv::AttackSpec bad = pgd;
  bad.steps = 0;
  EXPECT_EQ(bad.check(), "PGD steps 0 are outside 1..1000");
}

} // namespace
