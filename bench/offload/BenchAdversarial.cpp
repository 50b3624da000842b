//===- BenchAdversarial.cpp - sluice-bench-io adversarial -----------------===//
//
//   sluice-bench-io adversarial [--widths=256,512,512,16]
//       [--peer-widths=256,1024,1024,16] [--batch=128] [--steps=16]
//       [--pgd-steps=5] [--epsilon=0.1] [--step-size=0.025]
//       [--fraction=0.2,1] [--pseudo-batches=4]
//       [--techniques=none,pgd,dbac,peeraid] [--repeats=3] [--seed=1]
//
// Calibrates, then trains. Calibration: each GEMM kernel of the trainer
// (forward, input gradient, training backward) on each layer of the
// student and of the peer, at the batch's rows, timed --repeats x 5 times
// (the minimum): these are the only measured inputs of the cost model
// (compiler/Analysis/Model/AdversarialCost.h), one rate per kernel and
// layer. Then, per technique, a fresh trainer runs the epoch of --steps
// steps --repeats times (the minimum is reported) and one JSON line gives
// the prediction, the measurement and the error. Nothing else is fitted:
// the optimizer, the loss and the attack's sign steps are not modelled.
//
//===----------------------------------------------------------------------===//
#include "bench/offload/BenchAdversarial.h"

#include "bench/offload/BenchArgs.h"
#include "compiler/Analysis/Model/AdversarialCost.h"
#include "runtime/src/train/Adversarial.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace sluice::bench;
using namespace sluice::train;
namespace adv = sluice::adversarial;

namespace {

constexpr OptionSpec kOptions[] = {
    {"widths", true,
     "the student's layer widths, 2..64 of them, each 1..16384 (default "
     "256,512,512,16)"},
    {"peer-widths", true,
     "PeerAiD's peer, same first and last width (default 256,1024,1024,16)"},
    {"batch", true, "batch size, 1..4096 (default 128)"},
    {"steps", true, "steps of the epoch, 1..100000 (default 16)"},
    {"pgd-steps", true, "PGD steps, 1..1000 (default 5)"},
    {"epsilon", true, "L-inf radius, (0, 2] (default 0.1)"},
    {"step-size", true, "PGD step size, (0, 2] (default 0.025)"},
    {"fraction", true,
     "DBAC's attacked fraction at the first and last step, each 0..1 "
     "(default 0.2,1)"},
    {"pseudo-batches", true,
     "DBAC's batches attacked together, 1..1024 "
     "(default 4)"},
    {"techniques", true,
     "comma-separated none, pgd, dbac, peeraid (default all four)"},
    {"repeats", true,
     "runs per technique (the fastest counts), 1..100 "
     "(default 3)"},
    {"seed", true, "data and weight seed, 0..2^63 (default 1)"},
};

/// This thread's CPU time (the machine may be shared: wall time would
/// count the other processes' share of the cores).
double now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// A decimal number in (lo, hi] or [lo, hi].
double real(const std::string &option, const std::string &text, double lo,
            double hi, bool openLow) {
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v) || v > hi ||
      (openLow ? v <= lo : v < lo)) {
    char range[64];
    std::snprintf(range, sizeof range, "%s%g, %g]", openLow ? "(" : "[", lo,
                  hi);
    throw UsageError{"--" + option + " must be a number in " + range +
                     ", got '" + text + "'"};
  }
  return v;
}

std::vector<uint32_t> widthsOf(const Args &args, const std::string &name,
                               const std::string &fallback) {
  std::vector<uint32_t> w;
  for (uint64_t v : args.numbers(name, fallback, 1, 16384))
    w.push_back(static_cast<uint32_t>(v));
  if (w.size() < 2 || w.size() > 64)
    throw UsageError{"--" + name + " needs 2 to 64 widths, got " +
                     std::to_string(w.size())};
  return w;
}

/// The fastest of `reps` runs of f, in seconds.
template <typename F> double fastest(int reps, F &&f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

struct Calibration {
  adv::PassCosts costs;          ///< per sample
  double flops = 0, seconds = 0; ///< of one forward+input gradient+backward
};

/// Times the trainer's three GEMM kernels on every layer at `rows` rows.
Calibration calibrate(const std::vector<uint32_t> &widths, uint32_t rows,
                      int reps) {
  Calibration c;
  const double r = double(rows);
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const uint32_t in = widths[l], out = widths[l + 1];
    std::vector<float> p(size_t(in) * out + out, 0.01f), x(size_t(rows) * in),
        y(size_t(rows) * out), g(p.size()), dx(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i % 7) * 0.1f; // some ReLU-positive inputs
    for (size_t i = 0; i < y.size(); ++i)
      y[i] = float(i % 5) * 0.01f;
    const double f = fastest(reps, [&] {
      forwardLayer(in, out, rows, p.data(), x.data(), y.data(), true);
    });
    const double dg = fastest(reps, [&] {
      inputGradient(in, out, rows, p.data(), y.data(), dx.data());
    });
    const double bw = fastest(reps, [&] {
      backwardLayer(in, out, rows, p.data(), x.data(), y.data(), g.data(),
                    l ? dx.data() : nullptr);
    });
    c.costs.forward += f / r;
    c.costs.inputGradient += dg / r;
    c.costs.backward += bw / r;
    c.flops += 2.0 * r * in * out * (l ? 4 : 3);
    c.seconds += f + dg + bw;
  }
  return c;
}

const char *kAll = "none,pgd,dbac,peeraid";

} // namespace

void sluice::bench::printAdversarialUsage(std::FILE *to) {
  std::fprintf(to, "usage: sluice-bench-io adversarial [--option=value ...]\n");
  for (const OptionSpec &spec : kOptions) {
    std::string option =
        std::string("--") + spec.name + (spec.takesValue ? "=..." : "");
    std::fprintf(to, "  %-18s %s\n", option.c_str(), spec.help);
  }
}

int sluice::bench::runAdversarial(int argc, char **argv) {
  Args args(argc, argv, 2, kOptions);
  AdversarialConfig base;
  base.student.widths = widthsOf(args, "widths", "256,512,512,16");
  base.student.batch =
      static_cast<uint32_t>(args.number("batch", 128, 1, 4096));
  base.student.seed = args.number("seed", 1, 0, uint64_t(1) << 63);
  base.steps = args.number("steps", 16, 1, 100000);
  const auto pgd = static_cast<uint32_t>(args.number("pgd-steps", 5, 1, 1000));
  base.epsilon =
      float(real("epsilon", args.text("epsilon", "0.1"), 0, 2, true));
  base.stepSize =
      float(real("step-size", args.text("step-size", "0.025"), 0, 2, true));
  const std::vector<std::string> fraction =
      Args::splitList("--fraction", args.text("fraction", "0.2,1"));
  if (fraction.size() != 2)
    throw UsageError{"--fraction needs two numbers (start,end), got " +
                     std::to_string(fraction.size())};
  const double fStart = real("fraction", fraction[0], 0, 1, false);
  const double fEnd = real("fraction", fraction[1], 0, 1, false);
  const auto pseudo =
      static_cast<uint32_t>(args.number("pseudo-batches", 4, 1, 1024));
  const std::vector<uint32_t> peerWidths =
      widthsOf(args, "peer-widths", "256,1024,1024,16");
  const int reps = static_cast<int>(args.number("repeats", 3, 1, 100));
  std::vector<adv::Technique> techniques;
  for (const std::string &t :
       Args::splitList("--techniques", args.text("techniques", kAll))) {
    adv::Technique k;
    if (t == "none")
      k = adv::Technique::None;
    else if (t == "pgd")
      k = adv::Technique::Pgd;
    else if (t == "dbac")
      k = adv::Technique::Dbac;
    else if (t == "peeraid")
      k = adv::Technique::PeerAid;
    else
      throw UsageError{"--techniques: unknown technique '" + t +
                       "' (none, pgd, dbac or peeraid)"};
    techniques.push_back(k);
  }
  if (std::string e = base.check(); !e.empty())
    throw UsageError{e};
  if (peerWidths.front() != base.student.widths.front() ||
      peerWidths.back() != base.student.widths.back())
    throw UsageError{"--peer-widths must start and end like --widths"};

  // The cost model's only measured inputs.
  const Calibration student =
      calibrate(base.student.widths, base.student.batch, reps * 5);
  const Calibration peer = calibrate(peerWidths, base.student.batch, reps * 5);
  std::printf("{\"tool\":\"sluice-adversarial-calibration\",\"batch\":%u,"
              "\"student_gflops\":%.3f,\"peer_gflops\":%.3f,"
              "\"student_s_per_sample\":{\"forward\":%.4g,"
              "\"input_gradient\":%.4g,\"backward\":%.4g}}\n",
              base.student.batch, student.flops / student.seconds * 1e-9,
              peer.flops / peer.seconds * 1e-9, student.costs.forward,
              student.costs.inputGradient, student.costs.backward);

  for (adv::Technique k : techniques) {
    AdversarialConfig c = base;
    adv::AttackSpec spec;
    spec.technique = k;
    if (k != adv::Technique::None) {
      c.pgdSteps = pgd;
      spec.steps = pgd;
    }
    if (k == adv::Technique::Dbac) {
      c.fractionStart = spec.fractionStart = float(fStart);
      c.fractionEnd = spec.fractionEnd = float(fEnd);
      c.pseudoBatches = pseudo;
      spec.pseudoBatches = pseudo;
      spec.fractionStart = c.fractionStart;
      spec.fractionEnd = c.fractionEnd;
    }
    if (k == adv::Technique::PeerAid)
      c.peerWidths = peerWidths;
    if (std::string e = c.check(); !e.empty())
      throw UsageError{e};
    const adv::EpochCost predicted = adv::epochCost(
        student.costs, peer.costs, spec, c.student.batch, int64_t(c.steps));
    EpochStats best;
    best.cpuSeconds = 1e300;
    for (int r = 0; r < reps; ++r) {
      AdversarialTrainer trainer(c);
      EpochStats s = trainer.epoch();
      if (s.cpuSeconds < best.cpuSeconds)
        best = s;
    }
    const double error =
        (predicted.seconds - best.cpuSeconds) / best.cpuSeconds;
    std::printf(
        "{\"tool\":\"sluice-adversarial\",\"technique\":\"%s\",\"steps\":%llu,"
        "\"batch\":%u,\"pgd_steps\":%u,\"attacked\":%llu,"
        "\"predicted_s\":%.4f,\"measured_s\":%.4f,\"error\":%.4f,"
        "\"predicted_attack_s\":%.4f,\"measured_attack_s\":%.4f,"
        "\"wall_s\":%.4f,\"loss\":%.5f}\n",
        adv::techniqueName(k), (unsigned long long)c.steps, c.student.batch,
        c.pgdSteps, (unsigned long long)best.attacked, predicted.seconds,
        best.cpuSeconds, error, predicted.attackSeconds, best.attackCpuSeconds,
        best.seconds, best.meanLoss);
    std::fflush(stdout);
  }
  return 0;
}
