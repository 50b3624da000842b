/*===- sluice/align_gpu.h - libsluicert: align jobs on a GPU ---------------===*
 *
 * Runs the alignment kernel that `align-to-gpu` builds for an `align` job
 * (`sluicec --emit=ptx`; docs/align.md, "The GPU kernel"): the kernel
 * `sluice_align_<job>` computes, for every pair, exactly what
 * sluice_align_batch computes (sluice/align.h), with one warp of 32
 * threads per pair: the lanes sweep each anti-diagonal's band cells in
 * strides of 32 (lane l: cells l, l + 32, ...), a shuffle butterfly finds
 * the anti-diagonal's best cell (the smallest target index among equal
 * scores), and the Z-drop test runs after each anti-diagonal. Work
 * rebalancing: a global work queue; lane 0 of a warp that finishes takes
 * the next pair with an atomic add on `next`, in `order` (the launcher
 * sorts the pairs by decreasing cell count, longest first), so a long pair
 * does not hold up the others.
 *
 * Without a CUDA driver or device it returns SLUICE_STATUS_UNSUPPORTED
 * with the reason (after checking its arguments).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALIGN_GPU_H
#define SLUICE_ALIGN_GPU_H

#include "sluice/align.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The threads of a block of the alignment kernel: 4 warps. */
#define SLUICE_ALIGN_GPU_BLOCK 128
/* Rows of scratch per warp: H of three anti-diagonals, E and F of two. */
#define SLUICE_ALIGN_GPU_SCRATCH_ROWS SLUICE_ALIGN_SCRATCH_ROWS

/* The kernel's one argument points to this struct in device memory.
 * Addresses are device addresses as uint64_t. align-to-gpu reads the
 * fields by their offsets (compiler/Conversion/AlignToGPU/AlignGpuAbi.h). */
typedef struct sluice_align_gpu_args_t {
  uint64_t queries;        /* u8 base codes (A C G T N: 0..4), pairs back
                              to back */
  uint64_t targets;        /* u8 base codes */
  uint64_t query_offsets;  /* u64 per pair + 1: pair k's query bases */
  uint64_t target_offsets; /* u64 per pair + 1 */
  uint64_t order;          /* u32 per pair: the order the warps take them */
  uint64_t next;           /* u32: the work queue's head, 0 at launch */
  uint64_t scratch;        /* i32: per warp, SLUICE_ALIGN_GPU_SCRATCH_ROWS
                              rows of `row`: H of anti-diagonals r - 2, r - 1
                              and r, E and F of r - 1 and r, rotating */
  uint64_t results;        /* sluice_align_result_t per pair */
  uint64_t count;          /* pairs */
  uint64_t row;            /* the longest target + 2 */
  uint64_t warps;          /* warps launched (scratch holds that many) */
  sluice_align_scoring_t scoring;
  int32_t reserved; /* 0; pads the struct to 8 bytes */
} sluice_align_gpu_args_t;

/* Where the time of a sluice_align_batch_gpu call went. All zero when it
 * failed before the device was opened (no driver, no GPU, bad arguments).
 * The kernel's time is the device's (events around the launch:
 * sluice_gpu_launch_timed), without the context, the PTX JIT or the
 * copies; GCUPS = cells / kernel_seconds / 1e9. */
typedef struct sluice_align_gpu_stats_t {
  double open_seconds;             /* the context (sluice_gpu_open) */
  double load_seconds;             /* the PTX loaded and JIT-compiled */
  double copy_to_device_seconds;   /* allocations and copies up */
  double kernel_seconds;           /* the kernel on the device */
  double launch_seconds;           /* the launch call on the host, from the
                                      kernel lookup to the wait's end */
  double copy_from_device_seconds; /* the results back */
  uint64_t bytes_to_device;
  uint64_t bytes_from_device;
  uint64_t warps;  /* launched (each with its scratch) */
  uint64_t blocks; /* of SLUICE_ALIGN_GPU_BLOCK threads */
  uint64_t cells;  /* sluice_align_band_cells summed over the pairs */
} sluice_align_gpu_stats_t;

/* Aligns pairs k in [0, count) as sluice_align_batch does, with the
 * kernel `kernel` of `ptx` (NUL-terminated PTX text, as `sluicec
 * --emit=ptx` prints it). `device_name` (may be NULL) receives the GPU's
 * name (up to 127 characters and a NUL); `stats` (may be NULL) where the
 * time went. */
SLUICE_API sluice_status_t sluice_align_batch_gpu(
    const char *ptx, const char *kernel, const char *const *queries,
    const uint32_t *query_lengths, const char *const *targets,
    const uint32_t *target_lengths, uint64_t count,
    const sluice_align_scoring_t *scoring, sluice_align_result_t *results,
    char *device_name, sluice_align_gpu_stats_t *stats, sluice_error_t *error);

/* sluice_align_fasta (sluice/align.h) with sluice_align_batch_gpu for the
 * alignments; the report's `threads` is 0 and its `align_seconds`
 * include opening the device and loading the PTX (`stats`, which may be
 * NULL, has the parts). */
SLUICE_API sluice_status_t sluice_align_fasta_gpu(
    const char *query_path, const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, const char *ptx, const char *kernel,
    sluice_align_report_t *report, char *device_name,
    sluice_align_gpu_stats_t *stats, sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALIGN_GPU_H */
