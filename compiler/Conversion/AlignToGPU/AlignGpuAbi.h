//===- AlignGpuAbi.h - What the alignment kernel reads, from align_gpu.h -===//
//
// sluice_align_gpu_args_t (runtime/include/sluice/align_gpu.h) is the one
// definition of the alignment kernel's argument: the byte offsets below
// come from offsetof, and static_asserts bind the struct's size and the
// result's layout to what align-to-gpu reads and writes.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_ALIGNTOGPU_ALIGNGPUABI_H
#define SLUICE_CONVERSION_ALIGNTOGPU_ALIGNGPUABI_H

#include "sluice/align_gpu.h"

#include <cstddef>
#include <cstdint>

namespace sluice::conversion::align_abi {

/// Byte offsets of sluice_align_gpu_args_t's fields.
inline constexpr int64_t kQueries = offsetof(sluice_align_gpu_args_t, queries);
inline constexpr int64_t kTargets = offsetof(sluice_align_gpu_args_t, targets);
inline constexpr int64_t kQueryOffsets =
    offsetof(sluice_align_gpu_args_t, query_offsets);
inline constexpr int64_t kTargetOffsets =
    offsetof(sluice_align_gpu_args_t, target_offsets);
inline constexpr int64_t kOrder = offsetof(sluice_align_gpu_args_t, order);
inline constexpr int64_t kNext = offsetof(sluice_align_gpu_args_t, next);
inline constexpr int64_t kScratch = offsetof(sluice_align_gpu_args_t, scratch);
inline constexpr int64_t kResults = offsetof(sluice_align_gpu_args_t, results);
inline constexpr int64_t kCount = offsetof(sluice_align_gpu_args_t, count);
inline constexpr int64_t kRow = offsetof(sluice_align_gpu_args_t, row);
inline constexpr int64_t kWarps = offsetof(sluice_align_gpu_args_t, warps);
inline constexpr int64_t kScoring = offsetof(sluice_align_gpu_args_t, scoring);
inline constexpr int64_t kMatch =
    kScoring + offsetof(sluice_align_scoring_t, match);
inline constexpr int64_t kMismatch =
    kScoring + offsetof(sluice_align_scoring_t, mismatch);
inline constexpr int64_t kGapOpen =
    kScoring + offsetof(sluice_align_scoring_t, gap_open);
inline constexpr int64_t kGapExtend =
    kScoring + offsetof(sluice_align_scoring_t, gap_extend);
inline constexpr int64_t kBand =
    kScoring + offsetof(sluice_align_scoring_t, band);
inline constexpr int64_t kZdrop =
    kScoring + offsetof(sluice_align_scoring_t, zdrop);
static_assert(sizeof(sluice_align_gpu_args_t) == kScoring + 6 * 4 + 4 + 4,
              "a field of sluice_align_gpu_args_t is not known here");
static_assert(sizeof(sluice_align_scoring_t) == 6 * 4,
              "a field of sluice_align_scoring_t is not known here");

/// The result is seven int32 in this order; the kernel stores them so.
inline constexpr int64_t kResultFields = 7;
static_assert(sizeof(sluice_align_result_t) == kResultFields * 4 &&
                  offsetof(sluice_align_result_t, max_score) == 0 &&
                  offsetof(sluice_align_result_t, max_query_end) == 4 &&
                  offsetof(sluice_align_result_t, max_target_end) == 8 &&
                  offsetof(sluice_align_result_t, query_end_score) == 12 &&
                  offsetof(sluice_align_result_t, query_end_target) == 16 &&
                  offsetof(sluice_align_result_t, global_score) == 20 &&
                  offsetof(sluice_align_result_t, zdropped) == 24,
              "sluice_align_result_t's layout changed");

/// Scratch rows per warp (H of three anti-diagonals, E and F of two), the
/// threads of a block, the score of an unreached cell.
inline constexpr int64_t kScratchRows = SLUICE_ALIGN_GPU_SCRATCH_ROWS;
inline constexpr int64_t kBlock = SLUICE_ALIGN_GPU_BLOCK;
inline constexpr int32_t kNegInf = SLUICE_ALIGN_NEG_INF;
static_assert(kBlock % 32 == 0, "a block holds whole warps");

} // namespace sluice::conversion::align_abi

#endif // SLUICE_CONVERSION_ALIGNTOGPU_ALIGNGPUABI_H
