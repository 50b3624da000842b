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
#include <random>

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
      const double miss =
          p >= 1.0 ? std::numeric_limits<double>::infinity() : -std::log1p(-p);
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

BatchProfile sluice::gnn::simulateBatches(llvm::ArrayRef<uint64_t> offsets,
                                          llvm::ArrayRef<uint32_t> targets,
                                          llvm::ArrayRef<double> seedWeight,
                                          uint32_t batch,
                                          llvm::ArrayRef<uint32_t> fanouts,
                                          unsigned samples, uint64_t seed) {
  if (!batch)
    samples = 0;
  return simulateBatches(offsets, targets, seedWeight,
                         std::vector<uint32_t>(samples, batch), fanouts, seed);
}

std::vector<uint32_t>
sluice::gnn::epochBatchSizes(llvm::ArrayRef<double> setSeeds, uint32_t batch) {
  std::vector<uint32_t> sizes;
  if (!batch)
    return sizes;
  for (double set : setSeeds) {
    uint64_t left = static_cast<uint64_t>(std::max(0.0, std::round(set)));
    for (; left > 0; left -= std::min<uint64_t>(left, batch))
      sizes.push_back(static_cast<uint32_t>(std::min<uint64_t>(left, batch)));
  }
  return sizes;
}

std::vector<uint32_t>
sluice::gnn::simulationSizes(llvm::ArrayRef<uint32_t> epochSizes,
                             unsigned samples) {
  std::vector<uint32_t> out;
  if (epochSizes.empty() || !samples)
    return out;
  const size_t most = size_t(4) * samples, count = epochSizes.size();
  if (count > most) {
    // Evenly spaced, the first and the last batch included.
    for (size_t i = 0; i < most; ++i)
      out.push_back(epochSizes[i * (count - 1) / (most - 1)]);
    return out;
  }
  while (out.size() < samples)
    out.insert(out.end(), epochSizes.begin(), epochSizes.end());
  return out;
}

BatchProfile sluice::gnn::simulateBatches(llvm::ArrayRef<uint64_t> offsets,
                                          llvm::ArrayRef<uint32_t> targets,
                                          llvm::ArrayRef<double> seedWeight,
                                          llvm::ArrayRef<uint32_t> batchSizes,
                                          llvm::ArrayRef<uint32_t> fanouts,
                                          uint64_t seed) {
  const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  BatchProfile out;
  out.hops.resize(fanouts.size());
  std::vector<uint32_t> pool;
  for (size_t v = 0; v < n && v < seedWeight.size(); ++v)
    if (seedWeight[v] > 0)
      pool.push_back(static_cast<uint32_t>(v));
  const size_t samples = batchSizes.size();
  if (pool.empty() || !samples)
    return out;
  std::mt19937_64 rng(seed);
  std::vector<uint32_t> stamp(n, 0), frontier, chosen;
  uint32_t current = 0;
  for (size_t s = 0; s < samples; ++s) {
    // batchSizes[s] distinct seeds: a partial Fisher-Yates shuffle of the
    // pool.
    const size_t count = std::min<size_t>(batchSizes[s], pool.size());
    for (size_t i = 0; i < count; ++i)
      std::swap(pool[i], pool[i + rng() % (pool.size() - i)]);
    frontier.assign(pool.begin(), pool.begin() + count);
    ++current;
    for (uint32_t v : frontier)
      stamp[v] = current;
    for (size_t h = 0; h < fanouts.size(); ++h) {
      BatchProfile::Hop &hop = out.hops[h];
      hop.dst += static_cast<double>(frontier.size());
      const size_t dst = frontier.size();
      for (size_t i = 0; i < dst; ++i) {
        const uint32_t v = frontier[i];
        const uint64_t first = offsets[v], deg = offsets[v + 1] - first;
        // Floyd's algorithm: min(f, deg) distinct positions.
        chosen.clear();
        if (deg <= fanouts[h]) {
          for (uint64_t j = 0; j < deg; ++j)
            chosen.push_back(static_cast<uint32_t>(j));
        } else {
          for (uint64_t j = deg - fanouts[h]; j < deg; ++j) {
            uint32_t t = static_cast<uint32_t>(rng() % (j + 1));
            if (std::find(chosen.begin(), chosen.end(), t) != chosen.end())
              t = static_cast<uint32_t>(j);
            chosen.push_back(t);
          }
        }
        hop.edges += static_cast<double>(chosen.size());
        for (uint32_t pos : chosen) {
          const uint32_t u = targets[first + pos];
          if (stamp[u] != current) {
            stamp[u] = current;
            frontier.push_back(u);
          }
        }
      }
      hop.src += static_cast<double>(frontier.size());
    }
    // Every vertex reached is an input row of the first layer's block.
    out.sampledInputs.push_back(frontier);
  }
  for (BatchProfile::Hop &hop : out.hops) {
    hop.dst /= samples;
    hop.edges /= samples;
    hop.src /= samples;
  }
  return out;
}

void sluice::gnn::correctProfile(BatchProfile &analytic,
                                 const BatchProfile &simulated) {
  if (simulated.hops.size() != analytic.hops.size() ||
      simulated.inputRows() <= 0 || analytic.inputRows() <= 0)
    return;
  const double scale = simulated.inputRows() / analytic.inputRows();
  analytic.hops = simulated.hops;
  for (double &q : analytic.inputProbability)
    q = std::min(1.0, q * scale);
  analytic.sampledInputs = simulated.sampledInputs;
}

double sluice::gnn::parameterCount(const GnnJob &job) {
  const uint32_t layers = job.layers();
  double total = 0;
  for (uint32_t l = 0; l < layers; ++l) {
    const double in = l == 0 ? job.features : job.hidden;
    const double out = l + 1 == layers ? job.classes : job.hidden;
    if (job.kind == GnnKind::Gat) {
      // [W (in x P) | a_src (P) | a_dst (P) | b (out)]; hidden layers'
      // heads are out / heads wide, the output layer's out wide.
      const double p = l + 1 == layers ? double(job.heads) * out : out;
      total += (in + 2) * p + out;
      continue;
    }
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

/// GAT: all heads' width of layer l (hidden layers concatenate heads of
/// out / heads, the output layer averages heads of out).
double projWidth(const GnnJob &job, uint32_t l) {
  return l + 1 == job.layers() ? double(job.heads) * widthOut(job, l)
                               : widthOut(job, l);
}

/// MACs of the sparse input layer: every term (self and sampled neighbour)
/// multiplies its non-zeros into the weight rows; GAT projects every src
/// row once.
double sparseInputMacs(const GnnJob &job, const BatchProfile &p) {
  const BatchProfile::Hop &b = blockOf(p, 0);
  const double nonzeros = job.inputDensity * job.features;
  if (job.kind == GnnKind::Gat)
    return b.src * nonzeros * projWidth(job, 0);
  return (b.dst + b.edges) * nonzeros * widthOut(job, 0);
}

/// One GAT layer's FLOPs but its projection and weight gradient (the
/// GEMMs, or the sparse MACs of the input layer).
double gatLayerFlops(const GnnJob &job, const BatchProfile::Hop &b, uint32_t l,
                     bool backward, bool attentionOnly) {
  const double pw = projWidth(job, l), heads = job.heads;
  const double slots = b.dst + b.edges;
  const double attention =
      6 * slots * heads + (backward ? 7 * slots * heads : 0);
  if (attentionOnly)
    return attention;
  double flops = attention + 2 * (b.src + b.dst) * pw + 2 * slots * pw;
  if (backward)
    flops += 4 * slots * pw + 4 * (b.src + b.dst) * pw;
  return flops;
}

} // namespace

double sluice::gnn::batchFlops(const GnnJob &job, const BatchProfile &p,
                               bool backward) {
  double flops = 0;
  const double factor = job.kind == GnnKind::Sage ? 2 : 1;
  for (uint32_t l = 0; l < job.layers(); ++l) {
    const BatchProfile::Hop &b = blockOf(p, l);
    const double in = widthIn(job, l), out = widthOut(job, l);
    if (job.kind == GnnKind::Gat) {
      flops += gatLayerFlops(job, b, l, backward, false);
      if (l == 0 && job.sparseInput) {
        flops += 2 * sparseInputMacs(job, p) * (backward ? 2 : 1);
        continue;
      }
      // The projection, the weight gradient and the input gradient.
      const double gemm = 2 * b.src * in * projWidth(job, l);
      flops += gemm + (backward ? gemm + (l ? gemm : 0) : 0);
      continue;
    }
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

double sluice::gnn::slotFlops(const GnnJob &job, const BatchProfile &p,
                              bool backward) {
  if (job.kind != GnnKind::Gat)
    return 0;
  double flops = 0;
  for (uint32_t l = 0; l < job.layers(); ++l) {
    const BatchProfile::Hop &b = blockOf(p, l);
    const double slots = b.dst + b.edges, pw = projWidth(job, l);
    flops += slots * (6 * job.heads + 2 * pw);
    if (backward)
      flops += slots * (7 * job.heads + 4 * pw);
  }
  return flops;
}

double sluice::gnn::attentionSeconds(const GnnJob &job,
                                     const GnnMachine &machine,
                                     const BatchProfile &p, bool backward,
                                     const GnnCostConstants &c) {
  if (job.kind != GnnKind::Gat)
    return 0;
  const double bw = machine.hostBandwidth > 0 ? machine.hostBandwidth : 1e10;
  double seconds = 0;
  for (uint32_t l = 0; l < job.layers(); ++l) {
    const BatchProfile::Hop &b = blockOf(p, l);
    const double slots = b.dst + b.edges, pw = projWidth(job, l);
    const double row = c.gatherPerRow + 4 * pw / bw;
    seconds += slots * (job.heads * c.attentionForwardPerHead +
                        c.attentionForwardRows * row);
    if (backward)
      seconds += slots * (job.heads * c.attentionBackwardPerHead +
                          pw * c.attentionBackwardPerColumn +
                          c.attentionBackwardRows * row);
  }
  return seconds;
}

double sluice::gnn::attentionFlops(const GnnJob &job, const BatchProfile &p,
                                   bool backward) {
  if (job.kind != GnnKind::Gat)
    return 0;
  double flops = 0;
  for (uint32_t l = 0; l < job.layers(); ++l)
    flops += gatLayerFlops(job, blockOf(p, l), l, backward, true);
  return flops;
}

StageTimes sluice::gnn::batchStages(const GnnJob &job,
                                    const GnnMachine &machine,
                                    const BatchProfile &p, const IoLoad &io,
                                    bool training, const GnnCostConstants &c) {
  StageTimes t;
  for (const BatchProfile::Hop &h : p.hops)
    t.sample += h.dst * c.samplePerVertex + h.edges * c.samplePerEdge;
  // Gather: one-hot ids are a pair a row; feature rows are copied at the
  // host memory bandwidth, those on the drives after their reads.
  const double rowBytes = static_cast<double>(job.rowBytes());
  const double bw = machine.hostBandwidth > 0 ? machine.hostBandwidth : 1e10;
  const double ssdRows = std::min(io.rows, p.inputRows());
  const double memRows = p.inputRows() - ssdRows;
  const bool identity = job.sparseInput && !job.fromFile;
  t.gatherHost = identity ? memRows * c.identityPerRow
                          : memRows * (c.gatherPerRow + rowBytes / bw);
  if (ssdRows > 0) {
    const double drives = std::max(1u, machine.ssds);
    double read = 0;
    if (machine.ssdReadBandwidth > 0)
      read = io.blocks * c.ioBlockBytes / (drives * machine.ssdReadBandwidth);
    if (machine.ssdIops > 0)
      read = std::max(read, io.requests / (drives * machine.ssdIops));
    t.gatherSsd = read + ssdRows * (c.gatherPerRow + rowBytes / bw);
  }
  // Compute on the job's threads.
  const double cores = std::max(1u, machine.cores);
  const double threads =
      job.threads ? std::min<double>(job.threads, cores) : cores;
  const double flopsPerCore = machine.cpuFlops / cores;
  // GAT's per-slot loops are not GEMMs: attentionSeconds on the threads
  // instead of their FLOPs at the GEMM efficiency.
  const double dense =
      batchFlops(job, p, training) - slotFlops(job, p, training) -
      (job.sparseInput ? 2 * sparseInputMacs(job, p) * (training ? 2 : 1) : 0);
  t.attention = attentionSeconds(job, machine, p, training, c) / threads;
  t.compute =
      dense / (flopsPerCore * threads * c.cpuGemmEfficiency) + t.attention;
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
  t.fixed = training ? c.trainBatchFixed : c.evalBatchFixed;
  return t;
}

llvm::Expected<Placement>
sluice::gnn::placeFeatures(const GnnGraph &graph, const GnnJob &job,
                           const GnnMachine &machine, const BatchProfile &train,
                           const GnnCostConstants &c) {
  Placement out;
  const uint64_t rowBytes = job.rowBytes();
  const uint64_t rows = std::max<uint64_t>(job.fileRows, graph.vertices());
  const double fileBytes = static_cast<double>(rows) * rowBytes;
  // Host memory the topology does not give is not checked.
  const double hostUsable = machine.hostMemory > 0
                                ? machine.hostMemory * c.hostUsableFraction
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
    return tooBig(static_cast<double>(job.cacheBytes), "the feature_cache", "");
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
  const uint64_t gpuRows =
      rowBytes ? std::min<uint64_t>(
                     static_cast<uint64_t>(out.gpuCapacity / rowBytes), rows)
               : 0;
  const uint64_t hostRows = std::min<uint64_t>(
      rowBytes ? job.cacheBytes / rowBytes : 0, rows - gpuRows);
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
  // Rank the file's rows as the runtime does: by expected accesses,
  // hottest first, equal counts in row order.
  std::vector<double> rowCount(rows, 0.0), rowRead(rows, 0.0);
  for (size_t v = 0; v < n; ++v) {
    const uint64_t r = graph.row(v);
    if (r >= rows)
      continue;
    rowCount[r] += counts[v];
    if (v < train.inputProbability.size())
      rowRead[r] += train.inputProbability[v];
  }
  std::vector<uint32_t> order(rows);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return rowCount[a] > rowCount[b];
  });
  out.tierOfRow.assign(rows, 2);
  double total = 0, cached = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint32_t r = order[i];
    const uint8_t tier = i < gpuRows ? 0 : i < gpuRows + hostRows ? 1 : 2;
    out.tierOfRow[r] = tier;
    (tier == 0   ? out.gpuReads
     : tier == 1 ? out.hostReads
                 : out.ssdReads) += rowRead[r];
    total += rowCount[r];
    if (tier < 2)
      cached += rowCount[r];
  }
  out.hitRate = total > 0 ? cached / total : 1;
  return out;
}

IoLoad sluice::gnn::driveLoad(const GnnGraph &graph, const GnnJob &job,
                              const Placement &placement,
                              const BatchProfile &profile,
                              const GnnCostConstants &c) {
  IoLoad io;
  if (placement.tierOfRow.empty() || !job.rowBytes())
    return io;
  const uint64_t rowBytes = job.rowBytes();
  const uint64_t block = static_cast<uint64_t>(c.ioBlockBytes);
  const uint64_t rows = placement.tierOfRow.size();
  if (!profile.sampledInputs.empty()) {
    // Count what each simulated batch reads, as the store does.
    const uint64_t maxRun = std::max<uint64_t>(
        1, static_cast<uint64_t>(c.ioMaxMergedBytes) / block);
    std::vector<uint64_t> blocks;
    for (const std::vector<uint32_t> &batch : profile.sampledInputs) {
      blocks.clear();
      for (uint32_t v : batch) {
        const uint64_t r = graph.row(v);
        if (r >= rows || placement.tierOfRow[r] != 2)
          continue;
        io.rows += 1;
        for (uint64_t b = r * rowBytes / block;
             b <= (r * rowBytes + rowBytes - 1) / block; ++b)
          blocks.push_back(b);
      }
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
      io.blocks += static_cast<double>(blocks.size());
      uint64_t run = 0;
      for (size_t i = 0; i < blocks.size(); ++i) {
        run = i && blocks[i] == blocks[i - 1] + 1 && run < maxRun ? run + 1 : 1;
        if (run == 1)
          io.requests += 1;
      }
    }
    const double samples = static_cast<double>(profile.sampledInputs.size());
    io.rows /= samples;
    io.blocks /= samples;
    io.requests /= samples;
    return io;
  }
  // log P(block not read), per block.
  std::vector<double> logMiss((rows * rowBytes + block - 1) / block, 0.0);
  for (size_t v = 0; v < graph.vertices(); ++v) {
    const uint64_t r = graph.row(v);
    if (r >= rows || placement.tierOfRow[r] != 2 ||
        v >= profile.inputProbability.size())
      continue;
    const double p = profile.inputProbability[v];
    io.rows += p;
    const double miss =
        p >= 1 ? -std::numeric_limits<double>::infinity() : std::log1p(-p);
    for (uint64_t b = r * rowBytes / block;
         b <= (r * rowBytes + rowBytes - 1) / block; ++b)
      logMiss[b] += miss;
  }
  double previous = 0;
  for (double l : logMiss) {
    const double read = 1 - std::exp(l);
    io.blocks += read;
    io.requests += read - read * previous;
    previous = read;
  }
  return io;
}

StageTimes EpochPrediction::perEpoch() const {
  StageTimes t = perBatch;
  t.sample *= batches;
  t.gatherHost *= batches;
  t.gatherSsd *= batches;
  t.compute *= batches;
  t.attention *= batches;
  t.optimizer *= batches;
  t.fixed *= batches;
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
  e.evalBatches = job.evalBatches();
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
  if (c.simulatedBatches) {
    const uint64_t seed = 0x9e3779b97f4a7c15ull;
    // The epoch's own batch sizes: full ones and a smaller last one (of
    // each evaluation set).
    std::vector<double> evalSets{job.evalVertices};
    if (job.valVertices > 0 && job.valVertices < job.evalVertices)
      evalSets = {job.valVertices, job.evalVertices - job.valVertices};
    correctProfile(e.train,
                   simulateBatches(
                       graph.offsets, graph.targets, graph.trainSeed,
                       simulationSizes(epochBatchSizes({job.trainVertices},
                                                       std::max(1u, job.batch)),
                                       c.simulatedBatches),
                       job.fanouts, seed));
    correctProfile(
        e.eval, simulateBatches(
                    graph.offsets, graph.targets, graph.evalSeed,
                    simulationSizes(epochBatchSizes(evalSets, job.evalBatch()),
                                    c.simulatedBatches),
                    job.fanouts, seed + 1));
  }
  auto placed = placeFeatures(graph, job, machine, e.train, c);
  if (!placed)
    return placed.takeError();
  e.placement = *placed;
  if (job.outOfCore) {
    e.trainIo = driveLoad(graph, job, e.placement, e.train, c);
    e.evalIo = driveLoad(graph, job, e.placement, e.eval, c);
  }
  e.perBatch = batchStages(job, machine, e.train, e.trainIo, true, c);
  e.flopsPerBatch = batchFlops(job, e.train, true);
  e.parameters = parameterCount(job);
  const StageTimes eb = batchStages(job, machine, e.eval, e.evalIo, false, c);
  e.evalSeconds = e.evalBatches * (eb.producer() + eb.trainer());
  e.evalFixedSeconds = e.evalBatches * eb.fixed;
  // The ring: the first batch fills it, then the slower side sets the
  // pace; the last batch's compute drains it.
  auto train = [&](const StageTimes &b) {
    if (job.pipelineDepth == 0)
      return e.batches * (b.producer() + b.trainer());
    return b.producer() +
           std::max(0.0, e.batches - 1) * std::max(b.producer(), b.trainer()) +
           b.trainer();
  };
  const StageTimes &b = e.perBatch;
  StageTimes noFixed = b;
  noFixed.fixed = 0;
  e.trainSeconds = train(b);
  e.trainFixedSeconds = e.trainSeconds - train(noFixed);
  e.epochSeconds = e.trainSeconds + e.evalSeconds;
  struct Named {
    const char *name;
    double seconds;
  } stages[] = {
      {"sampling", b.sample},         {"gather (memory)", b.gatherHost},
      {"gather (nvme)", b.gatherSsd}, {"compute", b.compute},
      {"optimizer", b.optimizer},     {"batch fixed cost", b.fixed}};
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

llvm::Expected<TpcAdvice>
sluice::gnn::adviseTpc(const GnnGraph &graph, const GnnJob &job,
                       const GnnMachine &machine, double budget,
                       unsigned maxSsds, const GnnCostConstants &c) {
  TpcAdvice advice;
  advice.budget = budget;
  auto evaluate = [&](unsigned ssds,
                      uint64_t cache) -> llvm::Expected<TpcPoint> {
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
  const double hostUsable = machine.hostMemory > 0
                                ? machine.hostMemory * c.hostUsableFraction
                                : fileBytes;
  std::vector<uint64_t> caches;
  for (double share : {1.0 / 64, 1.0 / 16, 1.0 / 4, 1.0})
    if (fileBytes * share <= hostUsable)
      caches.push_back(static_cast<uint64_t>(fileBytes * share));
  caches.push_back(job.cacheBytes);
  std::sort(caches.begin(), caches.end());
  caches.erase(std::unique(caches.begin(), caches.end()), caches.end());
  bool found = false, foundAtCache = false;
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
      if (cache == job.cacheBytes &&
          (!foundAtCache || p->tpc > advice.bestAtCache.tpc * (1 + 1e-9))) {
        advice.bestAtCache = *p;
        foundAtCache = true;
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
