//===- InferencePlanner.cpp - FlexGen-style offloaded inference -----------===//
#include "compiler/Analysis/Offload/InferencePlanner.h"

#include "compiler/Analysis/Flow/Glpk.h"
#include "support/Units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace sluice;
using namespace sluice::offload;

double PhaseTerms::layerTime() const {
  if (serialLoad)
    return h2d + std::max({compute + cpu, d2h, diskRead, diskWrite});
  return std::max({compute + cpu, h2d, d2h, diskRead, diskWrite});
}

std::string PhaseTerms::bottleneck() const {
  std::pair<double, const char *> terms[] = {
      {compute + cpu, cpu > compute ? "CPU attention" : "GPU compute"},
      {h2d, "host->GPU"},
      {d2h, "GPU->host"},
      {diskRead, "disk read"},
      {diskWrite, "disk write"}};
  const auto *best = &terms[0];
  for (const auto &t : terms)
    if (t.first > best->first)
      best = &t;
  return best->second;
}

namespace {

// Variable indices of the fractions.
enum Var : unsigned { WG, WC, WD, CG, CC, CD, HG, HC, HD, kNumFractions };

/// A per-layer time term: constant + coefficients over the fractions.
struct Term {
  double constant = 0;
  std::array<double, kNumFractions> coef{};
  double at(const std::array<double, kNumFractions> &x) const {
    double v = constant;
    for (unsigned i = 0; i < kNumFractions; ++i)
      v += coef[i] * x[i];
    return v;
  }
};

/// A capacity row: sum coef * x <= rhs.
struct Capacity {
  const char *what;
  std::array<double, kNumFractions> coef{};
  double rhs = 0;
};

/// The tensor classes a transfer moves.
enum Cls : unsigned { kWeights, kCache, kActivations, kNumClasses };
const char *const kClassNames[kNumClasses] = {"weights", "cache",
                                              "activations"};
/// The links, in the order of PhaseTerms after compute.
enum Link : unsigned { kH2D, kD2H, kDiskRead, kDiskWrite, kNumLinks };

void addTo(Term &acc, const Term &t) {
  acc.constant += t.constant;
  for (unsigned k = 0; k < kNumFractions; ++k)
    acc.coef[k] += t.coef[k];
}

/// One phase of one layer: its GPU compute, its CPU attention and, per
/// link and tensor class, the time of what it moves at the rate it moves
/// at (the LP's terms are the sums over classes; compute and CPU attention
/// run one after the other).
struct PhaseModel {
  Term compute, cpu;
  Term cpuBytes; ///< the fp16 cache bytes the CPU attention reads
  bool serialLoad = false;
  double flops = 0; ///< of the compute, whole block
  std::array<std::array<Term, kNumClasses>, kNumLinks> moves{};
  std::array<std::array<double, kNumClasses>, kNumLinks> rate{};
  /// compute + cpu, then the links in PhaseTerms order.
  std::array<Term, 5> totals() const {
    std::array<Term, 5> t{};
    t[0] = compute;
    addTo(t[0], cpu);
    for (unsigned l = 0; l < kNumLinks; ++l)
      for (const Term &c : moves[l])
        addTo(t[l + 1], c);
    if (serialLoad)
      for (unsigned i : {0u, 2u, 3u, 4u})
        addTo(t[i], t[1]);
    return t;
  }
  PhaseTerms at(const std::array<double, kNumFractions> &x) const {
    PhaseTerms p;
    p.serialLoad = serialLoad;
    p.compute = compute.at(x);
    p.cpu = cpu.at(x);
    std::array<double, kNumLinks> link{};
    for (unsigned l = 0; l < kNumLinks; ++l)
      for (const Term &c : moves[l])
        link[l] += c.at(x);
    p.h2d = link[kH2D];
    p.d2h = link[kD2H];
    p.diskRead = link[kDiskRead];
    p.diskWrite = link[kDiskWrite];
    return p;
  }
};

struct Model {
  /// Per layer group: its layer count and its per-layer phases.
  std::vector<double> counts;
  std::vector<PhaseModel> prefill, decode;
  std::array<Capacity, 3> caps;
  std::array<double, kNumLinks> bandwidth{}; ///< B/s per link
  double layers = 0, generate = 0, block = 0;
  bool disk = false;
};

Model buildModel(const InferenceJob &job, const Machine &m, int64_t gbs,
                 int64_t n, bool cpuAttention) {
  ModelCosts costs;
  if (job.costs) {
    costs = *job.costs;
  } else {
    model::TransformerConfig cfg = job.model;
    cfg.seq = job.prompt;
    costs = uniformCosts(cfg);
  }
  const double e = static_cast<double>(costs.dtypeBytes);
  const double bls = static_cast<double>(gbs * n);
  const double G = static_cast<double>(gbs);
  const double batches = static_cast<double>(n);
  const double s = static_cast<double>(job.prompt);
  const double gen = static_cast<double>(job.generate);
  // Stored (and moved) bytes per byte of the 16-bit tensor.
  const double rw = job.compressWeights ? kCompressedBytesPerElement / e : 1.0;
  const double rc = job.compressCache ? kCompressedBytesPerElement / e : 1.0;
  const double Wtot = e * costs.params() * rw;
  const double ctxAvg = s + gen / 2.0;
  // Attention over the cache in decode: FLOPs at the large-GEMM rate (its
  // cache reads bound it); the projections follow the GEMM model.
  const double F = m.gpuFlops();
  const model::GemmDevice dev = m.gemmDevice();
  const model::GemmDtype dt = model::gemmDtypeOfBytes(costs.dtypeBytes);
  Model M;
  M.layers = static_cast<double>(costs.layers());
  M.generate = gen;
  M.block = bls;
  M.disk = m.nvme.present();
  M.bandwidth = {m.h2dBandwidth, m.d2hBandwidth,
                 M.disk ? m.nvme.readBandwidth : 1,
                 M.disk ? m.nvme.writeBandwidth : 1};
  // The KV cache and the hidden states live in pageable host memory
  // (FlexGen allocates them unpinned): their host<->GPU copies run at the
  // pageable rate; the weights are pinned (FlexGen's pin_weight).
  auto pageable = [&](double link) {
    return m.pageableBandwidth > 0 ? std::min(link, m.pageableBandwidth) : link;
  };
  const std::array<std::array<double, kNumClasses>, kNumLinks> rates = {
      {{m.h2dBandwidth, pageable(m.h2dBandwidth), pageable(m.h2dBandwidth)},
       {m.d2hBandwidth, pageable(m.d2hBandwidth), pageable(m.d2hBandwidth)},
       {M.bandwidth[kDiskRead], M.bandwidth[kDiskRead], M.bandwidth[kDiskRead]},
       {M.bandwidth[kDiskWrite], M.bandwidth[kDiskWrite],
        M.bandwidth[kDiskWrite]}}};
  // Sets phase P's move of class c over link l: `bytes` when they live
  // where the fractions `vars` say.
  auto move = [&](PhaseModel &P, Link l, Cls c, std::initializer_list<Var> vars,
                  double bytes) {
    Term &t = P.moves[l][c];
    for (Var v : vars)
      t.coef[v] += bytes / rates[l][c];
    P.rate[l][c] = rates[l][c];
  };
  // Per layer and step: the runtime's fixed cost for each GPU batch.
  const double overhead = batches * m.inferLayerOverhead;

  double kvAll = 0, maxW = 0, maxAct = 0, maxWork = 0;
  for (const LayerGroup &g : costs.groups) {
    const double h = static_cast<double>(g.hidden);
    const double a = static_cast<double>(g.heads);
    const double W16 = e * g.params;                 // 16-bit weights
    const double W = W16 * rw;                       // as stored
    const double kvTok16 = costs.kvBytesPerToken(g); // per layer
    const double kvTok = kvTok16 * rc;               // as stored
    // The forward FLOPs of a prompt minus the attention scores (4s^2h):
    // 2 FLOPs per matmul weight per token.
    const double linearPerToken = (g.fwdFlops - 4.0 * s * s * h) / s;
    const double cacheAvg = kvTok * ctxAvg * bls; // read per decode step
    const double newKv = kvTok * bls;             // written per step
    const double cachePre = kvTok * s * bls;      // written by prefill
    const double actD = e * h * bls;              // hidden state, decode
    const double actP = e * h * s * bls;          // hidden state, prefill
    kvAll += static_cast<double>(g.count) * kvTok;
    maxW = std::max(maxW, W);
    maxAct = std::max(maxAct, actP);
    // GPU working set: double-buffered layer weights, one GPU batch's
    // prefill intermediates (q/k/v, MLP hidden, fp16 scores) and, unless
    // the CPU attends over it, one layer's cache of one GPU batch streamed
    // in for decoding (16-bit: compressed tensors are decompressed into
    // these buffers).
    maxWork = std::max(maxWork, 2.0 * W16 + e * G * s * (9.0 * h + a * s) +
                                    (cpuAttention ? 0.0 : 2.0 * kvTok16) *
                                        (s + gen) * G);
    // (De)compression on the GPU at kDequantBytesPerElement of memory
    // traffic per element. FlexGen decompresses a layer's weights inside
    // each GPU batch's compute, so once per GPU batch.
    const double gpuBw = m.gpuMemoryBandwidth;
    auto dequant = [&](double elements) {
      return gpuBw > 0 ? elements * kDequantBytesPerElement / gpuBw : 0.0;
    };
    const double dequantW =
        job.compressWeights ? batches * dequant(g.params) : 0.0;
    // Compressing the cache a step writes (16-bit elements / e bytes).
    auto packCache = [&](double bytes16) {
      return job.compressCache ? dequant(bytes16 / e) : 0.0;
    };

    // Prefill, per layer for the whole block. The GPU batches of a block
    // run one after another: GEMMs of gbs sequences. Attention runs on the
    // GPU (cpu_cache_compute is a decode option).
    PhaseModel P;
    P.flops = bls * g.fwdFlops;
    P.compute.constant = P.flops / layerRates(costs, g, G, dev).forward +
                         dequantW + packCache(cachePre / rc) + overhead;
    move(P, kH2D, kWeights, {WC, WD}, W);
    move(P, kH2D, kActivations, {HC, HD}, actP);
    move(P, kD2H, kCache, {CC, CD}, cachePre);
    move(P, kD2H, kActivations, {HC, HD}, actP);
    move(P, kDiskRead, kWeights, {WD}, W);
    move(P, kDiskRead, kActivations, {HD}, actP);
    move(P, kDiskWrite, kCache, {CD}, cachePre);
    move(P, kDiskWrite, kActivations, {HD}, actP);

    // Decode, per layer and generated token for the whole block: each GPU
    // batch runs one token per sequence through the projections (GEMMs of
    // gbs rows that read the layer's weights from GPU memory again).
    double gemmFlops = 0, gemmTime = 0;
    for (const model::GemmShape &x : layerForwardGemms(g, G, 1, dt))
      if (!x.bytes) { // not the attention
        gemmFlops += x.flops();
        gemmTime += model::gemmTime(x, dev);
      }
    double linear = linearPerToken * G * gemmTime / gemmFlops;
    if (gpuBw > 0)
      linear = std::max(linear, W16 / gpuBw);
    linear = batches * linear + dequantW;
    // Attention over the cache: on the GPU it moves the block's cache in 16
    // bits (kGpuAttentionBytesPerElement), after decompressing it when it
    // is stored compressed; on the CPU it moves it in host memory
    // (kCpuAttentionBytesPerElement) and computes at the CPU's attention
    // rate.
    const double attnFlops = 4.0 * bls * ctxAvg * h;
    const double cache16 = cacheAvg / rc;
    const double cacheElems = cache16 / e;
    const double gpuAttn =
        attnFlops / F +
        (gpuBw > 0 ? cacheElems * kGpuAttentionBytesPerElement / gpuBw : 0.0) +
        (job.compressCache ? dequant(cacheElems) : 0.0);
    // FlexGen's runtime does not hide a decode layer's host->GPU loads
    // behind its compute or its other transfers: the T4 constants its
    // authors fitted come with Tgen = ctog + max(gtoc, dtoc, ctod, comp)
    // (FlexGen, experimental/cost_model.py), which we take over.
    PhaseModel D;
    D.serialLoad = true;
    D.flops = linearPerToken * bls + attnFlops;
    D.compute.constant = linear + packCache(newKv / rc) + overhead;
    if (cpuAttention) {
      // The GPU attends over its own share; the CPU over the rest.
      D.compute.coef[CG] = gpuAttn;
      const double cpuBytes = cacheElems * kCpuAttentionBytesPerElement;
      const double cpuAttn = std::max(cpuBytes / m.hostMemoryBandwidth,
                                      attnFlops / m.cpuAttentionFlops);
      D.cpu.coef[CC] = D.cpu.coef[CD] = cpuAttn;
      D.cpuBytes.coef[CC] = D.cpuBytes.coef[CD] = cpuBytes;
      // The query goes to the CPU, the attention output comes back.
      move(D, kD2H, kActivations, {CC, CD}, actD);
      move(D, kH2D, kActivations, {CC, CD}, actD);
    } else {
      D.compute.constant += gpuAttn;
      move(D, kH2D, kCache, {CC, CD}, cacheAvg);
    }
    move(D, kH2D, kWeights, {WC, WD}, W);
    move(D, kH2D, kActivations, {HC, HD}, actD);
    move(D, kD2H, kCache, {CC, CD}, newKv);
    move(D, kD2H, kActivations, {HC, HD}, actD);
    move(D, kDiskRead, kWeights, {WD}, W);
    move(D, kDiskRead, kCache, {CD}, cacheAvg);
    move(D, kDiskRead, kActivations, {HD}, actD);
    move(D, kDiskWrite, kCache, {CD}, newKv);
    move(D, kDiskWrite, kActivations, {HD}, actD);
    M.counts.push_back(static_cast<double>(g.count));
    M.prefill.push_back(P);
    M.decode.push_back(D);
  }

  // Capacities.
  const double Ctot = kvAll * (s + gen) * bls;
  const double Atot = 2.0 * maxAct;
  Capacity &cg = M.caps[0];
  cg.what = "GPU memory";
  cg.coef[WG] = Wtot;
  cg.coef[CG] = Ctot;
  cg.coef[HG] = Atot;
  cg.rhs = m.gpuUsable() - maxWork;
  Capacity &cc = M.caps[1];
  cc.what = "host memory";
  cc.coef[WC] = Wtot;
  cc.coef[CC] = Ctot;
  cc.coef[HC] = Atot;
  cc.rhs = m.hostUsable() - (M.disk ? 2.0 * maxW : 0.0); // disk staging
  Capacity &ck = M.caps[2];
  ck.what = "disk capacity";
  ck.coef[WD] = Wtot;
  ck.coef[CD] = Ctot;
  ck.coef[HD] = Atot;
  ck.rhs = M.disk ? m.nvme.capacity : 0.0;
  return M;
}

struct LpResult {
  bool optimal = false;
  std::array<double, kNumFractions> x{};
  double objective = 0;
};

LpResult solveLp(const Model &M, bool exact) {
  flow::detail::GlpkProb lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  const int nFrac = kNumFractions;
  const int groups = static_cast<int>(M.counts.size());
  // 1-based column indices: the fractions, then per group T_prefill and
  // T_decode.
  auto tp = [&](int g) { return nFrac + 1 + 2 * g; };
  auto tg = [&](int g) { return nFrac + 2 + 2 * g; };
  glp_add_cols(lp.get(), nFrac + 2 * groups);
  for (int j = 1; j <= nFrac; ++j) {
    bool diskVar = (j - 1 == WD || j - 1 == CD || j - 1 == HD);
    if (diskVar && !M.disk)
      glp_set_col_bnds(lp.get(), j, GLP_FX, 0, 0);
    else
      glp_set_col_bnds(lp.get(), j, GLP_DB, 0, 1);
  }
  for (int g = 0; g < groups; ++g) {
    const double L = M.counts[static_cast<size_t>(g)];
    glp_set_col_bnds(lp.get(), tp(g), GLP_LO, 0, 0);
    glp_set_col_bnds(lp.get(), tg(g), GLP_LO, 0, 0);
    glp_set_obj_coef(lp.get(), tp(g), L);
    glp_set_obj_coef(lp.get(), tg(g), L * std::max(0.0, M.generate - 1));
  }
  // Ties (e.g. activations that move no matter where they live) go to the
  // faster tier: a microsecond per unit fraction on CPU, two on disk.
  for (unsigned base : {unsigned(WG), unsigned(CG), unsigned(HG)}) {
    glp_set_obj_coef(lp.get(), static_cast<int>(base + 2), 1e-6);
    glp_set_obj_coef(lp.get(), static_cast<int>(base + 3), 2e-6);
  }

  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  int row = 0;
  auto addRow = [&](int type, double lo, double hi) {
    row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, type, lo, hi);
  };
  auto put = [&](int col, double v) {
    if (v == 0)
      return;
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  // Each placement row sums to 1.
  for (unsigned base : {unsigned(WG), unsigned(CG), unsigned(HG)}) {
    addRow(GLP_FX, 1, 1);
    for (unsigned k = 0; k < 3; ++k)
      put(static_cast<int>(base + k + 1), 1);
  }
  // T >= term: T - coef.x >= constant.
  auto addTerms = [&](const std::array<Term, 5> &terms, int tcol) {
    for (const Term &t : terms) {
      addRow(GLP_LO, t.constant, 0);
      put(tcol, 1);
      for (unsigned k = 0; k < kNumFractions; ++k)
        put(static_cast<int>(k + 1), -t.coef[k]);
    }
  };
  for (int g = 0; g < groups; ++g) {
    addTerms(M.prefill[static_cast<size_t>(g)].totals(), tp(g));
    addTerms(M.decode[static_cast<size_t>(g)].totals(), tg(g));
  }
  for (const Capacity &c : M.caps) {
    addRow(GLP_UP, 0, c.rhs);
    for (unsigned k = 0; k < kNumFractions; ++k)
      put(static_cast<int>(k + 1), c.coef[k]);
  }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size() - 1), ia.data(),
                  ja.data(), ar.data());
  LpResult r;
  if (flow::detail::runGlpkSimplex(lp.get(), exact) != 0 ||
      glp_get_status(lp.get()) != GLP_OPT)
    return r;
  r.optimal = true;
  r.objective = glp_get_obj_val(lp.get());
  for (unsigned k = 0; k < kNumFractions; ++k)
    r.x[k] = std::clamp(glp_get_col_prim(lp.get(), static_cast<int>(k + 1)),
                        0.0, 1.0);
  return r;
}

/// The LP's variables of a policy (Var order).
std::array<double, kNumFractions> fractionsOf(const InferencePolicy &p) {
  return {p.weights.gpu,     p.weights.cpu,     p.weights.disk,
          p.cache.gpu,       p.cache.cpu,       p.cache.disk,
          p.activations.gpu, p.activations.cpu, p.activations.disk};
}

InferencePlan planFrom(const Model &M, int64_t gbs, int64_t n,
                       bool cpuAttention,
                       const std::array<double, kNumFractions> &x) {
  InferencePlan plan;
  plan.feasible = true;
  plan.policy.gpuBatch = gbs;
  plan.policy.numGpuBatches = n;
  plan.policy.cpuAttention = cpuAttention;
  plan.policy.weights = {x[WG], x[WC], x[WD]};
  plan.policy.cache = {x[CG], x[CC], x[CD]};
  plan.policy.activations = {x[HG], x[HC], x[HD]};
  double prefillSum = 0, decodeSum = 0;
  for (size_t g = 0; g < M.counts.size(); ++g) {
    plan.groupPrefill.push_back(M.prefill[g].at(x));
    plan.groupDecode.push_back(M.decode[g].at(x));
    prefillSum += M.counts[g] * plan.groupPrefill.back().layerTime();
    decodeSum += M.counts[g] * plan.groupDecode.back().layerTime();
  }
  if (M.counts.size() == 1) {
    plan.prefill = plan.groupPrefill.front();
    plan.decode = plan.groupDecode.front();
  } else {
    // The mean over the layers.
    auto mean = [&](const std::vector<PhaseTerms> &ts) {
      PhaseTerms t;
      for (size_t g = 0; g < ts.size(); ++g) {
        const double w = M.counts[g] / M.layers;
        t.compute += w * ts[g].compute;
        t.cpu += w * ts[g].cpu;
        t.h2d += w * ts[g].h2d;
        t.d2h += w * ts[g].d2h;
        t.diskRead += w * ts[g].diskRead;
        t.diskWrite += w * ts[g].diskWrite;
      }
      return t;
    };
    plan.prefill = mean(plan.groupPrefill);
    plan.decode = mean(plan.groupDecode);
  }
  plan.prefillTime = prefillSum;
  plan.decodeTime = std::max(0.0, M.generate - 1) * decodeSum;
  plan.tokensPerSecond = M.block * M.generate / plan.totalTime();
  auto used = [&](const Capacity &c) {
    double v = 0;
    for (unsigned k = 0; k < kNumFractions; ++k)
      v += c.coef[k] * x[k];
    return v;
  };
  plan.gpuBytes = used(M.caps[0]);
  plan.cpuBytes = used(M.caps[1]);
  plan.diskBytes = used(M.caps[2]);
  return plan;
}

/// Whether decode attention may run on the CPU (cpu_cache_compute): the
/// machine has a CPU attention rate and a host memory bandwidth, and the
/// cache is stored in 16 bits (FlexGen would decompress it on the CPU,
/// which the model does not cost).
bool canAttendOnCpu(const InferenceJob &job, const Machine &m) {
  return m.cpuAttentionFlops > 0 && m.hostMemoryBandwidth > 0 &&
         !job.compressCache;
}

llvm::Error checkInputs(const InferenceJob &job, const Machine &m) {
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  if (std::string err = job.model.validate(); !err.empty())
    return fail("invalid model: " + err);
  if (job.costs) {
    if (std::string err = job.costs->validate(); !err.empty())
      return fail("invalid model costs: " + err);
    if (job.costs->seq != job.prompt)
      return fail("the model costs are for " + llvm::Twine(job.costs->seq) +
                  " tokens per sequence, the prompt has " +
                  llvm::Twine(job.prompt));
  }
  if (std::string err = m.validate(); !err.empty())
    return fail("invalid machine '" + m.name + "': " + err);
  if (job.prompt <= 0 || job.generate <= 0)
    return fail("prompt and generated lengths must be positive, got " +
                llvm::Twine(job.prompt) + " and " + llvm::Twine(job.generate));
  if (job.prompt > model::kMaxSeq || job.generate > model::kMaxSeq - job.prompt)
    return fail("prompt plus generated tokens must be at most " +
                llvm::Twine(model::kMaxSeq) + ", got " +
                llvm::Twine(job.prompt) + " + " + llvm::Twine(job.generate));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<InferencePlan>
offload::planInference(const InferenceJob &job, const Machine &machine,
                       const InferenceOptions &opts) {
  if (llvm::Error err = checkInputs(job, machine))
    return std::move(err);
  if (opts.maxGpuBatches <= 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "maxGpuBatches must be positive");
  std::vector<int64_t> sizes = opts.gpuBatchSizes;
  if (sizes.empty())
    for (int64_t b = 1; b <= 1024; b *= 2)
      sizes.push_back(b);
  for (int64_t b : sizes)
    if (b <= 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "GPU batch sizes must be positive");

  std::vector<bool> attention = {false};
  if (canAttendOnCpu(job, machine))
    attention.push_back(true);
  InferencePlan best;
  int64_t solved = 0;
  for (int64_t gbs : sizes)
    for (int64_t n = 1; n <= opts.maxGpuBatches; ++n)
      for (bool cpuAttention : attention) {
        Model M = buildModel(job, machine, gbs, n, cpuAttention);
        if (M.caps[0].rhs < 0) // the working set alone overflows the GPU
          continue;
        LpResult r = solveLp(M, opts.exact);
        ++solved;
        if (!r.optimal)
          continue;
        InferencePlan p = planFrom(M, gbs, n, cpuAttention, r.x);
        if (!best.feasible ||
            p.tokensPerSecond > best.tokensPerSecond * (1 + 1e-9))
          best = p;
      }
  best.lpsSolved = solved;
  if (!best.feasible) {
    // Name the binding constraint for the smallest block: everything on
    // the largest tier still does not fit.
    Model M = buildModel(job, machine, sizes.front(), 1, false);
    double need = M.caps[0].coef[WG] + M.caps[0].coef[CG] + M.caps[0].coef[HG];
    double have = std::max(0.0, M.caps[0].rhs) + std::max(0.0, M.caps[1].rhs) +
                  std::max(0.0, M.caps[2].rhs);
    if (M.caps[0].rhs < 0)
      best.infeasibleReason =
          "GPU memory: the working set of one layer needs " +
          formatQuantity(machine.gpuUsable() - M.caps[0].rhs, Dim::bytes()) +
          ", have " + formatQuantity(machine.gpuUsable(), Dim::bytes()) +
          " usable";
    else
      best.infeasibleReason =
          "memory (GPU + host + disk): need " +
          formatQuantity(need, Dim::bytes()) + ", have " +
          formatQuantity(have, Dim::bytes()) + " usable";
  }
  return best;
}

llvm::Expected<InferencePlan>
offload::evaluateInferencePolicy(const InferenceJob &job,
                                 const Machine &machine,
                                 const InferencePolicy &policy) {
  if (llvm::Error err = checkInputs(job, machine))
    return std::move(err);
  if (policy.gpuBatch <= 0 || policy.numGpuBatches <= 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "policy batch sizes must be positive");
  for (const Split &s : {policy.weights, policy.cache, policy.activations})
    if (std::abs(s.gpu + s.cpu + s.disk - 1) > 1e-6 || s.gpu < 0 ||
        s.cpu < 0 || s.disk < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "policy fractions must be non-negative and sum to 1");
  if (policy.cpuAttention && !canAttendOnCpu(job, machine))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        job.compressCache
            ? "CPU attention needs an uncompressed KV cache"
            : "CPU attention needs the machine's CPU attention rate and host "
              "memory bandwidth");
  Model M = buildModel(job, machine, policy.gpuBatch, policy.numGpuBatches,
                       policy.cpuAttention);
  std::array<double, kNumFractions> x = fractionsOf(policy);
  InferencePlan p = planFrom(M, policy.gpuBatch, policy.numGpuBatches,
                             policy.cpuAttention, x);
  for (const Capacity &c : M.caps) {
    double v = 0;
    for (unsigned k = 0; k < kNumFractions; ++k)
      v += c.coef[k] * x[k];
    if (v > c.rhs * (1 + 1e-9) + 1) {
      p.feasible = false;
      p.infeasibleReason = std::string(c.what) + ": need " +
                           formatQuantity(v, Dim::bytes()) + ", have " +
                           formatQuantity(std::max(0.0, c.rhs), Dim::bytes()) +
                           " usable";
      break;
    }
  }
  return p;
}

std::vector<Action> offload::inferenceSchedule(const InferenceJob &job,
                                               const Machine &machine,
                                               const InferencePlan &plan) {
  std::vector<Action> out;
  if (!plan.feasible)
    return out;
  const InferencePolicy &pol = plan.policy;
  Model M = buildModel(job, machine, pol.gpuBatch, pol.numGpuBatches,
                       pol.cpuAttention);
  const std::array<double, kNumFractions> x = fractionsOf(pol);
  static constexpr Stream kLinkStream[kNumLinks] = {
      Stream::H2D, Stream::D2H, Stream::SsdRead, Stream::SsdWrite};
  static constexpr const char *kLinkWhat[kNumLinks] = {"load", "store", "read",
                                                       "write"};
  const int64_t steps = std::max<int64_t>(1, job.generate);
  double t = 0;
  for (int64_t step = 0; step < steps; ++step) {
    int64_t layer = 0;
    for (size_t g = 0; g < M.counts.size(); ++g) {
      const PhaseModel &ph = step == 0 ? M.prefill[g] : M.decode[g];
      const PhaseTerms terms = ph.at(x);
      const double slot = terms.layerTime();
      // With serial loads (decode) the layer's other work starts once its
      // host->GPU loads are done.
      const double after = terms.serialLoad ? terms.h2d : 0.0;
      for (int64_t i = 0; i < static_cast<int64_t>(M.counts[g]); ++i, ++layer) {
        Action c;
        c.stream = Stream::GpuCompute;
        c.start = t + after;
        c.end = c.start + terms.compute;
        c.flops = ph.flops;
        c.tensor = "layer";
        c.what = step == 0 ? "prefill" : "decode";
        c.layer = layer;
        c.step = step;
        out.push_back(c);
        if (const double cpu = ph.cpu.at(x); cpu > 0) {
          // Attention on the CPU, between the GPU's projections.
          Action a;
          a.stream = Stream::CpuCompute;
          a.start = c.end;
          a.end = c.end + cpu;
          a.bytes = ph.cpuBytes.at(x);
          a.tensor = "cache";
          a.what = "attention";
          a.layer = layer;
          a.step = step;
          out.push_back(std::move(a));
        }
        for (unsigned l = 0; l < kNumLinks; ++l) {
          double at = l == kH2D ? t : t + after;
          for (unsigned k = 0; k < kNumClasses; ++k) {
            const double dur = ph.moves[l][k].at(x);
            if (!(dur > 0))
              continue;
            Action a;
            a.stream = kLinkStream[l];
            a.start = at;
            a.end = at + dur;
            a.bytes = dur * ph.rate[l][k];
            a.tensor = kClassNames[k];
            a.what = kLinkWhat[l];
            a.layer = layer;
            a.step = step;
            out.push_back(std::move(a));
            at += dur;
          }
        }
        t += slot;
      }
    }
  }
  return out;
}
