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
  return std::max({compute, h2d, d2h, diskRead, diskWrite});
}

std::string PhaseTerms::bottleneck() const {
  std::pair<double, const char *> terms[] = {{compute, "GPU compute"},
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

/// One phase of one layer: its GPU compute and, per link and tensor class,
/// the time of what it moves (the LP's terms are the sums over classes).
struct PhaseModel {
  Term compute;
  double flops = 0; ///< of the compute, whole block
  std::array<std::array<Term, kNumClasses>, kNumLinks> moves{};
  std::array<Term, 5> totals() const {
    std::array<Term, 5> t{};
    t[0] = compute;
    for (unsigned l = 0; l < kNumLinks; ++l)
      for (const Term &c : moves[l]) {
        t[l + 1].constant += c.constant;
        for (unsigned k = 0; k < kNumFractions; ++k)
          t[l + 1].coef[k] += c.coef[k];
      }
    return t;
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
                 int64_t n) {
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
  // The time of moving `bytes` over link l when they live where the
  // fractions `vars` say.
  auto moveTerm = [&](Link l, std::initializer_list<Var> vars, double bytes) {
    Term t;
    for (Var v : vars)
      t.coef[v] = bytes / M.bandwidth[l];
    return t;
  };

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
    // prefill intermediates (q/k/v, MLP hidden, fp16 scores) and one
    // layer's cache of one GPU batch streamed in for decoding (16-bit:
    // compressed tensors are decompressed into these buffers).
    maxWork = std::max(maxWork, 2.0 * W16 + e * G * s * (9.0 * h + a * s) +
                                    2.0 * kvTok16 * (s + gen) * G);
    // Decompression on the GPU, per use of a layer: read the stored
    // tensor, write its 16-bit copy (which the kernels then read).
    const double dequantW = job.compressWeights ? W + W16 : 0.0;
    const double gpuBw = m.gpuMemoryBandwidth;

    // Prefill, per layer for the whole block. The GPU batches of a block
    // run one after another: GEMMs of gbs sequences.
    PhaseModel P;
    P.flops = bls * g.fwdFlops;
    P.compute.constant = P.flops / layerRates(costs, g, G, dev).forward +
                         (gpuBw > 0 ? dequantW / gpuBw : 0.0);
    P.moves[kH2D][kWeights] = moveTerm(kH2D, {WC, WD}, W);
    P.moves[kH2D][kActivations] = moveTerm(kH2D, {HC, HD}, actP);
    P.moves[kD2H][kCache] = moveTerm(kD2H, {CC, CD}, cachePre);
    P.moves[kD2H][kActivations] = moveTerm(kD2H, {HC, HD}, actP);
    P.moves[kDiskRead][kWeights] = moveTerm(kDiskRead, {WD}, W);
    P.moves[kDiskRead][kActivations] = moveTerm(kDiskRead, {HD}, actP);
    P.moves[kDiskWrite][kCache] = moveTerm(kDiskWrite, {CD}, cachePre);
    P.moves[kDiskWrite][kActivations] = moveTerm(kDiskWrite, {HD}, actP);

    // Decode, per layer and generated token for the whole block.
    // One token per sequence of the block through the projections (the
    // block's GEMMs, as the weights are loaded once per block).
    double gemmFlops = 0, gemmTime = 0;
    for (const model::GemmShape &x : layerForwardGemms(g, bls, 1, dt))
      if (!x.bytes) { // not the attention
        gemmFlops += x.flops();
        gemmTime += model::gemmTime(x, dev);
      }
    double linear = linearPerToken * bls * gemmTime / gemmFlops;
    if (gpuBw > 0)
      linear = std::max(linear, W16 / gpuBw) + dequantW / gpuBw;
    // The attention reads the block's cache in 16 bits, after
    // decompressing it when it is stored compressed.
    const double cacheGpuBytes =
        cacheAvg / rc + (job.compressCache ? cacheAvg + cacheAvg / rc : 0.0);
    PhaseModel D;
    D.flops = linearPerToken * bls + 4.0 * bls * ctxAvg * h;
    D.compute.constant = linear + 4.0 * bls * ctxAvg * h / F +
                         (gpuBw > 0 ? cacheGpuBytes / gpuBw : 0.0);
    D.moves[kH2D][kWeights] = moveTerm(kH2D, {WC, WD}, W);
    D.moves[kH2D][kCache] = moveTerm(kH2D, {CC, CD}, cacheAvg);
    D.moves[kH2D][kActivations] = moveTerm(kH2D, {HC, HD}, actD);
    D.moves[kD2H][kCache] = moveTerm(kD2H, {CC, CD}, newKv);
    D.moves[kD2H][kActivations] = moveTerm(kD2H, {HC, HD}, actD);
    D.moves[kDiskRead][kWeights] = moveTerm(kDiskRead, {WD}, W);
    D.moves[kDiskRead][kCache] = moveTerm(kDiskRead, {CD}, cacheAvg);
    D.moves[kDiskRead][kActivations] = moveTerm(kDiskRead, {HD}, actD);
    D.moves[kDiskWrite][kCache] = moveTerm(kDiskWrite, {CD}, newKv);
    D.moves[kDiskWrite][kActivations] = moveTerm(kDiskWrite, {HD}, actD);
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

PhaseTerms termsAt(const std::array<Term, 5> &t,
                   const std::array<double, kNumFractions> &x) {
  PhaseTerms p;
  p.compute = t[0].at(x);
  p.h2d = t[1].at(x);
  p.d2h = t[2].at(x);
  p.diskRead = t[3].at(x);
  p.diskWrite = t[4].at(x);
  return p;
}

InferencePlan planFrom(const Model &M, int64_t gbs, int64_t n,
                       const std::array<double, kNumFractions> &x) {
  InferencePlan plan;
  plan.feasible = true;
  plan.policy.gpuBatch = gbs;
  plan.policy.numGpuBatches = n;
  plan.policy.weights = {x[WG], x[WC], x[WD]};
  plan.policy.cache = {x[CG], x[CC], x[CD]};
  plan.policy.activations = {x[HG], x[HC], x[HD]};
  double prefillSum = 0, decodeSum = 0;
  for (size_t g = 0; g < M.counts.size(); ++g) {
    plan.groupPrefill.push_back(termsAt(M.prefill[g].totals(), x));
    plan.groupDecode.push_back(termsAt(M.decode[g].totals(), x));
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

  InferencePlan best;
  int64_t solved = 0;
  for (int64_t gbs : sizes)
    for (int64_t n = 1; n <= opts.maxGpuBatches; ++n) {
      Model M = buildModel(job, machine, gbs, n);
      if (M.caps[0].rhs < 0) // the working set alone overflows the GPU
        continue;
      LpResult r = solveLp(M, opts.exact);
      ++solved;
      if (!r.optimal)
        continue;
      InferencePlan p = planFrom(M, gbs, n, r.x);
      if (!best.feasible ||
          p.tokensPerSecond > best.tokensPerSecond * (1 + 1e-9))
        best = p;
    }
  best.lpsSolved = solved;
  if (!best.feasible) {
    // Name the binding constraint for the smallest block: everything on
    // the largest tier still does not fit.
    Model M = buildModel(job, machine, sizes.front(), 1);
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
  Model M = buildModel(job, machine, policy.gpuBatch, policy.numGpuBatches);
  std::array<double, kNumFractions> x = fractionsOf(policy);
  InferencePlan p = planFrom(M, policy.gpuBatch, policy.numGpuBatches, x);
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
  Model M = buildModel(job, machine, pol.gpuBatch, pol.numGpuBatches);
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
      const double slot = termsAt(ph.totals(), x).layerTime();
      for (int64_t i = 0; i < static_cast<int64_t>(M.counts[g]); ++i, ++layer) {
        Action c;
        c.stream = Stream::GpuCompute;
        c.start = t;
        c.end = t + ph.compute.at(x);
        c.flops = ph.flops;
        c.tensor = "layer";
        c.what = step == 0 ? "prefill" : "decode";
        c.layer = layer;
        c.step = step;
        out.push_back(c);
        for (unsigned l = 0; l < kNumLinks; ++l) {
          double at = t;
          for (unsigned k = 0; k < kNumClasses; ++k) {
            const double dur = ph.moves[l][k].at(x);
            if (!(dur > 0))
              continue;
            Action a;
            a.stream = kLinkStream[l];
            a.start = at;
            a.end = at + dur;
            a.bytes = dur * M.bandwidth[l];
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
