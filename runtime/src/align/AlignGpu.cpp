//===- AlignGpu.cpp - sluice_align_batch_gpu: align jobs on a GPU ---------===//
//
// The host side of the kernel align-to-gpu builds (sluice/align_gpu.h):
// the pairs' base codes and offsets, the order of the work queue (longest
// pairs first), one sluice_align_gpu_args_t in device memory, one launch
// of `warps` warps (blocks of SLUICE_ALIGN_GPU_BLOCK threads), the results
// copied back.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/align/AlignGpu.h"

#include "sluice/gpu.h"

#include "runtime/src/Error.h"
#include "runtime/src/align/Fasta.h"
#include "runtime/src/align/Wavefront.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <string>

using namespace sluice::rt;
using namespace sluice::rt::align;

void sluice::rt::align::prepareGpuBatch(const char *const *queries,
                                        const uint32_t *queryLengths,
                                        const char *const *targets,
                                        const uint32_t *targetLengths,
                                        uint64_t count, GpuBatch &batch) {
  batch.queryOffsets.assign(1, 0);
  batch.targetOffsets.assign(1, 0);
  batch.queries.clear();
  batch.targets.clear();
  uint64_t longest = 0;
  for (uint64_t k = 0; k < count; ++k) {
    for (uint32_t j = 0; j < queryLengths[k]; ++j)
      batch.queries.push_back(baseCode(queries[k][j]));
    for (uint32_t i = 0; i < targetLengths[k]; ++i)
      batch.targets.push_back(baseCode(targets[k][i]));
    batch.queryOffsets.push_back(batch.queries.size());
    batch.targetOffsets.push_back(batch.targets.size());
    longest = std::max<uint64_t>(longest, targetLengths[k]);
  }
  // The work queue hands out the longest pairs (by anti-diagonals, which
  // bound a warp's steps) first; ties in input order.
  batch.order.resize(count);
  std::iota(batch.order.begin(), batch.order.end(), 0u);
  std::stable_sort(batch.order.begin(), batch.order.end(),
                   [&](uint32_t a, uint32_t b) {
                     return uint64_t(queryLengths[a]) + targetLengths[a] >
                            uint64_t(queryLengths[b]) + targetLengths[b];
                   });
  batch.row = longest + 2;
  uint64_t perWarp = kGpuScratchRows * batch.row * sizeof(int32_t);
  batch.warps = std::max<uint64_t>(
      1, std::min({count, kGpuMaxWarps, kGpuMaxScratchBytes / perWarp}));
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
              "sluice_align_batch_gpu: " + message);
}

/// Device buffers, freed with the device.
class DeviceSession {
public:
  ~DeviceSession() {
    for (uint64_t p : buffers)
      sluice_gpu_free(device, p);
    sluice_gpu_module_free(module);
    sluice_gpu_close(device);
  }
  /// Allocates `bytes` (at least 1) and fills them from `host` when given.
  sluice_status_t upload(const void *host, size_t bytes, uint64_t *out,
                         sluice_error_t *error) {
    sluice_status_t s =
        sluice_gpu_alloc(device, std::max<size_t>(bytes, 1), out, error);
    if (s != SLUICE_STATUS_OK)
      return s;
    buffers.push_back(*out);
    return host && bytes
               ? sluice_gpu_copy_to_device(device, *out, host, bytes, error)
               : SLUICE_STATUS_OK;
  }
  sluice_gpu_device_t *device = nullptr;
  sluice_gpu_module_t *module = nullptr;

private:
  std::vector<uint64_t> buffers;
};

} // namespace

extern "C" {

SLUICE_API sluice_status_t sluice_align_batch_gpu(
    const char *ptx, const char *kernel, const char *const *queries,
    const uint32_t *query_lengths, const char *const *targets,
    const uint32_t *target_lengths, uint64_t count,
    const sluice_align_scoring_t *scoring, sluice_align_result_t *results,
    char *device_name, sluice_align_gpu_stats_t *stats, sluice_error_t *error) {
  sluice_align_gpu_stats_t unused;
  sluice_align_gpu_stats_t &st = stats ? *stats : unused;
  st = sluice_align_gpu_stats_t{};
  if (sluice_status_t s = sluice_align_check_scoring(scoring, error))
    return s;
  if (!ptx || !kernel || !*kernel)
    return invalid(error, "the PTX or the kernel name is NULL or empty");
  if (count > 0 &&
      (!queries || !query_lengths || !targets || !target_lengths || !results))
    return invalid(error, "a sequence, length or result array is NULL");
  if (count > UINT32_MAX)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "sluice_align_batch_gpu: " + std::to_string(count) +
                    " pairs (at most " + std::to_string(UINT32_MAX) + ")");
  for (uint64_t k = 0; k < count; ++k)
    if (query_lengths[k] > kMaxSequenceLength ||
        target_lengths[k] > kMaxSequenceLength)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "pair " + std::to_string(k) + " has a sequence longer than " +
                      std::to_string(kMaxSequenceLength) + " bases");
  GpuBatch batch;
  prepareGpuBatch(queries, query_lengths, targets, target_lengths, count,
                  batch);

  DeviceSession s;
  auto start = std::chrono::steady_clock::now();
  if (sluice_status_t e = sluice_gpu_open(nullptr, &s.device, error))
    return e;
  st.open_seconds = secondsSince(start);
  // What the launch will compute (zero stats mean: no device opened).
  for (uint64_t k = 0; k < count; ++k)
    st.cells += sluice_align_band_cells(query_lengths[k], target_lengths[k],
                                        scoring->band);
  st.warps = count ? batch.warps : 0;
  const uint32_t warpsPerBlock = SLUICE_ALIGN_GPU_BLOCK / 32;
  st.blocks = (st.warps + warpsPerBlock - 1) / warpsPerBlock;
  if (device_name) {
    std::strncpy(device_name, sluice_gpu_device_name(s.device), 127);
    device_name[127] = 0;
  }
  if (count == 0)
    return SLUICE_STATUS_OK;
  start = std::chrono::steady_clock::now();
  if (sluice_status_t e =
          sluice_gpu_module_load_ptx(s.device, ptx, &s.module, error))
    return e;
  st.load_seconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  sluice_align_gpu_args_t args{};
  uint32_t zero = 0;
  const uint64_t scratchInts = batch.warps * kGpuScratchRows * batch.row;
  struct Upload {
    const void *host;
    size_t bytes;
    uint64_t *field;
  } uploads[] = {
      {batch.queries.data(), batch.queries.size(), &args.queries},
      {batch.targets.data(), batch.targets.size(), &args.targets},
      {batch.queryOffsets.data(), 8 * batch.queryOffsets.size(),
       &args.query_offsets},
      {batch.targetOffsets.data(), 8 * batch.targetOffsets.size(),
       &args.target_offsets},
      {batch.order.data(), 4 * batch.order.size(), &args.order},
      {&zero, sizeof(zero), &args.next},
      {nullptr, 4 * scratchInts, &args.scratch},
      {nullptr, sizeof(sluice_align_result_t) * count, &args.results}};
  for (const Upload &u : uploads) {
    if (sluice_status_t e = s.upload(u.host, u.bytes, u.field, error))
      return e;
    if (u.host)
      st.bytes_to_device += u.bytes;
  }
  args.count = count;
  args.row = batch.row;
  args.warps = batch.warps;
  args.scoring = *scoring;
  uint64_t dArgs = 0;
  if (sluice_status_t e = s.upload(&args, sizeof(args), &dArgs, error))
    return e;
  st.bytes_to_device += sizeof(args);
  st.copy_to_device_seconds = secondsSince(start);
  uint32_t grid[3] = {static_cast<uint32_t>(st.blocks), 1, 1};
  uint32_t block[3] = {SLUICE_ALIGN_GPU_BLOCK, 1, 1};
  void *kernelArgs[] = {&dArgs};
  start = std::chrono::steady_clock::now();
  if (sluice_status_t e =
          sluice_gpu_launch_timed(s.module, kernel, grid, block, 0, kernelArgs,
                                  &st.kernel_seconds, error))
    return e;
  st.launch_seconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  const uint64_t back = sizeof(sluice_align_result_t) * count;
  if (sluice_status_t e = sluice_gpu_copy_from_device(
          s.device, results, args.results, back, error))
    return e;
  st.bytes_from_device = back;
  st.copy_from_device_seconds = secondsSince(start);
  return SLUICE_STATUS_OK;
}

SLUICE_API sluice_status_t sluice_align_fasta_gpu(
    const char *query_path, const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, const char *ptx, const char *kernel,
    sluice_align_report_t *report, char *device_name,
    sluice_align_gpu_stats_t *stats, sluice_error_t *error) {
  return alignFasta(
      query_path, target_path, output, scoring, /*threads=*/0,
      [&](const char *const *q, const uint32_t *ql, const char *const *t,
          const uint32_t *tl, uint64_t n, sluice_align_result_t *results,
          sluice_error_t *error) {
        return sluice_align_batch_gpu(ptx, kernel, q, ql, t, tl, n, scoring,
                                      results, device_name, stats, error);
      },
      report, error);
}

} // extern "C"
