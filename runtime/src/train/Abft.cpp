//===- Abft.cpp - Checked GEMMs of the offload trainer, fault injection ---===//
//
// See Abft.h. Every check costs O(n k + k m + n m) against the GEMM's
// O(n k m): about 2/n + 2/m + 1/k of it.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Abft.h"

#include "runtime/src/train/Mlp.h"

#include <chrono>
#include <cmath>
#include <cstring>

using namespace sluice::train;

namespace {

uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

/// The unit roundoff of float.
constexpr double kU = 1.0 / 16777216.0;

/// Checks C (n x m, row-major) = A B (+ bias broadcast over rows), where
/// a(i, l) and b(l, j) read A (n x K) and B (K x m), each element of C
/// accumulated in float over `terms` products (and the bias). Writes the
/// thresholds of every row and column; on a mismatch fills `fault`.
template <typename ReadA, typename ReadB>
bool checkProduct(size_t n, size_t K, size_t m, ReadA a, ReadB b,
                  const float *bias, const float *C, size_t terms,
                  const char *what, std::vector<double> &rowTau,
                  std::vector<double> &colTau, AbftFault &fault) {
  const double gamma = static_cast<double>(terms + 1) * kU * 1.0001;
  // Column sums of A (and of |A|), row sums of B (and of |B|).
  std::vector<double> aCol(K, 0.0), aColAbs(K, 0.0), bRow(K, 0.0),
      bRowAbs(K, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t l = 0; l < K; ++l) {
      const double v = a(i, l);
      aCol[l] += v;
      aColAbs[l] += std::fabs(v);
    }
  for (size_t l = 0; l < K; ++l)
    for (size_t j = 0; j < m; ++j) {
      const double v = b(l, j);
      bRow[l] += v;
      bRowAbs[l] += std::fabs(v);
    }
  double biasSum = 0, biasAbs = 0;
  if (bias)
    for (size_t j = 0; j < m; ++j) {
      biasSum += bias[j];
      biasAbs += std::fabs(bias[j]);
    }
  // Columns: sum_i C[i][j] against sum_l aCol[l] b(l, j) + n bias[j].
  colTau.assign(m, 0.0);
  std::vector<double> colRef(m, 0.0), colGot(m, 0.0);
  for (size_t l = 0; l < K; ++l)
    for (size_t j = 0; j < m; ++j) {
      const double v = b(l, j);
      colRef[j] += aCol[l] * v;
      colTau[j] += aColAbs[l] * std::fabs(v);
    }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j)
      colGot[j] += C[i * m + j];
  // Rows: sum_j C[i][j] against sum_l a(i, l) bRow[l] + sum_j bias[j].
  rowTau.assign(n, 0.0);
  std::vector<double> rowRef(n, 0.0), rowGot(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    double ref = biasSum, tau = biasAbs;
    for (size_t l = 0; l < K; ++l) {
      const double v = a(i, l);
      ref += v * bRow[l];
      tau += std::fabs(v) * bRowAbs[l];
    }
    rowRef[i] = ref;
    rowTau[i] = tau * gamma + 1e-30;
    double got = 0;
    for (size_t j = 0; j < m; ++j)
      got += C[i * m + j];
    rowGot[i] = got;
  }
  bool ok = true;
  for (size_t j = 0; j < m; ++j) {
    if (bias) {
      colRef[j] += static_cast<double>(n) * bias[j];
      colTau[j] += static_cast<double>(n) * std::fabs(bias[j]);
    }
    colTau[j] = colTau[j] * gamma + 1e-30;
    // !(<=) so that a NaN is a fault.
    if (ok && !(std::fabs(colGot[j] - colRef[j]) <= colTau[j])) {
      fault = {std::string("column ") + std::to_string(j) + " of the " + what,
               colGot[j], colRef[j], colTau[j]};
      ok = false;
    }
  }
  for (size_t i = 0; i < n && ok; ++i)
    if (!(std::fabs(rowGot[i] - rowRef[i]) <= rowTau[i])) {
      fault = {std::string("row ") + std::to_string(i) + " of the " + what,
               rowGot[i], rowRef[i], rowTau[i]};
      ok = false;
    }
  return ok;
}

} // namespace

bool sluice::train::parseAbftMode(const std::string &name, AbftMode &out) {
  if (name == "off")
    out = AbftMode::Off;
  else if (name == "fail")
    out = AbftMode::Fail;
  else if (name == "recompute")
    out = AbftMode::Recompute;
  else
    return false;
  return true;
}

const char *sluice::train::abftModeName(AbftMode m) {
  switch (m) {
  case AbftMode::Off:
    return "off";
  case AbftMode::Fail:
    return "fail";
  case AbftMode::Recompute:
    return "recompute";
  }
  return "?";
}

std::string FaultInjection::check() const {
  if (!(probability >= 0 && probability <= 1))
    return "the fault probability must be in [0, 1]";
  if (minBit > maxBit || maxBit > 31)
    return "fault bits must satisfy 0 <= min <= max <= 31";
  return "";
}

AbftGuard::AbftGuard(AbftMode mode, FaultInjection faults,
                     uint32_t maxRetries)
    : mode_(mode), faults_(faults), maxRetries_(maxRetries),
      rng_(faults.seed) {}

void AbftGuard::startStep() { stepStartNs_ = nowNs(); }

void AbftGuard::inject(float *y, size_t n) {
  flips_.clear();
  if (faults_.probability <= 0 || n == 0)
    return;
  if (faults_.windowNs) {
    const uint64_t since = nowNs() - stepStartNs_;
    if (since < faults_.windowStartNs ||
        since >= faults_.windowStartNs + faults_.windowNs)
      return;
  }
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  if (coin(rng_) >= faults_.probability)
    return;
  const size_t e = std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  const uint32_t bit = std::uniform_int_distribution<uint32_t>(
      faults_.minBit, faults_.maxBit)(rng_);
  uint32_t bits;
  std::memcpy(&bits, &y[e], sizeof(bits));
  const float before = y[e];
  bits ^= 1u << bit;
  std::memcpy(&y[e], &bits, sizeof(bits));
  flips_.push_back({e, static_cast<double>(y[e]) - before});
  ++stats_.injected;
}

void AbftGuard::account(bool detected, const std::vector<double> &rowTau,
                        const std::vector<double> &colTau, uint32_t cols) {
  for (const Flip &f : flips_) {
    const size_t i = f.element / cols, j = f.element % cols;
    // Beyond twice a threshold, rounding cannot hide the change.
    const bool detectable =
        !std::isfinite(f.change) ||
        std::fabs(f.change) > 2 * std::min(rowTau[i], colTau[j]);
    if (!detectable)
      continue;
    ++stats_.injectedDetectable;
    if (detected)
      ++stats_.detectedInjected;
  }
}

template <typename Compute, typename Check>
bool AbftGuard::checked(Compute compute, Check check, float *out, size_t n,
                        uint32_t cols) {
  for (uint32_t attempt = 0;; ++attempt) {
    uint64_t t0 = nowNs();
    compute();
    ++stats_.gemms;
    uint64_t t1 = nowNs();
    stats_.gemmNs += t1 - t0;
    inject(out, n);
    bool ok = check();
    stats_.checkNs += nowNs() - t1;
    account(!ok, rowTau_, colTau_, cols);
    if (ok)
      return true;
    ++stats_.detected;
    if (mode_ == AbftMode::Fail || attempt >= maxRetries_)
      return false;
    ++stats_.recomputed;
  }
}

bool AbftGuard::forward(uint32_t in, uint32_t out, uint32_t batch,
                        const float *param, const float *x, float *y,
                        bool relu, AbftFault &fault) {
  if (mode_ == AbftMode::Off) {
    // Unchecked: injected faults go through silently.
    forwardLayer(in, out, batch, param, x, y, relu && !faults_.probability);
    ++stats_.gemms;
    if (faults_.probability) {
      inject(y, size_t(batch) * out);
      if (relu)
        for (size_t i = 0, n = size_t(batch) * out; i < n; ++i)
          y[i] = y[i] > 0 ? y[i] : 0.0f;
    }
    return true;
  }
  const float *W = param, *bias = param + size_t(in) * out;
  if (!checked(
          [&] { forwardLayer(in, out, batch, param, x, y, /*relu=*/false); },
          [&] {
            return checkProduct(
                batch, in, out,
                [&](size_t i, size_t l) { return x[i * in + l]; },
                [&](size_t l, size_t j) { return W[l * out + j]; }, bias, y,
                in, "forward output", rowTau_, colTau_, fault);
          },
          y, size_t(batch) * out, out))
    return false;
  if (relu)
    for (size_t i = 0, n = size_t(batch) * out; i < n; ++i)
      y[i] = y[i] > 0 ? y[i] : 0.0f;
  return true;
}

bool AbftGuard::backward(uint32_t in, uint32_t out, uint32_t batch,
                         const float *param, const float *x, const float *dZ,
                         float *grad, float *dXMasked, AbftFault &fault) {
  if (mode_ == AbftMode::Off) {
    backwardLayer(in, out, batch, param, x, dZ, grad, dXMasked);
    ++stats_.gemms;
    inject(grad, size_t(in) * out); // unchecked: silently
    return true;
  }
  const float *W = param;
  // The weight and bias gradients: gW = X^T dZ (in x out), gb = colsum dZ.
  auto checkGradients = [&] {
    if (!checkProduct(
            in, batch, out, [&](size_t i, size_t l) { return x[l * in + i]; },
            [&](size_t l, size_t j) { return dZ[l * out + j]; }, nullptr,
            grad, batch, "weight gradient", rowTau_, colTau_, fault))
      return false;
    // The bias gradient against its sum in double (one row of `batch`).
    const float *gb = grad + size_t(in) * out;
    for (uint32_t j = 0; j < out; ++j) {
      double ref = 0, abs = 0;
      for (uint32_t b = 0; b < batch; ++b) {
        ref += dZ[size_t(b) * out + j];
        abs += std::fabs(dZ[size_t(b) * out + j]);
      }
      const double tau = abs * (batch + 1) * kU * 1.0001 + 1e-30;
      if (!(std::fabs(gb[j] - ref) <= tau)) {
        fault = {"element " + std::to_string(j) + " of the bias gradient",
                 gb[j], ref, tau};
        return false;
      }
    }
    return true;
  };
  if (!checked(
          [&] { backwardLayer(in, out, batch, param, x, dZ, grad, nullptr); },
          checkGradients, grad, size_t(in) * out, out))
    return false;
  if (!dXMasked)
    return true;
  // The input gradient dZ W^T (batch x in), unmasked (backwardLayer's
  // kernel, so the same bits), checked, then masked by x > 0.
  if (!checked(
          [&] { inputGradient(in, out, batch, W, dZ, dXMasked); },
          [&] {
            return checkProduct(
                batch, out, in,
                [&](size_t i, size_t l) { return dZ[i * out + l]; },
                [&](size_t l, size_t j) { return W[j * out + l]; }, nullptr,
                dXMasked, out, "input gradient", rowTau_, colTau_, fault);
          },
          dXMasked, size_t(batch) * in, in))
    return false;
  for (size_t i = 0, n = size_t(batch) * in; i < n; ++i)
    if (!(x[i] > 0))
      dXMasked[i] = 0.0f;
  return true;
}
