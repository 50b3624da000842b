//===- MiddleTier.cpp - Storage middle tier with SmartNIC offload ---------===//
//
// The per-server bounds and the tier sizing of MiddleTier.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/MiddleTier.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace sluice;
using namespace sluice::flow;

llvm::StringRef flow::stringifySite(CompressionSite site) {
  return site == CompressionSite::Host ? "host" : "smartnic";
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

/// `rate / perRequest`, +infinity when nothing is asked of the resource.
static double bound(double rate, double perRequest) {
  return perRequest > 0 ? rate / perRequest : kInf;
}

llvm::Expected<SiteThroughput>
flow::siteThroughput(const MiddleTierServer &server, const BlockIOLoad &load,
                     CompressionSite site, CompressionSite decompressSite) {
  using S = CompressionSite;
  SiteThroughput t;
  t.site = site;
  t.decompressSite = decompressSite;
  const double b = load.blockBytes, r = load.readFraction, w = 1 - r;
  double hostSecondsPerRequest = load.headerSeconds;
  t.engineBound = t.decompressBound = kInf;
  if (site == S::Host) {
    hostSecondsPerRequest += w * b / load.hostCompressRate;
    t.ratio = load.hostRatio;
  } else {
    if (!positive(server.engineRate))
      return fail("middle-tier server '" + server.name +
                  "' has no SmartNIC compression engine");
    t.engineBound = bound(server.engineRate, w * b);
    t.ratio = std::min(server.engineRatio, load.hostRatio);
  }
  if (decompressSite == S::Host) {
    if (r > 0)
      hostSecondsPerRequest += r * b / load.hostDecompressRate;
  } else {
    if (!positive(server.decompressRate))
      return fail("middle-tier server '" + server.name +
                  "' has no SmartNIC decompression engine");
    t.decompressBound = bound(server.decompressRate, r * b);
  }
  // Writes come in whole and leave compressed; reads the other way round.
  t.ingressPerRequest = w * b + r * b / t.ratio;
  t.egressPerRequest = w * b / t.ratio + r * b;
  t.lineBound =
      server.lineRate / std::max(t.ingressPerRequest, t.egressPerRequest);
  // h = 0 with the payload on the NIC: the host does not bind.
  t.hostBound = bound(server.cores, hostSecondsPerRequest);
  t.requests =
      std::min({t.hostBound, t.engineBound, t.decompressBound, t.lineBound});
  t.coresBusy = t.requests * hostSecondsPerRequest;
  // The first bound that binds, in a fixed order (ties: host cores first).
  if (t.requests == t.hostBound)
    t.bottleneck = "host cores";
  else if (t.requests == t.engineBound)
    t.bottleneck = "compression engine";
  else if (t.requests == t.decompressBound)
    t.bottleneck = "decompression engine";
  else
    t.bottleneck = "line rate";
  return t;
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
    // Every candidate pair of sites; the most requests win, then the fewest
    // host cores busy, then the earlier pair (SmartNIC first).
    using S = CompressionSite;
    bool first = true;
    for (S compress : {S::SmartNic, S::Host}) {
      if (compress == S::SmartNic && !p.hasEngine)
        continue;
      for (S decompress : {S::SmartNic, S::Host}) {
        if (decompress == S::SmartNic && !p.hasDecompressEngine)
          continue;
        auto t = siteThroughput(s, load, compress, decompress);
        if (!t)
          return t.takeError();
        if (compress == S::Host && decompress == S::Host)
          p.host = *t;
        if (first || t->requests > p.chosen.requests ||
            (t->requests == p.chosen.requests &&
             t->coresBusy < p.chosen.coresBusy))
          p.chosen = *t;
        first = false;
      }
    }
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
