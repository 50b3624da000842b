//===- AlignGpu.h - The host side of the alignment kernel -------*- C++ -*-===//
//
// What sluice_align_batch_gpu (sluice/align_gpu.h) puts in device memory,
// built on the host: the pairs' base codes back to back, their offsets,
// the order the warps take them (decreasing cell count: the longest pairs
// first, so the work queue ends with short pairs) and the sizes of the
// per-warp scratch. The unit tests run a lock-step emulation of the
// kernel's warp over exactly these arrays (test/Unit/Align).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALIGN_ALIGNGPU_H
#define SLUICE_RUNTIME_SRC_ALIGN_ALIGNGPU_H

#include "sluice/align_gpu.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace sluice::rt::align {

constexpr uint64_t kGpuScratchRows = SLUICE_ALIGN_GPU_SCRATCH_ROWS;
/// The most warps a launch runs, and the most scratch it allocates.
constexpr uint64_t kGpuMaxWarps = 4096;
constexpr uint64_t kGpuMaxScratchBytes = uint64_t(512) << 20;

struct GpuBatch {
  std::vector<uint8_t> queries, targets;
  std::vector<uint64_t> queryOffsets, targetOffsets;
  std::vector<uint32_t> order;
  uint64_t row = 2;   ///< the longest target + 2
  uint64_t warps = 1; ///< warps to launch (each with its scratch)
};

/// Fills `batch` for pairs [0, count) (lengths checked by the caller).
void prepareGpuBatch(const char *const *queries, const uint32_t *queryLengths,
                     const char *const *targets, const uint32_t *targetLengths,
                     uint64_t count, GpuBatch &batch);

/// Aligns pairs [0, n) into `results` (sluice_align_batch's arguments).
using BatchAligner = std::function<sluice_status_t(
    const char *const *queries, const uint32_t *queryLengths,
    const char *const *targets, const uint32_t *targetLengths, uint64_t n,
    sluice_align_result_t *results, sluice_error_t *error)>;

/// sluice_align_fasta with `align` for the batch (Align.cpp); `threads`
/// goes to the report.
sluice_status_t alignFasta(const char *queryPath, const char *targetPath,
                           const char *output,
                           const sluice_align_scoring_t *scoring,
                           uint32_t threads, const BatchAligner &align,
                           sluice_align_report_t *report,
                           sluice_error_t *error);

} // namespace sluice::rt::align

#endif // SLUICE_RUNTIME_SRC_ALIGN_ALIGNGPU_H
