//===- GnnCost.cpp - Cost model of mini-batch GNN training ----------------===//
//
// See GnnCost.h; the formulas are in docs/gnn.md, "Plan and cost model".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Gnn/GnnCost.h"

#include "sluice/gnn.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace sluice;
using namespace sluice::gnn;

BatchProfile sluice::gnn::profileBatch(llvm::ArrayRef<uint64_t> offsets,
                                       llvm::ArrayRef<uint32_t> targets,
                                       llvm::ArrayRef<double> seedProbability,
                                       llvm::ArrayRef<uint32_t> fanouts) {
  const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  BatchProfile out;
  std::vector<double> q(seedProbability.begin(), seedProbability.end());
  q.resize(n, 0.0);
  std::vector<double> lambda(n);
  for (uint32_t f : fanouts) {
    BatchProfile::Hop hop;
    std::fill(lambda.begin(), lambda.end(), 0.0);
    for (size_t u = 0; u < n; ++u) {
      const uint64_t deg = offsets[u + 1] - offsets[u];
      hop.dst += q[u];
      if (!deg || q[u] == 0.0)
        continue;
      const double k = static_cast<double>(std::min<uint64_t>(f, deg));
      hop.edges += q[u] * k;
      // -log P(u does not reach w) = -log(1 - q_u k / deg).
      const double p = q[u] * k / static_cast<double>(deg);
      const double miss = p >= 1.0 ? std::numeric_limits<double>::infinity()
                                   : -std::log1p(-p);
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e)
        lambda[targets[e]] += miss;
    }
    for (size_t w = 0; w < n; ++w) {
      q[w] = 1.0 - (1.0 - q[w]) * std::exp(-lambda[w]);
      hop.src += q[w];
    }
    out.hops.push_back(hop);
  }
  out.inputProbability = std::move(q);
  return out;
}

double sluice::gnn::parameterCount(const GnnJob &job) {
  const uint32_t layers = job.layers();
  double total = 0;
  for (uint32_t l = 0; l < layers; ++l) {
    const double in = l == 0 ? job.features : job.hidden;
    const double out = l + 1 == layers ? job.classes : job.hidden;
    const double rows = (job.kind == GnnKind::Sage ? 2 : 1) * in;
    total += (rows + 1) * out;
  }
  return total;
}

namespace {

/// Block of layer l (0: input) is hop L - l.
const BatchProfile::Hop &blockOf(const BatchProfile &p, uint32_t layer) {
  return p.hops[p.hops.size() - 1 - layer];
}

double widthIn(const GnnJob &job, uint32_t l) {
  return l == 0 ? job.features : job.hidden;
}
double widthOut(const GnnJob &job, uint32_t l) {
  return l + 1 == job.layers() ? job.classes : job.hidden;
}

/// Average number of ioBlock-sized blocks a row at a random index spans.
double blocksPerRow(uint64_t rowBytes, double blockBytes) {
  const uint64_t b = static_cast<uint64_t>(blockBytes);
  if (!rowBytes || !b)
    return 1;
  const uint64_t period = b / std::gcd(rowBytes, b);
  double total = 0;
  for (uint64_t k = 0; k < period; ++k) {
    const uint64_t first = k * rowBytes;
    total += static_cast<double>((first + rowBytes - 1) / b - first / b + 1);
  }
  return total / static_cast<double>(period);
}

/// MACs of the sparse input layer: every term (self and sampled neighbour)
/// multiplies its non-zeros into the weight rows.
double sparseInputMacs(const GnnJob &job, const BatchProfile &p) {
  const BatchProfile::Hop &b = blockOf(p, 0);
  const double nonzeros = job.inputDensity * job.features;
  return (b.dst + b.edges) * nonzeros * widthOut(job, 0);
}

} // namespace

double sluice::gnn::batchFlops(const GnnJob &job, const BatchProfile &p,
                               bool backward) {
  double flops = 0;
  const double factor = job.kind == GnnKind::Sage ? 2 : 1;
  for (uint32_t l = 0; l < job.layers(); ++l) {
    const BatchProfile::Hop &b = blockOf(p, l);
    const double in = widthIn(job, l), out = widthOut(job, l);
    if (l == 0 && job.sparseInput) {
      // Forward, and the weight gradient scattered the same way.
      flops += 2 * sparseInputMacs(job, p) * (backward ? 2 : 1);
      continue;
    }
    // Aggregation (an add per sampled edge and column) and the product
    // [dst x factor*in] x [factor*in x out].
    const double aggregate = b.edges * in;
    const double gemm = 2 * b.dst * factor * in * out;
    flops += aggregate + gemm;
    if (backward)
      // Weight gradient, input gradient (not of the input layer) and its
      // scatter back over the edges.
      flops += gemm + (l ? gemm + aggregate : 0);
  }
  return flops;
}

StageTimes sluice::gnn::batchStages(const GnnJob &job,
                                    const GnnMachine &machine,
                                    const BatchProfile &p,
                                    const Placement &placement, bool training,
                                    const GnnCostConstants &c) {
  StageTimes t;
  for (const BatchProfile::Hop &h : p.hops)
    t.sample += h.dst * c.samplePerVertex + h.edges * c.samplePerEdge;
  // Gather: one-hot ids and in-program features are rows of memory; the
  // store serves its tiers at the host bandwidth, the drives at their
  // aggregate rate.
  const double rows = p.inputRows();
  const double rowBytes =
      job.sparseInput && !job.fromFile
          ? 8.0 * std::max(1.0, job.inputDensity * job.features)
          : static_cast<double>(job.rowBytes());
  double ssdShare = 0;
  const double reads =
      placement.gpuReads + placement.hostReads + placement.ssdReads;
  if (job.outOfCore && reads > 0)
    ssdShare = placement.ssdReads / reads;
  const double memRows = rows * (1 - ssdShare), ssdRows = rows * ssdShare;
  const double bw = machine.hostBandwidth > 0 ? machine.hostBandwidth : 1e10;
  const bool identity = job.sparseInput && !job.fromFile;
  t.gatherHost = identity ? memRows * c.identityPerRow
                          : memRows * (c.gatherPerRow + rowBytes / bw);
  if (ssdRows > 0) {
    const double blocks = ssdRows * blocksPerRow(job.rowBytes(), c.ioBlockBytes);
    const double drives = std::max(1u, machine.ssds);
    double io = 0;
    if (machine.ssdReadBandwidth > 0)
      io = blocks * c.ioBlockBytes / (drives * machine.ssdReadBandwidth);
    if (machine.ssdIops > 0)
      io = std::max(io, blocks / (drives * machine.ssdIops));
    t.gatherSsd = io + ssdRows * (c.gatherPerRow + rowBytes / bw);
  }
  // Compute on the job's threads.
  const double cores = std::max(1u, machine.cores);
  const double threads = job.threads ? std::min<double>(job.threads, cores)
                                     : cores;
  const double flopsPerCore = machine.cpuFlops / cores;
  const double dense = batchFlops(job, p, training) -
                       (job.sparseInput ? 2 * sparseInputMacs(job, p) *
                                              (training ? 2 : 1)
                                        : 0);
  t.compute = dense / (flopsPerCore * threads * c.cpuGemmEfficiency);
  if (job.sparseInput)
    // The sparse forward runs on the threads; its weight-gradient scatter
    // on one (docs/gnn.md, "Sparse input").
    t.compute += sparseInputMacs(job, p) * c.sparsePerMac *
                 (1 / threads + (training ? 1 : 0));
  if (training)
    // Gradients zeroed, then Adam over every parameter on one thread: its
    // arithmetic or its memory traffic, whichever is slower.
    t.optimizer = parameterCount(job) *
                  std::max(c.adamPerParam, c.adamBytesPerParam / bw);
  return t;
}

llvm::Expected<Placement>
sluice::gnn::placeFeatures(const GnnGraph &graph, const GnnJob &job,
                           const GnnMachine &machine,
                           const BatchProfile &train,
                           const GnnCostConstants &c) {
  Placement out;
  const uint64_t rowBytes = job.rowBytes();
  const uint64_t rows = std::max<uint64_t>(job.fileRows, graph.vertices());
  const double fileBytes = static_cast<double>(rows) * rowBytes;
  // Host memory the topology does not give is not checked.
  const double hostUsable =
      machine.hostMemory > 0 ? machine.hostMemory * c.hostUsableFraction
                             : std::numeric_limits<double>::infinity();
  auto tooBig = [&](double need, llvm::StringRef what, llvm::StringRef hint) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} takes {1} bytes, more than the {2} bytes of host "
                      "memory it may use ({3}% of {4} bytes){5}",
                      what, static_cast<uint64_t>(need),
                      static_cast<uint64_t>(hostUsable),
                      std::llround(c.hostUsableFraction * 100),
                      static_cast<uint64_t>(machine.hostMemory), hint)
            .str());
  };
  out.gpuCapacity = machine.computeOnGpu && !machine.gpu.empty()
                        ? machine.gpuMemory * c.gpuCacheFraction
                        : 0;
  if (!job.outOfCore) {
    // Loaded whole into host memory (one-hot ids: nothing to load).
    if (job.fromFile && fileBytes > hostUsable)
      return tooBig(fileBytes, "loading the features whole",
                    "; read them out of core (feature_cache)");
    out.hostCapacity = fileBytes;
    out.hostRows = rows;
    out.hostBytes = rows * rowBytes;
    out.hostReads = train.inputRows();
    out.hitRate = 1;
    return out;
  }
  if (static_cast<double>(job.cacheBytes) > hostUsable)
    return tooBig(static_cast<double>(job.cacheBytes), "the feature_cache",
                  "");
  out.hostCapacity = static_cast<double>(job.cacheBytes);
  // Rank as the runtime does: expected accesses of an epoch, hottest
  // first, equal counts by row.
  const size_t n = graph.vertices();
  std::vector<double> counts(graph.trainSeed.begin(), graph.trainSeed.end());
  counts.resize(n, 0.0);
  std::vector<uint32_t> fanouts(job.fanouts);
  sluice_error_t error;
  if (n && sluice_gnn_expected_accesses(
               graph.offsets.data(), graph.targets.data(), n, fanouts.data(),
               job.layers(), 1, counts.data(), &error) != SLUICE_STATUS_OK)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   error.message);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return counts[a] > counts[b];
  });
  const uint64_t gpuRows =
      rowBytes ? std::min<uint64_t>(
                     static_cast<uint64_t>(out.gpuCapacity / rowBytes), rows)
               : 0;
  const uint64_t hostRows =
      std::min<uint64_t>(rowBytes ? job.cacheBytes / rowBytes : 0,
                         rows - gpuRows);
  out.gpuRows = gpuRows;
  out.hostRows = hostRows;
  out.ssdRows = rows - gpuRows - hostRows;
  out.gpuBytes = gpuRows * rowBytes;
  out.hostBytes = hostRows * rowBytes;
  out.ssdBytes = out.ssdRows * rowBytes;
  const double ssdCapacity = machine.ssds * machine.ssdCapacity;
  if (out.ssdRows && machine.ssds == 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} rows ({1} bytes) of features fit neither the "
                      "caches nor a drive: the topology has no nvme device",
                      out.ssdRows, out.ssdBytes)
            .str());
  if (machine.ssdCapacity > 0 &&
      static_cast<double>(out.ssdBytes) > ssdCapacity)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} rows ({1} bytes) of features do not fit the "
                      "{2} nvme drive(s) ({3} bytes)",
                      out.ssdRows, out.ssdBytes, machine.ssds,
                      static_cast<uint64_t>(ssdCapacity))
            .str());
  // Rows beyond the vertices (no vertex reads them) rank last.
  double total = 0, cached = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = order[i];
    const double read = train.inputProbability.empty()
                            ? 0
                            : train.inputProbability[v];
    if (i < gpuRows)
      out.gpuReads += read;
    else if (i < gpuRows + hostRows)
      out.hostReads += read;
    else
      out.ssdReads += read;
    total += counts[v];
    if (i < gpuRows + hostRows)
      cached += counts[v];
  }
  out.hitRate = total > 0 ? cached / total : 1;
  return out;
}

StageTimes EpochPrediction::perEpoch() const {
  StageTimes t = perBatch;
  t.sample *= batches;
  t.gatherHost *= batches;
  t.gatherSsd *= batches;
  t.compute *= batches;
  t.optimizer *= batches;
  return t;
}

llvm::Expected<EpochPrediction>
sluice::gnn::predictEpoch(const GnnGraph &graph, const GnnJob &job,
                          const GnnMachine &machine,
                          const GnnCostConstants &c) {
  EpochPrediction e;
  const size_t n = graph.vertices();
  // Seed probabilities of one batch: an epoch's seeds spread over its
  // batches.
  e.batches = std::ceil(job.trainVertices / std::max(1u, job.batch));
  e.evalBatches = std::ceil(job.evalVertices / job.evalBatch());
  auto perBatch = [&](llvm::ArrayRef<double> perEpoch, double batches) {
    std::vector<double> p(n, 0.0);
    for (size_t v = 0; v < n && v < perEpoch.size(); ++v)
      p[v] = batches > 0 ? std::min(1.0, perEpoch[v] / batches) : 0.0;
    return p;
  };
  e.train = profileBatch(graph.offsets, graph.targets,
                         perBatch(graph.trainSeed, e.batches), job.fanouts);
  e.eval = profileBatch(graph.offsets, graph.targets,
                        perBatch(graph.evalSeed, e.evalBatches), job.fanouts);
  auto placed = placeFeatures(graph, job, machine, e.train, c);
  if (!placed)
    return placed.takeError();
  e.placement = *placed;
  e.perBatch = batchStages(job, machine, e.train, e.placement, true, c);
  e.flopsPerBatch = batchFlops(job, e.train, true);
  e.parameters = parameterCount(job);
  // Evaluation batches: the same tiers in the same shares.
  Placement evalPlacement = e.placement;
  const StageTimes eb = batchStages(job, machine, e.eval, evalPlacement,
                                    false, c);
  e.evalSeconds = e.evalBatches * (eb.producer() + eb.trainer());
  const StageTimes &b = e.perBatch;
  if (job.pipelineDepth == 0)
    e.trainSeconds = e.batches * (b.producer() + b.trainer());
  else
    // The ring: the first batch fills it, then the slower side sets the
    // pace; the last batch's compute drains it.
    e.trainSeconds = b.producer() +
                     std::max(0.0, e.batches - 1) *
                         std::max(b.producer(), b.trainer()) +
                     b.trainer();
  e.epochSeconds = e.trainSeconds + e.evalSeconds;
  struct Named {
    const char *name;
    double seconds;
  } stages[] = {{"sampling", b.sample},
                {"gather (memory)", b.gatherHost},
                {"gather (nvme)", b.gatherSsd},
                {"compute", b.compute},
                {"optimizer", b.optimizer}};
  const bool producerBound = b.producer() > b.trainer();
  const Named *top = nullptr;
  for (const Named &s : stages) {
    const bool producerStage = &s < stages + 3;
    if (job.pipelineDepth && producerStage != producerBound)
      continue;
    if (!top || s.seconds > top->seconds)
      top = &s;
  }
  e.bound = top->name;
  return e;
}

llvm::Expected<TpcAdvice> sluice::gnn::adviseTpc(const GnnGraph &graph,
                                                 const GnnJob &job,
                                                 const GnnMachine &machine,
                                                 double budget,
                                                 unsigned maxSsds,
                                                 const GnnCostConstants &c) {
  TpcAdvice advice;
  advice.budget = budget;
  auto evaluate = [&](unsigned ssds, uint64_t cache)
      -> llvm::Expected<TpcPoint> {
    GnnMachine m = machine;
    m.ssds = ssds;
    GnnJob j = job;
    j.cacheBytes = cache;
    auto e = predictEpoch(graph, j, m, c);
    if (!e)
      return e.takeError();
    TpcPoint p;
    p.ssds = ssds;
    p.cacheBytes = cache;
    p.price = m.otherPrice + ssds * m.ssdPrice;
    p.epochSeconds = e->epochSeconds;
    p.seedsPerSecond =
        e->epochSeconds > 0 ? job.trainVertices / e->epochSeconds : 0;
    p.tpc = p.price > 0 ? p.seedsPerSecond / p.price : 0;
    return p;
  };
  auto current = evaluate(machine.ssds, job.cacheBytes);
  if (!current)
    return current.takeError();
  advice.current = *current;
  const double fileBytes =
      static_cast<double>(std::max<uint64_t>(job.fileRows, graph.vertices())) *
      job.rowBytes();
  const double hostUsable =
      machine.hostMemory > 0 ? machine.hostMemory * c.hostUsableFraction
                             : fileBytes;
  std::vector<uint64_t> caches;
  for (double share : {1.0 / 64, 1.0 / 16, 1.0 / 4, 1.0})
    if (fileBytes * share <= hostUsable)
      caches.push_back(static_cast<uint64_t>(fileBytes * share));
  caches.push_back(job.cacheBytes);
  std::sort(caches.begin(), caches.end());
  caches.erase(std::unique(caches.begin(), caches.end()), caches.end());
  bool found = false;
  for (unsigned s = 1; s <= std::max(1u, maxSsds); ++s)
    for (uint64_t cache : caches) {
      auto p = evaluate(s, cache);
      if (!p) {
        llvm::consumeError(p.takeError());
        continue;
      }
      advice.points.push_back(*p);
      if (budget > 0 && p->price > budget)
        continue;
      if (!found || p->tpc > advice.best.tpc * (1 + 1e-9)) {
        advice.best = *p;
        found = true;
      }
    }
  if (!found)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("no configuration of 1 to {0} drives fits the budget "
                      "of {1:f0}",
                      std::max(1u, maxSsds), budget)
            .str());
  return advice;
}
