//===- FinetunePlannerTest.cpp - Fine-tune offload plans ------------------===//
//
// Validation against Ratel's published throughput (planning-models.md; the
// machine figures are in docs/offload.md), and independent checks of the
// overlap model: resource lower bounds, per-stream exclusivity,
// dependencies, bytes per link against closed forms (ZeRO-Infinity and
// Smart-Infinity traffic), and what active gradient offloading buys.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"
#include "compiler/Analysis/Offload/SmartInfinity.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace sluice;
using namespace sluice::offload;

namespace {

double rel(double a, double b) { return std::abs(a - b) / b; }

FinetunePlan plan(const char *model, int64_t batch, const Machine &m,
                  const FinetuneOptions &o = {}, int64_t micro = 0) {
  FinetuneJob job{*modelPreset(model), batch, micro};
  auto p = planFinetune(job, m, o);
  EXPECT_TRUE(static_cast<bool>(p));
  if (!p) {
    llvm::consumeError(p.takeError());
    return {};
  }
  return *p;
}

double params(const char *model) {
  return static_cast<double>(
      model::countParameters(*modelPreset(model)).total());
}

//===----------------------------------------------------------------------===//
// Validation: Ratel on one RTX 4090 with 12 NVMe (planning-models.md).
//===----------------------------------------------------------------------===//

struct Published {
  const char *model;
  int64_t batch;
  double tflops;
};

TEST(RatelValidation, ThroughputWithin25Percent) {
  const Machine m = Machine::rtx4090With12Nvme();
  const Published cases[] = {{"gpt3-13b", 8, 42.8},   {"gpt3-13b", 16, 84.3},
                             {"gpt3-13b", 32, 143.1}, {"gpt3-175b", 8, 52.6},
                             {"gpt3-175b", 16, 86.9}};
  for (const Published &c : cases) {
    FinetunePlan p = plan(c.model, c.batch, m);
    ASSERT_TRUE(p.feasible) << c.model << " bs " << c.batch << ": "
                            << p.infeasibleReason;
    EXPECT_LT(rel(p.tflops(), c.tflops), 0.25)
        << c.model << " bs " << c.batch << ": predicted " << p.tflops()
        << " TFLOPS, published " << c.tflops;
  }
}

TEST(RatelValidation, Gpt175BAtBatch32DoesNotFit) {
  FinetunePlan p = plan("gpt3-175b", 32, Machine::rtx4090With12Nvme());
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.infeasibleReason.rfind("GPU memory: need ", 0), 0u)
      << p.infeasibleReason;
  EXPECT_NE(p.infeasibleReason.find("have 21.6 GiB usable"),
            std::string::npos)
      << p.infeasibleReason;
}

TEST(RatelValidation, ModelStatesLeaveHostMemoryFor175B) {
  // 175B fp16 parameters (349 GB) and Adam states (2.1 TB) cannot live in
  // 256 GiB: both go to the NVMe array; activations stay in host memory
  // as far as they fit.
  FinetunePlan p = plan("gpt3-175b", 8, Machine::rtx4090With12Nvme());
  ASSERT_TRUE(p.feasible);
  EXPECT_EQ(p.paramHome, Tier::Nvme);
  EXPECT_EQ(p.optimizerHome, Tier::Nvme);
  EXPECT_LE(p.peak.host, p.capacity.host);
  EXPECT_LE(p.peak.gpu, p.capacity.gpu);
  EXPECT_GE(p.peak.nvme, 14 * params("gpt3-175b"));
}

//===----------------------------------------------------------------------===//
// The overlap model.
//===----------------------------------------------------------------------===//

TEST(OverlapModel, MakespanBetweenBusiestStreamAndSerialSum) {
  for (auto [model, batch] : {std::pair<const char *, int64_t>{"gpt3-13b", 8},
                              {"gpt3-13b", 32},
                              {"gpt3-175b", 16}}) {
    FinetunePlan p = plan(model, batch, Machine::rtx4090With12Nvme());
    ASSERT_TRUE(p.feasible);
    double sum = 0, most = 0;
    for (double b : p.busy) {
      sum += b;
      most = std::max(most, b);
    }
    EXPECT_GE(p.iterationTime, most * (1 - 1e-12));
    EXPECT_LE(p.iterationTime, sum * (1 + 1e-12));
    // GPU busy time: the FLOPs at no more than the large-GEMM rate, and for
    // these shapes (thousands of tokens, widths of 5120 and up) within 10%
    // of it (GemmModel.h: wave quantization only).
    const Machine m = Machine::rtx4090With12Nvme();
    const double gpu = p.busy[unsigned(Stream::GpuCompute)];
    EXPECT_GE(gpu, p.hardwareFlops / m.gpuFlops() * (1 - 1e-9));
    EXPECT_LE(gpu, p.hardwareFlops / (0.9 * m.gpuFlops()));
  }
}

TEST(OverlapModel, StreamsRunOneActionAtATime) {
  FinetunePlan p = plan("gpt3-175b", 8, Machine::rtx4090With12Nvme());
  ASSERT_TRUE(p.feasible);
  for (unsigned s = 0; s < kNumStreams; ++s) {
    std::vector<std::pair<double, double>> iv;
    for (const Action &a : p.schedule)
      if (unsigned(a.stream) == s && a.end > a.start)
        iv.push_back({a.start, a.end});
    std::sort(iv.begin(), iv.end());
    for (size_t i = 1; i < iv.size(); ++i)
      EXPECT_GE(iv[i].first, iv[i - 1].second - 1e-9)
          << streamName(Stream(s)).str() << " overlaps itself";
  }
}

TEST(OverlapModel, DependenciesHold) {
  // Per layer: forward after its parameters arrive; swap-out after the
  // forward; backward after the swap-in; the CPU update after the
  // gradients leave the GPU; state writes after the update.
  FinetunePlan p = plan("gpt3-175b", 8, Machine::rtx4090With12Nvme());
  ASSERT_TRUE(p.feasible);
  auto find = [&](Stream s, llvm::StringRef tensor, llvm::StringRef what,
                  int64_t layer) -> const Action * {
    const Action *found = nullptr;
    for (const Action &a : p.schedule)
      if (a.stream == s && a.tensor == tensor && a.what == what &&
          a.layer == layer)
        found = &a; // the last one: backward for params
    return found;
  };
  for (int64_t l : {0, 47, 95}) {
    const Action *fw = nullptr;
    for (const Action &a : p.schedule)
      if (a.stream == Stream::GpuCompute && a.what == "forward" &&
          a.layer == l) {
        fw = &a;
        break;
      }
    const Action *bw = find(Stream::GpuCompute, "layer", "backward", l);
    const Action *so = find(Stream::D2H, "activations", "swap-out", l);
    const Action *si = find(Stream::H2D, "activations", "swap-in", l);
    const Action *gd = find(Stream::D2H, "grads", "offload", l);
    const Action *up = find(Stream::CpuOptimizer, "adam", "update", l);
    const Action *rs = find(Stream::SsdRead, "adam", "read states", l);
    const Action *ws = find(Stream::SsdWrite, "adam", "write states", l);
    ASSERT_TRUE(fw && bw && so && si && gd && up && rs && ws) << l;
    EXPECT_GE(so->start, fw->end);
    EXPECT_GE(bw->start, si->end);
    EXPECT_GE(bw->start, fw->end);
    EXPECT_GE(gd->start, bw->end);
    EXPECT_GE(up->start, gd->end);
    EXPECT_GE(up->start, rs->end);
    EXPECT_GE(ws->start, up->end);
  }
}

TEST(OverlapModel, ActiveGradientOffloadingHidesTheOptimizer) {
  // With the CPU update overlapping the backward pass, the iteration is at
  // most forward + max(backward, update) + one layer's tail; in
  // ZeRO-Infinity's order it is at least forward + backward + update.
  const Machine m = Machine::rtx4090With12Nvme();
  FinetuneOptions active, after;
  after.activeGradientOffload = false;
  FinetunePlan a = plan("gpt3-175b", 8, m, active);
  FinetunePlan z = plan("gpt3-175b", 8, m, after);
  ASSERT_TRUE(a.feasible && z.feasible);
  const double update = params("gpt3-175b") / m.cpuAdamRate;
  EXPECT_NEAR(z.busy[unsigned(Stream::CpuOptimizer)], update, 1e-6 * update);
  double gpu = z.busy[unsigned(Stream::GpuCompute)];
  EXPECT_GE(z.iterationTime, gpu + update - 1e-6);
  EXPECT_LT(a.iterationTime, z.iterationTime);
  double fwd = 0;
  for (const Action &x : a.schedule)
    if (x.stream == Stream::GpuCompute && x.what == "forward")
      fwd += x.end - x.start;
  double bwd = a.busy[unsigned(Stream::GpuCompute)] - fwd;
  double layerUpdate = update / 96;
  EXPECT_LE(a.iterationTime,
            fwd + std::max(bwd, update) + 2 * layerUpdate + 0.05 * fwd);
}

//===----------------------------------------------------------------------===//
// Bytes per link, against closed forms.
//===----------------------------------------------------------------------===//

TEST(LinkBytes, OptimizerOnNvmeReadsAndWrites12N) {
  // ZeRO-Infinity's optimizer traffic (Smart-Infinity: 6M read, 6M write
  // with M = 2N fp16 bytes) when only the optimizer lives on NVMe.
  Machine m = Machine::rtx4090With12Nvme();
  m.hostMemory *= 8; // room for every activation in host memory
  FinetuneOptions o;
  o.paramHome = Tier::Host;
  o.optimizerHome = Tier::Nvme;
  FinetunePlan p = plan("gpt3-13b", 8, m, o);
  ASSERT_TRUE(p.feasible);
  const double n = params("gpt3-13b");
  EXPECT_EQ(p.activations.layersOnNvme, 0);
  EXPECT_NEAR(p.links.ssdRead, 12 * n, 1e-9 * n);
  EXPECT_NEAR(p.links.ssdWrite, 12 * n, 1e-9 * n);
  // D2H: every layer's swapped activations plus the fp16 gradients.
  EXPECT_NEAR(p.links.d2h, 40 * p.activations.swapBytesPerLayer + 2 * n,
              1e-9 * n);
  // H2D: parameters twice (forward, backward; the head's stay resident)
  // plus the swapped activations back.
  const double head = n - 40 * static_cast<double>(
                                   model::countParameters(
                                       *modelPreset("gpt3-13b"))
                                       .perLayer.total());
  EXPECT_NEAR(p.links.h2d,
              2 * (2 * n) - 2 * head + 40 * p.activations.swapBytesPerLayer,
              1e-9 * n);
}

TEST(LinkBytes, OptimizerStateBytesFollowThePrecision) {
  // SGD with momentum keeps fp32 master weights and momentum: 8 B/param.
  Machine m = Machine::rtx4090With12Nvme();
  m.hostMemory *= 8;
  FinetuneOptions o;
  o.paramHome = Tier::Host;
  o.optimizerHome = Tier::Nvme;
  FinetuneJob job{*modelPreset("gpt3-13b"), 8, 0};
  job.precision = {2, 2, 8};
  auto p = planFinetune(job, m, o);
  ASSERT_TRUE(static_cast<bool>(p));
  ASSERT_TRUE(p->feasible);
  const double n = params("gpt3-13b");
  EXPECT_NEAR(p->links.ssdRead, 8 * n, 1e-9 * n);
  EXPECT_NEAR(p->links.ssdWrite, 8 * n, 1e-9 * n);
  EXPECT_GE(p->peak.nvme, 8 * n);
  job.precision = {2, 0, 12};
  auto bad = planFinetune(job, m, o);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("state precision"),
            std::string::npos);
}

TEST(LinkBytes, UpdatesOnCsdLeaveOnly2MPlus2MOnTheHostLink) {
  // Smart-Infinity: with the update near storage the host link carries the
  // gradients out (c x 2N with compression ratio c) and the parameters
  // back (2N).
  Machine m = Machine::a5000SmartSsd(10);
  for (double c : {1.0, 0.25}) {
    FinetuneOptions o;
    o.paramHome = Tier::Host;
    o.optimizerHome = Tier::Csd;
    o.gradCompression = c;
    FinetunePlan p = plan("gpt3-13b", 4, m, o);
    ASSERT_TRUE(p.feasible) << p.infeasibleReason;
    const double n = params("gpt3-13b");
    EXPECT_TRUE(p.updateOnCsd);
    EXPECT_NEAR(p.links.ssdWrite, c * 2 * n, 1e-9 * n);
    EXPECT_NEAR(p.links.ssdRead, 2 * n, 1e-9 * n);
    EXPECT_NEAR(p.links.csdInternal, kAdamHostBytesPerParam * n, 1e-9 * n);
  }
}

TEST(LinkBytes, CsdBeatsHostSideUpdatesWhenStorageBinds) {
  // Smart-Infinity's setting (optimizer states on storage, not in host
  // memory): moving the update next to the data removes the 12N+12N
  // storage traffic from the shared link, so the CSD plan is faster than
  // ZeRO-Infinity's swapper (one block at a time, read, update, write).
  Machine m = Machine::a5000SmartSsd(10);
  FinetuneOptions csd;
  csd.optimizerHome = Tier::Csd;
  FinetunePlan a =
      plan("gpt3-13b", 4, m, smartInfinityOptions(SmartInfinityConfig::Base));
  FinetunePlan b = plan("gpt3-13b", 4, m, csd);
  ASSERT_TRUE(a.feasible && b.feasible);
  EXPECT_GT(a.iterationTime / b.iterationTime, 1.3);
}

//===----------------------------------------------------------------------===//
// Activation decisions.
//===----------------------------------------------------------------------===//

TEST(Activations, NothingSwapsWhenTheLinkCannotHideIt) {
  Machine m = Machine::rtx4090With12Nvme();
  m.d2hBandwidth = 1e9; // far too slow to hide 18*b*s*h bytes per layer
  FinetunePlan p = plan("gpt3-13b", 8, m);
  ASSERT_TRUE(p.feasible);
  for (bool s : p.activations.swapped)
    EXPECT_FALSE(s);
  model::TransformerConfig c = *modelPreset("gpt3-13b");
  const double b = 8, s = 1024, h = 5120;
  // Everything is recomputed: QKV, attention, MLP up, output projection.
  EXPECT_DOUBLE_EQ(p.activations.recomputeFlopsPerLayer,
                   2 * b * s * h * 3 * h + 4 * b * s * s * h +
                       2 * b * s * h * 4 * h + 2 * b * s * h * h);
  EXPECT_DOUBLE_EQ(p.activations.swapBytesPerLayer, 2 * b * s * h);
  EXPECT_GT(p.hardwareFlops, p.modelFlops);
  (void)c;
}

TEST(Activations, LongSequencesRankTheContextFirst) {
  // FLOPs saved per byte: h for the three projections' inputs, 2s for the
  // attention context. With s > h/2 and room for only one tensor, the
  // context is the one swapped.
  model::TransformerConfig c =
      model::TransformerConfig::gpt(8, 1024, 16, 4096, 50257);
  Machine m = Machine::rtx4090With12Nvme();
  // D2H budget: the checkpoint and one h-wide tensor per layer.
  const double b = 1, s = 4096, h = 1024;
  const double fwd = (2 * b * s * 12 * h * h + 4 * b * s * s * h) /
                     m.gpuFlops();
  m.d2hBandwidth = 2 * (2 * b * s * h) / fwd * 1.01;
  FinetuneJob job{c, 1, 0};
  auto p = planFinetune(job, m);
  ASSERT_TRUE(static_cast<bool>(p));
  ASSERT_TRUE(p->feasible);
  EXPECT_TRUE(p->activations.swapped[1]); // context
  EXPECT_FALSE(p->activations.swapped[0]);
  EXPECT_FALSE(p->activations.swapped[2]);
}

TEST(Activations, SpillToNvmeWhenHostMemoryRunsOut) {
  Machine m = Machine::rtx4090With12Nvme();
  FinetuneOptions o;
  o.paramHome = Tier::Host;
  o.optimizerHome = Tier::Host;
  FinetunePlan p = plan("gpt3-13b", 32, m, o);
  ASSERT_TRUE(p.feasible);
  EXPECT_GT(p.activations.layersOnNvme, 0);
  EXPECT_EQ(p.activations.layersOnHost + p.activations.layersOnNvme, 40);
  EXPECT_LE(p.peak.host, p.capacity.host);
}

//===----------------------------------------------------------------------===//
// Micro-batches, infeasibility and bad input.
//===----------------------------------------------------------------------===//

TEST(Finetune, GradientAccumulationRepeatsForwardAndBackward) {
  const Machine m = Machine::rtx4090With12Nvme();
  FinetunePlan one = plan("gpt3-13b", 8, m);
  FinetunePlan two = plan("gpt3-13b", 16, m, {}, 8);
  ASSERT_TRUE(one.feasible && two.feasible);
  EXPECT_EQ(two.accumulationSteps, 2);
  EXPECT_EQ(two.microBatch, 8);
  EXPECT_DOUBLE_EQ(two.modelFlops, 2 * one.modelFlops);
  // The optimizer runs once per iteration.
  EXPECT_NEAR(two.busy[unsigned(Stream::CpuOptimizer)],
              one.busy[unsigned(Stream::CpuOptimizer)], 1e-9);
}

TEST(Finetune, HostMemoryBindsWithoutNvme) {
  Machine m = Machine::rtx4090With12Nvme();
  m.nvme = {};
  FinetunePlan p = plan("gpt3-175b", 8, m);
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.infeasibleReason.rfind("host memory: need ", 0), 0u)
      << p.infeasibleReason;
  EXPECT_NE(p.infeasibleReason.find("TiB"), std::string::npos)
      << p.infeasibleReason;
}

TEST(Finetune, BadInputsAreErrors) {
  const Machine m = Machine::rtx4090With12Nvme();
  FinetuneJob job{*modelPreset("gpt3-13b"), 10, 4};
  auto e1 = planFinetune(job, m);
  ASSERT_FALSE(static_cast<bool>(e1));
  EXPECT_EQ(llvm::toString(e1.takeError()),
            "batch 10 is not a multiple of the micro-batch 4");
  job.microBatch = 0;
  job.batch = 0;
  auto e2 = planFinetune(job, m);
  ASSERT_FALSE(static_cast<bool>(e2));
  EXPECT_EQ(llvm::toString(e2.takeError()), "batch must be positive, got 0");
  job.batch = 8;
  FinetuneOptions o;
  o.optimizerHome = Tier::Csd;
  auto e3 = planFinetune(job, m, o);
  ASSERT_FALSE(static_cast<bool>(e3));
  EXPECT_EQ(llvm::toString(e3.takeError()),
            "optimizer on CSD requested, but the machine has no csd");
  job.model.heads = 7;
  auto e4 = planFinetune(job, m);
  ASSERT_FALSE(static_cast<bool>(e4));
  EXPECT_EQ(llvm::toString(e4.takeError()),
            "invalid model: hidden 5120 is not a multiple of heads 7");
}

} // namespace
