//===- GemmModel.cpp - GPU GEMM time by shape and precision ---------------===//
//
// See GemmModel.h for the model; the fitted efficiencies and their sources
// are below.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Model/GemmModel.h"

#include <algorithm>
#include <cmath>

using namespace sluice;
using namespace sluice::model;

double model::gemmDtypeBytes(GemmDtype t) {
  switch (t) {
  case GemmDtype::F16:
  case GemmDtype::BF16:
    return 2;
  case GemmDtype::F32:
    return 4;
  }
  return 2;
}

GemmDtype model::gemmDtypeOfBytes(int64_t bytes) {
  return bytes >= 4 ? GemmDtype::F32 : GemmDtype::F16;
}

/// Dense tensor-core peak of `t`: TF32 runs at half the fp16 rate on
/// Ampere, Ada and Hopper (A100 156 / 312, RTX 4090 82.6 / 165.2, H100
/// SXM 494.7 / 989.4 TFLOPS in NVIDIA's datasheets).
static double peakOf(GemmDtype t, const GemmDevice &d) {
  return t == GemmDtype::F32 ? d.peakFlops / 2 : d.peakFlops;
}

/// The tile edge along a dimension of `len` elements.
static double tileEdge(double len) {
  return std::min(kGemmTile, std::ceil(len / kGemmGranule) * kGemmGranule);
}

double model::gemmTime(const GemmShape &g, const GemmDevice &d) {
  if (!(g.m > 0 && g.n > 0 && g.k > 0 && g.batch > 0))
    return 0;
  const double rate = peakOf(g.dtype, d) * d.efficiency;
  const double tm = tileEdge(g.m), tn = tileEdge(g.n);
  const double tiles = g.batch * std::ceil(g.m / tm) * std::ceil(g.n / tn);
  const double tileFlops = 2.0 * tm * tn * g.k;
  double compute;
  if (d.sms > 0) {
    const double s = static_cast<double>(d.sms);
    compute = std::ceil(tiles / s) * tileFlops / (rate / s);
  } else {
    compute = tiles * tileFlops / rate;
  }
  double memory = 0;
  if (d.memoryBandwidth > 0) {
    const double bytes = g.bytes
                             ? *g.bytes
                             : g.batch * (g.m * g.k + g.k * g.n + g.m * g.n) *
                                   gemmDtypeBytes(g.dtype);
    memory = bytes / d.memoryBandwidth;
  }
  return std::max(compute, memory);
}

double model::gemmEfficiency(const GemmShape &g, const GemmDevice &d) {
  const double t = gemmTime(g, d);
  return t > 0 ? g.flops() / (t * peakOf(g.dtype, d)) : 0;
}

std::optional<double> model::gemmEfficiencyOf(llvm::StringRef gpuModel) {
  // RTX 4090: a bf16 (fp32 accumulate) GEMM of 8192^3 at 163.5 TFLOPS
  // against the 165.2 TFLOPS dense peak (xytpai/PeakGemm, README,
  // "Performance"). 4096 tiles of 128 x 128 fill 32 waves of 128 SMs
  // exactly, so eta = 163.5 / 165.2.
  if (gpuModel == "GeForce RTX 4090" || gpuModel == "NVIDIA GeForce RTX 4090")
    return 163.5 / 165.2;
  return std::nullopt;
}
