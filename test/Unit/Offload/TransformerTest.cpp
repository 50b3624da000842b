//===- TransformerTest.cpp - The fp32 transformer against references ------===//
//
// The forward pass and loss against an independent naive double-precision
// implementation (TransformerReference.h) on several shapes, before and
// after training; every layer's parameter gradient (which also checks the
// input gradients of every layer above it) against central differences of
// that reference; the loss decreases on the copy task; configuration
// errors.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Transformer.h"

#include "test/Unit/Offload/TransformerReference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace sluice::train;
using sluice::test::NaiveTransformer;

namespace {

TransformerConfig tiny() {
  TransformerConfig c;
  c.vocab = 11;
  c.seq = 6;
  c.dModel = 8;
  c.heads = 2;
  c.ffn = 12;
  c.blocks = 2;
  c.batch = 2;
  c.seed = 7;
  return c;
}

NaiveTransformer naiveOf(const TransformerConfig &c, const InMemoryTrainer &t) {
  NaiveTransformer n{
      int(c.vocab),  int(c.seq), int(c.dModel), int(c.heads), int(c.ffnWidth()),
      int(c.blocks), {}};
  for (uint32_t l = 0; l < c.layers(); ++l)
    n.params.emplace_back(t.params(l).begin(), t.params(l).end());
  return n;
}

struct Shape {
  const char *name;
  TransformerConfig config;
};

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  out.push_back({"tiny", tiny()});
  TransformerConfig c = tiny();
  c.heads = 1;
  c.blocks = 1;
  out.push_back({"one head, one block", c});
  c = tiny();
  c.heads = 4;
  c.seq = 9;
  c.blocks = 3;
  c.ffn = 0; // 4 * d
  out.push_back({"four heads, three blocks, odd seq", c});
  c = tiny();
  c.seq = 1;
  c.batch = 3;
  out.push_back({"one position", c});
  return out;
}

TEST(Transformer, ForwardMatchesIndependentReference) {
  for (const Shape &shape : shapes()) {
    const TransformerConfig &c = shape.config;
    ASSERT_EQ(c.check(), "") << shape.name;
    TransformerModel model(c);
    InMemoryTrainer t(model);
    for (int round = 0; round < 2; ++round) {
      // Round 0: the initial parameters; round 1: after 15 Adam steps,
      // when the parameters are no longer the structured initial ones.
      if (round == 1)
        for (int s = 0; s < 15; ++s)
          t.step();
      const uint64_t step = t.steps() + 1;
      const float got = t.lossAndGradients(step);
      std::vector<uint32_t> in, tg;
      makeSequences(c, step, in, tg);
      const double want = naiveOf(c, t).loss(in, tg);
      // fp32 kernels against double: rounding only (~1e-6 relative).
      EXPECT_NEAR(got, want, 2e-5 * std::max(1.0, std::abs(want)))
          << shape.name << " round " << round;
    }
  }
}

TEST(Transformer, GradientsMatchCentralDifferences) {
  for (const Shape &shape : shapes()) {
    const TransformerConfig &c = shape.config;
    TransformerModel model(c);
    InMemoryTrainer t(model);
    for (int s = 0; s < 5; ++s) // away from the symmetric initial state
      t.step();
    const uint64_t step = t.steps() + 1;
    t.lossAndGradients(step);
    std::vector<uint32_t> in, tg;
    makeSequences(c, step, in, tg);
    NaiveTransformer ref = naiveOf(c, t);
    for (uint32_t l = 0; l < c.layers(); ++l) {
      const std::vector<float> &g = t.grads(l);
      float gmax = 0;
      for (float v : g)
        gmax = std::max(gmax, std::abs(v));
      ASSERT_GT(gmax, 0.0f) << shape.name << " layer " << l;
      // About 60 parameters per layer, spread over every sub-tensor of
      // the layout, and every parameter of the small head norm.
      const size_t n = g.size(), stride = std::max<size_t>(1, n / 60);
      for (size_t i = 0; i < n; i += stride + (i % 3)) {
        const double h = 1e-4, saved = ref.params[l][i];
        ref.params[l][i] = saved + h;
        const double up = ref.loss(in, tg);
        ref.params[l][i] = saved - h;
        const double down = ref.loss(in, tg);
        ref.params[l][i] = saved;
        const double fd = (up - down) / (2 * h);
        // Tolerance: fp32 accumulation in the analytic gradient (1e-3 of
        // the layer's largest gradient) plus 1% relative; the double
        // central difference is exact to ~1e-8 here.
        EXPECT_NEAR(g[i], fd, 1e-3 * gmax + 1e-2 * std::abs(fd))
            << shape.name << ": layer " << l << " parameter " << i;
      }
    }
  }
}

TEST(Transformer, LossDecreasesOnTheCopyTask) {
  TransformerConfig c;
  c.vocab = 12;
  c.seq = 12;
  c.dModel = 24;
  c.heads = 3;
  c.blocks = 2;
  c.batch = 8;
  c.adam.learningRate = 1e-2f;
  InMemoryTrainer t{TransformerModel(c)};
  auto average = [&](int steps) {
    double sum = 0;
    for (int i = 0; i < steps; ++i)
      sum += t.step();
    return sum / steps;
  };
  const double first = average(5);
  // Chance is ln(12) = 2.48; the first half of each sequence cannot be
  // predicted, so copying perfectly gives about ln(12) * 5/12 = 1.04.
  EXPECT_NEAR(first, std::log(12.0), 0.4);
  average(250);
  const double last = average(10);
  EXPECT_LT(last, 0.75 * first) << "first " << first << ", last " << last;
}

TEST(Transformer, RunsAreBitReproducible) {
  const TransformerConfig c = tiny();
  InMemoryTrainer a{TransformerModel(c)}, b{TransformerModel(c)};
  for (int s = 0; s < 4; ++s) {
    float la = a.step(), lb = b.step();
    EXPECT_EQ(std::memcmp(&la, &lb, sizeof la), 0);
  }
  for (uint32_t l = 0; l < c.layers(); ++l)
    EXPECT_EQ(std::memcmp(a.params(l).data(), b.params(l).data(),
                          sizeof(float) * a.params(l).size()),
              0);
}

TEST(Transformer, SizesAndLayout) {
  TransformerConfig c = tiny();
  const size_t d = 8, f = 12;
  EXPECT_EQ(c.layers(), 4u);
  EXPECT_EQ(c.paramCount(0), (11 + 6) * d);
  EXPECT_EQ(c.paramCount(1), 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d +
                                 (d * f + f) + (f * d + d));
  EXPECT_EQ(c.paramCount(3), 2 * d + d * 11 + 11);
  EXPECT_EQ(c.activationCount(0), 12u);
  EXPECT_EQ(c.activationCount(2), 12 * d);
}

TEST(Transformer, ConfigurationErrors) {
  TransformerConfig c = tiny();
  c.heads = 3;
  EXPECT_EQ(c.check(), "heads 3 do not divide d_model 8");
  c = tiny();
  c.vocab = 1;
  EXPECT_EQ(c.check(), "vocab 1 is outside 2..65536");
  c = tiny();
  c.blocks = 0;
  EXPECT_EQ(c.check(), "blocks 0 is outside 1..1024");
  c = tiny();
  c.seq = 4096;
  c.batch = 65536;
  c.heads = 8;
  EXPECT_EQ(c.check(), "a tensor of this transformer would hold "
                       "8796093022208 floats, more than 2^32");
  c = tiny();
  c.adam.beta2 = 1.0f;
  EXPECT_EQ(c.check(), "Adam needs lr > 0, 0 <= beta < 1 and epsilon > 0");
}

TEST(Transformer, RejectsASavedTokenThatIsNotOne) {
  const TransformerConfig c = tiny();
  TransformerModel model(c);
  std::vector<float> param(c.paramCount(0)), tokens(c.rows(), 1.0f),
      out(c.activationCount(1));
  model.beginStep(1, tokens.data());
  tokens[5] = 11.0f; // vocab is 11
  AbftGuard guard(AbftMode::Off, FaultInjection{});
  AbftFault fault;
  EXPECT_FALSE(
      model.forward(0, param.data(), tokens.data(), out.data(), guard, fault));
  EXPECT_EQ(fault.where, "saved token 5 is 11.000000, not a token id below 11");
}

} // namespace
