//===- Adversarial.cpp - Adversarial training of the small MLP ------------===//
#include "runtime/src/train/Adversarial.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>

using namespace sluice::train;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// This thread's CPU time: what the trainer computed, whatever else runs
/// on the machine.
double cpuNow() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

MlpConfig peerConfig(const AdversarialConfig &c) {
  MlpConfig p = c.student;
  if (!c.peerWidths.empty())
    p.widths = c.peerWidths;
  // A different seed: the peer starts from other weights than the student.
  p.seed = c.student.seed * 31 + 7;
  return p;
}

uint32_t maxRows(const AdversarialConfig &c) {
  return c.student.batch * std::max<uint32_t>(1, c.pseudoBatches);
}

} // namespace

std::string AdversarialConfig::check() const {
  if (std::string e = student.check(); !e.empty())
    return "student: " + e;
  if (!peerWidths.empty()) {
    MlpConfig p = student;
    p.widths = peerWidths;
    if (std::string e = p.check(); !e.empty())
      return "peer: " + e;
    if (peerWidths.front() != student.widths.front() ||
        peerWidths.back() != student.widths.back())
      return "the peer's input and output widths (" +
             std::to_string(peerWidths.front()) + ", " +
             std::to_string(peerWidths.back()) +
             ") differ from the student's (" +
             std::to_string(student.widths.front()) + ", " +
             std::to_string(student.widths.back()) + ")";
    if (pgdSteps == 0)
      return "PeerAiD needs PGD steps (the peer learns adversarial examples)";
  }
  if (pgdSteps > 1000)
    return "PGD steps " + std::to_string(pgdSteps) + " are outside 0..1000";
  if (!(epsilon > 0 && epsilon <= 2) || !(stepSize > 0 && stepSize <= 2))
    return "epsilon and the step size must be in (0, 2] (inputs are in "
           "[-1, 1])";
  auto inUnit = [](float f) { return f >= 0 && f <= 1; };
  if (!inUnit(fractionStart) || !inUnit(fractionEnd))
    return "an attacked fraction is outside 0..1";
  if (pseudoBatches < 1 || pseudoBatches > 1024)
    return "pseudo-batches " + std::to_string(pseudoBatches) +
           " are outside 1..1024";
  if (steps < 1 || steps > 100000000)
    return "steps " + std::to_string(steps) + " are outside 1..100000000";
  if (!(gamma >= 0) || !(lambda2 >= 0) || !(lambda3 >= 0))
    return "PeerAiD's loss weights must be non-negative";
  return "";
}

uint32_t sluice::train::attackedSamples(const AdversarialConfig &c,
                                        uint64_t step) {
  if (c.pgdSteps == 0)
    return 0;
  const double t = c.steps > 1 ? double(step) / double(c.steps - 1) : 0.0;
  const double f = c.fractionStart + (c.fractionEnd - c.fractionStart) * t;
  const long long n = std::llround(f * double(c.student.batch));
  return static_cast<uint32_t>(std::clamp<long long>(n, 0, c.student.batch));
}

//===----------------------------------------------------------------------===//
// Net
//===----------------------------------------------------------------------===//

Net::Net(const MlpConfig &config, uint32_t rows) : cfg(config), maxRows(rows) {
  const uint32_t L = cfg.layers();
  param.resize(L);
  grad.resize(L);
  m.resize(L);
  v.resize(L);
  scratch.resize(L);
  for (auto &slot : act)
    slot.resize(L);
  size_t widest = 0;
  for (uint32_t l = 0; l < L; ++l) {
    param[l].resize(cfg.paramCount(l));
    initParams(cfg, l, param[l].data());
    grad[l].assign(cfg.paramCount(l), 0.0f);
    m[l].assign(cfg.paramCount(l), 0.0f);
    v[l].assign(cfg.paramCount(l), 0.0f);
    scratch[l].assign(cfg.paramCount(l), 0.0f);
    for (auto &slot : act)
      slot[l].assign(size_t(maxRows) * cfg.widths[l], 0.0f);
  }
  for (uint32_t w : cfg.widths)
    widest = std::max<size_t>(widest, w);
  dA.assign(size_t(maxRows) * widest, 0.0f);
  dB.assign(size_t(maxRows) * widest, 0.0f);
}

void Net::forward(uint32_t slot, uint32_t rows, const float *x, float *y) {
  const uint32_t L = layers();
  std::vector<std::vector<float>> &a = act[slot];
  std::memcpy(a[0].data(), x, sizeof(float) * rows * cfg.widths[0]);
  for (uint32_t l = 0; l < L; ++l)
    forwardLayer(cfg.widths[l], cfg.widths[l + 1], rows, param[l].data(),
                 a[l].data(), l + 1 < L ? a[l + 1].data() : y, l + 1 < L);
}

void Net::backward(uint32_t slot, uint32_t rows, const float *dY,
                   bool accumulate) {
  const uint32_t L = layers();
  std::vector<std::vector<float>> &a = act[slot];
  std::memcpy(dA.data(), dY, sizeof(float) * rows * cfg.widths[L]);
  for (uint32_t l = L; l-- > 0;) {
    float *g = accumulate ? scratch[l].data() : grad[l].data();
    backwardLayer(cfg.widths[l], cfg.widths[l + 1], rows, param[l].data(),
                  a[l].data(), dA.data(), g, l ? dB.data() : nullptr);
    if (accumulate)
      for (size_t i = 0, n = grad[l].size(); i < n; ++i)
        grad[l][i] += g[i];
    dA.swap(dB);
  }
}

void Net::inputGradient(uint32_t slot, uint32_t rows, const float *dY,
                        float *dX) {
  const uint32_t L = layers();
  std::vector<std::vector<float>> &a = act[slot];
  std::memcpy(dA.data(), dY, sizeof(float) * rows * cfg.widths[L]);
  for (uint32_t l = L; l-- > 0;) {
    const uint32_t in = cfg.widths[l], out = cfg.widths[l + 1];
    float *to = l ? dB.data() : dX;
    sluice::train::inputGradient(in, out, rows, param[l].data(), dA.data(), to);
    if (l) {
      // Through the ReLU that produced this layer's input.
      const float *x = a[l].data();
      for (size_t i = 0, n = size_t(rows) * in; i < n; ++i)
        if (!(x[i] > 0))
          to[i] = 0.0f;
      dA.swap(dB);
    }
  }
}

void Net::adamStep(uint64_t step) {
  for (uint32_t l = 0; l < layers(); ++l)
    adamUpdate(cfg, step, cfg.paramCount(l), param[l].data(), grad[l].data(),
               m[l].data(), v[l].data());
}

float sluice::train::regressionLoss(const float *y, const float *target,
                                    size_t count, float *dY) {
  return mseLoss(y, target, count, dY);
}

//===----------------------------------------------------------------------===//
// PGD
//===----------------------------------------------------------------------===//

void sluice::train::pgdAttack(Net &net, uint32_t rows, const float *x,
                              const float *target, const PgdParams &p,
                              float *adv) {
  const uint32_t in = net.config().widths.front();
  const uint32_t out = net.config().widths.back();
  const size_t n = size_t(rows) * in, no = size_t(rows) * out;
  std::vector<float> y(no), dY(no), g(n);
  uint64_t state = p.seed * 0x9E3779B97F4A7C15ull + 1;
  auto project = [&](size_t i, float value) {
    value = std::min(std::max(value, x[i] - p.epsilon), x[i] + p.epsilon);
    return std::min(std::max(value, p.lo), p.hi);
  };
  for (size_t i = 0; i < n; ++i)
    adv[i] = project(i, x[i] + p.epsilon * uniform(state));
  for (uint32_t k = 0; k < p.steps; ++k) {
    net.forward(0, rows, adv, y.data());
    regressionLoss(y.data(), target, no, dY.data());
    net.inputGradient(0, rows, dY.data(), g.data());
    for (size_t i = 0; i < n; ++i) {
      const float s = g[i] > 0 ? 1.0f : (g[i] < 0 ? -1.0f : 0.0f);
      adv[i] = project(i, adv[i] + p.stepSize * s);
    }
  }
}

//===----------------------------------------------------------------------===//
// AdversarialTrainer
//===----------------------------------------------------------------------===//

AdversarialTrainer::AdversarialTrainer(const AdversarialConfig &c)
    : config(c), hasPeer(!c.peerWidths.empty()),
      studentNet(c.student, maxRows(c)),
      peerNet(peerConfig(c), hasPeer ? maxRows(c) : 1) {
  const size_t out = size_t(c.student.batch) * c.student.widths.back();
  for (auto *b : {&yS, &yN, &yP, &dS, &dN, &dP})
    b->assign(out, 0.0f);
}

void AdversarialTrainer::trainPlain(const float *x, const float *target,
                                    EpochStats &stats) {
  const uint32_t rows = config.student.batch;
  const size_t no = yS.size();
  studentNet.forward(0, rows, x, yS.data());
  stats.meanLoss += regressionLoss(yS.data(), target, no, dS.data());
  studentNet.backward(0, rows, dS.data(), false);
  studentNet.adamStep(++done);
}

void AdversarialTrainer::trainPeer(const float *clean, const float *x,
                                   const float *target, EpochStats &stats) {
  const uint32_t rows = config.student.batch;
  const size_t no = yS.size();
  const float scale = 1.0f / static_cast<float>(no);
  studentNet.forward(1, rows, clean, yN.data());
  studentNet.forward(0, rows, x, yS.data());
  peerNet.forward(0, rows, x, yP.data());
  // The peer: the target, and the student's output (gamma).
  for (size_t i = 0; i < no; ++i)
    dP[i] = ((yP[i] - target[i]) + config.gamma * (yP[i] - yS[i])) * scale;
  peerNet.backward(0, rows, dP.data(), false);
  // The student: the target, the peer (lambda2, the peer's output held
  // fixed) and its clean output (lambda3, through both forwards).
  stats.meanLoss += regressionLoss(yS.data(), target, no, dS.data());
  for (size_t i = 0; i < no; ++i) {
    const float toClean = config.lambda3 * (yS[i] - yN[i]) * scale;
    dS[i] += config.lambda2 * (yS[i] - yP[i]) * scale + toClean;
    dN[i] = -toClean;
  }
  studentNet.backward(0, rows, dS.data(), false);
  studentNet.backward(1, rows, dN.data(), true);
  ++done;
  peerNet.adamStep(done);
  studentNet.adamStep(done);
}

EpochStats AdversarialTrainer::epoch() {
  EpochStats stats;
  const double start = now(), cpuStart = cpuNow();
  const MlpConfig &sc = config.student;
  const uint32_t batch = sc.batch, in = sc.widths.front(),
                 out = sc.widths.back();
  const uint32_t group = std::max<uint32_t>(1, config.pseudoBatches);
  std::vector<float> clean(size_t(group) * batch * in), mixed(clean.size()),
      target(size_t(group) * batch * out), gx(clean.size()), gt(target.size()),
      gadv(clean.size());
  std::vector<uint32_t> attacked(group);
  for (uint64_t first = 0; first < config.steps; first += group) {
    const uint32_t n =
        static_cast<uint32_t>(std::min<uint64_t>(group, config.steps - first));
    // Gather the attacked samples (the first of each batch) of the group.
    uint32_t rows = 0;
    for (uint32_t b = 0; b < n; ++b) {
      float *x = clean.data() + size_t(b) * batch * in;
      float *t = target.data() + size_t(b) * batch * out;
      makeBatch(sc, first + b + 1, x, t);
      attacked[b] = attackedSamples(config, first + b);
      std::memcpy(gx.data() + size_t(rows) * in, x,
                  sizeof(float) * attacked[b] * in);
      std::memcpy(gt.data() + size_t(rows) * out, t,
                  sizeof(float) * attacked[b] * out);
      rows += attacked[b];
    }
    std::memcpy(mixed.data(), clean.data(),
                sizeof(float) * size_t(n) * batch * in);
    if (rows > 0) {
      // PeerAiD attacks the student away from the peer's clean output.
      if (hasPeer)
        peerNet.forward(0, rows, gx.data(), gt.data());
      const double t0 = cpuNow();
      PgdParams p;
      p.steps = config.pgdSteps;
      p.epsilon = config.epsilon;
      p.stepSize = config.stepSize;
      p.seed = sc.seed * 1000003u + first;
      pgdAttack(studentNet, rows, gx.data(), gt.data(), p, gadv.data());
      stats.attackCpuSeconds += cpuNow() - t0;
      stats.attacked += rows;
      for (uint32_t b = 0, r = 0; b < n; r += attacked[b], ++b)
        std::memcpy(mixed.data() + size_t(b) * batch * in,
                    gadv.data() + size_t(r) * in,
                    sizeof(float) * attacked[b] * in);
    }
    for (uint32_t b = 0; b < n; ++b) {
      const float *x = mixed.data() + size_t(b) * batch * in;
      const float *t = target.data() + size_t(b) * batch * out;
      if (hasPeer)
        trainPeer(clean.data() + size_t(b) * batch * in, x, t, stats);
      else
        trainPlain(x, t, stats);
    }
  }
  stats.steps = config.steps;
  stats.meanLoss /= double(config.steps);
  stats.seconds = now() - start;
  stats.cpuSeconds = cpuNow() - cpuStart;
  return stats;
}
