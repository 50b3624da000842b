//===- GnnGpuAbi.h - What the aggregation kernels read, from gnn_gpu.h ----===//
//
// sluice_gnn_gpu_forward_args_t and sluice_gnn_gpu_backward_args_t
// (runtime/include/sluice/gnn_gpu.h) are the one definition of the
// kernels' arguments: the byte offsets below come from offsetof, and
// static_asserts bind the structs' sizes to what gnn-to-gpu reads.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GNNTOGPU_GNNGPUABI_H
#define SLUICE_CONVERSION_GNNTOGPU_GNNGPUABI_H

#include "sluice/gnn_gpu.h"

#include <cstddef>
#include <cstdint>

namespace sluice::conversion::gnn_abi {

/// Byte offsets of sluice_gnn_gpu_forward_args_t's fields.
namespace fwd {
inline constexpr int64_t kOffsets =
    offsetof(sluice_gnn_gpu_forward_args_t, offsets);
inline constexpr int64_t kNbr = offsetof(sluice_gnn_gpu_forward_args_t, nbr);
inline constexpr int64_t kCoef = offsetof(sluice_gnn_gpu_forward_args_t, coef);
inline constexpr int64_t kSelfCoef =
    offsetof(sluice_gnn_gpu_forward_args_t, self_coef);
inline constexpr int64_t kH = offsetof(sluice_gnn_gpu_forward_args_t, h);
inline constexpr int64_t kAgg = offsetof(sluice_gnn_gpu_forward_args_t, agg);
inline constexpr int64_t kNumDst =
    offsetof(sluice_gnn_gpu_forward_args_t, num_dst);
inline constexpr int64_t kIn = offsetof(sluice_gnn_gpu_forward_args_t, in);
static_assert(sizeof(sluice_gnn_gpu_forward_args_t) == 8 * 8 && kIn == 7 * 8,
              "a field of sluice_gnn_gpu_forward_args_t is not known here");
} // namespace fwd

/// Byte offsets of sluice_gnn_gpu_backward_args_t's fields.
namespace bwd {
inline constexpr int64_t kOffsets =
    offsetof(sluice_gnn_gpu_backward_args_t, offsets);
inline constexpr int64_t kSlot = offsetof(sluice_gnn_gpu_backward_args_t, slot);
inline constexpr int64_t kCoef = offsetof(sluice_gnn_gpu_backward_args_t, coef);
inline constexpr int64_t kDa = offsetof(sluice_gnn_gpu_backward_args_t, da);
inline constexpr int64_t kDh = offsetof(sluice_gnn_gpu_backward_args_t, dh);
inline constexpr int64_t kNumSrc =
    offsetof(sluice_gnn_gpu_backward_args_t, num_src);
inline constexpr int64_t kIn = offsetof(sluice_gnn_gpu_backward_args_t, in);
static_assert(sizeof(sluice_gnn_gpu_backward_args_t) == 7 * 8 && kIn == 6 * 8,
              "a field of sluice_gnn_gpu_backward_args_t is not known here");
} // namespace bwd

/// The threads of a block (the launcher's and the JSON's).
inline constexpr int64_t kBlock = SLUICE_GNN_GPU_BLOCK;

} // namespace sluice::conversion::gnn_abi

#endif // SLUICE_CONVERSION_GNNTOGPU_GNNGPUABI_H
