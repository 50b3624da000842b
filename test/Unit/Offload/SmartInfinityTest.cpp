//===- SmartInfinityTest.cpp - Smart-Infinity against its paper -----------===//
//
// Smart-Infinity (HPCA'24) on its testbed (Machine::a5000SmartSsd): the
// published speedups over ZeRO-Infinity within 25% (Fig. 9, 10, 11; the
// rows the model misses are asserted as misses, with their reason), the
// host-link traffic of the paper's Table I in closed form, and the CSD
// update's duration against the flash and accelerator rates.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/SmartInfinity.h"
#include "compiler/Analysis/Offload/OffloadPresets.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace sluice;
using namespace sluice::offload;

namespace {

using C = SmartInfinityConfig;

FinetunePlan plan(const char *model, const Machine &m,
                  const FinetuneOptions &o) {
  FinetuneJob job{*modelPreset(model), 4, 0};
  auto p = planFinetune(job, m, o);
  EXPECT_TRUE(static_cast<bool>(p));
  if (!p) {
    llvm::consumeError(p.takeError());
    return {};
  }
  EXPECT_TRUE(p->feasible) << p->infeasibleReason;
  return *p;
}

double params(const char *model) {
  return static_cast<double>(
      model::countParameters(*modelPreset(model)).total());
}

TEST(SmartInfinityValidation, PublishedSpeedupsWithin25Percent) {
  int met = 0, missed = 0;
  for (const SmartInfinityPublished &r : smartInfinityPublished()) {
    const Machine m =
        r.a100 ? Machine::a100SmartSsd(r.csds) : Machine::a5000SmartSsd(r.csds);
    FinetuneJob job{*modelPreset(r.model), 4, 0};
    auto s = smartInfinitySpeedup(job, m, r.config);
    ASSERT_TRUE(static_cast<bool>(s)) << llvm::toString(s.takeError());
    const double err = *s / r.speedup - 1;
    std::string row = std::string(r.model) + " " + std::to_string(r.csds) +
                      " CSDs " + smartInfinityConfigName(r.config).str() +
                      (r.a100 ? " A100" : "") + ": predicted " +
                      std::to_string(*s) + ", published " +
                      std::to_string(r.speedup);
    if (r.notMet) {
      // A documented miss stays a miss; if the model comes to meet it, the
      // docs' "not met" row must change too.
      EXPECT_GT(std::abs(err), 0.25) << row;
      ++missed;
    } else {
      EXPECT_LE(std::abs(err), 0.25) << row;
      ++met;
    }
  }
  EXPECT_EQ(met, 21);
  EXPECT_EQ(missed, 2);
}

TEST(SmartInfinityValidation, SpeedupGrowsWithTheCsdCount) {
  // The CSDs' internal bandwidth scales with their count, the shared
  // channel does not: the speedup over the baseline rises from 2 to 10.
  FinetuneJob job{*modelPreset("gpt2-4.0b"), 4, 0};
  double prev = 0;
  for (int64_t n : {2, 4, 6, 8, 10}) {
    auto s = smartInfinitySpeedup(job, Machine::a5000SmartSsd(n),
                                  C::SmartUpdateOverlapComp);
    ASSERT_TRUE(static_cast<bool>(s));
    EXPECT_GT(*s, prev) << n << " CSDs";
    prev = *s;
  }
}

TEST(SmartInfinityTraffic, BaselineMovesTable1Bytes) {
  // ZeRO-Infinity (Table I, M = 2N fp16 bytes): 6M of optimizer states
  // read and written, plus the fp32 gradients (2M) written during the
  // backward pass and read back for the update.
  const Machine m = Machine::a5000SmartSsd(10);
  FinetunePlan p = plan("gpt2-4.0b", m, smartInfinityOptions(C::Base));
  const double n = params("gpt2-4.0b");
  EXPECT_FALSE(p.updateOnCsd);
  EXPECT_NEAR(p.links.ssdRead, (12 + kSwapGradBytes) * n, 1e-9 * n);
  EXPECT_NEAR(p.links.ssdWrite, (12 + kSwapGradBytes) * n, 1e-9 * n);
  // One block at a time: read, CPU update, write.
  const double bound = 16 * n / m.nvme.readBandwidth + n / m.cpuAdamRate +
                       12 * n / m.nvme.writeBandwidth;
  EXPECT_GE(p.iterationTime, bound);
}

TEST(SmartInfinityTraffic, SmartUpdateAndSmartCompOnTheSharedChannel) {
  // SmartUpdate: fp16 gradients to the CSDs (DeepSpeed's FPGA path keeps
  // them fp16), the fp32 master back (Table I's 2M read); SmartComp: the
  // top 1% as fp16 value + int32 index, after a round trip of the
  // gradients to the GPU for the sort.
  const Machine m = Machine::a5000SmartSsd(10);
  const double n = params("gpt2-4.0b");
  FinetunePlan su =
      plan("gpt2-4.0b", m, smartInfinityOptions(C::SmartUpdateOverlap));
  EXPECT_TRUE(su.updateOnCsd);
  EXPECT_NEAR(su.links.ssdWrite, 2 * n, 1e-9 * n);
  EXPECT_NEAR(su.links.ssdRead, 4 * n, 1e-9 * n);
  FinetunePlan c =
      plan("gpt2-4.0b", m, smartInfinityOptions(C::SmartUpdateOverlapComp));
  EXPECT_NEAR(c.links.ssdWrite, kSmartCompTopK * kTopKBytesPerKept * n,
              1e-9 * n);
  EXPECT_NEAR(c.links.ssdRead, 4 * n, 1e-9 * n);
  EXPECT_NEAR(c.links.h2d - su.links.h2d, 2 * n, 1e-9 * n);
  EXPECT_NEAR(c.links.d2h - su.links.d2h,
              kSmartCompTopK * kTopKBytesPerKept * n, 1e-9 * n);
}

TEST(SmartInfinityTimes, CsdUpdateIsTheFlashTimeOrTheKernelTime) {
  // Per parameter each CSD's flash reads the fp32 states, the gradient and
  // (for the host) the fp32 master, and writes the states: with the
  // transfer handler (SU+O) the update takes the flash time when it
  // exceeds the kernel's; without it (SU) the two add up.
  const Machine m = Machine::a5000SmartSsd(6);
  const double n = params("gpt2-4.0b");
  const double flash = n * ((12 + 2 + 4) / m.csd.internalReadBandwidth +
                            12 / m.csd.internalWriteBandwidth);
  const double kernel = n / m.csd.adamRate;
  ASSERT_GT(flash, kernel);
  const unsigned csd = static_cast<unsigned>(Stream::CsdOptimizer);
  FinetunePlan suo =
      plan("gpt2-4.0b", m, smartInfinityOptions(C::SmartUpdateOverlap));
  EXPECT_NEAR(suo.busy[csd], flash, 1e-9 * flash);
  FinetunePlan su = plan("gpt2-4.0b", m, smartInfinityOptions(C::SmartUpdate));
  EXPECT_NEAR(su.busy[csd], flash + kernel, 1e-9 * flash);
  // SmartComp: 1% of the gradient bytes read; the decompressing kernel is
  // slower but still hides under the flash.
  FinetunePlan comp =
      plan("gpt2-4.0b", m, smartInfinityOptions(C::SmartUpdateOverlapComp));
  const double flashComp = n * ((12 + kSmartCompTopK * kTopKBytesPerKept + 4) /
                                    m.csd.internalReadBandwidth +
                                12 / m.csd.internalWriteBandwidth);
  ASSERT_GT(flashComp, n / m.csd.decompressRate);
  EXPECT_NEAR(comp.busy[csd], flashComp, 1e-9 * flashComp);
}

TEST(SmartInfinityOptions, BadCompressionSettingsAreErrors) {
  FinetuneJob job{*modelPreset("gpt2-4.0b"), 4, 0};
  const Machine m = Machine::a5000SmartSsd(4);
  FinetuneOptions o = smartInfinityOptions(C::SmartUpdateOverlapComp);
  o.gradCompression = 0.5;
  auto e1 = planFinetune(job, m, o);
  ASSERT_FALSE(static_cast<bool>(e1));
  EXPECT_EQ(llvm::toString(e1.takeError()),
            "top-k gradient compression excludes a gradient compression "
            "ratio");
  o = smartInfinityOptions(C::SmartUpdateOverlapComp, 1.5);
  auto e2 = planFinetune(job, m, o);
  ASSERT_FALSE(static_cast<bool>(e2));
  EXPECT_EQ(llvm::toString(e2.takeError()),
            "top-k gradient fraction must lie in [0, 1] (0: none)");
  Machine noBw = m;
  noBw.gpuMemoryBandwidth = 0;
  auto e3 =
      planFinetune(job, noBw, smartInfinityOptions(C::SmartUpdateOverlapComp));
  ASSERT_FALSE(static_cast<bool>(e3));
  EXPECT_EQ(llvm::toString(e3.takeError()),
            "top-k gradient compression needs the GPU memory bandwidth (it "
            "costs the sort as GPU memory traffic)");
  o = smartInfinityOptions(C::SmartUpdateOverlap);
  o.csdReadBackBytes = 32;
  auto e4 = planFinetune(job, m, o);
  ASSERT_FALSE(static_cast<bool>(e4));
  EXPECT_EQ(llvm::toString(e4.takeError()),
            "CSD read-back bytes per parameter must lie in [0, 16]");
  EXPECT_EQ(parseSmartInfinityConfig("su+o+c"), C::SmartUpdateOverlapComp);
  EXPECT_FALSE(parseSmartInfinityConfig("suoc").has_value());
}

} // namespace
