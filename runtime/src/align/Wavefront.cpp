//===- Wavefront.cpp - The vectorised anti-diagonal kernel ----------------===//
//
// alignWavefront: the loop of WavefrontBody.inc compiled twice, for AVX2
// (eight int32 lanes per instruction) and for the baseline x86-64 ISA
// (SSE2, four), the one the CPU supports chosen when the program loads.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/align/Wavefront.h"

#include <algorithm>
#include <utility>

namespace sluice::rt::align {

uint8_t baseCode(char c) {
  switch (c) {
  case 'A':
  case 'a':
    return 0;
  case 'C':
  case 'c':
    return 1;
  case 'G':
  case 'g':
    return 2;
  case 'T':
  case 't':
    return 3;
  default:
    return 4;
  }
}

void WavefrontBuffers::reserve(uint32_t queryLength, uint32_t targetLength) {
  // Index i + 1 for target index i in [-1, tlen], plus the edge at tlen + 1.
  size_t cells = static_cast<size_t>(targetLength) + 2;
  for (auto *v : {&h[0], &h[1], &h[2], &e[0], &e[1], &f[0], &f[1]})
    if (v->size() < cells)
      v->resize(cells);
  if (target.size() < targetLength)
    target.resize(targetLength);
  if (queryReversed.size() < queryLength)
    queryReversed.resize(queryLength);
}

#include "runtime/src/align/WavefrontBody.inc"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void alignWavefront(const char *query, uint32_t queryLength,
                    const char *target, uint32_t targetLength,
                    const sluice_align_scoring_t &scoring,
                    WavefrontBuffers &buffers, sluice_align_result_t &result) {
  wavefrontBody(query, queryLength, target, targetLength, scoring, buffers,
                result);
}

} // namespace sluice::rt::align
