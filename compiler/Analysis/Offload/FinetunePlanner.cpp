//===- FinetunePlanner.cpp - Offload plans for fine-tuning ----------------===//
//
// Candidate plans (micro-batch, homes of the fp16 parameters and of the
// optimizer states, GPU parameter buffers, how many of the ranked
// activations to swap) are checked against the memory of every tier and the
// job's pins, bounded below by their busiest stream, and then scheduled by
// an event model: each action goes on its stream at the earliest idle gap
// that starts after its dependencies end. The makespan is the iteration
// time.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Offload/FinetunePlanner.h"
#include "compiler/Analysis/Offload/FinetuneGeometry.h"
#include "compiler/Analysis/Offload/FinetuneTimeline.h"

#include "support/Units.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace sluice;
using namespace sluice::offload;
using namespace sluice::offload::detail;

namespace {

using detail::Scheduler;

struct Candidate {
  Tier paramHome = Tier::Host;
  Tier optHome = Tier::Host;
  int64_t buffers = 2;
  unsigned swapCount = 0; ///< how many of the ranked tensors to swap
};

/// A memory constraint: need vs usable.
struct Fit {
  std::string what;
  double need = 0, have = 0;
  double ratio() const {
    return have > 0 ? need / have : std::numeric_limits<double>::infinity();
  }
  std::string message() const {
    return what + ": need " + formatQuantity(need, Dim::bytes()) + ", have " +
           formatQuantity(have, Dim::bytes()) + " usable";
  }
};

struct Evaluation {
  bool fits = false;
  Fit binding; ///< worst constraint when it does not fit
  /// A pin of the job the candidate breaks (it fits otherwise).
  std::string pinViolation;
  /// Not scheduled: its lower bound already reaches the cutoff.
  bool pruned = false;
  double lowerBound = 0;
  FinetunePlan plan;
};

class Planner {
public:
  Planner(const FinetuneJob &job, const Machine &m, const FinetuneOptions &o,
          int64_t micro)
      : job(job), m(m), o(o), micro(micro), steps(job.batch / m.gpus / micro),
        g(geometry(job.costs ? *job.costs : uniformCosts(job.model), job.lora,
                   micro, o, m)),
        prec(statePrecision(job, g)) {}

  /// Checks `c` against memory and the pins; schedules it unless the
  /// busiest stream alone takes at least `cutoff` seconds.
  Evaluation evaluate(const Candidate &c, double cutoff) const;

private:
  const FinetuneJob &job;
  const Machine &m;
  const FinetuneOptions &o;
  int64_t micro, steps;
  Geometry g;
  model::StatePrecision prec; ///< per parameter of the model (LoRA: scaled)
};

Evaluation Planner::evaluate(const Candidate &c, double cutoff) const {
  Evaluation ev;
  FinetunePlan &p = ev.plan;
  const double maxBlock = std::max(g.maxLayerParams, g.headParams);
  const double k = static_cast<double>(std::max<int64_t>(1, o.stagingLayers));
  const bool csdUpdate = c.optHome == Tier::Csd;
  const double e = prec.paramBytes;      // fp16 parameters
  const double eg = prec.gradBytes;      // fp16 gradients
  const double eo = prec.optimizerBytes; // master + Adam states
  // The optimizer updates are bandwidth-bound: the machine's rates are
  // Adam's (kAdamHostBytesPerParam per parameter), scaled to the bytes the
  // job's optimizer moves (TransformerCost.h, optimizerCost).
  const double updateBytes =
      prec.updateBytes > 0 ? prec.updateBytes : kAdamHostBytesPerParam;
  const double cpuUpdateRate =
      m.cpuAdamRate * kAdamHostBytesPerParam / updateBytes;

  p.trainableParams = g.adapterParams;
  p.paramHome = c.paramHome;
  p.optimizerHome = p.masterHome = c.optHome;
  p.updateOnCsd = csdUpdate;
  p.updateAfterBackward = !o.activeGradientOffload;
  p.gradHome = csdUpdate ? Tier::Csd : Tier::Host;
  p.paramBuffers =
      c.paramHome != Tier::Gpu || m.gpus > 1 ? c.buffers : int64_t(0);
  p.microBatch = micro;
  p.accumulationSteps = steps;
  p.capacity.gpu = m.gpuUsable();
  p.capacity.host = m.hostUsable();
  p.capacity.nvme = m.nvme.capacity;
  p.capacity.csd = m.csd.capacity;

  // Per layer group, the swapped set: the first `swapCount` ranked
  // tensors, cut further while the swap-out would not hide under the
  // layer's forward compute.
  struct GroupSwap {
    std::array<bool, kNumSwappable> swapped{};
    double bytes = 0, recompute = 0, fullRecompute = 0, fwdTime = 0;
  };
  std::vector<GroupSwap> gswap;
  double maxWork = g.logitsWork;
  for (const LayerGeometry &lg : g.groups) {
    GroupSwap gs;
    gs.fwdTime = lg.fwdFlops / lg.rate.forward;
    gs.bytes = lg.ckptBytes;
    for (unsigned r = 0; r < kNumSwappable; ++r) {
      unsigned i = lg.rank[r];
      if (r < c.swapCount &&
          (gs.bytes + lg.swapBytes[i]) / m.d2hBandwidth <= gs.fwdTime) {
        gs.swapped[i] = true;
        gs.bytes += lg.swapBytes[i];
      } else {
        gs.recompute += lg.swapRecompute[i];
      }
    }
    gs.fullRecompute =
        std::accumulate(lg.swapRecompute.begin(), lg.swapRecompute.end(), 0.0);
    maxWork = std::max(maxWork, lg.work + gs.bytes);
    gswap.push_back(gs);
  }

  // Data parallelism (ZeRO-3): each of the G GPUs holds 1/G of what is
  // sharded and gathers a block's parameters before it runs it; the host
  // holds the model states once and every GPU's swapped activations.
  const double G = static_cast<double>(m.gpus);
  const bool dp = m.gpus > 1, viaPeers = dp && m.peerBandwidth > 0;
  const bool gathers = c.paramHome != Tier::Gpu || dp;

  // Fixed memory of each tier.
  double gpu = (c.paramHome == Tier::Gpu ? e * g.N / G : 0.0) +
               (gathers ? c.buffers * e * maxBlock : 0.0) +
               eg * maxBlock + // one layer's gradients
               maxWork;
  double host = 0, nvme = 0, csd = 0;
  switch (c.paramHome) {
  case Tier::Host:
    host += e * g.N;
    break;
  case Tier::Nvme:
    nvme += e * g.N;
    host += k * e * maxBlock;
    break;
  case Tier::Csd:
    csd += e * g.N;
    host += k * e * maxBlock;
    break;
  case Tier::Gpu:
    break;
  }
  const double opt = eo * g.N;
  switch (c.optHome) {
  case Tier::Host:
    host += opt;
    break;
  case Tier::Nvme:
    nvme += opt;
    host += k * (eo + e) * maxBlock;
    break;
  case Tier::Csd:
    csd += opt;
    break;
  case Tier::Gpu:
    gpu += opt;
    break;
  }
  host += k * eg * maxBlock; // gradient staging
  if (steps > 1)
    // fp32 gradient accumulation across micro-batches (LoRA: adapters').
    host += 4.0 * (job.lora.rank > 0 ? g.adapterParams : g.N);

  // Activations, layer by layer: host memory first, then the NVMe array
  // while its writes stay hidden, else only the checkpoint.
  std::vector<Tier> actTier(static_cast<size_t>(g.layers), Tier::Host);
  std::vector<double> actBytes(static_cast<size_t>(g.layers));
  std::vector<double> actRecompute(static_cast<size_t>(g.layers));
  p.activations.perLayer.resize(static_cast<size_t>(g.layers));
  const double hostFree = m.hostUsable() - host;
  double hostActs = 0, nvmeActs = 0;
  bool actsFit = true;
  for (int64_t l = 0; l < g.layers; ++l) {
    size_t i = static_cast<size_t>(l);
    const LayerGeometry &lg = g.layer(l);
    const GroupSwap &gs = gswap[g.groupOf[i]];
    LayerActivations &la = p.activations.perLayer[i];
    la.swapped = gs.swapped;
    actBytes[i] = la.swapBytes = gs.bytes;
    actRecompute[i] = la.recomputeFlops = gs.recompute;
    // Every GPU swaps its own activations: G times the bytes, sharing the
    // host memory and the NVMe array.
    auto tryPlace = [&](double perGpu) {
      const double bytes = G * perGpu;
      if (hostActs + bytes <= hostFree) {
        hostActs += bytes;
        actTier[i] = Tier::Host;
        return true;
      }
      if (m.nvme.present() && nvme + nvmeActs + bytes <= m.nvme.capacity &&
          bytes / m.nvme.writeBandwidth <= gs.fwdTime) {
        nvmeActs += bytes;
        actTier[i] = Tier::Nvme;
        return true;
      }
      return false;
    };
    if (tryPlace(gs.bytes)) {
      la.tier = actTier[i];
      continue;
    }
    if (gs.bytes > lg.ckptBytes && tryPlace(lg.ckptBytes)) {
      la.tier = actTier[i];
      la.swapped = {};
      la.checkpointOnly = true;
      actBytes[i] = la.swapBytes = lg.ckptBytes;
      actRecompute[i] = la.recomputeFlops = gs.fullRecompute;
      ++p.activations.layersCheckpointOnly;
      continue;
    }
    actsFit = false;
    hostActs += G * lg.ckptBytes;
  }
  host += hostActs;
  nvme += nvmeActs;
  for (Tier t : actTier)
    (t == Tier::Host ? p.activations.layersOnHost
                     : p.activations.layersOnNvme) += 1;
  p.activations.swapped = gswap.front().swapped;
  p.activations.swapBytesPerLayer = gswap.front().bytes;
  p.activations.recomputeFlopsPerLayer = gswap.front().recompute;
  p.peak = {gpu, host, nvme, csd};

  std::vector<Fit> fits = {{"GPU memory", gpu, m.gpuUsable()},
                           {"host memory", host, m.hostUsable()}};
  if (nvme > 0)
    fits.push_back({"NVMe capacity", nvme, m.nvme.capacity});
  if (csd > 0)
    fits.push_back({"CSD capacity", csd, m.csd.capacity});
  ev.fits = actsFit;
  ev.binding = fits.front();
  for (const Fit &f : fits) {
    if (f.need > f.have)
      ev.fits = false;
    if (f.ratio() > ev.binding.ratio())
      ev.binding = f;
  }
  if (!actsFit && ev.binding.need <= ev.binding.have)
    ev.binding = {"host memory", host, m.hostUsable()};
  if (!ev.fits)
    return ev;

  // The pins: `recompute: false` admits no recomputation anywhere.
  double recomputePerStep = 0, gpuPerStep = 0, swapPerStep = 0;
  for (int64_t l = 0; l < g.layers; ++l) {
    const LayerGeometry &lg = g.layer(l);
    recomputePerStep += actRecompute[static_cast<size_t>(l)];
    swapPerStep += actBytes[static_cast<size_t>(l)];
    gpuPerStep += lg.fwdFlops / lg.rate.forward +
                  lg.bwdFlops / lg.rate.backward +
                  actRecompute[static_cast<size_t>(l)] / lg.rate.forward +
                  2.0 * lg.dequantTime;
  }
  gpuPerStep += g.headFwdFlops / g.headRate.forward +
                g.headBwdFlops / g.headRate.backward;
  const double sd = static_cast<double>(steps);
  if (o.recompute == false && recomputePerStep > 0) {
    ev.fits = false;
    ev.pinViolation = "recomputes " +
                      formatQuantity(recomputePerStep * sd, Dim::flops()) +
                      " per iteration, but recompute is pinned to false";
    return ev;
  }

  // A lower bound: every stream runs its actions one at a time, so the
  // makespan is at least the GPU's compute, the host-to-GPU traffic
  // (parameter prefetches in forward and backward, activation swap-ins),
  // the GPU-to-host traffic (swap-outs, gradients) and the CPU updates.
  {
    double gpuLb = sd * gpuPerStep;
    const double fetched = gathers ? e * (2.0 * g.N - g.headParams) : 0.0;
    const double rest = (G - 1) / G; // of a block, from the other GPUs
    double h2d = swapPerStep, d2h = swapPerStep + eg * g.N, peer = 0;
    if (c.paramHome != Tier::Gpu)
      h2d += viaPeers ? fetched / G : fetched;
    if (viaPeers) {
      peer += rest * fetched + rest * eg * g.N;
      d2h -= rest * eg * g.N;
    } else if (dp) {
      h2d += rest * eg * g.N; // reduce-scatter through host memory
      if (c.paramHome == Tier::Gpu) {
        h2d += rest * fetched;
        d2h += fetched / G;
      }
    }
    double h2dLb = sd * h2d / m.h2dBandwidth;
    double d2hLb = sd * d2h / m.d2hBandwidth;
    double peerLb = viaPeers ? sd * peer / m.peerBandwidth : 0.0;
    double cpuLb = csdUpdate ? 0.0 : g.N / cpuUpdateRate;
    ev.lowerBound = std::max({gpuLb, h2dLb, d2hLb, peerLb, cpuLb});
    if (ev.lowerBound >= cutoff) {
      ev.pruned = true;
      return ev;
    }
  }

  // The schedule.
  Scheduler S;
  const double h2d = m.h2dBandwidth, d2h = m.d2hBandwidth;
  const double ssdR = csdUpdate || c.paramHome == Tier::Csd
                          ? m.csd.hostReadBandwidth
                          : m.nvme.readBandwidth;
  const double ssdW =
      csdUpdate ? m.csd.hostWriteBandwidth : m.nvme.writeBandwidth;
  const bool paramsFromStorage =
      c.paramHome == Tier::Nvme || c.paramHome == Tier::Csd;
  const double paramReadBw =
      c.paramHome == Tier::Csd ? m.csd.hostReadBandwidth : m.nvme.readBandwidth;
  const bool dsSwap = o.zeroInfinitySwap && c.optHome == Tier::Nvme;
  const int64_t head = -1;
  // Block order of the forward pass: layers, then the head.
  std::vector<int64_t> fwdOrder;
  for (int64_t l = 0; l < g.layers; ++l)
    fwdOrder.push_back(l);
  fwdOrder.push_back(head);
  auto blockParams = [&](int64_t b) {
    return b == head ? g.headParams : g.layer(b).params;
  };
  auto blockFwd = [&](int64_t b) {
    return b == head ? g.headFwdFlops : g.layer(b).fwdFlops;
  };
  auto blockBwd = [&](int64_t b) {
    return b == head ? g.headBwdFlops : g.layer(b).bwdFlops;
  };
  auto blockDequant = [&](int64_t b) {
    return b == head ? 0.0 : g.layer(b).dequantTime;
  };
  auto blockRate = [&](int64_t b) {
    return b == head ? g.headRate : g.layer(b).rate;
  };
  // Brings block b's `pb` parameter bytes onto the GPU once `rd` (its
  // storage read) and `ready` (a free buffer) are done; returns what its
  // compute waits for. With G GPUs each reads its 1/G from the host and
  // gathers the rest from its peers; without peer links every GPU reads
  // all of it from host memory, or, when the shards live on the GPUs,
  // they are exchanged through host memory.
  auto gather = [&](double pb, int64_t b, int64_t mb, int rd, int ready) {
    const double rest = (G - 1) / G * pb;
    if (c.paramHome != Tier::Gpu) {
      if (!viaPeers)
        return S.add(Stream::H2D, pb / h2d, pb, 0, "params", "prefetch", b, mb,
                     {rd, ready});
      int in = S.add(Stream::H2D, pb / G / h2d, pb / G, 0, "params", "prefetch",
                     b, mb, {rd, ready});
      return S.add(Stream::Peer, rest / m.peerBandwidth, rest, 0, "params",
                   "all-gather", b, mb, {in});
    }
    if (viaPeers)
      return S.add(Stream::Peer, rest / m.peerBandwidth, rest, 0, "params",
                   "all-gather", b, mb, {ready});
    int out = S.add(Stream::D2H, pb / G / d2h, pb / G, 0, "params",
                    "all-gather out", b, mb, {ready});
    return S.add(Stream::H2D, rest / h2d, rest, 0, "params", "all-gather in", b,
                 mb, {out});
  };
  // Takes block b's gradients off the GPU once its backward `bw` is done:
  // reduce-scattered over the GPUs (over peer links, or through host
  // memory), then each GPU's reduced 1/G to the host.
  auto offloadGrads = [&](double np, int64_t b, int64_t mb, int bw) {
    const double gb = eg * np, rest = (G - 1) / G * gb;
    int ready = bw;
    if (viaPeers) {
      ready = S.add(Stream::Peer, rest / m.peerBandwidth, rest, 0, "grads",
                    "reduce-scatter", b, mb, {bw});
    } else if (dp) {
      int out = S.add(Stream::D2H, rest / d2h, rest, 0, "grads",
                      "reduce-scatter out", b, mb, {bw});
      ready = S.add(Stream::H2D, rest / h2d, rest, 0, "grads",
                    "reduce-scatter in", b, mb, {out});
    }
    return S.add(Stream::D2H, gb / G / d2h, gb / G, 0, "grads", "offload", b,
                 mb, {ready});
  };
  // Smart-Infinity's update of block b on the CSDs once its gradients
  // `gd` are off the GPU and the step may begin (`ready`): the gradients
  // (top-k compressed on the GPU, or scaled by gradCompression) cross the
  // shared channel to the CSDs; each CSD reads states and gradients from
  // its flash, updates and writes the states back; the host reads the
  // updated parameters. A CSD's flash serves its reads and writes one at a
  // time, the host's read-back included.
  const bool readsBack = c.paramHome == Tier::Host || c.paramHome == Tier::Gpu;
  const double readBack = o.csdReadBackBytes > 0 ? o.csdReadBackBytes : e;
  auto csdStep = [&](double np, int64_t b, int64_t mb, int gd, int ready) {
    double gb = o.gradCompression * eg * np; // bytes sent to the CSDs
    int sent = gd;
    if (o.gradTopK > 0) {
      gb = o.gradTopK * kTopKBytesPerKept * np;
      int in = S.add(Stream::H2D, eg * np / h2d, eg * np, 0, "grads",
                     "to the GPU for top-k", b, mb, {gd});
      int sort = S.add(Stream::GpuCompute,
                       kTopKSortBytesPerElement * np / m.gpuMemoryBandwidth, 0,
                       0, "grads", "top-k sort", b, mb, {in});
      sent = S.add(Stream::D2H, gb / d2h, gb, 0, "grads", "top-k out", b, mb,
                   {sort});
    }
    int gw = S.add(Stream::SsdWrite, gb / ssdW, gb, 0, "grads", "write to csd",
                   b, mb, {sent});
    // The CSDs write an fp16 copy when the host or the forward pass reads
    // fp16 parameters from them.
    const bool copy =
        (readsBack && o.csdReadBackBytes <= 0) || c.paramHome == Tier::Csd;
    const double rd = eo + gb / np + (readsBack ? readBack : 0.0);
    const double wr = eo + (copy ? e : 0.0);
    const double flash = np * (rd / m.csd.internalReadBandwidth +
                               wr / m.csd.internalWriteBandwidth);
    const double rate = o.gradTopK > 0 && m.csd.decompressRate > 0
                            ? m.csd.decompressRate
                            : m.csd.adamRate;
    const double kernel = np * updateBytes / (rate * kAdamHostBytesPerParam);
    int up =
        S.add(Stream::CsdOptimizer,
              o.csdTransferOverlap ? std::max(flash, kernel) : flash + kernel,
              updateBytes * np, 0, "adam", "update", b, mb, {gw, ready});
    if (readsBack) {
      int back = S.add(Stream::SsdRead, readBack * np / ssdR, readBack * np, 0,
                       "params", "read updated", b, mb, {up});
      if (c.paramHome == Tier::Gpu)
        S.add(Stream::H2D, e * np / G / h2d, e * np / G, 0, "params",
              "upload updated", b, mb, {back});
    }
    return up;
  };
  double recomputeTotal = 0;
  int lastGpu = -1;
  int prevIterEnd = -1; // the previous micro-batch's last GPU action
  for (int64_t mb = 0; mb < steps; ++mb) {
    const bool last = mb == steps - 1;
    // Forward.
    std::vector<int> fwdGpu, fwdH2d, swapOuts;
    std::vector<int> actWrite(static_cast<size_t>(g.layers), -1);
    for (size_t j = 0; j < fwdOrder.size(); ++j) {
      int64_t b = fwdOrder[j];
      double pb = e * blockParams(b);
      int rd = -1, in = -1;
      if (gathers) {
        if (paramsFromStorage)
          rd = S.add(Stream::SsdRead, pb / paramReadBw, pb, 0, "params", "read",
                     b, mb, {j >= size_t(k) ? fwdH2d[j - size_t(k)] : -1});
        in = gather(pb, b, mb, rd,
                    j >= size_t(c.buffers) ? fwdGpu[j - size_t(c.buffers)]
                                           : prevIterEnd);
      }
      fwdH2d.push_back(in);
      double fl = blockFwd(b);
      // Two swap buffers: layer j's tensors must be out before j+2 runs.
      int fw =
          S.add(Stream::GpuCompute, fl / blockRate(b).forward + blockDequant(b),
                0, fl, "layer", "forward", b, mb,
                {in, lastGpu,
                 swapOuts.size() >= 2 ? swapOuts[swapOuts.size() - 2] : -1});
      fwdGpu.push_back(fw);
      lastGpu = fw;
      if (b != head) {
        size_t li = static_cast<size_t>(b);
        int so = S.add(Stream::D2H, actBytes[li] / d2h, actBytes[li], 0,
                       "activations", "swap-out", b, mb, {fw});
        swapOuts.push_back(so);
        if (actTier[li] == Tier::Nvme)
          actWrite[li] =
              S.add(Stream::SsdWrite, G * actBytes[li] / m.nvme.writeBandwidth,
                    actBytes[li], 0, "activations", "swap-out", b, mb, {so});
      }
    }
    // Backward, in reverse block order.
    std::vector<int> bwdGpu, bwdH2d, grads, updates, gradSwaps;
    int prevSwapIn = -1, prevGrad = -1;
    for (size_t j = 0; j < fwdOrder.size(); ++j) {
      int64_t b = fwdOrder[fwdOrder.size() - 1 - j];
      double np = blockParams(b);
      double pb = e * np;
      int rd = -1, in = -1, ard = -1, ain = -1;
      if (gathers) {
        // The head's parameters are still on the GPU from the forward pass.
        if (j > 0 || c.buffers < 1) {
          if (paramsFromStorage)
            rd = S.add(Stream::SsdRead, pb / paramReadBw, pb, 0, "params",
                       "read", b, mb,
                       {j >= size_t(k) ? bwdH2d[j - size_t(k)] : -1});
          in = gather(pb, b, mb, rd,
                      j >= size_t(c.buffers) ? bwdGpu[j - size_t(c.buffers)]
                                             : fwdGpu.back());
        }
      }
      bwdH2d.push_back(in);
      double fl = blockBwd(b);
      if (b != head) {
        size_t li = static_cast<size_t>(b);
        if (actTier[li] == Tier::Nvme)
          ard = S.add(
              Stream::SsdRead, G * actBytes[li] / m.nvme.readBandwidth,
              actBytes[li], 0, "activations", "read", b, mb,
              {actWrite[li], j >= size_t(k) ? bwdGpu[j - size_t(k)] : -1});
        // Two swap-in buffers on the GPU.
        ain = S.add(Stream::H2D, actBytes[li] / h2d, actBytes[li], 0,
                    "activations", "swap-in", b, mb,
                    {ard, prevSwapIn, j >= 2 ? bwdGpu[j - 2] : fwdGpu.back()});
        prevSwapIn = ain;
        double rf = actRecompute[li];
        if (rf > 0) {
          // Recompute what was not swapped, from the layer's checkpoint.
          lastGpu =
              S.add(Stream::GpuCompute, rf / blockRate(b).forward, 0, rf,
                    "layer", "recompute", b, mb, {in, ain, lastGpu, prevGrad});
          recomputeTotal += rf;
        }
      }
      int bw = S.add(Stream::GpuCompute,
                     fl / blockRate(b).backward + blockDequant(b), 0, fl,
                     "layer", "backward", b, mb, {in, ain, lastGpu, prevGrad});
      bwdGpu.push_back(bw);
      lastGpu = bw;
      int gd = offloadGrads(np, b, mb, bw);
      prevGrad = gd;
      grads.push_back(gd);
      if (dsSwap && last) // DeepSpeed's swapper: fp32 gradients to NVMe
        gradSwaps.push_back(
            S.add(Stream::SsdWrite, kSwapGradBytes * np / m.nvme.writeBandwidth,
                  kSwapGradBytes * np, 0, "grads", "swap out", b, mb, {gd}));
    }
    prevIterEnd = lastGpu;
    if (!last)
      continue;
    // The optimizer step, block by block in backward order.
    int prevWrite = -1;
    for (size_t j = 0; j < fwdOrder.size(); ++j) {
      int64_t b = fwdOrder[fwdOrder.size() - 1 - j];
      double np = blockParams(b);
      int ready = o.activeGradientOffload ? grads[j] : lastGpu;
      int window = j >= size_t(k) ? updates[j - size_t(k)] : -1;
      int up;
      if (csdUpdate) {
        up = csdStep(np, b, mb, grads[j], ready);
      } else if (dsSwap) {
        // Read states and gradients, update, write the states: one block
        // at a time, the next read after this write.
        int ord = S.add(Stream::SsdRead,
                        (eo + kSwapGradBytes) * np / m.nvme.readBandwidth,
                        (eo + kSwapGradBytes) * np, 0, "adam", "read states", b,
                        mb, {ready, gradSwaps[j], prevWrite});
        up = S.add(Stream::CpuOptimizer, np / cpuUpdateRate, updateBytes * np,
                   0, "adam", "update", b, mb, {ord});
        prevWrite = S.add(Stream::SsdWrite, eo * np / m.nvme.writeBandwidth,
                          eo * np, 0, "adam", "write states", b, mb, {up});
        if (c.paramHome == Tier::Gpu)
          S.add(Stream::H2D, e * np / G / h2d, e * np / G, 0, "params",
                "upload updated", b, mb, {up});
      } else {
        int ord = -1;
        if (c.optHome == Tier::Nvme)
          ord = S.add(Stream::SsdRead, eo * np / m.nvme.readBandwidth, eo * np,
                      0, "adam", "read states", b, mb, {window});
        up = S.add(Stream::CpuOptimizer, np / cpuUpdateRate, updateBytes * np,
                   0, "adam", "update", b, mb, {ready, ord});
        double wb = (c.optHome == Tier::Nvme ? eo * np : 0.0) +
                    (c.paramHome == Tier::Nvme ? e * np : 0.0);
        if (wb > 0)
          S.add(Stream::SsdWrite, wb / m.nvme.writeBandwidth, wb, 0,
                c.optHome == Tier::Nvme ? "adam" : "params", "write states", b,
                mb, {up});
        if (c.paramHome == Tier::Gpu)
          S.add(Stream::H2D, e * np / G / h2d, e * np / G, 0, "params",
                "upload updated", b, mb, {up});
      }
      updates.push_back(up);
    }
  }

  // Results.
  p.schedule = std::move(S.acts);
  for (const Action &a : p.schedule) {
    p.iterationTime = std::max(p.iterationTime, a.end);
    p.busy[static_cast<unsigned>(a.stream)] += a.end - a.start;
    switch (a.stream) {
    case Stream::H2D:
      p.links.h2d += a.bytes;
      break;
    case Stream::D2H:
      p.links.d2h += a.bytes;
      break;
    case Stream::SsdRead:
      p.links.ssdRead += a.bytes;
      break;
    case Stream::SsdWrite:
      p.links.ssdWrite += a.bytes;
      break;
    case Stream::CsdOptimizer:
      p.links.csdInternal += a.bytes;
      break;
    default:
      break;
    }
  }
  p.modelFlops = modelFlops(job, m, o);
  p.hardwareFlops = p.modelFlops + recomputeTotal;
  p.feasible = true;
  return ev;
}

} // namespace

llvm::Expected<FinetunePlan>
offload::planFinetune(const FinetuneJob &job, const Machine &machine,
                      const FinetuneOptions &opts) {
  if (llvm::Error err = checkFinetuneInputs(job, machine, opts))
    return err;
  const int64_t perGpu = job.batch / machine.gpus;

  std::vector<Tier> paramHomes, optHomes;
  auto allowed = [&](Tier t) {
    return (t != Tier::Nvme || machine.nvme.present()) &&
           (t != Tier::Csd || machine.csd.present());
  };
  for (Tier t : {Tier::Gpu, Tier::Host, Tier::Nvme, Tier::Csd})
    if (allowed(t) && (!opts.paramHome || *opts.paramHome == t))
      paramHomes.push_back(t);
  for (Tier t : {Tier::Host, Tier::Nvme, Tier::Csd})
    if (allowed(t) && (!opts.optimizerHome || *opts.optimizerHome == t) &&
        (!opts.gradHome || (*opts.gradHome == Tier::Csd) == (t == Tier::Csd)))
      optHomes.push_back(t);
  // How many ranked activations may swap: all counts when recomputation
  // is searched, none with full recomputation, all four without any.
  int maxSwap = opts.recompute == true ? 0 : int(kNumSwappable);
  int minSwap = opts.recompute == false ? int(kNumSwappable) : 0;

  std::optional<Evaluation> best;
  size_t bestIndex = 0;
  std::optional<Evaluation> leastBad;
  size_t leastBadIndex = 0;
  std::vector<CandidateReport> log;
  const size_t kNone = std::numeric_limits<size_t>::max();
  size_t firstPinViolation = kNone;
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t micro : microBatchCandidates(job, machine.gpus)) {
    Planner planner(job, machine, opts, micro);
    for (Tier ph : paramHomes)
      for (Tier oh : optHomes)
        for (int64_t buffers : {2, 1}) {
          if (ph == Tier::Gpu && buffers == 1 && machine.gpus == 1)
            continue; // resident parameters need no buffers
          for (int swap = maxSwap; swap >= minSwap; --swap) {
            Candidate c{ph, oh, buffers, static_cast<unsigned>(swap)};
            double cutoff = best ? best->plan.iterationTime * (1 - 1e-9) : inf;
            Evaluation ev = planner.evaluate(c, cutoff);
            CandidateReport r;
            r.microBatch = micro;
            r.paramHome = ph;
            r.optimizerHome = oh;
            r.buffers = ph == Tier::Gpu && machine.gpus == 1 ? 0 : buffers;
            r.swapCount = c.swapCount;
            r.need = ev.binding.need;
            r.have = ev.binding.have;
            if (!ev.fits) {
              r.rejection = ev.pinViolation.empty() ? ev.binding.message()
                                                    : ev.pinViolation;
              if (!ev.pinViolation.empty() && firstPinViolation == kNone)
                firstPinViolation = log.size();
              // The least infeasible by memory; a pin violation fits.
              if (ev.pinViolation.empty() &&
                  (!leastBad ||
                   ev.binding.ratio() < leastBad->binding.ratio())) {
                leastBad = std::move(ev);
                leastBadIndex = log.size();
              }
              log.push_back(std::move(r));
              continue;
            }
            r.feasible = true;
            if (ev.pruned) {
              r.rejection = "slower: at least " +
                            formatQuantity(ev.lowerBound, Dim::time()) +
                            " (lower bound)";
              log.push_back(std::move(r));
              continue;
            }
            r.iterationTime = ev.plan.iterationTime;
            if (!best ||
                ev.plan.iterationTime < best->plan.iterationTime * (1 - 1e-9)) {
              best = std::move(ev);
              bestIndex = log.size();
            }
            log.push_back(std::move(r));
          }
        }
  }
  const bool searched = job.microBatch <= 0;
  FinetunePlan result;
  if (best) {
    result = std::move(best->plan);
    const std::string chosen =
        formatQuantity(result.iterationTime, Dim::time());
    for (size_t i = 0; i < log.size(); ++i) {
      CandidateReport &r = log[i];
      if (i == bestIndex || !r.feasible)
        continue;
      if (r.rejection.empty())
        r.rejection =
            "slower: " + formatQuantity(r.iterationTime, Dim::time()) +
            ", the chosen plan " + chosen;
      else
        r.rejection += ", the chosen plan " + chosen;
    }
  } else if (leastBad && firstPinViolation == kNone) {
    result = std::move(leastBad->plan);
    result.feasible = false;
    result.infeasibleReason = leastBad->binding.message();
    if (searched)
      result.infeasibleReason +=
          " (the smallest relative need among " + std::to_string(log.size()) +
          " candidates over micro-batches 1 to " + std::to_string(perGpu) +
          ": " + log[leastBadIndex].label() + ")";
    result.modelFlops = modelFlops(job, machine, opts);
  } else {
    // Candidates fit in memory but recompute, which the job forbids.
    const CandidateReport &v = log[firstPinViolation];
    result.feasible = false;
    result.infeasibleReason = "no plan fits without recomputation (" +
                              v.label() + " " + v.rejection + ")";
    result.microBatch = v.microBatch;
    result.accumulationSteps = perGpu / result.microBatch;
    result.modelFlops = modelFlops(job, machine, opts);
  }
  result.microBatchSearched = searched;
  result.gpus = machine.gpus;
  result.candidates = std::move(log);
  return result;
}
