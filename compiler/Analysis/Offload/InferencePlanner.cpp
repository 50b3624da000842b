//===- InferencePlanner.cpp - FlexGen-style offloaded inference -----------===//
#include "compiler/Analysis/Offload/InferencePlanner.h"

#include "compiler/Analysis/Flow/Glpk.h"
#include "dialects/Common/Units.h"

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

struct Model {
  std::array<Term, 5> prefill; // compute, h2d, d2h, disk read, disk write
  std::array<Term, 5> decode;
  std::array<Capacity, 3> caps;
  double layers = 0, generate = 0, block = 0;
  bool disk = false;
};

Model buildModel(const InferenceJob &job, const Machine &m, int64_t gbs,
                 int64_t n) {
  const model::TransformerConfig &cfg = job.model;
  model::ParameterBreakdown p = model::countParameters(cfg);
  const double e = static_cast<double>(cfg.dtypeBytes);
  const double bls = static_cast<double>(gbs * n);
  const double G = static_cast<double>(gbs);
  const double s = static_cast<double>(job.prompt);
  const double gen = static_cast<double>(job.generate);
  const double h = static_cast<double>(cfg.hidden);
  const double a = static_cast<double>(cfg.heads);
  const double L = static_cast<double>(cfg.layers);
  const double mw = static_cast<double>(p.perLayer.matmulWeights);
  const double W = e * static_cast<double>(p.perLayer.total());
  const double Wtot = e * static_cast<double>(p.total());
  const double kvTok = model::kvCacheBytesPerToken(cfg) / L; // per layer
  const double ctxAvg = s + gen / 2.0;
  const double cacheAvg = kvTok * ctxAvg * bls;   // read per decode step
  const double newKv = kvTok * bls;               // written per step
  const double cachePre = kvTok * s * bls;        // written by prefill
  const double actD = e * h * bls;                // hidden state, decode
  const double actP = e * h * s * bls;            // hidden state, prefill
  const double F = m.gpuFlops();
  const double h2d = m.h2dBandwidth, d2h = m.d2hBandwidth;
  Model M;
  M.layers = L;
  M.generate = gen;
  M.block = bls;
  M.disk = m.nvme.present();
  const double dr = M.disk ? m.nvme.readBandwidth : 1;
  const double dw = M.disk ? m.nvme.writeBandwidth : 1;

  // Prefill, per layer for the whole block.
  Term &cp = M.prefill[0];
  cp.constant = (2.0 * mw * bls * s + 4.0 * bls * s * s * h) / F;
  Term &hp = M.prefill[1];
  hp.coef[WC] = hp.coef[WD] = W / h2d;
  hp.coef[HC] = hp.coef[HD] = actP / h2d;
  Term &gp = M.prefill[2];
  gp.coef[CC] = gp.coef[CD] = cachePre / d2h;
  gp.coef[HC] = gp.coef[HD] = actP / d2h;
  Term &rp = M.prefill[3];
  rp.coef[WD] = W / dr;
  rp.coef[HD] = actP / dr;
  Term &wp = M.prefill[4];
  wp.coef[CD] = cachePre / dw;
  wp.coef[HD] = actP / dw;

  // Decode, per layer and generated token for the whole block.
  Term &cd = M.decode[0];
  double linear = 2.0 * mw * bls / F;
  if (m.gpuMemoryBandwidth > 0)
    linear = std::max(linear, W / m.gpuMemoryBandwidth);
  cd.constant = linear + 4.0 * bls * ctxAvg * h / F +
                (m.gpuMemoryBandwidth > 0 ? cacheAvg / m.gpuMemoryBandwidth
                                          : 0.0);
  Term &hd = M.decode[1];
  hd.coef[WC] = hd.coef[WD] = W / h2d;
  hd.coef[CC] = hd.coef[CD] = cacheAvg / h2d;
  hd.coef[HC] = hd.coef[HD] = actD / h2d;
  Term &gd = M.decode[2];
  gd.coef[CC] = gd.coef[CD] = newKv / d2h;
  gd.coef[HC] = gd.coef[HD] = actD / d2h;
  Term &rd = M.decode[3];
  rd.coef[WD] = W / dr;
  rd.coef[CD] = cacheAvg / dr;
  rd.coef[HD] = actD / dr;
  Term &wd = M.decode[4];
  wd.coef[CD] = newKv / dw;
  wd.coef[HD] = actD / dw;

  // Capacities.
  const double Ctot = kvTok * L * (s + gen) * bls;
  const double Atot = 2.0 * actP;
  // GPU working set: double-buffered layer weights, one GPU batch's
  // prefill intermediates (q/k/v, MLP hidden, fp16 scores) and one layer's
  // cache of one GPU batch streamed in for decoding.
  const double work = 2.0 * W + e * G * s * (9.0 * h + a * s) +
                      2.0 * kvTok * (s + gen) * G;
  Capacity &cg = M.caps[0];
  cg.what = "GPU memory";
  cg.coef[WG] = Wtot;
  cg.coef[CG] = Ctot;
  cg.coef[HG] = Atot;
  cg.rhs = m.gpuUsable() - work;
  Capacity &cc = M.caps[1];
  cc.what = "host memory";
  cc.coef[WC] = Wtot;
  cc.coef[CC] = Ctot;
  cc.coef[HC] = Atot;
  cc.rhs = m.hostUsable() - (M.disk ? 2.0 * W : 0.0); // disk staging
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
  const int tp = nFrac + 1, tg = nFrac + 2; // 1-based column indices
  glp_add_cols(lp.get(), nFrac + 2);
  for (int j = 1; j <= nFrac; ++j) {
    bool diskVar = (j - 1 == WD || j - 1 == CD || j - 1 == HD);
    if (diskVar && !M.disk)
      glp_set_col_bnds(lp.get(), j, GLP_FX, 0, 0);
    else
      glp_set_col_bnds(lp.get(), j, GLP_DB, 0, 1);
  }
  glp_set_col_bnds(lp.get(), tp, GLP_LO, 0, 0);
  glp_set_col_bnds(lp.get(), tg, GLP_LO, 0, 0);
  glp_set_obj_coef(lp.get(), tp, M.layers);
  glp_set_obj_coef(lp.get(), tg, M.layers * std::max(0.0, M.generate - 1));
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
  addTerms(M.prefill, tp);
  addTerms(M.decode, tg);
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
  plan.prefill = termsAt(M.prefill, x);
  plan.decode = termsAt(M.decode, x);
  plan.prefillTime = M.layers * plan.prefill.layerTime();
  plan.decodeTime = M.layers * std::max(0.0, M.generate - 1) *
                    plan.decode.layerTime();
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
  if (std::string err = m.validate(); !err.empty())
    return fail("invalid machine '" + m.name + "': " + err);
  if (job.prompt <= 0 || job.generate <= 0)
    return fail("prompt and generated lengths must be positive, got " +
                llvm::Twine(job.prompt) + " and " + llvm::Twine(job.generate));
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
  std::array<double, kNumFractions> x = {
      policy.weights.gpu,     policy.weights.cpu,     policy.weights.disk,
      policy.cache.gpu,       policy.cache.cpu,       policy.cache.disk,
      policy.activations.gpu, policy.activations.cpu, policy.activations.disk};
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
