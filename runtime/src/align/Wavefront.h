//===- Wavefront.h - The anti-diagonal extension kernel ---------*- C++ -*-===//
//
// One alignment of sluice/align.h by anti-diagonals r = i + j (i: target
// index, j: query index). The cells of an anti-diagonal depend only on the
// two before it, so the inner loop over them has no loop-carried
// dependency: with the query stored reversed, every array it reads and
// writes is contiguous in i and the compiler turns it into int32 SIMD
// (Wavefront.cpp builds it for AVX2 and the baseline ISA; Serial.cpp builds
// the same loop with vectorisation off, the baseline of bench/align).
//
// Three rotating H buffers (anti-diagonals r-2, r-1, r) and two E and F
// buffers, indexed by i + 1 so that index 0 is the virtual row i = -1.
// Only [st - 1, en + 1] of an anti-diagonal is ever read by the next two,
// so only those two edges are written besides the band: with a boundary
// value (row -1 or column -1 of the matrix) or -infinity.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALIGN_WAVEFRONT_H
#define SLUICE_RUNTIME_SRC_ALIGN_WAVEFRONT_H

#include "sluice/align.h"

#include <cstdint>
#include <vector>

namespace sluice::rt::align {

/// Bases as codes: A C G T -> 0 1 2 3 (either case), anything else 4 (N).
uint8_t baseCode(char c);

/// Per-thread buffers, grown on demand and reused across alignments.
struct WavefrontBuffers {
  std::vector<int32_t> h[3], e[2], f[2];
  std::vector<uint8_t> target, queryReversed;
  void reserve(uint32_t queryLength, uint32_t targetLength);
};

/// The vectorised kernel (Wavefront.cpp).
void alignWavefront(const char *query, uint32_t queryLength, const char *target,
                    uint32_t targetLength,
                    const sluice_align_scoring_t &scoring,
                    WavefrontBuffers &buffers, sluice_align_result_t &result);

/// The same computation with vectorisation off (Serial.cpp).
void alignSerial(const char *query, uint32_t queryLength, const char *target,
                 uint32_t targetLength, const sluice_align_scoring_t &scoring,
                 WavefrontBuffers &buffers, sluice_align_result_t &result);

} // namespace sluice::rt::align

#endif // SLUICE_RUNTIME_SRC_ALIGN_WAVEFRONT_H
