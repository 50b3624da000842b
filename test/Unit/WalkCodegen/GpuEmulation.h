//===- GpuEmulation.h - walk-to-gpu's device code run on the host -*- C++ -*-===//
//
// The kernels walk-to-gpu generates, compiled for the host instead of the
// GPU, so that tests without a GPU run exactly the device code's logic:
// the gpu.module's functions go into a plain module, each kernel becomes a
// func.func with one more argument, the global thread id (block_id := that
// id, block_dim := 1, thread_id := 0), every gpu.shuffle (xor, width 32)
// becomes a call of sluice_emu_shuffle_xor, and the upstream CPU
// conversions and the JIT do the rest.
//
// WarpEmulator runs the 32 lanes of a warp as cooperative fibers on one
// thread: at every shuffle a lane publishes its value and yields; once all
// 32 lanes have published (one round-robin round) each reads its partner's.
// That is a warp's shfl.sync when the lanes run in lockstep (the same
// shuffles in the same order), which the emulator checks.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H
#define SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H

#include "compiler/Target/LLVM/Codegen.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace sluice::gpuemu {

/// A walk kernel compiled for the host: the 19 kernel arguments, then the
/// global thread id.
using Kernel = void (*)(const void *, const void *, const void *,
                        const float *, const float *, const float *,
                        const int32_t *, const void *, const uint32_t *,
                        int64_t, int64_t, int64_t, double, int64_t,
                        uint32_t *, uint32_t *, int64_t, int64_t,
                        const int32_t *, int64_t);

/// Runs walk-to-gpu on a copy of `source` and JIT-compiles the device code
/// for the host (nullptr with `error` set on failure).
std::unique_ptr<target::HostJit> emulateKernels(mlir::ModuleOp source,
                                                std::string &error);

/// The 32 lanes of one warp as fibers.
class WarpEmulator {
public:
  static constexpr int kLanes = 32;
  /// Runs `body(lane)` for every lane to completion, switching lanes at
  /// every shuffle. False when the lanes did not run in lockstep (their
  /// shuffle counts differed at a round's end).
  bool run(const std::function<void(int lane)> &body);
  /// Shuffles (exchanges) each lane made in the last run.
  uint64_t shuffles() const { return exchanges; }
  /// sluice_emu_shuffle_xor, for the JIT's symbol map.
  static uint32_t shuffleXor(uint32_t value, uint32_t offset);

private:
  uint64_t exchanges = 0;
};

} // namespace sluice::gpuemu

#endif // SLUICE_TEST_UNIT_WALKCODEGEN_GPUEMULATION_H
