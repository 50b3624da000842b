//===- MiddleTierTest.cpp - Storage middle tier with SmartNIC offload -----===//
//
// planMiddleTier against independent checks: the per-server bounds by hand
// on one server, the choice against brute force over every assignment of
// sites to servers (random tiers), the servers needed against brute force
// over every subset and against the closed form ceil(target / per server)
// on a homogeneous tier, SmartNIC scale-up (two engines and two ports: twice
// the throughput while the host cores do not bind), reads (bounds by hand,
// and mixed read/write tiers against brute force over every assignment of
// compression and decompression sites), and every error.
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
                        double engine, double ratio, double decompress = 0) {
  return {name, cores, line, engine, ratio, decompress};
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
  // SmartNIC alone: min(16 / 1 us, 10e9 / 4096, 12.5e9 / 4096) = the
  // engine.
  auto nic = siteThroughput(s, l, CompressionSite::SmartNic);
  ASSERT_TRUE(static_cast<bool>(nic));
  EXPECT_DOUBLE_EQ(nic->requests, 10e9 / 4096);
  EXPECT_EQ(nic->bottleneck, "compression engine");
  EXPECT_DOUBLE_EQ(nic->ratio, 2.0);
  EXPECT_NEAR(nic->coresBusy, 10e9 / 4096 * 1e-6, 1e-9);
  // The split: a share x on the NIC; the engine (x 4096 / 10e9 s per
  // request) meets the line (4096 / 12.5e9) at x = 0.8, where the host
  // needs (1 us + 0.2 x 8.192 us) / 16 < 4096 / 12.5e9: the line rate, the
  // fewest host cores busy at the largest such x.
  EXPECT_EQ(p.chosen.site, CompressionSite::Split);
  EXPECT_NEAR(p.chosen.nicShare, 0.8, 1e-12);
  double line = 12.5e9 / 4096;
  EXPECT_DOUBLE_EQ(p.chosen.requests, line);
  EXPECT_EQ(p.chosen.bottleneck, "compression engine and line rate");
  // The mix's ratio: 1 / (0.8 / 2 + 0.2 / 2.5).
  EXPECT_NEAR(p.chosen.ratio, 1 / (0.8 / 2 + 0.2 / 2.5), 1e-12);
  EXPECT_NEAR(p.chosen.coresBusy, line * (1e-6 + 0.2 * 8.192e-6), 1e-9);
  EXPECT_DOUBLE_EQ(plan->speedup, line / host);
  // Out of the NIC: compressed bytes.
  EXPECT_NEAR(plan->planned.bytesOut, line * 4096 * (0.8 / 2 + 0.2 / 2.5),
              1e-3);
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
  // A slow engine (1 GB/s) alone loses to the host, but takes a share:
  // host (1 + 8.192 (1 - x)) us / 16 = engine 4.096 x us at
  // x = 9.192 / 73.728.
  MiddleTierServer slow = server("mid[1]", 16, 12.5e9, 1e9, 4.0);
  plan = planMiddleTier({slow}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  const SiteThroughput &split = plan->servers[0].chosen;
  EXPECT_EQ(split.site, CompressionSite::Split);
  double x = 9.192 / 73.728;
  EXPECT_NEAR(split.nicShare, x, 1e-12);
  EXPECT_NEAR(split.requests, 1 / (4.096e-6 * x), 1e-6 * split.requests);
  EXPECT_GT(split.requests, plan->servers[0].host.requests);
  EXPECT_EQ(split.bottleneck, "host cores and compression engine");
  // Without an engine only the host is a candidate.
  MiddleTierServer plain = server("mid[2]", 16, 12.5e9, 0, 0);
  plan = planMiddleTier({plain}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_FALSE(plan->servers[0].hasEngine);
  EXPECT_EQ(plan->servers[0].chosen.site, CompressionSite::Host);
  EXPECT_DOUBLE_EQ(plan->speedup, 1.0);
}

TEST(MiddleTier, SmartNicsScaleLinearly) {
  // SmartDS: the SmartNIC site's throughput scales with ports and
  // SmartNICs while the host (headers only) does not bind.
  BlockIOLoad l = load4k();
  auto one = planMiddleTier({server("m", 16, 12.5e9, 10e9, 3)}, l);
  auto two = planMiddleTier({server("m", 16, 25e9, 20e9, 3)}, l);
  ASSERT_TRUE(one && two);
  auto nicOne = siteThroughput(server("m", 16, 12.5e9, 10e9, 3), l,
                               CompressionSite::SmartNic);
  auto nicTwo = siteThroughput(server("m", 16, 25e9, 20e9, 3), l,
                               CompressionSite::SmartNic);
  ASSERT_TRUE(nicOne && nicTwo);
  EXPECT_DOUBLE_EQ(nicTwo->requests, 2 * nicOne->requests);
  // The split reaches the line rate on one port, and nearly on two (where
  // the host's share binds too).
  EXPECT_DOUBLE_EQ(one->planned.requests, 12.5e9 / 4096);
  EXPECT_GT(two->planned.requests, 1.9 * one->planned.requests);
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

/// The model's throughput at shares (x, y), written out from the bounds of
/// MiddleTier.h (independently of the planner's cost planes).
double throughputAt(const MiddleTierServer &s, const BlockIOLoad &l, double x,
                    double y) {
  const double b = l.blockBytes, r = l.readFraction, w = 1 - r;
  double rhoNic =
      s.engineRatio >= 1 ? std::min(s.engineRatio, l.hostRatio) : l.hostRatio;
  double m = x / rhoNic + (1 - x) / l.hostRatio;
  double host = l.headerSeconds + w * (1 - x) * b / l.hostCompressRate +
                (r > 0 ? r * (1 - y) * b / l.hostDecompressRate : 0);
  double t = s.cores / host;
  if (x > 0)
    t = std::min(t, s.engineRate / (w * x * b));
  if (y > 0)
    t = std::min(t, s.decompressRate / (r * y * b));
  t = std::min(t, s.lineRate / (w * b + r * b * m));
  t = std::min(t, s.lineRate / (w * b * m + r * b));
  return t;
}

/// The best throughput over the shares' box by nested ternary search
/// (1 / throughput is the maximum of affine functions: convex).
double searchShares(const MiddleTierServer &s, const BlockIOLoad &l) {
  double xMax = s.engineRate > 0 ? 1 : 0;
  double yMax = s.decompressRate > 0 && l.readFraction > 0 ? 1 : 0;
  auto ternary = [](double hi, auto f) {
    double lo = 0;
    for (int i = 0; i < 100 && hi - lo > 1e-13; ++i) {
      double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
      if (f(a) < f(b))
        lo = a;
      else
        hi = b;
    }
    return std::max({f(lo), f(hi), f(0.0)});
  };
  return ternary(xMax, [&](double x) {
    return ternary(yMax, [&](double y) { return throughputAt(s, l, x, y); });
  });
}

TEST(MiddleTier, RandomTiersAgainstBruteForce) {
  std::mt19937 rng(18);
  std::uniform_real_distribution<double> u(0, 1);
  for (int round = 0; round < 300; ++round) {
    size_t n = 1 + rng() % 6;
    std::vector<MiddleTierServer> tier;
    for (size_t i = 0; i < n; ++i) {
      bool nic = u(rng) < 0.6, decoder = u(rng) < 0.6;
      tier.push_back(server("m", 1 + std::floor(u(rng) * 32),
                            (1 + std::floor(u(rng) * 4)) * 12.5e9,
                            nic ? (0.5 + u(rng) * 20) * 1e9 : 0,
                            nic ? 1 + u(rng) * 4 : 0,
                            decoder ? (0.5 + u(rng) * 40) * 1e9 : 0));
    }
    BlockIOLoad l = load4k();
    l.blockBytes = 512 << (rng() % 8);
    l.headerSeconds = u(rng) * 4e-6;
    l.hostCompressRate = (100 + u(rng) * 900) * 1e6;
    l.hostDecompressRate = (500 + u(rng) * 8000) * 1e6;
    l.hostRatio = 1 + u(rng) * 3;
    // Writes only, reads only, and mixes (a third of the rounds each).
    l.readFraction = round % 3 == 0 ? 0 : round % 3 == 1 ? 1 : u(rng);
    auto plan = planMiddleTier(tier, l);
    ASSERT_TRUE(static_cast<bool>(plan)) << llvm::toString(plan.takeError());
    // Every assignment of a compression and a decompression site to every
    // server (4^n): none serves more in total.
    double bestTotal = 0;
    std::vector<double> bestPer;
    for (uint32_t mask = 0; mask < (1u << (2 * n)); ++mask) {
      double total = 0;
      std::vector<double> per;
      bool ok = true;
      for (size_t i = 0; i < n && ok; ++i) {
        auto site = [&](unsigned bit) {
          return (mask >> (2 * i + bit)) & 1 ? CompressionSite::SmartNic
                                             : CompressionSite::Host;
        };
        auto t = siteThroughput(tier[i], l, site(0), site(1));
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
    // The split serves at least the best assignment of pure sites, and
    // each server's split equals the optimum of throughputAt over the box
    // (nested ternary search) and beats every point of a grid.
    EXPECT_GE(plan->planned.requests, bestTotal * (1 - 1e-9)) << round;
    for (size_t i = 0; i < n; ++i) {
      const SiteThroughput &c = plan->servers[i].chosen;
      EXPECT_NEAR(c.requests,
                  throughputAt(tier[i], l, c.nicShare, c.nicReadShare),
                  1e-9 * c.requests);
      double best = searchShares(tier[i], l);
      EXPECT_NEAR(c.requests, best, 1e-7 * best) << round << " " << i;
      double xMax = tier[i].engineRate > 0 ? 1 : 0;
      double yMax = tier[i].decompressRate > 0 && l.readFraction > 0 ? 1 : 0;
      for (int gx = 0; gx <= 20; ++gx)
        for (int gy = 0; gy <= 20; ++gy)
          EXPECT_LE(throughputAt(tier[i], l, xMax * gx / 20, yMax * gy / 20),
                    c.requests * (1 + 1e-12));
    }
    std::vector<double> chosenPer;
    for (const ServerPlan &s : plan->servers)
      chosenPer.push_back(s.chosen.requests);
    bestPer = chosenPer;
    bestTotal = plan->planned.requests;
    // The bytes: writes come in whole, reads leave whole.
    double whole = 0;
    for (const ServerPlan &s : plan->servers)
      whole += s.chosen.requests * l.blockBytes;
    EXPECT_GE(plan->planned.bytesIn, (1 - l.readFraction) * whole * 0.999999);
    EXPECT_GE(plan->planned.bytesOut, l.readFraction * whole * 0.999999);
    EXPECT_LE(std::max(plan->planned.bytesIn, plan->planned.bytesOut),
              whole * 1.000001);
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

TEST(MiddleTier, ReadBoundsByHand) {
  // 16 cores, 100 Gb/s; engines: compression 10 GB/s at ratio 2,
  // decompression 5 GB/s. 30% reads of 4 KiB blocks; the host codec
  // compresses 500 MB/s and decompresses 2 GB/s per core at ratio 2.5.
  MiddleTierServer s = server("mid[0]", 16, 12.5e9, 10e9, 2.0, 5e9);
  BlockIOLoad l = load4k();
  l.readFraction = 0.3;
  l.hostDecompressRate = 2e9;
  const double b = 4096, w = 0.7, r = 0.3;
  // Both on the host: 16 / (1 us + 0.7 x 8.192 us + 0.3 x 2.048 us).
  auto hh = siteThroughput(s, l, CompressionSite::Host, CompressionSite::Host);
  ASSERT_TRUE(static_cast<bool>(hh));
  double hostSeconds = 1e-6 + w * b / 500e6 + r * b / 2e9;
  EXPECT_DOUBLE_EQ(hh->requests, 16 / hostSeconds);
  EXPECT_EQ(hh->bottleneck, "host cores");
  EXPECT_DOUBLE_EQ(hh->ingressPerRequest, w * b + r * b / 2.5);
  EXPECT_DOUBLE_EQ(hh->egressPerRequest, w * b / 2.5 + r * b);
  // Both on the NIC: min(16 / 1 us, 10e9 / (0.7 B), 5e9 / (0.3 B),
  // 12.5e9 / (0.7 B + 0.3 B / 2)): the compression engine.
  auto nn = siteThroughput(s, l, CompressionSite::SmartNic,
                           CompressionSite::SmartNic);
  ASSERT_TRUE(static_cast<bool>(nn));
  EXPECT_DOUBLE_EQ(nn->engineBound, 10e9 / (w * b));
  EXPECT_DOUBLE_EQ(nn->decompressBound, 5e9 / (r * b));
  EXPECT_DOUBLE_EQ(nn->lineBound, 12.5e9 / (w * b + r * b / 2));
  EXPECT_DOUBLE_EQ(nn->requests, 10e9 / (w * b));
  EXPECT_EQ(nn->bottleneck, "compression engine");
  EXPECT_DOUBLE_EQ(nn->coresBusy, nn->requests * 1e-6);
  // The split: the decoder is fast enough for every read (y = 1), and the
  // engine's share x trades host cores, (1 us + 0.7 (1 - x) 8.192 us) / 16,
  // against the ingress, (0.7 B + 0.3 B m(x)) / 12.5e9 with
  // m(x) = x / 2 + (1 - x) / 2.5 (the engine's blocks come back larger):
  // they meet at x = (a_host - a_in) / (b_in - b_host).
  auto plan = planMiddleTier({s}, l);
  ASSERT_TRUE(static_cast<bool>(plan));
  const SiteThroughput &sp = plan->servers[0].chosen;
  double aHost = (1e-6 + w * b / 500e6) / 16, bHost = -(w * b / 500e6) / 16;
  double aIn = (w * b + r * b / 2.5) / 12.5e9;
  double bIn = r * b * (1 / 2.0 - 1 / 2.5) / 12.5e9;
  double x = (aHost - aIn) / (bIn - bHost);
  EXPECT_EQ(sp.site, CompressionSite::Split);
  EXPECT_EQ(sp.decompressSite, CompressionSite::SmartNic);
  EXPECT_NEAR(sp.nicShare, x, 1e-12);
  EXPECT_DOUBLE_EQ(sp.nicReadShare, 1.0);
  EXPECT_NEAR(sp.requests, 1 / (aIn + bIn * x), 1e-6 * sp.requests);
  EXPECT_GT(sp.requests, nn->requests);
  EXPECT_EQ(sp.bottleneck, "host cores and line rate");
  double m = x / 2 + (1 - x) / 2.5;
  EXPECT_NEAR(plan->planned.bytesIn, sp.requests * (w * b + r * b * m), 1e-3);
  EXPECT_NEAR(plan->planned.bytesOut, sp.requests * (w * b * m + r * b), 1e-3);
  // Reads only, four ports, a slow decoder (1 GB/s: 244 k/s alone): it
  // takes the share y where the host, (1 us + (1 - y) 2.048 us) / 16,
  // meets it, y 4.096 us: y = 3.048 / 67.584.
  l.readFraction = 1;
  MiddleTierServer slow = server("mid[1]", 16, 50e9, 10e9, 2.0, 1e9);
  plan = planMiddleTier({slow}, l);
  ASSERT_TRUE(static_cast<bool>(plan));
  const SiteThroughput &c = plan->servers[0].chosen;
  double y = 3.048 / 67.584;
  EXPECT_EQ(c.decompressSite, CompressionSite::Split);
  EXPECT_NEAR(c.nicReadShare, y, 1e-12);
  EXPECT_NEAR(c.requests, 1e9 / (y * b), 1e-6 * c.requests);
  EXPECT_EQ(c.bottleneck, "host cores and decompression engine");
  EXPECT_DOUBLE_EQ(c.egressPerRequest, b);
  // With one port the egress binds every choice: 12.5e9 / 4096; the
  // decoder takes as many reads as it can (fewest host cores busy), a
  // share 4096 / 12.5e9 / 4.096 us = 0.08.
  slow.lineRate = 12.5e9;
  plan = planMiddleTier({slow}, l);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_EQ(plan->servers[0].chosen.bottleneck,
            "decompression engine and line rate");
  EXPECT_NEAR(plan->servers[0].chosen.nicReadShare, 0.08, 1e-12);
  EXPECT_DOUBLE_EQ(plan->servers[0].chosen.requests, 12.5e9 / b);
  // Without reads the decoder is no candidate.
  l.readFraction = 0;
  plan = planMiddleTier({s}, l);
  ASSERT_TRUE(static_cast<bool>(plan));
  EXPECT_FALSE(plan->servers[0].hasDecompressEngine);
  EXPECT_EQ(plan->servers[0].chosen.decompressSite, CompressionSite::Host);
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
  bad = l;
  bad.readFraction = 1.5;
  EXPECT_EQ(errorOf({s}, bad), "the read fraction must be in [0, 1], got 1.5");
  bad = l;
  bad.readFraction = 0.5;
  bad.hostDecompressRate = 0;
  EXPECT_EQ(errorOf({s}, bad), "the host codec's decompression rate must be "
                               "positive, got 0 B/s per core");
  auto t =
      siteThroughput(server("m", 4, 1e9, 0, 0), l, CompressionSite::SmartNic);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(llvm::toString(t.takeError()),
            "middle-tier server 'm' has no SmartNIC compression engine");
  t = siteThroughput(server("m", 4, 1e9, 0, 0), l, CompressionSite::Host,
                     CompressionSite::SmartNic);
  ASSERT_FALSE(static_cast<bool>(t));
  EXPECT_EQ(llvm::toString(t.takeError()),
            "middle-tier server 'm' has no SmartNIC decompression engine");
}

TEST(MiddleTier, JSON) {
  auto plan = planMiddleTier({server("mid[0]", 16, 12.5e9, 10e9, 2)}, load4k());
  ASSERT_TRUE(static_cast<bool>(plan));
  std::string json = middleTierToJSON(*plan);
  EXPECT_NE(json.find("\"site\": \"split\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"compress_nic_share\": 0."), std::string::npos);
  EXPECT_NE(json.find("\"decompress_nic_share\": 0"), std::string::npos);
  EXPECT_NE(json.find("\"decompress_site\": \"host\""), std::string::npos);
  EXPECT_NE(json.find("\"cpu_only\""), std::string::npos);
  EXPECT_NE(json.find("\"bottleneck\": \"compression engine and line rate\""),
            std::string::npos);
}

} // namespace
