/*===- sluice/tier.h - libsluicert: tiered tensor memory ------------------===*
 *
 * Named tensors (byte buffers) that live in a home memory tier (an emulated
 * device memory with a byte budget, or host memory with its own budget) and
 * can be swapped out to files on disk and prefetched back through the
 * asynchronous I/O engine (sluice/io.h).
 *
 *  - Every swap-out writes a new file "<name>.<generation>.swap" (a 4 KiB
 *    header with the CRC-32C of the payload, then the payload) through a
 *    temporary ".<name>.<generation>.swap.tmp-<pid>" that is renamed into
 *    place only when every byte is written; the previous copy is deleted
 *    only after that. A failed write leaves the previous good copy and the
 *    tensor in memory untouched. Creating or opening a manager deletes the
 *    temporaries that processes no longer alive left in the directory (a
 *    killed run); those of live processes stay.
 *  - A prefetch reads into a fresh buffer and verifies header and CRC-32C
 *    before the tensor becomes resident; a mismatch is DATA_CORRUPT and the
 *    tensor stays on disk.
 *  - Operations are asynchronous: swap_out and prefetch start I/O and
 *    return; wait completes them and reports their errors. Operations whose
 *    I/O has finished are also completed by any later call (to release
 *    memory early); an error found so is reported by the next wait,
 *    swap_out or prefetch naming that tensor (never lost).
 *  - commit writes a manifest (atomically) naming the current copy of every
 *    persistent tensor; sluice_tier_manager_open restores exactly that state
 *    after a failure or a restart.
 *
 * A manager is used from one thread. See docs/offload-runtime.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_TIER_H
#define SLUICE_TIER_H

#include "sluice/io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_tier_manager_t sluice_tier_manager_t;
typedef uint32_t sluice_tensor_t;

typedef enum sluice_tier_e {
  SLUICE_TIER_DEVICE = 0, /* emulated device memory (own budget) */
  SLUICE_TIER_HOST = 1,   /* host memory */
  SLUICE_TIER_DISK = 2    /* only a swap file (location, never a home) */
} sluice_tier_t;

typedef struct sluice_tier_options_t {
  /* Directory of the swap files; must exist; the manager owns the files
   * named *.swap in it and its temporaries .*.swap.tmp-<pid> (those of
   * processes that are gone are deleted; those of live ones are not). */
  const char *swap_dir;
  /* Borrowed engine, must outlive the manager. */
  sluice_io_engine_t *engine;
  /* Bytes each memory tier may hold (resident plus being prefetched).
   * Defaults: device 0 (no device tier), host UINT64_MAX. */
  uint64_t device_budget;
  uint64_t host_budget;
  /* O_DIRECT swap files (default 1). */
  int direct;
  /* Durable swap files: RWF_DSYNC writes and a directory fsync before a
   * copy counts as written (default 1). */
  int durable;
  /* The device tier: 0 (default) emulated (host memory under the device
   * budget); 1 real GPU memory of GPU `cuda_ordinal` through the CUDA
   * driver (dlopen, no link dependency): resident device tensors live in
   * cuMemAlloc'd memory, and move through pinned staging buffers
   * (cuMemHostAlloc) with cuMemcpyHtoDAsync/DtoHAsync on two streams.
   * Host code reads and writes them through a host view (see
   * sluice_tier_park). Without a driver or GPU: UNSUPPORTED. */
  int device_cuda;
  int cuda_ordinal;
} sluice_tier_options_t;

SLUICE_API void sluice_tier_options_init(sluice_tier_options_t *options);

SLUICE_API sluice_status_t sluice_tier_manager_create(
    const sluice_tier_options_t *options, sluice_tier_manager_t **out_manager,
    sluice_error_t *error);

/* Opens the state saved by sluice_tier_commit in `manifest_path`: every
 * persistent tensor it lists, on disk at its committed copy. Each copy is
 * read whole and checked against the manifest (size, header, CRC-32C of the
 * payload): a missing file is NOT_FOUND, a damaged one DATA_CORRUPT naming
 * the tensor and the file ("the committed copy of tensor 'p' is corrupt:
 * checksum mismatch: ..."). Swap files in the directory that the manifest
 * does not name (newer, uncommitted copies; temporaries) are deleted. */
SLUICE_API sluice_status_t sluice_tier_manager_open(
    const sluice_tier_options_t *options, const char *manifest_path,
    sluice_tier_manager_t **out_manager, sluice_error_t *error);

/* Waits for all I/O, frees every buffer, deletes the swap files of
 * non-persistent tensors and uncommitted copies; committed copies stay. */
SLUICE_API void sluice_tier_manager_destroy(sluice_tier_manager_t *manager);

enum {
  /* Part of the committed state (parameters, optimizer states). */
  SLUICE_TIER_PERSISTENT = 1u << 0
};

/* Creates a zero-filled tensor resident in `home` (DEVICE or HOST) under a
 * unique name of [A-Za-z0-9_.-] (at most 200 characters). Budget exceeded:
 * OUT_OF_MEMORY. */
SLUICE_API sluice_status_t sluice_tier_tensor_create(
    sluice_tier_manager_t *manager, const char *name, uint64_t bytes,
    sluice_tier_t home, uint32_t flags, sluice_tensor_t *out_tensor,
    sluice_error_t *error);

SLUICE_API sluice_status_t sluice_tier_tensor_find(
    const sluice_tier_manager_t *manager, const char *name,
    sluice_tensor_t *out_tensor, sluice_error_t *error);

SLUICE_API uint32_t sluice_tier_tensor_count(const sluice_tier_manager_t *m);
SLUICE_API const char *sluice_tier_tensor_name(const sluice_tier_manager_t *m,
                                               sluice_tensor_t tensor);
SLUICE_API uint64_t sluice_tier_tensor_bytes(const sluice_tier_manager_t *m,
                                             sluice_tensor_t tensor);

typedef enum sluice_tensor_state_e {
  SLUICE_TENSOR_RESIDENT = 0,     /* in its home tier, usable */
  SLUICE_TENSOR_SWAPPING_OUT = 1, /* resident, readable, being written */
  SLUICE_TENSOR_ON_DISK = 2,      /* only the swap file */
  SLUICE_TENSOR_SWAPPING_IN = 3,  /* being read back */
  SLUICE_TENSOR_EMPTY = 4         /* discarded: no copy anywhere */
} sluice_tensor_state_t;

SLUICE_API sluice_tensor_state_t
sluice_tier_tensor_state(const sluice_tier_manager_t *m, sluice_tensor_t t);

/* Read access: the data while RESIDENT or SWAPPING_OUT, else NULL. */
SLUICE_API const void *sluice_tier_tensor_read(const sluice_tier_manager_t *m,
                                               sluice_tensor_t tensor);
/* Write access: the data while RESIDENT (marks the tensor changed, so the
 * next swap-out writes it), else NULL. */
SLUICE_API void *sluice_tier_tensor_write(sluice_tier_manager_t *m,
                                          sluice_tensor_t tensor);

/* With a CUDA device tier, sluice_tier_tensor_read/write of a device
 * tensor copy it to a host view first (device -> host); the view is the
 * tensor's data until sluice_tier_park copies it back (host -> device, if
 * written) and frees it, or a swap-out writes it. Tensors without a view,
 * in other tiers or an emulated device tier: no-op. */
SLUICE_API sluice_status_t sluice_tier_park(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *tensors,
                                            size_t count,
                                            sluice_error_t *error);

/* Makes the host views of resident device tensors now (device -> host),
 * reporting a failed copy; tensor_read/write then return them. */
SLUICE_API sluice_status_t sluice_tier_view(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *tensors,
                                            size_t count,
                                            sluice_error_t *error);

/* CRC-32C of the tensor's current disk copy; 0 with *has_copy = 0 when it
 * has none. */
SLUICE_API uint32_t sluice_tier_tensor_disk_crc(const sluice_tier_manager_t *m,
                                                sluice_tensor_t tensor,
                                                int *has_copy);
/* Path of the current disk copy ("" when none). */
SLUICE_API const char *
sluice_tier_tensor_disk_path(const sluice_tier_manager_t *m,
                             sluice_tensor_t tensor);

/* Starts swapping the tensors out (they must be RESIDENT, SWAPPING_OUT or
 * already out). An unchanged tensor whose disk copy is current just leaves
 * memory, without I/O. The memory is released when the write completes. */
SLUICE_API sluice_status_t sluice_tier_swap_out(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *tensors,
                                                size_t count,
                                                sluice_error_t *error);

/* Starts reading the tensors back to their home tier (no-op for resident
 * ones; a pending swap-out is completed first; an EMPTY tensor becomes
 * resident zero-filled). Reserves budget now, waiting for pending
 * swap-outs if that frees enough; OUT_OF_MEMORY when it cannot. */
SLUICE_API sluice_status_t sluice_tier_prefetch(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *tensors,
                                                size_t count,
                                                sluice_error_t *error);

/* Drops the tensors' memory and disk copies without writing (their contents
 * are no longer needed, e.g. used gradients); they become EMPTY. */
SLUICE_API sluice_status_t sluice_tier_discard(sluice_tier_manager_t *m,
                                               const sluice_tensor_t *tensors,
                                               size_t count,
                                               sluice_error_t *error);

/* Blocks until the tensors have no I/O in flight and completes it. Returns
 * the first error among them (a failed write: the tensor stays resident and
 * changed, its old copy intact; a failed or corrupt read: it stays on
 * disk). */
SLUICE_API sluice_status_t sluice_tier_wait(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *tensors,
                                            size_t count,
                                            sluice_error_t *error);
/* wait on every tensor; also returns only once superseded swap files
 * (deleted in the background) are gone. */
SLUICE_API sluice_status_t sluice_tier_wait_all(sluice_tier_manager_t *m,
                                                sluice_error_t *error);

/* Waits for all I/O, then atomically writes `manifest_path` naming the
 * current disk copy of every persistent tensor; copies it no longer names
 * are deleted. A persistent tensor with unwritten changes or no copy:
 * FAILED_PRECONDITION, nothing written. Every fsync, close and rename is
 * checked (the swap directory is flushed before the manifest is written,
 * and after it is renamed into place): an error before the rename leaves the
 * previous manifest and its copies as they were; an error after it (the
 * directory's fsync) fails the commit with the new manifest in place but
 * perhaps not durable, and then the copies of both manifests are kept until
 * a commit succeeds (sluice_tier_commit_unconfirmed). */
SLUICE_API sluice_status_t sluice_tier_commit(sluice_tier_manager_t *m,
                                              const char *manifest_path,
                                              sluice_error_t *error);

/* Non-zero while the manifest in place is not known to be durable: a
 * sluice_tier_commit failed after renaming it into place, and none has
 * succeeded since. Opening it finds its state, unless a crash brings back
 * the previous manifest; the copies of both are kept. */
SLUICE_API int sluice_tier_commit_unconfirmed(const sluice_tier_manager_t *m);

typedef struct sluice_tier_stats_t {
  uint64_t swap_outs;       /* writes started */
  uint64_t swap_outs_clean; /* swap-outs that needed no write */
  uint64_t prefetches;      /* reads started */
  uint64_t bytes_written;
  uint64_t bytes_read;
  uint64_t stall_ns;        /* time callers spent blocked on I/O */
  uint64_t checksum_ns;     /* time spent computing CRC-32C */
  uint64_t device_used, device_peak;
  uint64_t host_used, host_peak;
  /* Payload bytes (no header, no padding) by the home tier of the tensor,
   * index SLUICE_TIER_DEVICE or SLUICE_TIER_HOST: written by completed
   * swap-outs; read by completed prefetches; and asked back by a prefetch
   * while still being written (the memory is kept, nothing is read). */
  uint64_t tier_bytes_written[2];
  uint64_t tier_bytes_read[2];
  uint64_t tier_bytes_reused[2];
  /* CUDA device tier (all 0 when emulated): GPU memory allocated now and at
   * the peak, bytes copied host -> device and device -> host. */
  uint64_t gpu_allocated, gpu_peak;
  uint64_t gpu_bytes_h2d, gpu_bytes_d2h;
} sluice_tier_stats_t;
SLUICE_API void sluice_tier_stats(const sluice_tier_manager_t *m,
                                  sluice_tier_stats_t *out_stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_TIER_H */
