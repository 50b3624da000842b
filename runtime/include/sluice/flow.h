/*===- sluice/flow.h - libsluicert: executing flow schedules ---------------===*
 *
 * Carries out a communication schedule (what the SluiceFlow solvers of the
 * compiler produce, see docs/flows.md) on real memory and checks it:
 *
 *  - every device of the schedule owns a memory region; the runtime
 *    allocates it, fills it with a deterministic per-byte pattern and, when
 *    the run ends, checks every byte;
 *  - every transfer moves a byte range of its source device's region into a
 *    byte range of its destination device's region, chunk by chunk, along a
 *    path of links; a chunk leaves the source when the transfer's rate
 *    profile has produced all of its bytes (never ahead of the schedule);
 *  - host backend: every link is a rate-limited channel (one thread per link
 *    in use, a virtual clock at the link's capacity divided by the time
 *    scale) and chunks move hop by hop, store-and-forward, through a copy
 *    per hop;
 *  - CUDA backend: GPU devices live in GPU memory and chunks go end to end
 *    through cuMemcpyPeerAsync / cuMemcpyAsync (the hardware routes them);
 *    the CUDA driver is loaded with dlopen("libcuda.so.1") at run time, so
 *    libsluicert has no link-time CUDA dependency.
 *
 * After the run every chunk must have been delivered exactly once, each
 * commodity's destination bytes must have the CRC-32 of its source bytes,
 * and no byte outside the destination ranges may have changed. The report
 * gives the achieved finish of every transfer next to the predicted one.
 *
 * Units: bytes, seconds of the schedule, bytes per second. The time scale
 * stretches the schedule: a schedule second takes `time_scale` wall seconds
 * and every capacity and rate is divided by it, so a schedule predicted in
 * milliseconds can run in a measurable wall time and one predicted in
 * seconds in a short test.
 *
 * See docs/flows.md ("Executor").
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_FLOW_H
#define SLUICE_FLOW_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a device's region lives (CUDA backend; the host backend keeps every
 * region in host memory). */
typedef enum sluice_flow_memory_e {
  /* Host memory (pinned under the CUDA backend). Also CPUs, NVMe drives,
   * NICs: anything that is not a GPU. */
  SLUICE_FLOW_MEMORY_HOST = 0,
  /* GPU memory of CUDA device `gpu_ordinal` modulo the number of GPUs. */
  SLUICE_FLOW_MEMORY_GPU = 1
} sluice_flow_memory_t;

typedef struct sluice_flow_device_t {
  /* For messages and reports; may be NULL. */
  const char *name;
  /* Size of the device's region; 0 for a device that only forwards (a
   * switch). Every transfer's byte ranges must lie inside it. */
  uint64_t memory_bytes;
  sluice_flow_memory_t memory;
  int32_t gpu_ordinal;
} sluice_flow_device_t;

/* A directed link (the two directions of a cable are two links). */
typedef struct sluice_flow_link_t {
  uint32_t from;
  uint32_t to;
  /* Bytes per second; finite and positive. */
  double capacity;
} sluice_flow_link_t;

/* A stretch of time [start, end] in which a transfer sends `rate` B/s. */
typedef struct sluice_flow_segment_t {
  double start;
  double end;
  double rate;
} sluice_flow_segment_t;

typedef struct sluice_flow_transfer_t {
  /* Transfers with the same commodity id are checked together: the CRC-32
   * of their destination bytes, concatenated in transfer order, must equal
   * that of their source bytes. */
  uint32_t commodity;
  uint32_t source;
  uint32_t destination;
  /* Bytes [source_offset, source_offset + bytes) of the source's region go
   * to [destination_offset, destination_offset + bytes) of the
   * destination's. */
  uint64_t source_offset;
  uint64_t destination_offset;
  uint64_t bytes;
  /* Link ids from source to destination: path[0] leaves the source, each
   * link starts where the previous one ends, the last ends at the
   * destination. */
  const uint32_t *path;
  uint32_t path_length;
  /* Constant rate (B/s) from `start` (s) until the bytes are sent; ignored
   * when `segments` is given. */
  double rate;
  double start;
  /* Optional piecewise-constant rate profile, contiguous, integrating to
   * `bytes` (within 1e-6 * bytes + 1 byte, room for a schedule's fractional
   * bytes rounded to whole ones); NULL/0 for the constant rate above. */
  const sluice_flow_segment_t *segments;
  uint32_t num_segments;
  /* Chunk size in bytes; 0 sends the transfer as one chunk. */
  uint64_t chunk_bytes;
  /* When the schedule predicts the last byte arrives (s); 0 means the end
   * of the rate profile. */
  double predicted_finish;
} sluice_flow_transfer_t;

typedef struct sluice_flow_schedule_t {
  const sluice_flow_device_t *devices;
  uint32_t num_devices;
  const sluice_flow_link_t *links;
  uint32_t num_links;
  const sluice_flow_transfer_t *transfers;
  uint32_t num_transfers;
  /* The schedule's makespan (s); 0 means the latest predicted finish. */
  double predicted_makespan;
} sluice_flow_schedule_t;

typedef enum sluice_flow_backend_e {
  /* Host threads, one rate-limited channel per link, hop by hop. */
  SLUICE_FLOW_BACKEND_HOST = 0,
  /* CUDA driver copies, end to end; SLUICE_STATUS_UNSUPPORTED when
   * libcuda.so.1 or a GPU is missing. */
  SLUICE_FLOW_BACKEND_CUDA = 1
} sluice_flow_backend_t;

/* Test hook: one deliberate fault, to show that the checks can fail. */
typedef enum sluice_flow_fault_kind_e {
  SLUICE_FLOW_FAULT_NONE = 0,
  /* The chunk is delivered with one byte flipped. */
  SLUICE_FLOW_FAULT_CORRUPT = 1,
  /* The chunk is lost on its last hop. */
  SLUICE_FLOW_FAULT_DROP = 2,
  /* The chunk is delivered twice. */
  SLUICE_FLOW_FAULT_DUPLICATE = 3,
  /* The chunk lands one byte past its place. */
  SLUICE_FLOW_FAULT_MISPLACE = 4
} sluice_flow_fault_kind_t;

typedef struct sluice_flow_fault_t {
  sluice_flow_fault_kind_t kind;
  uint32_t transfer;
  uint64_t chunk;
} sluice_flow_fault_t;

typedef struct sluice_flow_options_t {
  /* Wall seconds per schedule second; finite and positive. Default 1. */
  double time_scale;
  /* Relative slack of the capacity check (the rates crossing a link at any
   * moment may sum to capacity * (1 + this)). Default 1e-6. */
  double rate_tolerance;
  /* Refuse schedules with more chunks than this in total. Default 2^22. */
  uint64_t max_chunks;
  /* Refuse schedules whose regions total more than this. Default 4 GiB. */
  uint64_t max_memory_bytes;
  /* Refuse schedules whose last rate profile ends later than this many
   * wall seconds (schedule seconds times the time scale). Default 3600. */
  double max_wall_seconds;
  sluice_flow_backend_t backend;
  /* Seed of the data patterns. */
  uint64_t seed;
  sluice_flow_fault_t fault;
} sluice_flow_options_t;

/* Fills `options` with the defaults above (host backend, no fault). */
SLUICE_API void sluice_flow_options_init(sluice_flow_options_t *options);

typedef struct sluice_flow_transfer_report_t {
  uint64_t bytes;
  uint64_t chunks;
  /* Deliveries seen, summed over chunks (chunks when all is well). */
  uint64_t deliveries;
  /* Chunks delivered zero times / more than once. */
  uint64_t lost_chunks;
  uint64_t duplicated_chunks;
  /* Destination bytes that differ from the source bytes. */
  uint64_t wrong_bytes;
  /* Schedule seconds (wall seconds / time scale since the run began). */
  double predicted_finish;
  double achieved_finish;
} sluice_flow_transfer_report_t;

typedef struct sluice_flow_commodity_report_t {
  uint32_t commodity;
  uint64_t bytes;
  /* CRC-32 (zlib's polynomial) of the source bytes and of the delivered
   * destination bytes, each concatenated in transfer order. */
  uint32_t source_crc;
  uint32_t destination_crc;
} sluice_flow_commodity_report_t;

typedef struct sluice_flow_report_t {
  sluice_flow_backend_t backend;
  double time_scale;
  /* Schedule seconds. */
  double predicted_makespan;
  double achieved_makespan;
  /* Wall seconds from the first release to the last delivery. */
  double wall_seconds;
  uint64_t bytes;
  uint64_t chunks;
  /* Chunk copies over links (chunks times hops, host backend). */
  uint64_t chunk_hops;
  uint64_t lost_chunks;
  uint64_t duplicated_chunks;
  uint64_t wrong_bytes;
  /* Bytes outside every destination range that changed. */
  uint64_t stray_bytes;
  /* Commodities whose CRCs differ. */
  uint32_t crc_mismatches;
  /* 1 if every check passed. */
  int verified;
  uint32_t num_transfers;
  sluice_flow_transfer_report_t *transfers;
  uint32_t num_commodities;
  /* Ascending commodity id. */
  sluice_flow_commodity_report_t *commodities;
} sluice_flow_report_t;

/* Checks `schedule` (see sluice_flow_validate), allocates the regions, runs
 * the transfers and checks the result. On success *report receives a report
 * to free with sluice_flow_report_free. If the run completes but a check
 * fails the call returns SLUICE_STATUS_DATA_CORRUPT with the first failure
 * in `error` and -- unlike other calls -- still hands out the report
 * (verified = 0) so that the caller can see which transfers failed.
 * A malformed schedule gives SLUICE_STATUS_INVALID_ARGUMENT naming the
 * first offending transfer, link or device; too many chunks or too much
 * memory gives SLUICE_STATUS_OUT_OF_RANGE. */
SLUICE_API sluice_status_t sluice_flow_execute(
    const sluice_flow_schedule_t *schedule,
    const sluice_flow_options_t *options, sluice_flow_report_t **report,
    sluice_error_t *error);

/* The checks of sluice_flow_execute without running anything: every link
 * joins two valid distinct devices with a finite positive capacity; every
 * transfer has valid distinct endpoints, a path of valid links that is
 * connected from its source to its destination, byte ranges inside the
 * regions, a finite positive rate (or a valid segment list) and a finite
 * non-negative start; destination ranges overlap neither each other nor any
 * source range on the same device; and at every moment the rates crossing
 * each link sum to at most its capacity (times 1 + rate_tolerance).
 * `options` may be NULL (defaults). */
SLUICE_API sluice_status_t sluice_flow_validate(
    const sluice_flow_schedule_t *schedule,
    const sluice_flow_options_t *options, sluice_error_t *error);

/* NULL is allowed. */
SLUICE_API void sluice_flow_report_free(sluice_flow_report_t *report);

/* 1 if the CUDA backend can run here (libcuda.so.1 loads, cuInit succeeds
 * and at least one GPU is visible), else 0; `reason` (may be NULL) gets why
 * not, NUL terminated and truncated to `capacity`. */
SLUICE_API int sluice_flow_cuda_available(char *reason, size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_FLOW_H */
