//===- WarpEmulation.cpp - Warps of emulated GPU kernels on the host ------===//
//
// WarpEmulation.h. Not thread-safe across warps of one thread (a warp runs
// to its end before the next starts); each host thread has its own.
//
//===----------------------------------------------------------------------===//
#include "test/Unit/AlgoGpu/WarpEmulation.h"

#include "sluice/algo_gpu.h"

#include <csetjmp>
#include <cstdlib>

namespace {

/// One warp's shuffles while sluice_emu_warp runs it.
struct EmulatedWarp {
  static constexpr int kLanes = SLUICE_ALGO_GPU_LANES;
  static constexpr int kMaxShuffles = 64;
  int lane = 0, shuffle = 0;
  uint32_t values[kMaxShuffles][kLanes] = {};
  uint32_t reached[kMaxShuffles] = {}; ///< per shuffle, a bit per lane
  std::jmp_buf stop;
};
thread_local EmulatedWarp *currentWarp = nullptr;

} // namespace

int32_t sluice_emu_shuffle_xor(int32_t value, int32_t offset) {
  EmulatedWarp *w = currentWarp;
  if (!w || offset <= 0 || offset >= EmulatedWarp::kLanes ||
      w->shuffle >= EmulatedWarp::kMaxShuffles)
    std::abort(); // a shuffle outside a warp kernel, or too many
  int k = w->shuffle++;
  w->values[k][w->lane] = static_cast<uint32_t>(value);
  w->reached[k] |= 1u << w->lane;
  int partner = w->lane ^ offset;
  if (w->reached[k] >> partner & 1)
    return static_cast<int32_t>(w->values[k][partner]);
  std::longjmp(w->stop, 1); // again from the start, in the next pass
}

void sluice_emu_warp(sluice::algogpu::LaneFn lane, const void *ctx, void *env,
                     uint64_t count, int64_t first) {
  EmulatedWarp w;
  currentWarp = &w;
  volatile uint32_t done = 0;
  for (volatile int pass = 0; done != 0xffffffffu; ++pass) {
    if (pass > EmulatedWarp::kMaxShuffles + 1)
      std::abort(); // lanes waiting on each other: not a butterfly
    for (volatile int l = 0; l < EmulatedWarp::kLanes; ++l) {
      if (done >> l & 1)
        continue;
      w.lane = l;
      w.shuffle = 0;
      if (setjmp(w.stop) == 0) {
        lane(ctx, env, count, first + l);
        done = done | (1u << l);
      }
    }
  }
  currentWarp = nullptr;
}
