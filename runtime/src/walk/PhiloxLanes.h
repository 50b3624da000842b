//===- PhiloxLanes.h - Philox4x32-10 for many counters at once --*- C++ -*-===//
//
// The walk engine computes the first Philox block of every interleaved
// walker's step in one call: lane i has counter (blockIndex, c1[i], c2[i],
// c3[i]) under the 64-bit key `seed`. The result is the same function as
// sluice_philox4x32_10 / sluice::walk::philox4x32_10, lane by lane.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_PHILOXLANES_H
#define SLUICE_RUNTIME_WALK_PHILOXLANES_H

#include <cstdint>

namespace sluice::walk::detail {

/// Lanes are processed in groups of kPhiloxLaneGroup: the arrays must hold
/// n rounded up to a multiple of it (lanes past n are computed from
/// whatever they hold and overwritten).
constexpr uint32_t kPhiloxLaneGroup = 16;

/// Rounds n up to a multiple of kPhiloxLaneGroup.
constexpr uint32_t philoxLaneCapacity(uint32_t n) {
  return (n + kPhiloxLaneGroup - 1) / kPhiloxLaneGroup * kPhiloxLaneGroup;
}

/// Philox4x32-10 of the counters (blockIndex, c1[i], c2[i], c3[i]) under
/// `seed`, for lanes 0 .. n-1, in place into c0..c3 (c0's input is
/// ignored). On x86-64 it uses AVX-512 or AVX2 when the CPU has them
/// (chosen once, at the first call), otherwise a portable loop.
void philoxLanes(uint32_t n, uint64_t seed, uint32_t *c0, uint32_t *c1,
                 uint32_t *c2, uint32_t *c3, uint32_t blockIndex = 0);

/// The portable loop (also the reference the tests compare with).
void philoxLanesPortable(uint32_t n, uint64_t seed, uint32_t *c0,
                         uint32_t *c1, uint32_t *c2, uint32_t *c3,
                         uint32_t blockIndex = 0);

/// Which implementation philoxLanes uses: "avx512f", "avx2" or "portable".
const char *philoxLanesIsa();

/// The implementation for `isa` ("avx512f", "avx2", "portable"), or NULL
/// when this CPU (or build) lacks it (for tests).
using PhiloxLanesFn = void (*)(uint32_t, uint64_t, uint32_t *, uint32_t *,
                               uint32_t *, uint32_t *, uint32_t);
PhiloxLanesFn philoxLanesFor(const char *isa);

} // namespace sluice::walk::detail

#endif // SLUICE_RUNTIME_WALK_PHILOXLANES_H
