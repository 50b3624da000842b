//===- GemmModel.h - GPU GEMM time by shape and precision -------*- C++ -*-===//
//
// The time of a (batched) GEMM C[M x N] = A[M x K] B[K x N] on one GPU, as a
// function of its shape and element type, for the planners that cost GPU
// compute (compiler/Analysis/Offload). The model is a roofline with tile
// and wave quantization (NVIDIA, "Matrix Multiplication Background User's
// Guide", sections 2.3 and 3):
//
//   tiles   = batch * ceil(M / tm) * ceil(N / tn),  tm = min(128, M~), tn
//             likewise, where M~ is M rounded up to the tensor-core
//             granularity of 16 (thin GEMMs run narrower tiles)
//   waves   = ceil(tiles / S)              (S streaming multiprocessors;
//             S = 0: no wave quantization, tiles spread evenly)
//   compute = waves * 2 tm tn K / (P_dtype * eta / S)
//   memory  = batch * (M K + K N + M N) * bytes(dtype) / B   (or the
//             kernel's own traffic, for fused attention)
//   time    = max(compute, memory)
//
// P_dtype is the dense tensor-core peak for fp16/bf16 (fp32 accumulate) and
// half of it for fp32 (TF32 tensor cores, Ampere and later); eta is the
// attained fraction of the peak on large, wave-aligned GEMMs, the one
// parameter fitted per GPU (gemmEfficiencyOf, with its source). Split-K,
// stream-K and the choice among several tile shapes are not modelled: the
// memory roofline bounds the thin GEMMs they serve.
//
// docs/offload.md ("GPU compute") states the fitted and the held-out points.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_MODEL_GEMMMODEL_H
#define SLUICE_COMPILER_ANALYSIS_MODEL_GEMMMODEL_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace sluice::model {

enum class GemmDtype { F16, BF16, F32 };

/// Bytes per element of `t`.
double gemmDtypeBytes(GemmDtype t);
/// The element type of a model stored with `bytes` per element (2: fp16,
/// 4: fp32 run as TF32).
GemmDtype gemmDtypeOfBytes(int64_t bytes);

/// The GPU, as the model sees it.
struct GemmDevice {
  double peakFlops = 0;       ///< dense fp16/bf16 tensor FLOP/s (fp32 acc.)
  double efficiency = 0;      ///< eta: attained fraction on large GEMMs
  double memoryBandwidth = 0; ///< B/s; 0 = no memory roofline
  int64_t sms = 0;            ///< streaming multiprocessors; 0 = unknown
};

/// `batch` independent GEMMs of M x N x K.
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;
  GemmDtype dtype = GemmDtype::F16;
  /// Bytes the kernel moves, when not M K + K N + M N per GEMM (fused
  /// attention reads Q, K, V and writes O; its score matrix stays on chip).
  std::optional<double> bytes;

  double flops() const { return 2.0 * m * n * k * batch; }
};

/// Seconds for `g` on `d` (0 for an empty GEMM).
double gemmTime(const GemmShape &g, const GemmDevice &d);

/// Attained fraction of the dtype's peak: flops / (time x P_dtype).
double gemmEfficiency(const GemmShape &g, const GemmDevice &d);

/// The fitted eta of a GPU by its product name (the topology's `model`
/// property), when a published measurement exists; see docs/offload.md.
std::optional<double> gemmEfficiencyOf(llvm::StringRef gpuModel);

/// Output tile edge the model assumes for large GEMMs (cuBLAS's 128 x 128
/// fp16 tiles in NVIDIA's guide).
constexpr double kGemmTile = 128;
/// Tensor-core granularity a thin dimension is rounded up to.
constexpr double kGemmGranule = 16;

} // namespace sluice::model

#endif // SLUICE_COMPILER_ANALYSIS_MODEL_GEMMMODEL_H
