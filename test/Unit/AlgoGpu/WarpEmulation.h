//===- WarpEmulation.h - Warps of emulated GPU kernels on the host -*- C++
//-*-===//
//
// The emulation suite (AlgoGpuEmulationTest.cpp) runs a kernel with a warp
// per item (`threads_per_item` 32) as warps: its thread 32k calls
// sluice_emu_warp, which runs lanes 32k .. 32k + 31 of the kernel's lane
// code, and each `gpu.shuffle xor` of that code is a call to
// sluice_emu_shuffle_xor that records the lane's value and returns its
// partner's. Lanes run one after another, so a lane whose partner has not
// reached that shuffle yet stops there (longjmp back to the driver) and
// runs again from its start in the next pass, the values recorded so far
// returned as before. That is sound for code that only reads memory before
// its last shuffle (graph-to-gpu's pull `_lanes` copies: lane 0 writes
// after the butterfly), so a rerun computes the same values; push
// `_lanes` kernels have no shuffle, each lane runs once.
//
// The shuffle's calling convention is the walk emulation's
// (test/Unit/WalkCodegen/GpuEmulation.h: sluice_emu_shuffle_xor), but not
// its WarpEmulator: that runs lanes as ucontext fibers, a 1 MiB stack per
// lane per run and a swapcontext (a signal-mask system call) per lane per
// shuffle, fine for a few hundred walkers' warps; a pull loop has a warp
// per destination, 10^5 warps of 10 shuffles per pass on Slashdot. A
// rerun here costs the lane's loads again and no system call.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALGOGPU_WARPEMULATION_H
#define SLUICE_TEST_UNIT_ALGOGPU_WARPEMULATION_H

#include <cstdint>

namespace sluice::algogpu {

/// A kernel's lane code, compiled for the host: (ctx, env, count, thread).
using LaneFn = void (*)(const void *, void *, uint64_t, int64_t);

} // namespace sluice::algogpu

extern "C" {
/// The calling lane's `gpu.shuffle xor` of `value` with lane lane ^ offset.
int32_t sluice_emu_shuffle_xor(int32_t value, int32_t offset);
/// Runs lanes first .. first + 31 of `lane` until each has returned.
void sluice_emu_warp(sluice::algogpu::LaneFn lane, const void *ctx, void *env,
                     uint64_t count, int64_t first);
}

#endif // SLUICE_TEST_UNIT_ALGOGPU_WARPEMULATION_H
