//===- Abft.h - Checked GEMMs of the offload trainer, fault injection -*- C++
//-*-===//
//
// Algorithm-based fault tolerance (Huang and Abraham) for the GEMMs of the
// models the offload trainer trains (the MLP of Mlp.h, the transformer of
// Transformer.h), against computation faults such as the undervolting
// (DVFS) attacks of the paper in shared/papers/06: every GEMM's output is
// checked with row and column checksums computed in double from its inputs,
//   column o:  sum_b Y[b][o]  ==  sum_k (sum_b X[b][k]) W[k][o] (+ batch b[o])
//   row b:     sum_o Y[b][o]  ==  sum_k X[b][k] (sum_o W[k][o]) (+ sum_o b[o])
// (likewise for the weight gradient X^T dZ and the input gradient dZ W^T),
// each within a rounding threshold: n u sum |terms| with n the length of
// the float accumulation and u = 2^-24, the bound on float summation error
// (Higham, gamma_n), the absolute sums again by checksums of |X| and |W|.
// An output element changed by more than the threshold of its row or its
// column is detected; smaller changes (low mantissa bits) are within
// rounding and cannot be told from it. A NaN or infinity is always a
// fault.
//
// product() checks any GEMM C = A B (+ bias) given as strided views, so
// that a model keeps its own kernel (and its bits) and the guard checks
// what it wrote; a lower-triangular product (causal attention scores, only
// C[i][j] with j <= i computed) is checked with prefix and suffix sums:
//   row i:     sum_{j<=i} C[i][j] == sum_l A[i][l] (sum_{j<=i} B[l][j])
//   column j:  sum_{i>=j} C[i][j] == sum_l (sum_{i>=j} A[i][l]) B[l][j]
// forward(), backward() and linearBackward() are the linear layer's
// kernels (Mlp.h) through the same checker (the weight gradient also with
// its bias gradient checked against a sum of dZ).
//
// The checked kernels produce exactly the bits of forwardLayer and
// backwardLayer (the same loops; ReLU and the mask applied after the
// check). On a detected fault the guard recomputes the GEMM (`recompute`,
// up to maxRetries times) or reports it (`fail`), and the trainer fails the
// step without committing it.
//
// FaultInjector flips bits in GEMM outputs after they are computed and
// before they are checked: with a probability per GEMM, one uniformly
// chosen bit (in [minBit, maxBit]) of one uniformly chosen element (of
// those the GEMM computes), only inside a time window after the start of
// each step when one is given (the paper's 1 ms local injection). Without
// checks (`off`) the flips go through silently.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_ABFT_H
#define SLUICE_RUNTIME_SRC_TRAIN_ABFT_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace sluice::train {

enum class AbftMode { Off, Fail, Recompute };
/// "off", "fail", "recompute"; false for another name.
bool parseAbftMode(const std::string &name, AbftMode &out);
const char *abftModeName(AbftMode m);

struct FaultInjection {
  double probability = 0; ///< per GEMM, in [0, 1]
  uint32_t minBit = 0, maxBit = 31;
  /// Inject only in [windowStartNs, windowStartNs + windowNs) after the
  /// start of a step; windowNs 0: always.
  uint64_t windowStartNs = 0, windowNs = 0;
  uint64_t seed = 1;
  /// "" or what is wrong.
  std::string check() const;
};

struct AbftStats {
  uint64_t gemms = 0;            ///< GEMMs computed (retries included)
  uint64_t injected = 0;         ///< bit flips injected
  uint64_t injectedDetectable = 0; ///< of which above the threshold
  uint64_t detected = 0;         ///< GEMMs whose check failed
  uint64_t detectedInjected = 0; ///< detectable flips that were detected
  uint64_t recomputed = 0;       ///< GEMMs computed again after a detection
  uint64_t gemmNs = 0, checkNs = 0; ///< time in the GEMMs and in the checks
};

/// A strided read-only matrix: element (i, j) at data[i * rowStride + j *
/// colStride] (a transpose swaps the strides).
struct MatrixView {
  const float *data = nullptr;
  size_t rowStride = 0, colStride = 1;
  float at(size_t i, size_t j) const {
    return data[i * rowStride + j * colStride];
  }
};

/// A GEMM the guard checks: C (rows x cols, row stride ldc) = scale A (rows
/// x inner) B (inner x cols) (+ bias[j] on every row), each element a float
/// sum of at most `terms` rounded products (count the scale's rounding in
/// it, and the bias's).
struct Product {
  MatrixView a, b;
  const float *bias = nullptr;
  float scale = 1.0f;
  float *c = nullptr;
  size_t rows = 0, inner = 0, cols = 0, ldc = 0;
  size_t terms = 0;
  /// Only C[i][j] with j <= i is computed (rows == cols, no bias): causal
  /// attention scores; the rest is neither read nor written.
  bool lower = false;
  const char *what = ""; ///< "attention scores", for the message
};

/// What a failed check found (for the error message).
struct AbftFault {
  std::string where; ///< "column 17 of the forward output", ...
  double got = 0, expected = 0, threshold = 0;
};

class AbftGuard {
public:
  AbftGuard(AbftMode mode, FaultInjection faults, uint32_t maxRetries = 2);

  AbftMode mode() const { return mode_; }
  /// Call at the start of every training step (the injection window).
  void startStep();

  /// forwardLayer with checks: false (with `fault`) when a fault was
  /// detected and not corrected by a recompute.
  bool forward(uint32_t in, uint32_t out, uint32_t batch, const float *param,
               const float *x, float *y, bool relu, AbftFault &fault);
  /// backwardLayer with checks of the weight, bias and input gradients.
  bool backward(uint32_t in, uint32_t out, uint32_t batch, const float *param,
                const float *x, const float *dZ, float *grad,
                float *dXMasked, AbftFault &fault);
  /// backwardLayer(..., nullptr) and, when dX is given, inputGradient (the
  /// unmasked dX = dZ W^T of a linear layer without ReLU), both checked.
  bool linearBackward(uint32_t in, uint32_t out, uint32_t batch,
                      const float *param, const float *x, const float *dZ,
                      float *grad, float *dX, AbftFault &fault);
  /// Runs `compute`, which writes p.c = p.a p.b (+ p.bias) with the model's
  /// own kernel (and must overwrite, not accumulate: a recompute runs it
  /// again), injects faults and checks it: false (with `fault`) when a
  /// fault remains.
  bool product(const std::function<void()> &compute, const Product &p,
               AbftFault &fault);

  const AbftStats &stats() const { return stats_; }

private:
  /// Runs `compute` (a GEMM into p.c), injects faults, runs `check` (all
  /// of them in mode off, unchecked); on a failed check recomputes (mode
  /// recompute, up to maxRetries) or gives up. False: a fault remains.
  template <typename Check>
  bool checked(const std::function<void()> &compute, Check check,
               const Product &p);
  /// Flips bits in p.c as the injector says; records each flip's element
  /// and change.
  void inject(const Product &p);
  /// Counts the injected flips the check should have seen (above the
  /// threshold of their row or column) and whether it did.
  void account(bool detected);

  AbftMode mode_;
  FaultInjection faults_;
  uint32_t maxRetries_;
  std::mt19937_64 rng_;
  uint64_t stepStartNs_ = 0;
  struct Flip {
    size_t row, col;
    double change;
  };
  std::vector<Flip> flips_;
  AbftStats stats_;
  std::vector<double> rowTau_, colTau_;
};

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_ABFT_H
