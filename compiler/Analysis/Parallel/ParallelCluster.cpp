//===- ParallelCluster.cpp - GPUs and links for 3D-parallel plans ---------===//
#include "compiler/Analysis/Parallel/ParallelCluster.h"
#include "compiler/Analysis/Offload/OffloadMachine.h"

#include "compiler/Analysis/TopoAnalysis.h"

#include <cmath>
#include <map>

using namespace sluice;
using namespace sluice::parallel;

std::string ParallelCluster::validate() const {
  if (hosts <= 0 || gpusPerHost <= 0)
    return "the cluster has no GPU";
  if (!(gpuMemory > 0))
    return "GPU memory must be positive";
  if (!(gpuPeakFlops > 0))
    return "GPU peak FLOP/s must be positive";
  const size_t n = static_cast<size_t>(gpus());
  if (links.size() != n * n)
    return "the bandwidth matrix must be " + std::to_string(n) + " x " +
           std::to_string(n);
  if (gpuNames.size() != n || hostNames.size() != static_cast<size_t>(hosts))
    return "every GPU and every host needs a name";
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (a != b && !(links[a * n + b].bandwidth > 0))
        return "no bandwidth from " + gpuNames[a] + " to " + gpuNames[b];
  return "";
}

ParallelCluster ParallelCluster::uniform(int64_t hosts, int64_t gpusPerHost,
                                         double gpuMemory, double gpuPeakFlops,
                                         double gpuMemoryBandwidth,
                                         double intra, double inter,
                                         double intraLatency,
                                         double interLatency) {
  ParallelCluster c;
  c.name = "uniform";
  c.hosts = hosts;
  c.gpusPerHost = gpusPerHost;
  c.gpuMemory = gpuMemory;
  c.gpuPeakFlops = gpuPeakFlops;
  c.gpuMemoryBandwidth = gpuMemoryBandwidth;
  const int64_t n = c.gpus();
  for (int64_t h = 0; h < hosts; ++h) {
    c.hostNames.push_back("host[" + std::to_string(h) + "]");
    for (int64_t l = 0; l < gpusPerHost; ++l)
      c.gpuNames.push_back(c.hostNames.back() + ".gpu[" + std::to_string(l) +
                           "]");
  }
  c.links.assign(static_cast<size_t>(n * n), {});
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b) {
      if (a == b)
        continue;
      const bool same = a / gpusPerHost == b / gpusPerHost;
      c.link(a, b) = {static_cast<float>(same ? intra : inter),
                      static_cast<float>(same ? intraLatency : interLatency)};
    }
  return c;
}

static llvm::Error clusterError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::vector<HostGpus> parallel::gpusByHost(const analysis::TopoGraph &g,
                                           llvm::StringRef name) {
  std::vector<HostGpus> hosts;
  std::map<std::string, size_t> index;
  for (unsigned d : analysis::devicesOfKind(g, "gpu")) {
    std::string host =
        g.devices[d].group.empty() ? name.str() : g.devices[d].group;
    auto [it, inserted] = index.try_emplace(host, hosts.size());
    if (inserted)
      hosts.push_back({host, {}, {}});
    hosts[it->second].gpus.push_back(g.devices[d].name);
    hosts[it->second].devices.push_back(d);
  }
  return hosts;
}

/// Fills the cluster's host figures (optimizer offload) from the CPUs of
/// each host; leaves them 0 when a host has no CPU with memory and memory
/// bandwidth.
static void hostFigures(const analysis::TopoGraph &g,
                        const std::vector<HostGpus> &hosts,
                        ParallelCluster &c) {
  double memory = INFINITY, rate = INFINITY, link = INFINITY;
  for (const HostGpus &h : hosts) {
    const std::string group = g.devices[h.devices.front()].group;
    std::vector<unsigned> cpus;
    double mem = 0, bw = 0;
    for (unsigned d : analysis::devicesOfKind(g, "cpu")) {
      if (g.devices[d].group != group)
        continue;
      const analysis::QuantityProp *m = g.devices[d].findQuantity("memory");
      const analysis::QuantityProp *b =
          g.devices[d].findQuantity("memory_bandwidth");
      if (!m || !b || !(m->value > 0) || !(b->value > 0))
        continue;
      cpus.push_back(d);
      mem += m->value;
      bw += b->value;
    }
    if (cpus.empty())
      return;
    const double n = static_cast<double>(h.devices.size());
    double share =
        std::min(analysis::computeMinCut(g, cpus, h.devices).capacity,
                 analysis::computeMinCut(g, h.devices, cpus).capacity) /
        n;
    for (unsigned gpu : h.devices) {
      double widest = 0;
      for (unsigned cpu : cpus) {
        analysis::WidestPathTree t = analysis::computeWidestPaths(g, cpu);
        if (t.reachable(gpu))
          widest = std::max(widest, t.bandwidth[gpu]);
      }
      share = std::min(share, widest);
    }
    if (!(share > 0))
      return;
    memory = std::min(memory, mem);
    rate = std::min(rate, bw * offload::kDefaultAdamBandwidthFraction /
                              offload::kAdamHostBytesPerParam);
    link = std::min(link, share);
  }
  c.hostMemory = memory;
  c.hostAdamRate = rate;
  c.hostLinkBandwidth = link;
}

llvm::Expected<ParallelCluster>
parallel::clusterFromTopo(const analysis::TopoGraph &g, llvm::StringRef name) {
  std::vector<unsigned> gpus = analysis::devicesOfKind(g, "gpu");
  if (gpus.empty())
    return clusterError("topology '" + name + "' has no gpu");
  std::vector<HostGpus> hosts = gpusByHost(g, name);
  ParallelCluster c;
  c.name = name.str();
  c.hosts = static_cast<int64_t>(hosts.size());
  c.gpusPerHost = static_cast<int64_t>(hosts.front().gpus.size());
  std::vector<unsigned> order;
  for (const HostGpus &h : hosts) {
    if (static_cast<int64_t>(h.gpus.size()) != c.gpusPerHost)
      return clusterError("host '" + h.host + "' has " +
                          llvm::Twine(h.gpus.size()) + " gpus but '" +
                          hosts.front().host + "' has " +
                          llvm::Twine(c.gpusPerHost) +
                          " (the parallel planner needs the same number of "
                          "gpus in every host)");
    c.hostNames.push_back(h.host);
    order.insert(order.end(), h.devices.begin(), h.devices.end());
    c.gpuNames.insert(c.gpuNames.end(), h.gpus.begin(), h.gpus.end());
  }
  auto quantity = [&](unsigned d, llvm::StringRef prop,
                      bool required) -> llvm::Expected<double> {
    const analysis::QuantityProp *q = g.devices[d].findQuantity(prop);
    if (!q || !(q->value > 0)) {
      if (!required)
        return 0.0;
      return clusterError("gpu '" + g.devices[d].name + "' has no positive '" +
                          prop + "' property");
    }
    return q->value;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    auto mem = quantity(order[i], "memory", true);
    if (!mem)
      return mem.takeError();
    auto flops = quantity(order[i], "compute", true);
    if (!flops)
      return flops.takeError();
    auto mbw = quantity(order[i], "memory_bandwidth", false);
    if (!mbw)
      return mbw.takeError();
    if (i == 0) {
      c.gpuMemory = *mem;
      c.gpuPeakFlops = *flops;
      c.gpuMemoryBandwidth = *mbw;
    } else if (*mem != c.gpuMemory || *flops != c.gpuPeakFlops) {
      return clusterError("gpu '" + c.gpuNames[i] + "' differs from '" +
                          c.gpuNames[0] +
                          "' in memory or compute (the parallel planner "
                          "needs identical gpus)");
    }
  }
  const size_t n = order.size();
  c.links.assign(n * n, {});
  // Measured arcs, by (from, to) device index; the last one of a pair wins.
  std::map<std::pair<unsigned, unsigned>, const analysis::TopoArc *> measured;
  for (const analysis::TopoArc &arc : g.arcs)
    if (arc.measured)
      measured[{arc.from, arc.to}] = &arc;
  const size_t perHost = static_cast<size_t>(c.gpusPerHost);
  for (size_t a = 0; a < n; ++a) {
    analysis::WidestPathTree t = analysis::computeWidestPaths(g, order[a]);
    // Inside a host, all paths at once (a GPU's NVLinks to every NVSwitch
    // chip): the max flow to each other GPU of the host.
    const size_t host = a / perHost;
    std::vector<unsigned> mates(order.begin() + host * perHost,
                                order.begin() + (host + 1) * perHost);
    std::vector<double> flow = analysis::computeMaxFlowRow(g, order[a], mates);
    for (size_t b = 0; b < n; ++b) {
      if (a == b)
        continue;
      double bw = t.reachable(order[b]) ? t.bandwidth[order[b]] : 0.0;
      double lat = t.reachable(order[b]) ? t.latency[order[b]] : 0.0;
      if (b / perHost == host)
        bw = std::max(bw, flow[b % perHost]);
      if (auto it = measured.find({order[a], order[b]}); it != measured.end()) {
        bw = it->second->bandwidth;
        if (it->second->latency > 0)
          lat = it->second->latency;
        ++c.measuredPairs;
      }
      if (!(bw > 0))
        return clusterError("gpu '" + c.gpuNames[a] + "' does not reach gpu '" +
                            c.gpuNames[b] + "'");
      c.links[a * n + b] = {static_cast<float>(bw), static_cast<float>(lat)};
    }
  }
  hostFigures(g, hosts, c);
  if (std::string err = c.validate(); !err.empty())
    return clusterError(err);
  return c;
}
