//===- MiddleTier.cpp - Storage middle tier with SmartNIC offload ---------===//
//
// The per-server bounds and the tier sizing of MiddleTier.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/MiddleTier.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace sluice;
using namespace sluice::flow;

llvm::StringRef flow::stringifySite(CompressionSite site) {
  switch (site) {
  case CompressionSite::Host:
    return "host";
  case CompressionSite::SmartNic:
    return "smartnic";
  case CompressionSite::Split:
    return "split";
  }
  llvm_unreachable("unknown compression site");
}

CompressionSite flow::siteOfShare(double nicShare) {
  return nicShare <= 0   ? CompressionSite::Host
         : nicShare >= 1 ? CompressionSite::SmartNic
                         : CompressionSite::Split;
}

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A sum of throughputs within this relative distance of the target
/// reaches it (the order of a floating-point sum must not decide).
static constexpr double kSumTolerance = 1e-9;

/// "0.5", "1e+06": the shortest form, for messages.
static std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", x);
  return buf;
}

static bool positive(double x) { return std::isfinite(x) && x > 0; }

static constexpr double kInf = std::numeric_limits<double>::infinity();

namespace {

/// The resources of one server, each as g(x, y) = a + bx x + by y: the
/// seconds of that resource one request takes with the shares (x, y).
struct Cost {
  double a = 0, bx = 0, by = 0;
  double at(double x, double y) const { return a + bx * x + by * y; }
};
enum Resource { kHost, kEngine, kDecoder, kIngress, kEgress, kResources };
constexpr const char *kResourceNames[kResources] = {
    "host cores", "compression engine", "decompression engine", "line rate",
    "line rate"};

struct ServerCosts {
  Cost g[kResources];
  double xMax = 0, yMax = 0; ///< the box: 0 without the engine
  double cores = 1;
  /// Host CPU seconds per request (g_host is per core).
  double hostSecondsAt(double x, double y) const {
    return g[kHost].at(x, y) * cores;
  }
};

/// The costs of `s` under `load` (validated by planMiddleTier).
ServerCosts costsOf(const MiddleTierServer &s, const BlockIOLoad &load) {
  ServerCosts c;
  const double b = load.blockBytes, r = load.readFraction, w = 1 - r;
  const double rhoHost = load.hostRatio;
  const double rhoNic = s.engineRatio >= 1
                            ? std::min(s.engineRatio, load.hostRatio)
                            : load.hostRatio;
  c.cores = s.cores;
  double compressHost = w * b / load.hostCompressRate;
  double decompressHost = r > 0 ? r * b / load.hostDecompressRate : 0;
  c.g[kHost] = {(load.headerSeconds + compressHost + decompressHost) / s.cores,
                -compressHost / s.cores, -decompressHost / s.cores};
  if (s.engineRate > 0)
    c.g[kEngine] = {0, w * b / s.engineRate, 0};
  if (s.decompressRate > 0)
    c.g[kDecoder] = {0, 0, r * b / s.decompressRate};
  // Bytes of a compressed block per uncompressed byte: m(x).
  double mSlope = 1 / rhoNic - 1 / rhoHost;
  c.g[kIngress] = {(w * b + r * b / rhoHost) / s.lineRate,
                   r * b * mSlope / s.lineRate, 0};
  c.g[kEgress] = {(w * b / rhoHost + r * b) / s.lineRate,
                  w * b * mSlope / s.lineRate, 0};
  c.xMax = s.engineRate > 0 ? 1 : 0;
  c.yMax = s.decompressRate > 0 && r > 0 ? 1 : 0;
  return c;
}

} // namespace

llvm::Expected<SiteThroughput>
flow::splitThroughput(const MiddleTierServer &server, const BlockIOLoad &load,
                      double x, double y) {
  if (x > 0 && !positive(server.engineRate))
    return fail("middle-tier server '" + server.name +
                "' has no SmartNIC compression engine");
  if (y > 0 && !positive(server.decompressRate))
    return fail("middle-tier server '" + server.name +
                "' has no SmartNIC decompression engine");
  ServerCosts c = costsOf(server, load);
  SiteThroughput t;
  t.nicShare = x;
  t.nicReadShare = y;
  t.site = siteOfShare(x);
  t.decompressSite = siteOfShare(y);
  auto boundOf = [&](Resource k) {
    double g = c.g[k].at(x, y);
    return g > 0 ? 1 / g : kInf;
  };
  t.hostBound = boundOf(kHost);
  t.engineBound = boundOf(kEngine);
  t.decompressBound = boundOf(kDecoder);
  t.lineBound = std::min(boundOf(kIngress), boundOf(kEgress));
  t.requests =
      std::min({t.hostBound, t.engineBound, t.decompressBound, t.lineBound});
  const double b = load.blockBytes, r = load.readFraction, w = 1 - r;
  double rhoNic = server.engineRatio >= 1
                      ? std::min(server.engineRatio, load.hostRatio)
                      : load.hostRatio;
  double m = x / rhoNic + (1 - x) / load.hostRatio;
  t.ratio = 1 / m;
  t.ingressPerRequest = w * b + r * b * m;
  t.egressPerRequest = w * b * m + r * b;
  t.coresBusy = t.requests * c.hostSecondsAt(x, y);
  // Every bound within a relative 1e-9 of the throughput binds.
  for (auto [bound, name] :
       {std::pair(t.hostBound, kResourceNames[kHost]),
        std::pair(t.engineBound, kResourceNames[kEngine]),
        std::pair(t.decompressBound, kResourceNames[kDecoder]),
        std::pair(t.lineBound, kResourceNames[kIngress])})
    if (bound <= t.requests * (1 + 1e-9))
      t.bottleneck += (t.bottleneck.empty() ? "" : " and ") + std::string(name);
  return t;
}

llvm::Expected<SiteThroughput>
flow::siteThroughput(const MiddleTierServer &server, const BlockIOLoad &load,
                     CompressionSite site, CompressionSite decompressSite) {
  assert(site != CompressionSite::Split &&
         decompressSite != CompressionSite::Split &&
         "siteThroughput takes pure sites; splitThroughput takes shares");
  return splitThroughput(server, load,
                         site == CompressionSite::SmartNic ? 1 : 0,
                         decompressSite == CompressionSite::SmartNic ? 1 : 0);
}

/// The shares (x, y) in the box of `c` that minimise max_k g_k(x, y): the
/// LP  min z  s.t.  g_k(x, y) <= z,  0 <= x <= xMax,  0 <= y <= yMax,
/// solved by enumerating its vertices (every three of its planes).
static std::pair<double, double> bestShares(const ServerCosts &c) {
  // Planes p . (x, y, z) = q.
  struct Plane {
    double px, py, pz, q;
  };
  llvm::SmallVector<Plane, 9> planes;
  for (const Cost &g : c.g)
    if (g.a != 0 || g.bx != 0 || g.by != 0)
      planes.push_back({g.bx, g.by, -1, -g.a});
  planes.push_back({1, 0, 0, 0});
  planes.push_back({0, 1, 0, 0});
  if (c.xMax > 0)
    planes.push_back({1, 0, 0, c.xMax});
  if (c.yMax > 0)
    planes.push_back({0, 1, 0, c.yMax});
  auto worst = [&](double x, double y) {
    double z = 0;
    for (const Cost &g : c.g)
      z = std::max(z, g.at(x, y));
    return z;
  };
  double bestX = 0, bestY = 0, bestZ = worst(0, 0);
  double bestHost = c.g[kHost].at(0, 0);
  size_t n = planes.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      for (size_t k = j + 1; k < n; ++k) {
        const Plane &a = planes[i], &b = planes[j], &d = planes[k];
        double det = a.px * (b.py * d.pz - b.pz * d.py) -
                     a.py * (b.px * d.pz - b.pz * d.px) +
                     a.pz * (b.px * d.py - b.py * d.px);
        if (std::fabs(det) < 1e-300)
          continue;
        // Cramer's rule for (x, y); z follows from the costs.
        double x = (a.q * (b.py * d.pz - b.pz * d.py) -
                    a.py * (b.q * d.pz - b.pz * d.q) +
                    a.pz * (b.q * d.py - b.py * d.q)) /
                   det;
        double y = (a.px * (b.q * d.pz - b.pz * d.q) -
                    a.q * (b.px * d.pz - b.pz * d.px) +
                    a.pz * (b.px * d.q - b.q * d.px)) /
                   det;
        if (!std::isfinite(x) || !std::isfinite(y))
          continue;
        // Round off vertices a hair outside the box onto it.
        if (x < -1e-12 || x > c.xMax + 1e-12 || y < -1e-12 ||
            y > c.yMax + 1e-12)
          continue;
        // (+ 0.0 turns a -0 into 0.)
        x = std::clamp(x, 0.0, c.xMax) + 0.0;
        y = std::clamp(y, 0.0, c.yMax) + 0.0;
        double z = worst(x, y), host = c.g[kHost].at(x, y);
        // A better vertex, or as good (relative 1e-12) with fewer host
        // cores busy per request.
        if (z < bestZ * (1 - 1e-12) ||
            (z <= bestZ * (1 + 1e-12) && host < bestHost * (1 - 1e-12))) {
          bestX = x;
          bestY = y;
          bestZ = z;
          bestHost = host;
        }
      }
  return {bestX, bestY};
}

int64_t flow::serversForTarget(llvm::ArrayRef<double> perServer, double target,
                               bool &extrapolated) {
  extrapolated = false;
  if (target <= 0)
    return 0;
  std::vector<double> sorted(perServer.begin(), perServer.end());
  std::stable_sort(sorted.begin(), sorted.end(), std::greater<double>());
  double sum = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    sum += sorted[k];
    if (sum >= target * (1 - kSumTolerance))
      return static_cast<int64_t>(k + 1);
  }
  extrapolated = true;
  if (sorted.empty() || !(sorted.back() > 0))
    return -1;
  double more = std::ceil((target - sum) / sorted.back());
  return static_cast<int64_t>(sorted.size()) + static_cast<int64_t>(more);
}

static TierTotals totals(llvm::ArrayRef<SiteThroughput> sites,
                         const BlockIOLoad &load) {
  TierTotals t;
  std::vector<double> per;
  for (const SiteThroughput &s : sites) {
    t.requests += s.requests;
    t.bytesIn += s.requests * s.ingressPerRequest;
    t.bytesOut += s.requests * s.egressPerRequest;
    per.push_back(s.requests);
  }
  t.serversNeeded = serversForTarget(per, load.requestRate, t.extrapolated);
  return t;
}

llvm::Expected<MiddleTierPlan>
flow::planMiddleTier(llvm::ArrayRef<MiddleTierServer> servers,
                     const BlockIOLoad &load) {
  if (servers.empty())
    return fail("the middle tier has no servers");
  if (!positive(load.blockBytes))
    return fail("the block size must be positive, got " + num(load.blockBytes));
  if (!positive(load.requestRate))
    return fail("the request rate must be positive, got " +
                num(load.requestRate));
  if (!positive(load.hostCompressRate))
    return fail("the host codec's rate must be positive, got " +
                num(load.hostCompressRate) + " B/s per core");
  if (!std::isfinite(load.hostRatio) || load.hostRatio < 1)
    return fail("the host codec's ratio must be at least 1, got " +
                num(load.hostRatio));
  if (!std::isfinite(load.headerSeconds) || load.headerSeconds < 0)
    return fail("the header cost must not be negative, got " +
                num(load.headerSeconds) + " s");
  if (!(load.readFraction >= 0 && load.readFraction <= 1))
    return fail("the read fraction must be in [0, 1], got " +
                num(load.readFraction));
  if (load.readFraction > 0 && !positive(load.hostDecompressRate))
    return fail("the host codec's decompression rate must be positive, got " +
                num(load.hostDecompressRate) + " B/s per core");
  MiddleTierPlan plan;
  std::vector<SiteThroughput> chosen, host;
  for (const MiddleTierServer &s : servers) {
    if (!positive(s.cores))
      return fail("middle-tier server '" + s.name + "' has no host cores");
    if (!positive(s.lineRate))
      return fail("middle-tier server '" + s.name + "' has no line rate");
    ServerPlan p;
    p.name = s.name;
    p.hasEngine = s.engineRate > 0;
    p.hasDecompressEngine = s.decompressRate > 0 && load.readFraction > 0;
    if (p.hasEngine && (!std::isfinite(s.engineRatio) || s.engineRatio < 1))
      return fail("middle-tier server '" + s.name +
                  "': the compression engine's ratio must be at least 1, "
                  "got " +
                  num(s.engineRatio));
    // The best split (the LP of bestShares) and both sites on the host.
    auto [x, y] = bestShares(costsOf(s, load));
    auto best = splitThroughput(s, load, x, y);
    auto hostOnly = splitThroughput(s, load, 0, 0);
    if (!best)
      return best.takeError();
    if (!hostOnly)
      return hostOnly.takeError();
    p.chosen = std::move(*best);
    p.host = std::move(*hostOnly);
    chosen.push_back(p.chosen);
    host.push_back(p.host);
    plan.servers.push_back(std::move(p));
  }
  plan.planned = totals(chosen, load);
  plan.cpuOnly = totals(host, load);
  plan.speedup = plan.planned.requests / plan.cpuOnly.requests;
  return plan;
}

std::string flow::middleTierToJSON(const MiddleTierPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os, 2);
  auto tier = [&](llvm::StringRef name, const TierTotals &t) {
    j.attributeObject(name, [&] {
      j.attribute("requests_per_s", t.requests);
      j.attribute("bytes_in_per_s", t.bytesIn);
      j.attribute("bytes_out_per_s", t.bytesOut);
      j.attribute("servers_needed", t.serversNeeded);
      j.attribute("extrapolated", t.extrapolated);
    });
  };
  j.object([&] {
    j.attributeArray("servers", [&] {
      for (const ServerPlan &s : plan.servers)
        j.object([&] {
          j.attribute("name", s.name);
          j.attribute("site", stringifySite(s.chosen.site));
          j.attribute("decompress_site",
                      stringifySite(s.chosen.decompressSite));
          j.attribute("compress_nic_share", s.chosen.nicShare);
          j.attribute("decompress_nic_share", s.chosen.nicReadShare);
          j.attribute("requests_per_s", s.chosen.requests);
          j.attribute("ratio", s.chosen.ratio);
          j.attribute("bottleneck", s.chosen.bottleneck);
          j.attribute("host_cores_busy", s.chosen.coresBusy);
          j.attribute("host_requests_per_s", s.host.requests);
        });
    });
    tier("planned", plan.planned);
    tier("cpu_only", plan.cpuOnly);
    j.attribute("speedup", plan.speedup);
  });
  return text;
}
