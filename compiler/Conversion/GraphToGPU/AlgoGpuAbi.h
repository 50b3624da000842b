//===- AlgoGpuAbi.h - What algorithm kernels read, from algo_gpu.h -*- C++
//-*-===//
//
// sluice_algo_gpu_ctx_t and sluice_algo_gpu_frontier_t
// (runtime/include/sluice/algo_gpu.h) are the one definition of what the
// kernels graph-to-gpu builds read: the slot indices below come from
// offsetof, and a static_assert binds each struct's size to its slots.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GRAPHTOGPU_ALGOGPUABI_H
#define SLUICE_CONVERSION_GRAPHTOGPU_ALGOGPUABI_H

#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "sluice/algo_gpu.h"

#include <cstddef>
#include <cstdint>

namespace sluice::conversion {

/// 8-byte slots of sluice_algo_gpu_ctx_t: the view first (so the device
/// version of sluice_algo_view(ctx) is ctx itself), then the ids.
inline constexpr int64_t kGpuCtxView =
    offsetof(sluice_algo_gpu_ctx_t, view) / 8;
inline constexpr int64_t kGpuCtxOriginalIds =
    offsetof(sluice_algo_gpu_ctx_t, original_ids) / 8;
static_assert(kGpuCtxView == 0, "the view must come first");
static_assert(sizeof(sluice_algo_gpu_ctx_t) == (kGpuCtxOriginalIds + 1) * 8,
              "a field of sluice_algo_gpu_ctx_t is not known here");

/// 8-byte slots of sluice_algo_gpu_frontier_t.
inline constexpr int64_t kGpuFrontierBits =
    offsetof(sluice_algo_gpu_frontier_t, bits) / 8;
inline constexpr int64_t kGpuFrontierList =
    offsetof(sluice_algo_gpu_frontier_t, list) / 8;
inline constexpr int64_t kGpuFrontierCount =
    offsetof(sluice_algo_gpu_frontier_t, count) / 8;
static_assert(sizeof(sluice_algo_gpu_frontier_t) == 3 * 8,
              "a field of sluice_algo_gpu_frontier_t is not known here");

// The runtime reads the environment's slots by algo_gpu.h's numbers.
static_assert(int64_t(EnvSlot::Props) == SLUICE_ALGO_ENV_PROPS &&
                  int64_t(EnvSlot::Out) == SLUICE_ALGO_ENV_OUT &&
                  int64_t(EnvSlot::List) == SLUICE_ALGO_ENV_LIST &&
                  int64_t(EnvSlot::Bitmap) == SLUICE_ALGO_ENV_BITMAP &&
                  int64_t(EnvSlot::Partials) == SLUICE_ALGO_ENV_PARTIALS &&
                  int64_t(EnvSlot::Blocks) == SLUICE_ALGO_ENV_BLOCKS &&
                  int64_t(EnvSlot::Tiled) == SLUICE_ALGO_ENV_TILED &&
                  int64_t(EnvSlot::FirstCaptured) == SLUICE_ALGO_ENV_CAPTURED,
              "EnvSlot and algo_gpu.h's SLUICE_ALGO_ENV_* differ");

static_assert(kGpuSyncBegin == SLUICE_ALGO_GPU_SYNC_BEGIN &&
                  kGpuSyncHost == SLUICE_ALGO_GPU_SYNC_HOST &&
                  kGpuSyncEnd == SLUICE_ALGO_GPU_SYNC_END,
              "kGpuSync* and algo_gpu.h's SLUICE_ALGO_GPU_SYNC_* differ");

inline constexpr int64_t kGpuBlock = SLUICE_ALGO_GPU_BLOCK;
inline constexpr int64_t kGpuLanes = SLUICE_ALGO_GPU_LANES;
inline constexpr int64_t kGpuInfoVersion = SLUICE_ALGO_GPU_INFO_VERSION;
inline constexpr int64_t kGpuInfoMaxProps = SLUICE_ALGO_GPU_INFO_MAX_PROPS;

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_GRAPHTOGPU_ALGOGPUABI_H
