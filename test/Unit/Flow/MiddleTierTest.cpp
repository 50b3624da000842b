//===- MiddleTierTest.cpp - Storage middle tier with SmartNIC offload -----===//
//
// planMiddleTier against independent checks: the per-server bounds by hand
// on one server, the choice against brute force over every assignment of
// sites to servers (random tiers), the servers needed against brute force
// over every subset and against the closed form ceil(target / per server)
// on a homogeneous tier, SmartNIC scale-up (two engines and two ports: twice
// the throughput while the host cores do not bind), and every error.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/MiddleTier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace sluice::flow;

namespace {

BlockIOLoad load4k() {
  BlockIOLoad l;
  l.requestRate = 4e6;
  l.blockBytes = 4096;
  l.headerSeconds = 1e-6;
  l.hostCompressRate = 500e6;
  l.hostRatio = 2.5;
  return l;
}

MiddleTierServer server(const char *name, double cores, double line,
                        double engine, double ratio) {
  return {name, cores, line, engine, ratio};
}

std::string errorOf(llvm::ArrayRef<MiddleTierServer> s, const BlockIOLoad &l) {
  auto r = planMiddleTier(s, l);
  return r ? "no error" : llvm::toString(r.takeError());
}

TEST(MiddleTier, BoundsByHand) {
  // 16 cores, 100 Gb/s, a 10 GB/s engine capped at ratio 2.
  MiddleTierServer s = server("mid[0]", 16, 12.5e9, 10e9, 2.0);
  BlockIOLoad l = load4k();
  auto plan = planMiddleTier({s}, l);
  ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
  const ServerPlan &p = plan->servers[0];
  // Host: 16 / (1 us + 4096 / 500 MB/s = 8.192 us) = 1.7406 M/s.
  double host = 16 / (1e-6 + 4096 / 500e6);
  EXPECT_DOUBLE_EQ(p.host.requests, host);
  EXPECT_EQ(p.host.bottleneck, "host cores");
  EXPECT_DOUBLE_EQ(p.host.ratio, 2.5);
  EXPECT_NEAR(p.host.coresBusy, 16, 1e-9);
  // SmartNIC: min(16 / 1 us, 10e9 / 4096, 12.5e9 / 4096) = the engine.
  EXPECT_EQ(p.chosen.site, CompressionSite::SmartNic);
  EXPECT_DOUBLE_EQ(p.chosen.requests, 10e9 / 4096);
  EXPECT_EQ(p.chosen.bottleneck, "compression engine");
  EXPECT_DOUBLE_EQ(p.chosen.ratio, 2.0);
  EXPECT_NEAR(p.chosen.coresBusy, 10e9 / 4096 * 1e-6, 1e-9);
  EXPECT_DOUBLE_EQ(plan->speedup, (10e9 / 4096) / host);
  // Out of the NIC: compressed bytes.
  EXPECT_DOUBLE_EQ(plan->planned.bytesOut, 10e9 / 2.0);
  EXPECT_DOUBLE_EQ(plan->cpuOnly.bytesOut, host * 4096 / 2.5);
}

TEST(MiddleTier, LineRateBindsAndTiesGoToTheSmartNic) {
  // Plenty of cores: both sites reach the line rate; the NIC wins the tie.
  MiddleTierServer s = server("mid[0]", 1000, 12.5e9, 50e9, 4.0);
  auto plan = planMiddleTier({s}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->servers[0].chosen.site, CompressionSite::SmartNic);
  EXPECT_EQ(plan->servers[0].chosen.bottleneck, "line rate");
  EXPECT_DOUBLE_EQ(plan->servers[0].chosen.requests, 12.5e9 / 4096);
  EXPECT_DOUBLE_EQ(plan->speedup, 1.0);
  // A slow engine loses to the host.
  MiddleTierServer slow = server("mid[1]", 16, 12.5e9, 1e9, 4.0);
  plan = planMiddleTier({slow}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->servers[0].chosen.site, CompressionSite::Host);
  // Without an engine only the host is a candidate.
  MiddleTierServer plain = server("mid[2]", 16, 12.5e9, 0, 0);
  plan = planMiddleTier({plain}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_FALSE(plan->servers[0].hasEngine);
  EXPECT_EQ(plan->servers[0].chosen.site, CompressionSite::Host);
  EXPECT_DOUBLE_EQ(plan->speedup, 1.0);
}

TEST(MiddleTier, SmartNicsScaleLinearly) {
  // SmartDS: throughput scales with ports and SmartNICs while the host
  // (headers only) does not bind.
  BlockIOLoad l = load4k();
  auto one = planMiddleTier({server("m", 16, 12.5e9, 10e9, 3)}, l);
  auto two = planMiddleTier({server("m", 16, 25e9, 20e9, 3)}, l);
  ASSERT_TRUE(one && two);
  EXPECT_DOUBLE_EQ(two->planned.requests, 2 * one->planned.requests);
  // The CPU-only tier does not scale with ports: its cores bind.
  EXPECT_DOUBLE_EQ(two->cpuOnly.requests, one->cpuOnly.requests);
}

TEST(MiddleTier, HomogeneousTierClosedForm) {
  BlockIOLoad l = load4k();
  std::vector<MiddleTierServer> tier;
  for (int i = 0; i < 6; ++i)
    tier.push_back(server("m", 16, 12.5e9, 10e9, 3));
  for (double target : {1.0, 1e6, 4e6, 2.44140625e6 * 3, 2e7, 1e8}) {
    l.requestRate = target;
    auto plan = planMiddleTier(tier, l);
    ASSERT_TRUE(static_cast<bool>(plan));
    double per = plan->servers[0].chosen.requests;
    double perCpu = plan->servers[0].host.requests;
    EXPECT_EQ(plan->planned.serversNeeded,
              static_cast<int64_t>(std::ceil(target / per)))
        << target;
    EXPECT_EQ(plan->cpuOnly.serversNeeded,
              static_cast<int64_t>(std::ceil(target / perCpu)))
        << target;
    EXPECT_EQ(plan->planned.extrapolated, plan->planned.serversNeeded > 6);
  }
}

/// Brute force: the fewest servers of `per` whose sum reaches `target`
/// (-1 if none).
int64_t bruteServers(const std::vector<double> &per, double target) {
  size_t n = per.size();
  int64_t best = -1;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i)
      if (mask & (1u << i))
        sum += per[i];
    int64_t k = __builtin_popcount(mask);
    if (sum >= target * (1 - 1e-9) && (best < 0 || k < best))
      best = k;
  }
  return best;
}

TEST(MiddleTier, RandomTiersAgainstBruteForce) {
  std::mt19937 rng(18);
  std::uniform_real_distribution<double> u(0, 1);
  for (int round = 0; round < 200; ++round) {
    size_t n = 1 + rng() % 8;
    std::vector<MiddleTierServer> tier;
    for (size_t i = 0; i < n; ++i) {
      bool nic = u(rng) < 0.6;
      tier.push_back(server("m", 1 + std::floor(u(rng) * 32),
                            (1 + std::floor(u(rng) * 4)) * 12.5e9,
                            nic ? (0.5 + u(rng) * 20) * 1e9 : 0,
                            nic ? 1 + u(rng) * 4 : 0));
    }
    BlockIOLoad l = load4k();
    l.blockBytes = 512 << (rng() % 8);
    l.headerSeconds = u(rng) * 4e-6;
    l.hostCompressRate = (100 + u(rng) * 900) * 1e6;
    l.hostRatio = 1 + u(rng) * 3;
    auto plan = planMiddleTier(tier, l);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    // Every assignment of sites: none serves more in total.
    double bestTotal = 0;
    std::vector<double> bestPer;
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {
      double total = 0;
      std::vector<double> per;
      bool ok = true;
      for (size_t i = 0; i < n; ++i) {
        CompressionSite site = (mask & (1u << i)) ? CompressionSite::SmartNic
                                                  : CompressionSite::Host;
        auto t = siteThroughput(tier[i], l, site);
        if (!t) {
          llvm::consumeError(t.takeError());
          ok = false;
          break;
        }
        total += t->requests;
        per.push_back(t->requests);
      }
      if (ok && total > bestTotal) {
        bestTotal = total;
        bestPer = per;
      }
    }
    EXPECT_NEAR(plan->planned.requests, bestTotal, 1e-9 * bestTotal);
    EXPECT_GE(plan->speedup, 1.0);
    // The servers needed for a target within the declared tier.
    for (double frac : {0.1, 0.5, 0.9, 1.0}) {
      double target = frac * bestTotal;
      bool extra = false;
      std::vector<double> per;
      for (const ServerPlan &s : plan->servers)
        per.push_back(s.chosen.requests);
      EXPECT_EQ(serversForTarget(per, target, extra),
                bruteServers(bestPer, target))
          << round << " " << frac;
      EXPECT_FALSE(extra);
    }
  }
}

TEST(MiddleTier, BeyondTheDeclaredTier) {
  bool extra = false;
  // 3 + ceil((10 - 6) / 1) copies of the slowest.
  EXPECT_EQ(serversForTarget({3, 1, 2}, 10, extra), 7);
  EXPECT_TRUE(extra);
  EXPECT_EQ(serversForTarget({3, 1, 2}, 6, extra), 3);
  EXPECT_FALSE(extra);
  EXPECT_EQ(serversForTarget({3, 1, 2}, 3, extra), 1);
}

TEST(MiddleTier, Errors) {
  BlockIOLoad l = load4k();
  MiddleTierServer s = server("mid[0]", 16, 12.5e9, 10e9, 2);
  EXPECT_EQ(errorOf({}, l), "the middle tier has no servers");
  BlockIOLoad bad = l;
  bad.blockBytes = 0;
  EXPECT_EQ(errorOf({s}, bad), "the block size must be positive, got 0");
  bad = l;
  bad.requestRate = -1;
  EXPECT_EQ(errorOf({s}, bad), "the request rate must be positive, got -1");
  bad = l;
  bad.hostCompressRate = 0;
  EXPECT_EQ(errorOf({s}, bad),
            "the host codec's rate must be positive, got 0 B/s per core");
  bad = l;
  bad.hostRatio = 0.5;
  EXPECT_EQ(errorOf({s}, bad),
            "the host codec's ratio must be at least 1, got 0.5");
  bad = l;
  bad.headerSeconds = -1;
  EXPECT_EQ(errorOf({s}, bad),
            "the header cost must not be negative, got -1 s");
  EXPECT_EQ(errorOf({server("m", 0, 1e9, 0, 0)}, l),
            "middle-tier server 'm' has no host cores");
  EXPECT_EQ(errorOf({server("m", 4, 0, 0, 0)}, l),
            "middle-tier server 'm' has no line rate");
  EXPECT_EQ(errorOf({server("m", 4, 1e9, 1e9, 0.5)}, l),
            "middle-tier server 'm': the compression engine's ratio must be "
            "at least 1, got 0.5");
  auto t =
      siteThroughput(server("m", 4, 1e9, 0, 0), l, CompressionSite::SmartNic);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(llvm::toString(t.takeError()),
            "middle-tier server 'm' has no SmartNIC compression engine");
}

TEST(MiddleTier, JSON) {
  auto plan = planMiddleTier({server("mid[0]", 16, 12.5e9, 10e9, 2)}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  std::string json = middleTierToJSON(*plan);
  EXPECT_NE(json.find("\"site\": \"smartnic\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"cpu_only\""), std::string::npos);
  EXPECT_NE(json.find("\"bottleneck\": \"compression engine\""),
            std::string::npos);
}

} // namespace
