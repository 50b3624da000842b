//===- LayerGroupsPlannerTest.cpp - Planning models whose layers differ ---===//
//
// The planners read per-layer costs (ModelCosts: groups of identical
// layers). Checks: a uniform model gives the same plans whether its costs
// come from the closed forms, from one group or from the same layers split
// into two groups; a model with two MLP widths is planned layer by layer
// (each layer's parameters, FLOPs and swap-hiding rule are its own, and its
// throughput lies between the all-narrow and all-wide models); and the
// inference LP with per-group terms is no worse than a brute-force grid
// over the placement fractions on a tiny instance.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/InferencePlanner.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace sluice;
using namespace sluice::offload;

namespace {

/// A Llama-style model of `layers` layers with MLP width `ffn`.
model::TransformerConfig llamaLike(int64_t layers, int64_t ffn,
                                   int64_t seq = 1024) {
  return model::TransformerConfig::llama(layers, 4096, 32, 8, ffn, seq, 32000);
}

/// `narrow` layers of width fn then `wide` layers of width fw.
ModelCosts mixed(int64_t narrow, int64_t fn, int64_t wide, int64_t fw,
                 int64_t seq = 1024) {
  ModelCosts a = uniformCosts(llamaLike(narrow, fn, seq));
  ModelCosts b = uniformCosts(llamaLike(wide, fw, seq));
  EXPECT_EQ(a.otherParams, b.otherParams);
  a.groups.push_back(b.groups.front());
  return a;
}

FinetunePlan finetune(const FinetuneJob &job, const Machine &m) {
  auto p = planFinetune(job, m);
  EXPECT_TRUE(static_cast<bool>(p));
  if (!p) {
    llvm::consumeError(p.takeError());
    return {};
  }
  return *p;
}

void expectSamePlan(const FinetunePlan &a, const FinetunePlan &b) {
  ASSERT_TRUE(a.feasible);
  ASSERT_TRUE(b.feasible);
  EXPECT_EQ(a.paramHome, b.paramHome);
  EXPECT_EQ(a.optimizerHome, b.optimizerHome);
  EXPECT_EQ(a.paramBuffers, b.paramBuffers);
  EXPECT_EQ(a.activations.swapped, b.activations.swapped);
  EXPECT_EQ(a.activations.layersOnHost, b.activations.layersOnHost);
  EXPECT_EQ(a.activations.layersOnNvme, b.activations.layersOnNvme);
  EXPECT_NEAR(a.iterationTime, b.iterationTime, 1e-12 * a.iterationTime);
  EXPECT_NEAR(a.modelFlops, b.modelFlops, 1e-12 * a.modelFlops);
  EXPECT_NEAR(a.peak.gpu, b.peak.gpu, 1e-9 * a.peak.gpu);
  EXPECT_NEAR(a.peak.host, b.peak.host, 1e-9 * a.peak.host);
  EXPECT_NEAR(a.links.h2d, b.links.h2d, 1e-9 * a.links.h2d);
  EXPECT_EQ(a.schedule.size(), b.schedule.size());
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    EXPECT_EQ(a.candidates[i].str(), b.candidates[i].str());
}

TEST(LayerGroups, CostsOfAUniformModelAreTheClosedForms) {
  model::TransformerConfig cfg = *modelPreset("gpt3-13b");
  ModelCosts c = uniformCosts(cfg);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.layers(), 40);
  EXPECT_EQ(c.params(),
            static_cast<double>(model::countParameters(cfg).total()));
  // Forward FLOPs of one sequence are a third of one sequence's training.
  EXPECT_NEAR(c.fwdFlops(), model::trainingFlops(cfg, 1).forward(),
              1e-12 * c.fwdFlops());
  EXPECT_EQ(c.validate(), "");
}

TEST(LayerGroups, UniformFinetuneIsTheSameHoweverItsCostsCome) {
  Machine m = Machine::rtx4090With12Nvme();
  for (const char *name : {"gpt3-13b", "gpt3-175b", "llama2-70b"}) {
    SCOPED_TRACE(name);
    model::TransformerConfig cfg = *modelPreset(name);
    FinetuneJob closed{cfg, 8, 0};
    FinetuneJob one = closed;
    one.costs = uniformCosts(cfg);
    FinetuneJob two = one;
    LayerGroup &g = two.costs->groups.front();
    LayerGroup rest = g;
    g.count = cfg.layers / 2;
    rest.count = cfg.layers - g.count;
    two.costs->groups.push_back(rest);
    FinetunePlan a = finetune(closed, m), b = finetune(one, m),
                 c = finetune(two, m);
    expectSamePlan(a, b);
    expectSamePlan(b, c);
  }
}

TEST(LayerGroups, MixedWidthsArePlannedLayerByLayer) {
  Machine m = Machine::rtx4090With12Nvme();
  const int64_t batch = 8;
  FinetuneJob job{llamaLike(32, 16384), batch, 0};
  job.costs = mixed(16, 4096, 16, 16384);
  FinetunePlan p = finetune(job, m);
  ASSERT_TRUE(p.feasible);
  const ModelCosts &c = *job.costs;
  EXPECT_NEAR(p.modelFlops, 3.0 * batch * c.fwdFlops(), 1e-12 * p.modelFlops);
  ASSERT_EQ(p.activations.perLayer.size(), 32u);

  // Every layer's own parameters and FLOPs in the schedule.
  int forwards = 0, prefetches = 0;
  for (const Action &a : p.schedule) {
    if (a.layer < 0)
      continue;
    const LayerGroup &g = c.groupOf(a.layer);
    if (a.stream == Stream::GpuCompute && a.what == "forward") {
      EXPECT_NEAR(a.flops, batch * g.fwdFlops, 1e-9 * a.flops);
      ++forwards;
    }
    if (a.stream == Stream::H2D && a.tensor == "params" &&
        a.what == "prefetch") {
      EXPECT_NEAR(a.bytes, job.precision.paramBytes * g.params,
                  1e-9 * a.bytes);
      ++prefetches;
    }
  }
  EXPECT_EQ(forwards, 32);
  if (p.paramHome != Tier::Gpu) {
    EXPECT_GT(prefetches, 0);
  }

  // Each layer's swap-out hides under its own forward compute (a planner
  // that assumed equal layers would size the narrow ones by the mean).
  const double d2h = m.d2hBandwidth, flops = m.gpuFlops();
  for (int64_t l = 0; l < 32; ++l) {
    const LayerActivations &la = p.activations.perLayer[size_t(l)];
    if (la.checkpointOnly)
      continue;
    bool any = false;
    for (bool s : la.swapped)
      any |= s;
    if (any) {
      EXPECT_LE(la.swapBytes / d2h,
                batch * c.groupOf(l).fwdFlops / flops * (1 + 1e-12))
          << "layer " << l;
    }
  }
  // Layers of a group decide alike; the groups' stored bytes differ.
  EXPECT_EQ(p.activations.perLayer[0].swapBytes,
            p.activations.perLayer[15].swapBytes);
  EXPECT_EQ(p.activations.perLayer[16].swapBytes,
            p.activations.perLayer[31].swapBytes);

  // Between the all-narrow and the all-wide model.
  FinetuneJob narrow{llamaLike(32, 4096), batch, 0};
  FinetuneJob wide{llamaLike(32, 16384), batch, 0};
  FinetunePlan pn = finetune(narrow, m), pw = finetune(wide, m);
  ASSERT_TRUE(pn.feasible && pw.feasible);
  EXPECT_LT(pn.iterationTime, p.iterationTime);
  EXPECT_LT(p.iterationTime, pw.iterationTime);
}

TEST(LayerGroups, BadCostsAreErrors) {
  FinetuneJob job{llamaLike(4, 4096), 8, 0};
  job.costs = mixed(2, 4096, 2, 8192);
  job.costs->groups[1].count = 0;
  auto p = planFinetune(job, Machine::rtx4090With12Nvme());
  ASSERT_FALSE(static_cast<bool>(p));
  EXPECT_EQ(llvm::toString(p.takeError()),
            "invalid model costs: layer group 1: count must be positive, "
            "got 0");
  InferenceJob ij{llamaLike(4, 4096), 512, 8, uniformCosts(llamaLike(4, 4096))};
  auto q = planInference(ij, Machine::t4FlexGen());
  ASSERT_FALSE(static_cast<bool>(q));
  EXPECT_EQ(llvm::toString(q.takeError()),
            "the model costs are for 1024 tokens per sequence, the prompt "
            "has 512");
}

InferencePlan infer(const InferenceJob &job, const Machine &m,
                    const InferenceOptions &o = {}) {
  auto p = planInference(job, m, o);
  EXPECT_TRUE(static_cast<bool>(p));
  if (!p) {
    llvm::consumeError(p.takeError());
    return {};
  }
  return *p;
}

TEST(LayerGroups, UniformInferenceIsTheSameHoweverItsCostsCome) {
  Machine m = Machine::t4FlexGen();
  model::TransformerConfig cfg = *modelPreset("opt-30b");
  InferenceJob closed{cfg, 512, 32};
  model::TransformerConfig at = cfg;
  at.seq = 512;
  InferenceJob one = closed;
  one.costs = uniformCosts(at);
  InferenceJob two = one;
  LayerGroup rest = two.costs->groups.front();
  two.costs->groups.front().count = 20;
  rest.count = cfg.layers - 20;
  two.costs->groups.push_back(rest);
  InferencePlan a = infer(closed, m), b = infer(one, m), c = infer(two, m);
  for (const InferencePlan *p : {&b, &c}) {
    ASSERT_TRUE(p->feasible);
    EXPECT_EQ(p->policy.gpuBatch, a.policy.gpuBatch);
    EXPECT_EQ(p->policy.numGpuBatches, a.policy.numGpuBatches);
    EXPECT_NEAR(p->tokensPerSecond, a.tokensPerSecond,
                1e-6 * a.tokensPerSecond);
    EXPECT_NEAR(p->policy.weights.gpu, a.policy.weights.gpu, 1e-6);
    EXPECT_NEAR(p->policy.cache.cpu, a.policy.cache.cpu, 1e-6);
  }
  EXPECT_EQ(c.groupPrefill.size(), 2u);
}

TEST(LayerGroups, MixedInferenceLpBeatsABruteForceGrid) {
  // A tiny model on a small GPU: weights must be split across tiers.
  const int64_t prompt = 128, gen = 8;
  InferenceJob job{llamaLike(8, 14336, prompt), prompt, gen,
                   mixed(4, 2048, 4, 14336, prompt)};
  Machine m = Machine::t4FlexGen();
  m.gpuMemory = 2.5e9;
  m.hostMemory = 3e9;
  InferenceOptions o;
  o.gpuBatchSizes = {8};
  o.maxGpuBatches = 1;
  InferencePlan lp = infer(job, m, o);
  ASSERT_TRUE(lp.feasible);
  // The instance is not trivial: the weights do not all fit on the GPU.
  EXPECT_LT(lp.policy.weights.gpu, 0.99);
  // The time is the sum of each group's layer times.
  ASSERT_EQ(lp.groupPrefill.size(), 2u);
  EXPECT_NEAR(lp.prefillTime,
              4 * lp.groupPrefill[0].layerTime() +
                  4 * lp.groupPrefill[1].layerTime(),
              1e-12 * lp.prefillTime);
  EXPECT_NEAR(lp.decodeTime,
              (gen - 1) * (4 * lp.groupDecode[0].layerTime() +
                           4 * lp.groupDecode[1].layerTime()),
              1e-12 * lp.decodeTime);
  EXPECT_LT(lp.groupPrefill[0].compute, lp.groupPrefill[1].compute);
  // The LP's policy evaluates to the same time.
  auto again = evaluateInferencePolicy(job, m, lp.policy);
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_NEAR(again->totalTime(), lp.totalTime(), 1e-9 * lp.totalTime());

  // Brute force: every policy on a 10% grid (each row sums to 1).
  InferencePolicy q = lp.policy;
  double bestGrid = INFINITY;
  int feasible = 0;
  auto rows = [](std::vector<Split> &out) {
    for (int g = 0; g <= 10; ++g)
      for (int c = 0; c + g <= 10; ++c)
        out.push_back({g / 10.0, c / 10.0, (10 - g - c) / 10.0});
  };
  std::vector<Split> splits;
  rows(splits);
  for (const Split &w : splits)
    for (const Split &cache : splits)
      for (const Split &act : splits) {
        q.weights = w;
        q.cache = cache;
        q.activations = act;
        auto e = evaluateInferencePolicy(job, m, q);
        ASSERT_TRUE(static_cast<bool>(e));
        if (!e->feasible)
          continue;
        ++feasible;
        bestGrid = std::min(bestGrid, e->totalTime());
      }
  ASSERT_GT(feasible, 0);
  // The LP's tie-breaks cost at most a few microseconds per fraction.
  EXPECT_LE(lp.totalTime(), bestGrid + 1e-4);
  // The grid is coarse; the LP should not be far from it either.
  EXPECT_GT(lp.totalTime(), 0.5 * bestGrid);
}

} // namespace

namespace {

/// Mixtral 8x7B's shapes (8 SwiGLU experts, top 2) at `seq` tokens.
model::TransformerConfig mixtralLike(int64_t seq) {
  model::TransformerConfig c = llamaLike(32, 14336, seq);
  c.experts = 8;
  c.topK = 2;
  return c;
}

TEST(LayerGroups, MixtureOfExpertsGemmsCarryTheLayersFlops) {
  // One sequence of 4096 tokens, top 2 of 8 experts at capacity 1: each
  // expert's GEMMs run on exactly 1024 tokens, so the GEMMs' FLOPs are the
  // layer's forward FLOPs (the model's closed form), router included.
  model::TransformerConfig cfg = mixtralLike(4096);
  ModelCosts c = uniformCosts(cfg);
  ASSERT_EQ(c.groups.size(), 1u);
  const LayerGroup &g = c.groups.front();
  EXPECT_EQ(g.experts, 8);
  EXPECT_DOUBLE_EQ(g.routedPerToken(), 2.0);
  EXPECT_EQ(c.params(),
            static_cast<double>(model::countParameters(cfg).total()));
  double flops = 0;
  int experts = 0;
  for (const model::GemmShape &x :
       layerForwardGemms(g, 1, cfg.seq, model::GemmDtype::BF16)) {
    flops += x.flops();
    if (x.batch == 8) {
      ++experts;
      EXPECT_EQ(x.m, 1024); // 2 x 4096 / 8 tokens per expert
    }
  }
  EXPECT_EQ(experts, 2); // up/gate and down, batched over the experts
  EXPECT_NEAR(flops, g.fwdFlops, 1e-12 * g.fwdFlops);
  // A dense model of the same shapes: one expert's FLOPs per token fewer
  // and no router, 1/8 of the MLP's parameters.
  model::TransformerConfig dense = cfg;
  dense.experts = dense.topK = 0;
  const LayerGroup d = uniformCosts(dense).groups.front();
  EXPECT_NEAR(g.fwdFlops - d.fwdFlops,
              2.0 * 4096 * (3.0 * 4096 * 14336 + 4096 * 8), 1.0);
  EXPECT_EQ(g.params - d.params, 7.0 * 3 * 4096 * 14336 + 4096 * 8);
}

TEST(LayerGroups, MixtureOfExpertsFinetuneMovesEveryExpert) {
  // The offload planner streams every expert's parameters (a batch routes
  // tokens to all of them) but computes on two per token: against the
  // dense model of the same shapes, more bytes per FLOP.
  Machine m = *machinePreset("rtx4090-12nvme");
  FinetuneJob moe;
  moe.model = mixtralLike(1024);
  moe.costs = uniformCosts(moe.model);
  moe.batch = 8;
  FinetuneJob dense = moe;
  dense.model.experts = dense.model.topK = 0;
  dense.costs = uniformCosts(dense.model);
  FinetunePlan a = finetune(moe, m), b = finetune(dense, m);
  ASSERT_TRUE(a.feasible);
  ASSERT_TRUE(b.feasible);
  EXPECT_GT(a.modelFlops, b.modelFlops);
  EXPECT_LT(a.modelFlops, 2.0 * b.modelFlops);
  const double moeBytesPerFlop = a.links.h2d / a.modelFlops;
  const double denseBytesPerFlop = b.links.h2d / b.modelFlops;
  EXPECT_GT(moeBytesPerFlop, 2.0 * denseBytesPerFlop);
}

} // namespace
