//===- GnnServers.cpp - Multi-server plan of mini-batch GNN training ------===//
//
// See GnnServers.h; the formulas are in docs/gnn.md, "Several servers".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Gnn/GnnServers.h"

#include "compiler/Analysis/Flow/Collectives.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"

#include "sluice/gnn.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace sluice;
using namespace sluice::gnn;

std::vector<double>
sluice::gnn::countRowsByPart(llvm::ArrayRef<double> inputProbability,
                             llvm::ArrayRef<uint32_t> partOf, unsigned parts) {
  std::vector<double> out(parts, 0.0);
  for (size_t v = 0; v < inputProbability.size() && v < partOf.size(); ++v)
    if (partOf[v] < parts)
      out[partOf[v]] += inputProbability[v];
  return out;
}

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// Row tiers of one server's placement (driveLoad reads tier 2).
enum Tier : uint8_t { Host = 1, Drive = 2, Remote = 3, RemoteCached = 4 };

/// One batch of the seeds of part `s`: the analytic profile corrected by
/// simulated batches, as predictEpoch does for one machine.
BatchProfile serverProfile(const GnnGraph &graph, const GnnJob &job,
                           llvm::ArrayRef<double> seedsPerEpoch,
                           llvm::ArrayRef<uint32_t> partOf, unsigned s,
                           double batches, uint64_t seed,
                           const GnnCostConstants &c) {
  const size_t n = graph.vertices();
  std::vector<double> weight(n, 0.0), q(n, 0.0);
  double total = 0;
  for (size_t v = 0; v < n && v < seedsPerEpoch.size(); ++v)
    if (partOf[v] == s) {
      weight[v] = seedsPerEpoch[v];
      total += weight[v];
      q[v] = batches > 0 ? std::min(1.0, weight[v] / batches) : 0.0;
    }
  BatchProfile p = profileBatch(graph.offsets, graph.targets, q, job.fanouts);
  if (c.simulatedBatches && total > 0 && batches > 0) {
    const uint32_t size = static_cast<uint32_t>(
        std::max<long long>(1, std::llround(total / batches)));
    correctProfile(p,
                   simulateBatches(graph.offsets, graph.targets, weight, size,
                                   job.fanouts, c.simulatedBatches, seed));
  }
  return p;
}

/// Places server `s`'s local rows (memory, or feature_cache and drives) and
/// caches the hottest remote rows in what memory is left. Fills the
/// placement fields of `out` and returns the tier of every file row.
llvm::Expected<std::vector<uint8_t>>
placeServer(const GnnGraph &graph, const GnnJob &job,
            llvm::ArrayRef<uint32_t> partOf, unsigned s,
            const GnnCostConstants &c, ServerPrediction &out) {
  const size_t n = graph.vertices();
  const uint64_t rowBytes = job.rowBytes();
  uint64_t rows = std::max<uint64_t>(job.fileRows, n);
  for (size_t v = 0; v < n; ++v)
    rows = std::max<uint64_t>(rows, graph.row(v) + 1);
  const GnnMachine &m = out.machine;
  const bool memoryKnown = m.hostMemory > 0;
  const double usable = memoryKnown ? m.hostMemory * c.hostUsableFraction
                                    : std::numeric_limits<double>::infinity();
  // Expected accesses of an epoch by this server's seeds: its ranking.
  std::vector<double> counts(n, 0.0);
  for (size_t v = 0; v < n && v < graph.trainSeed.size(); ++v)
    if (partOf[v] == s)
      counts[v] = graph.trainSeed[v];
  std::vector<uint32_t> fanouts(job.fanouts);
  sluice_error_t err;
  if (n && sluice_gnn_expected_accesses(
               graph.offsets.data(), graph.targets.data(), n, fanouts.data(),
               job.layers(), 1, counts.data(), &err) != SLUICE_STATUS_OK)
    return error(err.message);
  std::vector<uint32_t> local, remote;
  for (size_t v = 0; v < n; ++v)
    (partOf[v] == s ? local : remote).push_back(static_cast<uint32_t>(v));
  auto hottest = [&](std::vector<uint32_t> &vs) {
    std::stable_sort(vs.begin(), vs.end(), [&](uint32_t a, uint32_t b) {
      return counts[a] > counts[b];
    });
  };
  hottest(local);
  hottest(remote);
  std::vector<uint8_t> tier(rows, Remote);
  if (!job.fromFile) {
    // One-hot ids: nothing to place or cache, every id is made locally.
    out.localHostRows = local.size();
    for (uint32_t v : local)
      if (graph.row(v) < rows)
        tier[graph.row(v)] = Host;
    return tier;
  }
  const double localBytes = static_cast<double>(local.size()) * rowBytes;
  // Memory the local rows take; the remote cache may use the rest of the
  // features' budget (host memory whole, or the feature_cache).
  double budget = usable, localHost = 0;
  if (!job.outOfCore) {
    if (job.fromFile && localBytes > usable)
      return error(llvm::formatv(
          "server '{0}': its {1} local rows take {2} bytes, more than the "
          "{3} bytes of host memory it may use; read them out of core "
          "(feature_cache)",
          out.name, local.size(), static_cast<uint64_t>(localBytes),
          static_cast<uint64_t>(usable)));
    out.localHostRows = local.size();
    localHost = localBytes;
  } else {
    if (static_cast<double>(job.cacheBytes) > usable)
      return error(llvm::formatv(
          "server '{0}': the feature_cache takes {1} bytes, more than the "
          "{2} bytes of host memory it may use",
          out.name, job.cacheBytes, static_cast<uint64_t>(usable)));
    budget = static_cast<double>(job.cacheBytes);
    out.localHostRows = std::min<uint64_t>(
        rowBytes ? job.cacheBytes / rowBytes : 0, local.size());
    out.localSsdRows = local.size() - out.localHostRows;
    localHost = static_cast<double>(out.localHostRows) * rowBytes;
    const double ssdBytes = static_cast<double>(out.localSsdRows) * rowBytes;
    if (out.localSsdRows && m.ssds == 0)
      return error(llvm::formatv(
          "server '{0}': {1} of its rows ({2} bytes) fit neither its cache "
          "nor a drive: it has no nvme device",
          out.name, out.localSsdRows, static_cast<uint64_t>(ssdBytes)));
    if (m.ssdCapacity > 0 && ssdBytes > m.ssds * m.ssdCapacity)
      return error(llvm::formatv(
          "server '{0}': {1} of its rows ({2} bytes) do not fit its {3} "
          "nvme drive(s) ({4} bytes)",
          out.name, out.localSsdRows, static_cast<uint64_t>(ssdBytes), m.ssds,
          static_cast<uint64_t>(m.ssds * m.ssdCapacity)));
  }
  for (size_t i = 0; i < local.size(); ++i) {
    const uint64_t r = graph.row(local[i]);
    if (r < rows)
      tier[r] = i < out.localHostRows ? Host : Drive;
  }
  // Without a known memory size nothing remote is cached (an unbounded
  // cache would replicate every row).
  out.remoteCacheCapacity =
      memoryKnown || job.outOfCore ? std::max(0.0, budget - localHost) : 0;
  out.cachedRemote = std::min<uint64_t>(
      rowBytes ? static_cast<uint64_t>(out.remoteCacheCapacity / rowBytes) : 0,
      remote.size());
  for (size_t i = 0; i < out.cachedRemote; ++i) {
    const uint64_t r = graph.row(remote[i]);
    if (r < rows)
      tier[r] = RemoteCached;
  }
  return tier;
}

/// Expected rows of one batch of `profile` by tier; remote ones per source.
struct RowSplit {
  double local = 0, cached = 0, remote = 0;
  std::vector<double> from;
};
RowSplit splitRows(const GnnGraph &graph, const BatchProfile &profile,
                   llvm::ArrayRef<uint8_t> tier,
                   llvm::ArrayRef<uint32_t> partOf, unsigned s,
                   unsigned parts) {
  RowSplit out;
  out.from.assign(parts, 0.0);
  for (size_t v = 0; v < graph.vertices(); ++v) {
    if (v >= profile.inputProbability.size())
      break;
    const double p = profile.inputProbability[v];
    const uint64_t r = graph.row(v);
    if (partOf[v] == s)
      out.local += p;
    else if (r < tier.size() && tier[r] == RemoteCached)
      out.cached += p;
    else {
      out.remote += p;
      out.from[partOf[v]] += p;
    }
  }
  return out;
}

/// Routes one synchronous step's remote gathers: per server, the time its
/// last remote row arrives; the whole step's makespan in `makespan`.
llvm::Expected<std::vector<double>>
routeStep(const flow::FlowNetwork &net, llvm::ArrayRef<GnnServer> servers,
          const std::vector<std::vector<double>> &bytesFrom, double &makespan,
          double &total, std::string &method) {
  std::vector<flow::Demand> demands;
  total = 0;
  for (size_t s = 0; s < servers.size(); ++s)
    for (size_t t = 0; t < servers.size(); ++t)
      if (t != s && bytesFrom[s][t] > 0) {
        demands.push_back({servers[t].node, servers[s].node, bytesFrom[s][t]});
        total += bytesFrom[s][t];
      }
  std::vector<double> arrival(servers.size(), 0.0);
  makespan = 0;
  if (demands.empty())
    return arrival;
  auto schedule = flow::solveMinMakespan(net, demands);
  if (!schedule)
    return error("routing the remote feature gathers between the servers: " +
                 llvm::toString(schedule.takeError()));
  makespan = schedule->makespan;
  method = plan::stringifyScheduleMethod(schedule->method).str();
  for (const flow::DemandRoute &r : schedule->routes)
    for (size_t s = 0; s < servers.size(); ++s)
      if (servers[s].node == r.demand.destination)
        arrival[s] = std::max(arrival[s], r.finish);
  return arrival;
}

} // namespace

llvm::Expected<MultiServerPrediction> sluice::gnn::predictServers(
    const GnnGraph &graph, const GnnJob &job, llvm::ArrayRef<GnnServer> servers,
    const flow::FlowNetwork &net, const GnnCostConstants &c,
    const PartitionOptions &partitioning) {
  MultiServerPrediction out;
  const unsigned S = static_cast<unsigned>(servers.size());
  const size_t n = graph.vertices();
  if (S < 2)
    return error("a multi-server plan needs at least two servers");
  if (n < S)
    return error(
        llvm::formatv("{0} vertices cannot be split over {1} servers", n, S));
  out.partition = partitionGraph(graph.offsets, graph.targets, graph.trainSeed,
                                 S, partitioning);
  const std::vector<uint32_t> &partOf = out.partition.partOf;
  // Lockstep: every server takes as many steps as the one with the most
  // seeds.
  for (unsigned s = 0; s < S; ++s)
    out.batches = std::max(out.batches, std::ceil(out.partition.seeds[s] /
                                                  std::max(1u, job.batch)));
  // One-hot ids (no feature file) are made where they are used: nothing
  // crosses the network for them.
  const double netRowBytes =
      job.fromFile ? static_cast<double>(job.rowBytes()) : 0;
  std::vector<std::vector<double>> trainFrom(S), evalFrom(S);
  for (unsigned s = 0; s < S; ++s) {
    ServerPrediction sp;
    sp.name = servers[s].name;
    sp.node = servers[s].node;
    sp.machine = servers[s].machine;
    sp.vertices = out.partition.vertices[s];
    sp.seeds = out.partition.seeds[s];
    for (size_t v = 0; v < n && v < graph.evalSeed.size(); ++v)
      if (partOf[v] == s)
        sp.evalSeeds += graph.evalSeed[v];
    sp.evalBatches = std::ceil(sp.evalSeeds / job.evalBatch());
    const uint64_t seed = 0x9e3779b97f4a7c15ull + 2 * s;
    sp.train = serverProfile(graph, job, graph.trainSeed, partOf, s,
                             out.batches, seed, c);
    sp.eval = serverProfile(graph, job, graph.evalSeed, partOf, s,
                            sp.evalBatches, seed + 1, c);
    auto tier = placeServer(graph, job, partOf, s, c, sp);
    if (!tier)
      return tier.takeError();
    const RowSplit train = splitRows(graph, sp.train, *tier, partOf, s, S);
    const RowSplit eval = splitRows(graph, sp.eval, *tier, partOf, s, S);
    sp.localRows = train.local;
    sp.cachedRemoteRows = train.cached;
    sp.remoteRows = train.remote;
    sp.remoteRowsFrom = train.from;
    sp.evalRemoteRows = eval.remote;
    for (double &x : trainFrom[s] = train.from)
      x *= netRowBytes;
    for (double &x : evalFrom[s] = eval.from)
      x *= netRowBytes;
    if (job.outOfCore) {
      Placement view;
      view.tierOfRow = std::move(*tier);
      sp.trainIo = driveLoad(graph, job, view, sp.train, c);
      sp.evalIo = driveLoad(graph, job, view, sp.eval, c);
    }
    out.servers.push_back(std::move(sp));
  }

  // The network: one training step's and one evaluation step's gathers.
  auto trainArrival = routeStep(net, servers, trainFrom, out.remoteSeconds,
                                out.remoteBytesPerStep, out.remoteMethod);
  if (!trainArrival)
    return trainArrival.takeError();
  std::string evalMethod;
  auto evalArrival = routeStep(net, servers, evalFrom, out.evalRemoteSeconds,
                               out.evalRemoteBytesPerStep, evalMethod);
  if (!evalArrival)
    return evalArrival.takeError();
  if (out.remoteMethod.empty())
    out.remoteMethod = evalMethod.empty() ? "none" : evalMethod;
  // The gradients: 4 bytes a parameter, all-reduced every step.
  out.allReduceBytes = 4 * parameterCount(job);
  std::vector<unsigned> group;
  for (const GnnServer &s : servers)
    group.push_back(s.node);
  auto ring = flow::planRingCollective(
      net, group, flow::CollectiveKind::AllReduce, out.allReduceBytes);
  if (!ring)
    return error("routing the gradient all-reduce over the servers: " +
                 llvm::toString(ring.takeError()));
  out.allReduceSeconds = ring->flowTime;

  for (unsigned s = 0; s < S; ++s) {
    ServerPrediction &sp = out.servers[s];
    sp.gatherRemote = (*trainArrival)[s];
    sp.evalGatherRemote = (*evalArrival)[s];
    sp.allReduce = out.allReduceSeconds;
    sp.perBatch = batchStages(job, sp.machine, sp.train, sp.trainIo, true, c);
    const StageTimes eb =
        batchStages(job, sp.machine, sp.eval, sp.evalIo, false, c);
    sp.evalSeconds =
        sp.evalBatches * (eb.producer() + eb.trainer() + sp.evalGatherRemote);
    const double P = sp.producer(), C = sp.trainer(), B = out.batches;
    sp.trainSeconds = job.pipelineDepth == 0
                          ? B * (P + C)
                          : P + std::max(0.0, B - 1) * std::max(P, C) + C;
    sp.epochSeconds = sp.trainSeconds + sp.evalSeconds;
    const StageTimes &b = sp.perBatch;
    struct Named {
      const char *name;
      double seconds;
      bool producer;
    } stages[] = {{"sampling", b.sample, true},
                  {"gather (memory)", b.gatherHost, true},
                  {"gather (nvme)", b.gatherSsd, true},
                  {"gather (remote)", sp.gatherRemote, true},
                  {"compute", b.compute, false},
                  {"all-reduce", sp.allReduce, false},
                  {"optimizer", b.optimizer, false},
                  {"batch fixed cost", b.fixed, false}};
    const Named *top = nullptr;
    for (const Named &x : stages) {
      if (job.pipelineDepth && x.producer != (P > C))
        continue;
      if (!top || x.seconds > top->seconds)
        top = &x;
    }
    sp.bound = top->name;
    if (sp.epochSeconds > out.epochSeconds) {
      out.epochSeconds = sp.epochSeconds;
      out.slowest = s;
    }
  }
  return out;
}
