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

/// A MatrixView whose column stride is 1 when `Unit` (known to the
/// compiler: the loops along a row vectorize).
template <bool Unit> struct View {
  explicit View(const MatrixView &v)
      : data(v.data), rowStride(v.rowStride), colStride(v.colStride) {}
  float at(size_t i, size_t j) const {
    return data[i * rowStride + (Unit ? j : j * colStride)];
  }
  const float *data;
  size_t rowStride, colStride;
};

/// sum_k f(k) and sum_k |f(k)| over k < n, in double with four partial
/// sums (four dependency chains, not one).
template <typename F> void sums(size_t n, F f, double &sum, double &abs) {
  double s[4] = {0, 0, 0, 0}, a[4] = {0, 0, 0, 0};
  size_t k = 0;
  for (; k + 4 <= n; k += 4)
    for (size_t q = 0; q < 4; ++q) {
      const double v = f(k + q);
      s[q] += v;
      a[q] += std::fabs(v);
    }
  for (; k < n; ++k) {
    const double v = f(k);
    s[0] += v;
    a[0] += std::fabs(v);
  }
  sum = (s[0] + s[1]) + (s[2] + s[3]);
  abs = (a[0] + a[1]) + (a[2] + a[3]);
}

/// ref = sum_l f(l) w[l] and tau = sum_l |f(l)| wAbs[l], in double with
/// two partial sums each.
template <typename F>
void dots(size_t K, F f, const double *w, const double *wAbs, double &ref,
          double &tau) {
  double r0 = 0, r1 = 0, t0 = 0, t1 = 0;
  size_t l = 0;
  for (; l + 2 <= K; l += 2) {
    const double v0 = f(l), v1 = f(l + 1);
    r0 += v0 * w[l];
    r1 += v1 * w[l + 1];
    t0 += std::fabs(v0) * wAbs[l];
    t1 += std::fabs(v1) * wAbs[l + 1];
  }
  if (l < K) {
    const double v = f(l);
    r0 += v * w[l];
    t0 += std::fabs(v) * wAbs[l];
  }
  ref = r0 + r1;
  tau = t0 + t1;
}

/// Checks p.c against p.a p.b (+ p.bias) with row and column checksums
/// in double (Abft.h). Writes the thresholds of every row and column; on a
/// mismatch fills `fault`.
template <bool UnitA, bool UnitB>
bool checkProduct(const Product &p, std::vector<double> &rowTau,
                  std::vector<double> &colTau, AbftFault &fault) {
  const size_t n = p.rows, K = p.inner, m = p.cols;
  const View<UnitA> A(p.a);
  const View<UnitB> B(p.b);
  const double gamma = static_cast<double>(p.terms + 1) * kU * 1.0001;
  rowTau.assign(n, 0.0);
  colTau.assign(m, 0.0);
  std::vector<double> rowRef(n, 0.0), rowGot(n, 0.0), colRef(m, 0.0),
      colGot(m, 0.0);
  // Sums over A's rows (and of |A|) per l, over B's columns per l.
  std::vector<double> aSum(K, 0.0), aAbs(K, 0.0), bSum(K, 0.0), bAbs(K, 0.0);
  // A transposed view (contiguous down a column) is read column by column:
  // the loops then run along memory either way.
  const bool aByColumn = !UnitA && p.a.rowStride == 1;
  const bool bByColumn = !UnitB && p.b.rowStride == 1;
  if (!p.lower) {
    if (aByColumn)
      for (size_t l = 0; l < K; ++l)
        sums(
            n, [&](size_t i) { return double(A.at(i, l)); }, aSum[l], aAbs[l]);
    else
      for (size_t i = 0; i < n; ++i)
        for (size_t l = 0; l < K; ++l) {
          const double v = A.at(i, l);
          aSum[l] += v;
          aAbs[l] += std::fabs(v);
        }
    // Column j: sum_l (sum_i A[i][l]) B[l][j]; and B's row sums.
    if (bByColumn)
      for (size_t j = 0; j < m; ++j) {
        for (size_t l = 0; l < K; ++l) {
          const double v = B.at(l, j);
          bSum[l] += v;
          bAbs[l] += std::fabs(v);
        }
        dots(
            K, [&](size_t l) { return double(B.at(l, j)); }, aSum.data(),
            aAbs.data(), colRef[j], colTau[j]);
      }
    else
      for (size_t l = 0; l < K; ++l) {
        sums(
            m, [&](size_t j) { return double(B.at(l, j)); }, bSum[l], bAbs[l]);
        const double as = aSum[l], aa = aAbs[l];
        for (size_t j = 0; j < m; ++j) {
          const double v = B.at(l, j);
          colRef[j] += as * v;
          colTau[j] += aa * std::fabs(v);
        }
      }
    // Row i: sum_l A[i][l] (sum_j B[l][j]).
    if (aByColumn)
      for (size_t l = 0; l < K; ++l) {
        const double bs = bSum[l], ba = bAbs[l];
        for (size_t i = 0; i < n; ++i) {
          const double v = A.at(i, l);
          rowRef[i] += v * bs;
          rowTau[i] += std::fabs(v) * ba;
        }
      }
    else
      for (size_t i = 0; i < n; ++i)
        dots(
            K, [&](size_t l) { return double(A.at(i, l)); }, bSum.data(),
            bAbs.data(), rowRef[i], rowTau[i]);
  } else {
    // Column j sums rows i >= j: suffix sums of A's rows, from the last.
    for (size_t j = m; j-- > 0;) {
      for (size_t l = 0; l < K; ++l) {
        const double v = A.at(j, l);
        aSum[l] += v;
        aAbs[l] += std::fabs(v);
      }
      dots(
          K, [&](size_t l) { return double(B.at(l, j)); }, aSum.data(),
          aAbs.data(), colRef[j], colTau[j]);
    }
    // Row i sums columns j <= i: prefix sums of B's columns.
    for (size_t i = 0; i < n; ++i) {
      for (size_t l = 0; l < K; ++l) {
        const double v = B.at(l, i);
        bSum[l] += v;
        bAbs[l] += std::fabs(v);
      }
      dots(
          K, [&](size_t l) { return double(A.at(i, l)); }, bSum.data(),
          bAbs.data(), rowRef[i], rowTau[i]);
    }
  }
  if (p.scale != 1.0f) {
    const double k = p.scale, kAbs = std::fabs(k);
    for (size_t i = 0; i < n; ++i) {
      rowRef[i] *= k;
      rowTau[i] *= kAbs;
    }
    for (size_t j = 0; j < m; ++j) {
      colRef[j] *= k;
      colTau[j] *= kAbs;
    }
  }
  if (p.bias) {
    double biasSum = 0, biasAbs = 0;
    for (size_t j = 0; j < m; ++j) {
      biasSum += p.bias[j];
      biasAbs += std::fabs(p.bias[j]);
      colRef[j] += static_cast<double>(n) * p.bias[j];
      colTau[j] += static_cast<double>(n) * std::fabs(p.bias[j]);
    }
    for (size_t i = 0; i < n; ++i) {
      rowRef[i] += biasSum;
      rowTau[i] += biasAbs;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const float *row = p.c + i * p.ldc;
    const size_t e = p.lower ? i + 1 : m;
    double unused;
    sums(
        e, [&](size_t j) { return double(row[j]); }, rowGot[i], unused);
    for (size_t j = 0; j < e; ++j)
      colGot[j] += row[j];
  }
  for (double &t : rowTau)
    t = t * gamma + 1e-30;
  for (double &t : colTau)
    t = t * gamma + 1e-30;
  // !(<=) so that a NaN is a fault.
  for (size_t j = 0; j < m; ++j)
    if (!(std::fabs(colGot[j] - colRef[j]) <= colTau[j])) {
      fault = {std::string("column ") + std::to_string(j) + " of the " + p.what,
               colGot[j], colRef[j], colTau[j]};
      return false;
    }
  for (size_t i = 0; i < n; ++i)
    if (!(std::fabs(rowGot[i] - rowRef[i]) <= rowTau[i])) {
      fault = {std::string("row ") + std::to_string(i) + " of the " + p.what,
               rowGot[i], rowRef[i], rowTau[i]};
      return false;
    }
  return true;
}

/// checkProduct with the column strides of the views known when they are 1.
bool checkProduct(const Product &p, std::vector<double> &rowTau,
                  std::vector<double> &colTau, AbftFault &fault) {
  const bool unitA = p.a.colStride == 1, unitB = p.b.colStride == 1;
  if (unitA && unitB)
    return checkProduct<true, true>(p, rowTau, colTau, fault);
  if (unitA)
    return checkProduct<true, false>(p, rowTau, colTau, fault);
  if (unitB)
    return checkProduct<false, true>(p, rowTau, colTau, fault);
  return checkProduct<false, false>(p, rowTau, colTau, fault);
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

void AbftGuard::inject(const Product &p) {
  flips_.clear();
  const size_t n = p.lower ? p.rows * (p.rows + 1) / 2 : p.rows * p.cols;
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
  // Element e of those computed, row-major (of the lower triangle: row i
  // holds elements i (i + 1) / 2 .. (i + 1) (i + 2) / 2 - 1).
  size_t i = e / p.cols, j = e % p.cols;
  if (p.lower) {
    i = static_cast<size_t>((std::sqrt(8.0 * double(e) + 1.0) - 1.0) / 2.0);
    while (i * (i + 1) / 2 > e)
      --i;
    while ((i + 1) * (i + 2) / 2 <= e)
      ++i;
    j = e - i * (i + 1) / 2;
  }
  float *y = p.c + i * p.ldc + j;
  uint32_t bits;
  std::memcpy(&bits, y, sizeof(bits));
  const float before = *y;
  bits ^= 1u << bit;
  std::memcpy(y, &bits, sizeof(bits));
  flips_.push_back({i, j, static_cast<double>(*y) - before});
  ++stats_.injected;
}

void AbftGuard::account(bool detected) {
  for (const Flip &f : flips_) {
    // Beyond twice a threshold, rounding cannot hide the change.
    const bool detectable =
        !std::isfinite(f.change) ||
        std::fabs(f.change) > 2 * std::min(rowTau_[f.row], colTau_[f.col]);
    if (!detectable)
      continue;
    ++stats_.injectedDetectable;
    if (detected)
      ++stats_.detectedInjected;
  }
}

template <typename Check>
bool AbftGuard::checked(const std::function<void()> &compute, Check check,
                        const Product &p) {
  for (uint32_t attempt = 0;; ++attempt) {
    uint64_t t0 = nowNs();
    compute();
    ++stats_.gemms;
    uint64_t t1 = nowNs();
    stats_.gemmNs += t1 - t0;
    inject(p);
    if (mode_ == AbftMode::Off)
      return true; // unchecked: injected faults go through silently
    bool ok = check();
    stats_.checkNs += nowNs() - t1;
    account(!ok);
    if (ok)
      return true;
    ++stats_.detected;
    if (mode_ == AbftMode::Fail || attempt >= maxRetries_)
      return false;
    ++stats_.recomputed;
  }
}

bool AbftGuard::product(const std::function<void()> &compute, const Product &p,
                        AbftFault &fault) {
  return checked(
      compute, [&] { return checkProduct(p, rowTau_, colTau_, fault); }, p);
}

bool AbftGuard::forward(uint32_t in, uint32_t out, uint32_t batch,
                        const float *param, const float *x, float *y,
                        bool relu, AbftFault &fault) {
  Product p;
  p.a = {x, in, 1};
  p.b = {param, out, 1};
  p.bias = param + size_t(in) * out;
  p.c = y;
  p.rows = batch;
  p.inner = in;
  p.cols = p.ldc = out;
  p.terms = in;
  p.what = "forward output";
  // ReLU after the check (and after an injected flip, which it may hide).
  if (!product([&] { forwardLayer(in, out, batch, param, x, y, false); }, p,
               fault))
    return false;
  if (relu)
    for (size_t i = 0, n = size_t(batch) * out; i < n; ++i)
      y[i] = y[i] > 0 ? y[i] : 0.0f;
  return true;
}

bool AbftGuard::linearBackward(uint32_t in, uint32_t out, uint32_t batch,
                               const float *param, const float *x,
                               const float *dZ, float *grad, float *dX,
                               AbftFault &fault) {
  // The weight and bias gradients: gW = X^T dZ (in x out), gb = colsum dZ.
  Product g;
  g.a = {x, 1, in};
  g.b = {dZ, out, 1};
  g.c = grad;
  g.rows = in;
  g.inner = batch;
  g.cols = g.ldc = out;
  g.terms = batch;
  g.what = "weight gradient";
  auto checkGradients = [&] {
    if (!checkProduct(g, rowTau_, colTau_, fault))
      return false;
    // The bias gradient against its sum in double (one row of `batch`),
    // dZ read along its rows.
    const float *gb = grad + size_t(in) * out;
    std::vector<double> ref(out, 0.0), abs(out, 0.0);
    for (uint32_t b = 0; b < batch; ++b) {
      const float *dz = dZ + size_t(b) * out;
      for (uint32_t j = 0; j < out; ++j) {
        ref[j] += dz[j];
        abs[j] += std::fabs(dz[j]);
      }
    }
    for (uint32_t j = 0; j < out; ++j) {
      const double tau = abs[j] * (batch + 1) * kU * 1.0001 + 1e-30;
      if (!(std::fabs(gb[j] - ref[j]) <= tau)) {
        fault = {"element " + std::to_string(j) + " of the bias gradient",
                 gb[j], ref[j], tau};
        return false;
      }
    }
    return true;
  };
  if (!checked(
          [&] { backwardLayer(in, out, batch, param, x, dZ, grad, nullptr); },
          checkGradients, g))
    return false;
  if (!dX)
    return true;
  // The input gradient dZ W^T (batch x in): backwardLayer's kernel, so the
  // same bits.
  Product d;
  d.a = {dZ, out, 1};
  d.b = {param, 1, out};
  d.c = dX;
  d.rows = batch;
  d.inner = out;
  d.cols = d.ldc = in;
  d.terms = out;
  d.what = "input gradient";
  return product([&] { inputGradient(in, out, batch, param, dZ, dX); }, d,
                 fault);
}

bool AbftGuard::backward(uint32_t in, uint32_t out, uint32_t batch,
                         const float *param, const float *x, const float *dZ,
                         float *grad, float *dXMasked, AbftFault &fault) {
  // Checked unmasked, then masked by x > 0 (backwardLayer's bits).
  if (!linearBackward(in, out, batch, param, x, dZ, grad, dXMasked, fault))
    return false;
  if (dXMasked)
    for (size_t i = 0, n = size_t(batch) * in; i < n; ++i)
      if (!(x[i] > 0))
        dXMasked[i] = 0.0f;
  return true;
}
