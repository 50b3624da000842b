//===- ParallelModel.cpp - Memory and time of a 3D-parallel config --------===//
//
// The formulas are those of ParallelModel.h and docs/parallel.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Parallel/ParallelModel.h"

#include "support/Units.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace sluice;
using namespace sluice::parallel;
using model::Recompute;

std::string ParallelConfig::str() const {
  std::string s = "tp " + std::to_string(tp) + " pp " + std::to_string(pp) +
                  " dp " + std::to_string(dp) +
                  (ep > 1 ? " ep " + std::to_string(ep) : std::string()) +
                  " b " + std::to_string(microBatch);
  if (virtualStages > 1)
    s += " v " + std::to_string(virtualStages);
  s += recompute == Recompute::None        ? " no-recompute"
       : recompute == Recompute::Selective ? " selective"
                                           : " full";
  if (sequenceParallel)
    s += " sp";
  s += " zero " + std::to_string(zeroStage);
  if (offloadOptimizer)
    s += " offload";
  return s;
}

bool ParallelConfig::operator==(const ParallelConfig &o) const {
  return tp == o.tp && pp == o.pp && dp == o.dp && ep == o.ep &&
         microBatch == o.microBatch && virtualStages == o.virtualStages &&
         recompute == o.recompute && sequenceParallel == o.sequenceParallel &&
         zeroStage == o.zeroStage && offloadOptimizer == o.offloadOptimizer;
}

Placement Placement::identity(int64_t n) {
  Placement p;
  p.gpuOfRank.resize(static_cast<size_t>(n));
  std::iota(p.gpuOfRank.begin(), p.gpuOfRank.end(), 0);
  return p;
}

llvm::StringRef parallel::constraintName(Constraint c) {
  switch (c) {
  case Constraint::None:
    return "none";
  case Constraint::Divisibility:
    return "divisibility";
  case Constraint::TensorSpan:
    return "tensor-parallel span";
  case Constraint::Memory:
    return "GPU memory";
  }
  llvm_unreachable("unknown constraint");
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Constraint parallel::checkShape(const TrainJob &job,
                                const ParallelCluster &cluster,
                                const ParallelConfig &c, std::string *reason) {
  auto fail = [&](Constraint k, const std::string &why) {
    if (reason)
      *reason = why;
    return k;
  };
  const model::TransformerConfig &m = job.model;
  const int64_t n = cluster.gpus();
  if (c.tp <= 0 || c.pp <= 0 || c.dp <= 0 || c.tp * c.pp * c.dp != n)
    return fail(Constraint::Divisibility,
                "tp x pp x dp = " + std::to_string(c.tp * c.pp * c.dp) +
                    " is not the " + std::to_string(n) + " gpus");
  if (m.heads % c.tp || m.effectiveKvHeads() % c.tp ||
      m.effectiveFfn() % c.tp || m.vocab < c.tp)
    return fail(Constraint::Divisibility,
                "tp " + std::to_string(c.tp) + " does not divide heads " +
                    std::to_string(m.heads) + " (kv heads " +
                    std::to_string(m.effectiveKvHeads()) + ", ffn " +
                    std::to_string(m.effectiveFfn()) + ")");
  // Expert parallelism: ep ranks of a data-parallel group share each
  // layer's experts evenly.
  if (c.ep <= 0 || c.dp % c.ep || (m.moe() ? m.experts % c.ep : c.ep != 1))
    return fail(Constraint::Divisibility,
                "ep " + std::to_string(c.ep) + " does not divide dp " +
                    std::to_string(c.dp) + " and experts " +
                    std::to_string(m.experts));
  // Megatron-LM asserts sequence parallelism for ep > 1 with tp > 1.
  if (c.ep > 1 && c.tp > 1 && !c.sequenceParallel)
    return fail(Constraint::Divisibility,
                "expert parallelism with tp > 1 needs sequence parallelism");
  if (c.virtualStages <= 0 || m.layers % (c.pp * c.virtualStages))
    return fail(Constraint::Divisibility,
                "pp " + std::to_string(c.pp) + " x v " +
                    std::to_string(c.virtualStages) +
                    " does not divide layers " + std::to_string(m.layers));
  if (c.microBatch <= 0 || job.globalBatch % (c.dp * c.microBatch))
    return fail(Constraint::Divisibility,
                "dp " + std::to_string(c.dp) + " x micro-batch " +
                    std::to_string(c.microBatch) + " does not divide batch " +
                    std::to_string(job.globalBatch));
  if (c.virtualStages > 1 && (c.pp == 1 || c.microBatches(job) % c.pp != 0))
    return fail(Constraint::Divisibility,
                "interleaving needs pp > 1 and micro-batches a multiple of pp");
  if (c.sequenceParallel && c.tp == 1)
    return fail(Constraint::Divisibility, "sequence parallelism needs tp > 1");
  if (c.zeroStage < 0 || c.zeroStage > 3 || (c.zeroStage >= 2 && c.pp > 1))
    return fail(Constraint::Divisibility, "ZeRO stage " +
                                              std::to_string(c.zeroStage) +
                                              " needs pp 1 (DeepSpeed)");
  // DeepSpeed's ZeRO-3 refuses MoE layers ("MoE not supported with Stage
  // 3", deepspeed/runtime/engine.py).
  if (m.moe() && c.zeroStage == 3)
    return fail(Constraint::Divisibility,
                "ZeRO stage 3 does not support a mixture of experts "
                "(DeepSpeed)");
  if (c.offloadOptimizer && (c.zeroStage < 1 || !cluster.canOffload()))
    return fail(Constraint::Divisibility,
                c.zeroStage < 1 ? "optimizer offload needs ZeRO stage 1 or more"
                                : "optimizer offload needs the hosts' memory, "
                                  "memory bandwidth and links");
  if (c.tp > cluster.gpusPerHost)
    return fail(Constraint::TensorSpan,
                "tp " + std::to_string(c.tp) + " spans hosts of " +
                    std::to_string(cluster.gpusPerHost) + " gpus");
  return Constraint::None;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

StageParams parallel::stageParams(const model::TransformerConfig &m,
                                  const ParallelConfig &c) {
  const model::ParameterBreakdown p = model::countParameters(m);
  const double t = static_cast<double>(c.tp);
  // The experts' matrices of a stage's layers, split over tp x ep.
  const double experts = m.moe() ? static_cast<double>(p.perLayer.mlp) *
                                       static_cast<double>(m.layers) / c.pp
                                 : 0.0;
  const double expertShare = experts / (t * static_cast<double>(c.ep));
  const double layers = static_cast<double>(p.layers) / c.pp - experts +
                        expertShare * t; // divided by t below
  const double embed =
      static_cast<double>(p.embedding) / t + static_cast<double>(p.positional);
  // The head: its own matrix, or (tied, pp > 1) Megatron's copy of the
  // word embedding on the last stage.
  const double head =
      p.head > 0 ? static_cast<double>(p.head) / t
                 : (c.pp > 1 ? static_cast<double>(p.embedding) / t : 0.0);
  StageParams s;
  s.first = layers / t + embed;
  s.last = layers / t + head + static_cast<double>(p.finalNorm);
  if (c.pp == 1)
    s.first = s.last = layers / t + embed + head + p.finalNorm;
  s.expert = expertShare;
  return s;
}

namespace {

/// The offloaded optimizer step of the most loaded stage: each GPU sends
/// its 1/dp shard of the gradients to its host (fp32 main gradients under
/// Megatron's precision, ZeRO-1; fp16 under DeepSpeed's, ZeRO 2 and 3),
/// the host's CPUs update the shards of all its GPUs, and the fp16
/// parameters come back; one after the other (no overlap with backward).
double offloadStepTime(const TrainJob &job, const ParallelCluster &cluster,
                       const ParallelConfig &c) {
  const StageParams sp = stageParams(job.model, c);
  const double shard =
      (std::max(sp.first, sp.last) - sp.expert) / static_cast<double>(c.dp) +
      sp.expert * static_cast<double>(c.ep) / static_cast<double>(c.dp);
  const double gradBytes = c.zeroStage <= 1
                               ? model::StatePrecision::megatron().gradBytes
                               : model::StatePrecision::mixedAdam().gradBytes;
  const double down = gradBytes * shard / cluster.hostLinkBandwidth;
  const double update =
      shard * static_cast<double>(cluster.gpusPerHost) / cluster.hostAdamRate;
  const double up = 2.0 * shard / cluster.hostLinkBandwidth;
  return down + update + up;
}

model::ModelStateBytes states(double params, const ParallelConfig &c,
                              int64_t dp) {
  const model::StatePrecision prec = c.zeroStage <= 1
                                         ? model::StatePrecision::megatron()
                                         : model::StatePrecision::mixedAdam();
  return model::modelStateBytes(params, prec,
                                static_cast<model::ZeroStage>(c.zeroStage), dp);
}

/// The states of `params` parameters, `expert` of them sharded over the
/// dp / ep replicas of the experts (ZeRO, the distributed optimizer).
model::ModelStateBytes states(double params, double expert,
                              const ParallelConfig &c) {
  model::ModelStateBytes b = states(params - expert, c, c.dp);
  if (expert > 0) {
    const model::ModelStateBytes e = states(expert, c, c.dp / c.ep);
    b.params += e.params;
    b.grads += e.grads;
    b.optimizer += e.optimizer;
  }
  return b;
}

} // namespace

MemoryEstimate parallel::estimateMemory(const TrainJob &job,
                                        const ParallelCluster &cluster,
                                        const ParallelConfig &c,
                                        const ModelOptions &opts) {
  const model::TransformerConfig &m = job.model;
  const StageParams sp = stageParams(m, c);
  const model::ActivationParallelism par{c.tp, c.sequenceParallel};
  const double perLayer =
      model::activationBytesPerLayer(m, c.microBatch, c.recompute, par);
  const double layersPerStage = static_cast<double>(m.layers) / c.pp;
  const int64_t inFlight = std::min(c.pp, c.microBatches(job));
  double firstAct = perLayer * layersPerStage * static_cast<double>(inFlight);
  if (c.virtualStages > 1)
    firstAct *= 1.0 + (c.pp - 1.0) / (static_cast<double>(c.pp) *
                                      static_cast<double>(c.virtualStages));
  // Full recomputation rebuilds one layer's activations in backward.
  if (c.recompute == Recompute::Full)
    firstAct +=
        model::activationBytesPerLayer(m, c.microBatch, Recompute::None, par);
  // The last stage: one micro-batch in flight, plus the fp32 logits
  // (b*s*V/t) of the loss.
  double lastAct =
      perLayer * layersPerStage +
      4.0 * c.microBatch * m.seq * static_cast<double>(m.vocab) / c.tp;
  if (c.pp == 1)
    firstAct += lastAct - perLayer * layersPerStage;
  const model::ModelStateBytes first = states(sp.first, sp.expert, c);
  const model::ModelStateBytes last = states(sp.last, sp.expert, c);
  MemoryEstimate e;
  const bool lastWorse =
      c.pp > 1 && last.total() + lastAct > first.total() + firstAct;
  const model::ModelStateBytes &st = lastWorse ? last : first;
  e.params = st.params;
  e.grads = st.grads;
  e.optimizer = st.optimizer;
  e.activations = lastWorse ? lastAct : firstAct;
  if (c.offloadOptimizer) {
    // Every GPU of a host keeps its shard there (each as large as the most
    // loaded stage's: an upper bound when stages differ).
    e.hostNeed = e.optimizer * static_cast<double>(cluster.gpusPerHost);
    e.hostAvailable = cluster.hostMemory * opts.hostUsableFraction;
    e.optimizer = 0;
  }
  e.calibrated = (e.params + e.grads + e.optimizer + e.activations) *
                 opts.memoryCalibration;
  e.available = cluster.gpuMemory - opts.memoryReserve;
  return e;
}

//===----------------------------------------------------------------------===//
// Optimus-CC compression
//===----------------------------------------------------------------------===//

double parallel::lowRankBytes(double rows, double cols, int64_t r,
                              double dtype) {
  const double rr = static_cast<double>(r);
  return dtype * std::min(rows * cols, (rows + cols) * rr);
}

namespace {

/// Time of an (M x K) * (K x N) GEMM on a roofline: the larger of its FLOPs
/// at peak x efficiency and its operand bytes at the memory bandwidth.
double gemmTime(const ParallelCluster &cl, double M, double K, double N,
                double dtype, double eff) {
  const double compute = 2.0 * M * K * N / (cl.gpuPeakFlops * eff);
  if (cl.gpuMemoryBandwidth <= 0)
    return compute;
  const double bytes = dtype * (M * K + K * N + M * N);
  return std::max(compute, bytes / cl.gpuMemoryBandwidth);
}

/// Compress and decompress compute of a (rows x cols) matrix at rank r,
/// one power iteration: P = M Q, Q' = M^T P (compress), M' = P Q'^T
/// (decompress); the orthogonalisation of P (O(rows r^2)) is left out.
double lowRankCompute(const ParallelCluster &cl, double rows, double cols,
                      int64_t r, double dtype, double eff) {
  const double rr = static_cast<double>(r);
  return gemmTime(cl, rows, cols, rr, dtype, eff) +
         gemmTime(cl, cols, rows, rr, dtype, eff) +
         gemmTime(cl, rows, rr, cols, dtype, eff);
}

/// The weight matrices of one layer on one TP rank (rows, cols).
llvm::SmallVector<std::pair<double, double>, 5>
layerMatrices(const model::TransformerConfig &m, int64_t tp) {
  const double t = static_cast<double>(tp);
  const double h = static_cast<double>(m.hidden);
  const double kv = static_cast<double>(m.effectiveKvHeads() * m.headDim());
  const double f = static_cast<double>(m.effectiveFfn());
  llvm::SmallVector<std::pair<double, double>, 5> out = {
      {h, (h + 2.0 * kv) / t}, {h / t, h}, {h, f / t}, {f / t, h}};
  if (m.mlp == model::MlpKind::Gated)
    out.push_back({h, f / t});
  return out;
}

/// One stage's gradient reduction with its layers' weight gradients
/// compressed at rank r (embedding, head, biases and norms stay
/// uncompressed): all-reduce-equivalent bytes, and the compute: the
/// power iteration, plus error feedback (the residual added to the next
/// gradient, M + E, and kept, E = M - M': six fp32 passes over each matrix
/// at the memory bandwidth).
struct CompressedGradients {
  double bytes = 0, compute = 0;
};
CompressedGradients compressedGradients(const model::TransformerConfig &m,
                                        const ParallelCluster &cl,
                                        const ParallelConfig &c, double params,
                                        int64_t r, const ModelOptions &o) {
  const double layers = static_cast<double>(m.layers) / c.pp;
  double full = 0, low = 0, compute = 0;
  for (auto [rows, cols] : layerMatrices(m, c.tp)) {
    full += rows * cols;
    low += lowRankBytes(rows, cols, r, 1.0);
    compute += lowRankCompute(cl, rows, cols, r, 4.0, o.kernelEfficiency);
    if (cl.gpuMemoryBandwidth > 0)
      compute += 6.0 * 4.0 * rows * cols / cl.gpuMemoryBandwidth;
  }
  const double elems = params - layers * (full - low);
  CompressedGradients g;
  // fp32 factors all-reduced; the distributed optimizer still all-gathers
  // its bf16 weights (1 B/param in all-reduce terms).
  g.bytes = 4.0 * elems + (c.zeroStage == 1 ? params : 0.0);
  g.compute = layers * compute;
  return g;
}

} // namespace

double parallel::epilogueCriticalPath(int64_t p, int64_t m, int64_t v, double F,
                                      double B, double C, double Cb,
                                      double CbCompressed) {
  const double path = pipetteCriticalPath(p, m, v, F, B, C);
  if (p <= 1)
    return path;
  return path - static_cast<double>(v) * (Cb - CbCompressed);
}

std::vector<int64_t> parallel::selectDataStages(llvm::ArrayRef<double> D,
                                                llvm::ArrayRef<double> DC,
                                                double &time) {
  assert(D.size() == DC.size() && "one compressed time per stage");
  double target = 0, plain = 0;
  for (size_t s = 0; s < D.size(); ++s) {
    target = std::max(target, std::min(D[s], DC[s]));
    plain = std::max(plain, D[s]);
  }
  std::vector<int64_t> stages;
  for (size_t s = 0; s < D.size(); ++s)
    if (D[s] > target)
      stages.push_back(static_cast<int64_t>(s));
  time = stages.empty() ? plain : target;
  return stages;
}

//===----------------------------------------------------------------------===//
// Communication
//===----------------------------------------------------------------------===//

double parallel::ringAllReduce(const ParallelCluster &cluster,
                               llvm::ArrayRef<int64_t> ranks, double bytes,
                               double efficiency) {
  const size_t k = ranks.size();
  if (k < 2 || bytes <= 0)
    return 0;
  double bw = INFINITY, lat = 0;
  for (size_t i = 0; i < k; ++i) {
    const int64_t a = ranks[i], b = ranks[(i + 1) % k];
    bw = std::min(bw, cluster.bw(a, b));
    lat = std::max(lat, cluster.lat(a, b));
  }
  const double kk = static_cast<double>(k);
  return 2.0 * (kk - 1.0) / kk * bytes / (bw * efficiency) +
         2.0 * (kk - 1.0) * lat;
}

namespace {

/// The data-parallel reduction of `bytes` over `members` (GPU indices in DP
/// order): the faster of one flat ring and Pipette's two-level scheme
/// (reduce-scatter inside each host, all-reduce of 1/k of the bytes across
/// hosts, all-gather inside each host) when every host holds k members.
double dataAllReduce(const ParallelCluster &cluster,
                     const std::vector<int64_t> &members, double bytes,
                     double eff) {
  double flat = ringAllReduce(cluster, members, bytes, eff);
  // Members per host, in DP order (hosts in order of first member; a DP
  // group spans few hosts, a linear search is cheapest).
  llvm::SmallVector<llvm::SmallVector<int64_t, 8>, 16> byHost;
  llvm::SmallVector<int64_t, 16> hostIds;
  for (int64_t g : members) {
    const int64_t h = cluster.hostOf(g);
    auto it = llvm::find(hostIds, h);
    if (it == hostIds.end()) {
      hostIds.push_back(h);
      byHost.emplace_back();
      it = hostIds.end() - 1;
    }
    byHost[static_cast<size_t>(it - hostIds.begin())].push_back(g);
  }
  const size_t k = byHost.front().size();
  if (byHost.size() < 2 || k < 2)
    return flat;
  for (const auto &h : byHost)
    if (h.size() != k)
      return flat;
  double intra = 0;
  for (const auto &h : byHost)
    intra = std::max(intra, ringAllReduce(cluster, h, bytes, eff));
  double inter = 0;
  for (size_t i = 0; i < k; ++i) {
    llvm::SmallVector<int64_t, 16> ring;
    for (const auto &h : byHost)
      ring.push_back(h[i]);
    inter = std::max(inter, ringAllReduce(cluster, ring,
                                          bytes / static_cast<double>(k), eff));
  }
  return std::min(flat, intra + inter);
}

} // namespace

CommTimes parallel::commTimes(const TrainJob &job,
                              const ParallelCluster &cluster,
                              const ParallelConfig &c, const Placement &pl,
                              const ModelOptions &opts) {
  const model::TransformerConfig &m = job.model;
  const int64_t t = c.tp, d = c.dp, p = c.pp;
  const double eff = opts.collectiveEfficiency;
  auto gpu = [&](int64_t tr, int64_t dr, int64_t pr) {
    return pl.gpuOfRank[static_cast<size_t>(tr + t * (dr + d * pr))];
  };
  CommTimes out;
  // Tensor parallel: one all-reduce (or reduce-scatter + all-gather with
  // SP, the same bytes) of b*s*h activations per matmul pair, two per layer
  // forward and two backward (four with full recomputation).
  const double actMsg =
      static_cast<double>(c.microBatch) * m.seq * m.hidden * m.dtypeBytes;
  if (t > 1) {
    double slowest = 0;
    std::vector<int64_t> group(static_cast<size_t>(t));
    for (int64_t pr = 0; pr < p; ++pr)
      for (int64_t dr = 0; dr < d; ++dr) {
        for (int64_t tr = 0; tr < t; ++tr)
          group[static_cast<size_t>(tr)] = gpu(tr, dr, pr);
        slowest = std::max(slowest, ringAllReduce(cluster, group, actMsg, eff));
      }
    out.tensor = slowest; // one all-reduce
  }
  // Pipeline: each TP rank sends its 1/t of the b*s*h boundary activation
  // (Megatron's scatter-gather), forward and backward, at every boundary.
  if (p > 1) {
    const double msg = actMsg / static_cast<double>(t);
    // Optimus-CC: the backward message (b s x h/t per TP rank) at rank r.
    const int64_t r = opts.compressRank;
    const double rows = static_cast<double>(c.microBatch) * m.seq;
    const double cols = static_cast<double>(m.hidden) / static_cast<double>(t);
    const double msgC = r > 0 ? lowRankBytes(rows, cols, r, m.dtypeBytes) : 0;
    const double codec =
        r > 0 ? lowRankCompute(cluster, rows, cols, r, m.dtypeBytes,
                               opts.kernelEfficiency)
              : 0;
    double round = 0;
    for (int64_t pr = 0; pr + 1 < p; ++pr) {
      double boundary = 0, back = 0, backC = 0;
      for (int64_t dr = 0; dr < d; ++dr)
        for (int64_t tr = 0; tr < t; ++tr) {
          const int64_t a = gpu(tr, dr, pr), b = gpu(tr, dr, pr + 1);
          const double fwd = msg / (cluster.bw(a, b) * eff) + cluster.lat(a, b);
          const double bwd = msg / (cluster.bw(b, a) * eff) + cluster.lat(b, a);
          boundary = std::max(boundary, fwd + bwd);
          if (r > 0) {
            back = std::max(back, bwd);
            backC = std::max(backC, msgC / (cluster.bw(b, a) * eff) +
                                        cluster.lat(b, a));
          }
        }
      round += boundary;
      out.p2pBackward += back;
      out.p2pBackwardCompressed += r > 0 ? backC + codec : 0;
    }
    out.p2p = round;
  }
  // Experts: one all-to-all inside each expert-parallel group (ep
  // consecutive dp ranks of one tp and pp rank).
  if (c.ep > 1) {
    const double bytes = expertAllToAllBytes(job, c);
    std::vector<int64_t> group(static_cast<size_t>(c.ep));
    for (int64_t pr = 0; pr < p; ++pr)
      for (int64_t tr = 0; tr < t; ++tr)
        for (int64_t g0 = 0; g0 < d; g0 += c.ep) {
          for (int64_t i = 0; i < c.ep; ++i)
            group[static_cast<size_t>(i)] = gpu(tr, g0 + i, pr);
          out.expert = std::max(out.expert,
                                pairwiseAllToAll(cluster, group, bytes, eff));
        }
  }
  // Data parallel: the gradients of the larger stage; the experts' over
  // their dp / ep replicas (dp ranks congruent modulo ep), after the rest.
  if (d > 1) {
    const StageParams sp = stageParams(m, c);
    const double params = std::max(sp.first, sp.last) - sp.expert;
    // Bytes of one all-reduce-equivalent: fp32 gradients (Megatron); the
    // distributed optimizer reduce-scatters fp32 gradients and all-gathers
    // bf16 parameters, (4 + 2) / 2 bytes per parameter in all-reduce
    // terms; ZeRO-2 2 bytes, ZeRO-3 1.5x that.
    const double perParam = c.zeroStage == 0   ? 4.0
                            : c.zeroStage == 1 ? 3.0
                            : c.zeroStage == 2 ? 2.0
                                               : 3.0;
    const double bytes = params * perParam;
    const double expertBytes = sp.expert * perParam;
    const int64_t replicas = d / c.ep;
    std::vector<int64_t> expertGroup(static_cast<size_t>(replicas));
    // Optimus-CC on the gradients (Megatron's ZeRO 0/1 only).
    const bool compress = opts.compressRank > 0 && c.zeroStage <= 1;
    CompressedGradients cg;
    if (compress)
      cg = compressedGradients(m, cluster, c, params, opts.compressRank, opts);
    double slowest = 0;
    std::vector<int64_t> group(static_cast<size_t>(d));
    for (int64_t pr = 0; pr < p; ++pr) {
      double stage = 0, stageC = 0;
      for (int64_t tr = 0; tr < t; ++tr) {
        for (int64_t dr = 0; dr < d; ++dr)
          group[static_cast<size_t>(dr)] = gpu(tr, dr, pr);
        double experts = 0;
        for (int64_t j = 0; expertBytes > 0 && replicas > 1 && j < c.ep; ++j) {
          for (int64_t k = 0; k < replicas; ++k)
            expertGroup[static_cast<size_t>(k)] = gpu(tr, j + c.ep * k, pr);
          experts = std::max(
              experts, dataAllReduce(cluster, expertGroup, expertBytes, eff));
        }
        stage = std::max(stage,
                         dataAllReduce(cluster, group, bytes, eff) + experts);
        if (compress)
          stageC =
              std::max(stageC, dataAllReduce(cluster, group, cg.bytes, eff));
      }
      slowest = std::max(slowest, stage);
      if (compress) {
        out.dataPerStage.push_back(stage);
        out.dataPerStageCompressed.push_back(stageC + cg.compute);
      }
    }
    out.data = slowest;
  }
  return out;
}

double parallel::pipetteCriticalPath(int64_t p, int64_t m, int64_t v, double F,
                                     double B, double C) {
  const double fb = F + B;
  if (p <= 1)
    return static_cast<double>(m) * fb;
  const double pv = static_cast<double>(p);
  const double bubble = (pv - 1.0) * fb / static_cast<double>(v);
  if (m >= p) {
    const double rounds = static_cast<double>(m / p);
    return rounds * (pv * fb + static_cast<double>(v) * C) +
           static_cast<double>(m % p) * fb + bubble;
  }
  return pv * fb + C + static_cast<double>(m - 1) * fb;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

namespace {

struct StageTimes {
  double layerF = 0;    ///< one layer's forward compute, one micro-batch
  double attention = 0; ///< its attention-score part
  double logits = 0;    ///< the last stage's head
};

StageTimes layerTimes(const model::TransformerConfig &m,
                      const ParallelCluster &cl, const ParallelConfig &c,
                      const ModelOptions &o) {
  const double t = static_cast<double>(c.tp);
  const double M = static_cast<double>(c.microBatch) * m.seq;
  const double h = static_cast<double>(m.hidden);
  const double kv = static_cast<double>(m.effectiveKvHeads() * m.headDim());
  const double f = static_cast<double>(m.effectiveFfn());
  const double dt = static_cast<double>(m.dtypeBytes);
  const double eff = o.kernelEfficiency;
  StageTimes s;
  double gemms = gemmTime(cl, M, h, (h + 2.0 * kv) / t, dt, eff) // QKV
                 + gemmTime(cl, M, h / t, h, dt, eff);           // out
  const double ups = m.mlp == model::MlpKind::Gated ? 2.0 : 1.0;
  if (!m.moe()) {
    gemms += gemmTime(cl, M, f / t, h, dt, eff); // down
    gemms += ups * gemmTime(cl, M, h, f / t, dt, eff);
  } else {
    // The router (replicated over tp), then the E / ep local experts, each
    // on its share of the M x routedPerToken() token copies the ep group
    // sends here (capacity padding included), its f / t slice.
    const double E = static_cast<double>(m.experts);
    const double local = E / static_cast<double>(c.ep);
    const double C = M * m.routedPerToken() / local;
    gemms += gemmTime(cl, M, h, E, dt, eff) +
             local * (ups * gemmTime(cl, C, h, f / t, dt, eff) +
                      gemmTime(cl, C, f / t, h, dt, eff));
  }
  // Q*K^T and scores*V: 4*b*s^2*h FLOPs, split over the TP heads.
  s.attention =
      4.0 * M * m.seq * h / t / (cl.gpuPeakFlops * o.attentionEfficiency);
  // Element-wise work (norms, activations, dropout, residuals): every
  // stored activation byte written once and read once.
  double elementwise = 0;
  if (cl.gpuMemoryBandwidth > 0)
    elementwise =
        2.0 *
        model::activationBytesPerLayer(m, c.microBatch, Recompute::None,
                                       {c.tp, c.sequenceParallel}) /
        cl.gpuMemoryBandwidth;
  s.layerF = gemms + s.attention + elementwise;
  s.logits = gemmTime(cl, M, h, static_cast<double>(m.vocab) / t, dt, eff);
  return s;
}

} // namespace

Estimate parallel::evaluate(const TrainJob &job, const ParallelCluster &cluster,
                            const ParallelConfig &c, const Placement &pl,
                            const ModelOptions &opts) {
  Estimate e;
  std::string why;
  e.rejected = checkShape(job, cluster, c, &why);
  if (e.rejected != Constraint::None) {
    e.reason = why;
    return e;
  }
  return evaluateWithComm(job, cluster, c, commTimes(job, cluster, c, pl, opts),
                          opts);
}

Estimate parallel::evaluateWithComm(const TrainJob &job,
                                    const ParallelCluster &cluster,
                                    const ParallelConfig &c,
                                    const CommTimes &comm,
                                    const ModelOptions &opts) {
  Estimate e;
  e.memory = estimateMemory(job, cluster, c, opts);
  if (!e.memory.fits()) {
    e.rejected = Constraint::Memory;
    e.reason = e.memory.calibrated > e.memory.available
                   ? "GPU memory: need " +
                         formatQuantity(e.memory.calibrated, Dim::bytes()) +
                         " per gpu, have " +
                         formatQuantity(e.memory.available, Dim::bytes())
                   : "host memory: need " +
                         formatQuantity(e.memory.hostNeed, Dim::bytes()) +
                         " per host for offloaded optimizer states, have " +
                         formatQuantity(e.memory.hostAvailable, Dim::bytes());
  }
  const model::TransformerConfig &m = job.model;
  const StageTimes lt = layerTimes(m, cluster, c, opts);
  const double layers = static_cast<double>(m.layers) / c.pp;
  // Per layer forward: two TP all-reduces and (MoE) two all-to-alls.
  const double tpPerLayerFwd = 2.0 * comm.tensor + 2.0 * comm.expert;
  double F = layers * (lt.layerF + tpPerLayerFwd);
  double B = layers * (2.0 * lt.layerF + tpPerLayerFwd);
  if (c.recompute == Recompute::Selective)
    B += layers * lt.attention;
  else if (c.recompute == Recompute::Full)
    B += layers * (lt.layerF + tpPerLayerFwd);
  // The head runs on the last stage (forward, and twice that backward).
  F += lt.logits;
  B += 2.0 * lt.logits;
  // Interleaving: a stage runs v chunks of L/(p v) layers; F and B per
  // micro-batch are unchanged, the pipeline formula splits them.
  TimeEstimate &tm = e.time;
  tm.forward = F;
  tm.backward = B;
  tm.tensorComm =
      layers * (4.0 + (c.recompute == Recompute::Full ? 2.0 : 0)) * comm.tensor;
  tm.expertComm =
      layers * (4.0 + (c.recompute == Recompute::Full ? 2.0 : 0)) * comm.expert;
  tm.p2p = comm.p2p;
  tm.pipeline = pipetteCriticalPath(c.pp, c.microBatches(job), c.virtualStages,
                                    F, B, comm.p2p);
  tm.dataComm = comm.data;
  // Optimizer step: read and write every model state byte once.
  if (c.offloadOptimizer) {
    tm.optimizer = offloadStepTime(job, cluster, c);
  } else if (cluster.gpuMemoryBandwidth > 0) {
    tm.optimizer = 2.0 *
                   (e.memory.params + e.memory.grads + e.memory.optimizer) /
                   cluster.gpuMemoryBandwidth;
  }
  tm.iteration = tm.pipeline + tm.dataComm + tm.optimizer;
  tm.uncompressedIteration = tm.iteration;
  // Optimus-CC, each part kept only where it pays.
  if (opts.compressRank > 0) {
    const double epilogue = epilogueCriticalPath(
        c.pp, c.microBatches(job), c.virtualStages, F, B, comm.p2p,
        comm.p2pBackward, comm.p2pBackwardCompressed);
    if (c.pp > 1 && epilogue < tm.pipeline) {
      tm.epilogueSaving = tm.pipeline - epilogue;
      tm.pipeline = epilogue;
      tm.compressedMicroBatches = std::min(c.microBatches(job), c.pp - 1);
      tm.compressedBackwardP2p = comm.p2pBackwardCompressed;
    }
    if (!comm.dataPerStage.empty()) {
      double data = 0;
      std::vector<int64_t> stages = selectDataStages(
          comm.dataPerStage, comm.dataPerStageCompressed, data);
      if (!stages.empty() && data < tm.dataComm) {
        tm.dataSaving = tm.dataComm - data;
        tm.dataComm = data;
        tm.compressedDataStages = std::move(stages);
      }
    }
    if (tm.compressedMicroBatches > 0 || !tm.compressedDataStages.empty()) {
      tm.compressRank = opts.compressRank;
      tm.iteration = tm.pipeline + tm.dataComm + tm.optimizer;
    }
  }
  const model::TrainingFlops fl =
      model::trainingFlops(m, job.globalBatch, c.recompute == Recompute::Full);
  tm.modelFlops = fl.model();
  tm.hardwareFlops = fl.total();
  if (c.recompute == Recompute::Selective)
    tm.hardwareFlops += 4.0 * job.globalBatch * m.seq * m.seq *
                        static_cast<double>(m.hidden) * m.layers;
  const double n = static_cast<double>(cluster.gpus());
  tm.tflopsPerGpu = tm.modelFlops / tm.iteration / n / 1e12;
  tm.mfu = tm.modelFlops / (tm.iteration * n * cluster.gpuPeakFlops);
  tm.hfu = tm.hardwareFlops / (tm.iteration * n * cluster.gpuPeakFlops);
  return e;
}
