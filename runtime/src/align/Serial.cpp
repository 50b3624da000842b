//===- Serial.cpp - The anti-diagonal kernel without SIMD -----------------===//
//
// alignSerial: WavefrontBody.inc with vectorisation off (CMake compiles this
// file with -fno-tree-vectorize): one cell per instruction, the baseline
// bench/align measures the vectorised kernel and its threads against.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/align/Wavefront.h"

#include <algorithm>
#include <utility>

namespace sluice::rt::align {

#include "runtime/src/align/WavefrontBody.inc"

void alignSerial(const char *query, uint32_t queryLength, const char *target,
                 uint32_t targetLength, const sluice_align_scoring_t &scoring,
                 WavefrontBuffers &buffers, sluice_align_result_t &result) {
  wavefrontBody(query, queryLength, target, targetLength, scoring, buffers,
                result);
}

} // namespace sluice::rt::align
