//===- GnnGpuCases.h - Blocks and the CPU's aggregation ---------*- C++ -*-===//
//
// What both GNN GPU suites compare: random sampled-block shapes (empty
// neighbour lists, repeated neighbours, self loops, dst rows that are
// other dsts' neighbours), features with signed zeros, and the CPU
// trainer's own aggregation (runtime/src/gnn/Aggregate.cpp, one thread)
// as the reference. Each GPU result must equal it bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H
#define SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H

#include "sluice/gnn_gpu.h"

#include "runtime/src/gnn/Aggregate.h"
#include "runtime/src/gnn/Random.h"
#include "runtime/src/gnn/Sampler.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sluice::test::gnngpu {

/// A block of `dst` dst rows over `src` src rows, each dst with 0 to
/// maxDegree neighbours drawn from all src rows (repeats and self loops
/// allowed), coefficients in [-1, 1) (SAGE's mean: 1 / degree when
/// `mean`), self coefficients in [0, 1).
inline rt::gnn::Block randomBlock(uint32_t dst, uint32_t src,
                                  uint32_t maxDegree, bool mean,
                                  uint64_t seed) {
  rt::gnn::Block b;
  b.numDst = dst;
  rt::gnn::Random rng(seed, rt::gnn::Stream::Split, 7, 0, 0);
  for (uint32_t v = 0; v < src; ++v)
    b.src.push_back(v);
  b.offsets.push_back(0);
  for (uint32_t d = 0; d < dst; ++d) {
    const uint32_t degree = rng.below(maxDegree + 1);
    for (uint32_t k = 0; k < degree; ++k) {
      b.nbr.push_back(rng.below(src));
      b.coef.push_back(mean ? 1.0f / float(degree) : 2.0f * rng.unit() - 1.0f);
    }
    b.offsets.push_back(static_cast<uint32_t>(b.nbr.size()));
    b.selfCoef.push_back(rng.unit());
  }
  return b;
}

/// Rows in [-1, 1) with every 7th value a signed zero (-0.0 where the
/// index is odd): 0.0f + -0.0f is +0.0f, so a sum that does not start
/// where the CPU's does shows.
inline std::vector<float> randomRows(size_t n, uint64_t seed) {
  std::vector<float> x(n);
  rt::gnn::Random rng(seed, rt::gnn::Stream::Split, 8, 0, 0);
  for (size_t i = 0; i < n; ++i)
    x[i] = i % 7 == 3 ? (i % 2 ? -0.0f : 0.0f) : 2.0f * rng.unit() - 1.0f;
  return x;
}

inline sluice_gnn_block_t view(const rt::gnn::Block &b) {
  sluice_gnn_block_t v{};
  v.num_dst = b.numDst;
  v.num_src = b.numSrc();
  v.offsets = b.offsets.data();
  v.nbr = b.nbr.data();
  v.coef = b.coef.data();
  v.self_coef = b.selfCoef.data();
  return v;
}

/// The CPU trainer's forward aggregation (one thread, one tile).
inline std::vector<float> cpuForward(const rt::gnn::Block &b, bool sage,
                                     const std::vector<float> &h, size_t in) {
  std::vector<float> a(size_t(b.numDst) * (sage ? 2 : 1) * in, 1e30f);
  rt::gnn::aggregateForward(nullptr, b, sage, h.data(), in, a.data(), 0);
  return a;
}

/// The CPU trainer's backward scatter, added to `dH`.
inline std::vector<float> cpuBackward(const rt::gnn::Block &b, bool sage,
                                      const std::vector<float> &dA, size_t in,
                                      std::vector<float> dH) {
  rt::gnn::aggregateBackward(nullptr, b, sage, dA.data(), in, dH.data(), 0);
  return dH;
}

/// Empty when `got` has the bits of `want`, else where it first differs.
inline std::string firstDifference(const std::vector<float> &want,
                                   const std::vector<float> &got) {
  if (want.size() != got.size())
    return "sizes " + std::to_string(want.size()) + " and " +
           std::to_string(got.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0)
      return "value " + std::to_string(i) + ": CPU " + std::to_string(want[i]) +
             ", GPU " + std::to_string(got[i]);
  return "";
}

/// The shapes both suites run: (dst, src, max degree, width).
struct Shape {
  uint32_t dst, src, maxDegree, in;
};
inline const std::vector<Shape> &shapes() {
  static const std::vector<Shape> s = {
      {1, 1, 3, 1},    // one row, self loops only
      {5, 12, 0, 4},   // no edges at all
      {17, 40, 6, 37}, // widths that are not a multiple of anything
      {64, 300, 25, 16}, {200, 900, 10, 64},
  };
  return s;
}

} // namespace sluice::test::gnngpu

#endif // SLUICE_TEST_UNIT_GNNGPU_GNNGPUCASES_H
