/*===- sluice/io.h - libsluicert: asynchronous batched block I/O ----------===*
 *
 * An I/O engine in the style of CAM: the caller submits a batch of block
 * requests (read or write, file, offset, length, buffer) and keeps
 * computing; a control thread drives the kernel (io_uring, with O_DIRECT
 * files when asked) and the caller later polls or waits on the batch
 * handle. Where io_uring is unavailable (old kernel, seccomp, disabled by
 * sysctl) the engine falls back to a pool of threads issuing pread/pwrite;
 * the choice is made once, at creation, and can be forced for tests.
 *
 * Guarantees:
 *  - short transfers are retried until the request is complete; a request
 *    is either fully done (status OK, transferred == length) or failed with
 *    a status, an errno and, in the batch error, its path and offset; a
 *    partial result is never reported as success;
 *  - requests of one batch are independent (no order between them); the
 *    caller must keep the request array and the buffers alive and untouched
 *    (written buffers: unmodified) until the batch has completed;
 *  - O_DIRECT files need buffer address, offset and length aligned to the
 *    engine's direct_alignment; a misaligned request is rejected at submit
 *    with INVALID_ARGUMENT naming the request, and nothing of the batch runs.
 *
 * Thread safety: one engine may be used from many threads; a batch handle
 * belongs to one caller. See docs/offload-runtime.md.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_IO_H
#define SLUICE_IO_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_io_engine_t sluice_io_engine_t;
typedef struct sluice_io_file_t sluice_io_file_t;
typedef struct sluice_io_batch_t sluice_io_batch_t;

typedef enum sluice_io_backend_e {
  /* io_uring when the kernel accepts it, else the thread pool. */
  SLUICE_IO_BACKEND_AUTO = 0,
  /* io_uring or fail with UNSUPPORTED. */
  SLUICE_IO_BACKEND_URING = 1,
  /* pread/pwrite from a pool of threads (the fallback, forced). */
  SLUICE_IO_BACKEND_THREADS = 2
} sluice_io_backend_t;

typedef struct sluice_io_options_t {
  sluice_io_backend_t backend;
  /* Requests (blocks) in flight at once. Default 32, 1..4096. */
  uint32_t queue_depth;
  /* Requests longer than this are split into blocks of this size, each a
   * separate kernel request. Default 1 MiB; a multiple of direct_alignment. */
  uint64_t block_size;
  /* Threads of the fallback backend. Default 0 = min(queue_depth, 8). */
  uint32_t threads;
  /* Alignment O_DIRECT needs for buffers, offsets and lengths. Default 4096;
   * a power of two >= 512. */
  uint32_t direct_alignment;
  /* io_uring options (SLUICE_IO_URING_*; ignored by the thread backend).
   * Default 0. See docs/offload-runtime.md for what each one measured. */
  uint32_t uring_flags;
} sluice_io_options_t;

enum {
  /* Files are registered with the ring when opened (a sparse table of 64
   * slots; files beyond it are used unregistered): requests skip the
   * kernel's per-request file lookup. */
  SLUICE_IO_URING_FIXED_FILES = 1u << 0,
  /* Buffers given to sluice_io_register_buffer are registered with the
   * ring (up to 64 regions of at most 1 GiB): requests inside one skip the
   * kernel's per-request page pinning (IORING_OP_READ_FIXED). */
  SLUICE_IO_URING_FIXED_BUFFERS = 1u << 1,
  /* A kernel thread polls the submission ring (IORING_SETUP_SQPOLL, idle
   * after 50 ms): no system call per submission, one more busy thread. */
  SLUICE_IO_URING_SQPOLL = 1u << 2
};

/* Fills `options` with the defaults above. */
SLUICE_API void sluice_io_options_init(sluice_io_options_t *options);

SLUICE_API sluice_status_t sluice_io_engine_create(
    const sluice_io_options_t *options, sluice_io_engine_t **out_engine,
    sluice_error_t *error);

/* Waits for every batch still in flight, then frees the engine. NULL is
 * allowed. Files and batches must be released before. */
SLUICE_API void sluice_io_engine_destroy(sluice_io_engine_t *engine);

/* The backend in use (never AUTO). */
SLUICE_API sluice_io_backend_t
sluice_io_engine_backend(const sluice_io_engine_t *engine);

/* Why AUTO fell back to threads ("io_uring_queue_init: Operation not
 * permitted"); "" when io_uring is in use or THREADS was asked for. */
SLUICE_API const char *
sluice_io_engine_fallback_reason(const sluice_io_engine_t *engine);

/* Counters since creation. busy_ns: wall time during which at least one
 * request was in flight (the engine's I/O time). */
typedef struct sluice_io_stats_t {
  uint64_t requests;
  uint64_t blocks;
  uint64_t bytes_read;
  uint64_t bytes_written;
  uint64_t short_transfers_retried;
  uint64_t failed_requests;
  uint64_t busy_ns;
} sluice_io_stats_t;
SLUICE_API void sluice_io_engine_stats(const sluice_io_engine_t *engine,
                                       sluice_io_stats_t *out_stats);

/*--- Files ----------------------------------------------------------------*/

enum {
  SLUICE_IO_FILE_READ = 1u << 0,
  SLUICE_IO_FILE_WRITE = 1u << 1,
  SLUICE_IO_FILE_CREATE = 1u << 2,   /* create if missing (mode 0666) */
  SLUICE_IO_FILE_TRUNCATE = 1u << 3, /* truncate to 0 on open */
  SLUICE_IO_FILE_DIRECT = 1u << 4,   /* O_DIRECT: bypass the page cache */
  SLUICE_IO_FILE_EXCLUSIVE = 1u << 5 /* with CREATE: fail if it exists */
};

/* Opens `path` for the engine. A file system that refuses O_DIRECT
 * (tmpfs) gives UNSUPPORTED. */
SLUICE_API sluice_status_t sluice_io_file_open(sluice_io_engine_t *engine,
                                               const char *path,
                                               uint32_t flags,
                                               sluice_io_file_t **out_file,
                                               sluice_error_t *error);
/* Closes the file; NULL allowed. No batch may still use it. */
SLUICE_API void sluice_io_file_close(sluice_io_file_t *file);
/* Closes the file like sluice_io_file_close and reports what close(2) said
 * (some file systems report a failed write only there): IO_ERROR naming the
 * file, or OK. The handle is freed either way. */
SLUICE_API sluice_status_t sluice_io_file_close_checked(sluice_io_file_t *file,
                                                        sluice_error_t *error);
/* fsync. */
SLUICE_API sluice_status_t sluice_io_file_sync(sluice_io_file_t *file,
                                               sluice_error_t *error);
/* Sets the file's size (ftruncate); e.g. to drop O_DIRECT padding. */
SLUICE_API sluice_status_t sluice_io_file_truncate(sluice_io_file_t *file,
                                                   uint64_t size,
                                                   sluice_error_t *error);
SLUICE_API const char *sluice_io_file_path(const sluice_io_file_t *file);

/*--- Buffers --------------------------------------------------------------*/

/* Zeroed memory aligned to `alignment` (a power of two; 0 = 4096) for
 * O_DIRECT requests; NULL when out of memory. Free with sluice_io_free. */
SLUICE_API void *sluice_io_alloc(size_t bytes, size_t alignment);
SLUICE_API void sluice_io_free(void *buffer);

/* Registers [buffer, buffer + bytes) with the kernel when the engine uses
 * io_uring with SLUICE_IO_URING_FIXED_BUFFERS, so that requests whose
 * buffer lies inside it are issued as fixed-buffer reads and writes;
 * otherwise does nothing and returns OK (any buffer works either way).
 * OUT_OF_RANGE when the 64 regions are taken, the kernel's status
 * (e.g. OUT_OF_MEMORY: the locked-memory limit) when it refuses. Unregister
 * before freeing; no batch may be using the region then. */
SLUICE_API sluice_status_t sluice_io_register_buffer(sluice_io_engine_t *engine,
                                                     void *buffer,
                                                     uint64_t bytes,
                                                     sluice_error_t *error);
SLUICE_API void sluice_io_unregister_buffer(sluice_io_engine_t *engine,
                                            void *buffer);

/*--- Requests and batches -------------------------------------------------*/

typedef enum sluice_io_op_e {
  SLUICE_IO_READ = 0,
  SLUICE_IO_WRITE = 1
} sluice_io_op_t;

enum {
  /* The write is durable when it completes (RWF_DSYNC). */
  SLUICE_IO_REQUEST_DSYNC = 1u << 0
};

typedef struct sluice_io_request_t {
  /* In: what to do. */
  sluice_io_op_t op;
  uint32_t flags;
  sluice_io_file_t *file;
  uint64_t offset;
  uint64_t length;
  void *buffer;
  /* Out, valid once the batch has completed: OK or the failure, the errno
   * behind it (0 when none), and the bytes moved (== length on success;
   * on failure the contiguous prefix known to be done). */
  sluice_status_t status;
  int32_t sys_errno;
  uint64_t transferred;
} sluice_io_request_t;

/* Starts the `count` requests (count >= 1) and returns at once. On success
 * `*out_batch` tracks them; on error nothing was started. The array and the
 * buffers belong to the caller and must outlive the batch. */
SLUICE_API sluice_status_t sluice_io_submit(sluice_io_engine_t *engine,
                                            sluice_io_request_t *requests,
                                            size_t count,
                                            sluice_io_batch_t **out_batch,
                                            sluice_error_t *error);

/* 1 when every request of the batch has completed (successfully or not),
 * else 0. Never blocks. */
SLUICE_API int sluice_io_batch_poll(const sluice_io_batch_t *batch);

/* Blocks until the batch has completed. Returns OK when every request
 * succeeded; else the status of the first failed request (in array order)
 * with its path, byte offset and message ("request 3: read at offset 4096
 * of 65536 bytes: Input/output error"); the other requests' outcomes are in
 * the array. May be called again (same answer). */
SLUICE_API sluice_status_t sluice_io_batch_wait(sluice_io_batch_t *batch,
                                                sluice_error_t *error);

/* Nanoseconds between submit and completion (0 while running). */
SLUICE_API uint64_t sluice_io_batch_elapsed_ns(const sluice_io_batch_t *batch);

/* Waits if needed, then frees the handle. NULL allowed. */
SLUICE_API void sluice_io_batch_release(sluice_io_batch_t *batch);

/*--- Checksums ------------------------------------------------------------*/

/* CRC-32C (Castagnoli, the iSCSI/ext4 polynomial 0x1EDC6F41, reflected) of
 * `bytes` bytes, continuing from `crc` (0 to start): the SSE4.2 crc32
 * instruction where the CPU has it, slicing-by-8 tables otherwise.
 * sluice_crc32c(0, "123456789", 9) == 0xE3069283. */
SLUICE_API uint32_t sluice_crc32c(uint32_t crc, const void *data, size_t bytes);

/*--- Fault injection (tests) ----------------------------------------------*/

typedef enum sluice_io_fault_e {
  SLUICE_IO_FAULT_NONE = 0,
  /* The request fails with EIO without reaching the disk. */
  SLUICE_IO_FAULT_EIO = 1,
  /* The request fails with ENOSPC without reaching the disk. */
  SLUICE_IO_FAULT_ENOSPC = 2,
  /* The first kernel transfer of the request moves only half of its first
   * block (a real, shorter transfer); the engine must retry the rest. */
  SLUICE_IO_FAULT_SHORT = 3,
  /* The first transfer returns 0 bytes (end of file / no progress): the
   * request fails with EIO ("unexpected end of file" for reads). */
  SLUICE_IO_FAULT_ZERO = 4
} sluice_io_fault_t;

/* Arms a fault for the request with index `nth` (0-based) among those
 * submitted from now on, across batches; NONE disarms. Only one fault is
 * armed at a time. For tests of error paths. */
SLUICE_API void sluice_io_engine_inject_fault(sluice_io_engine_t *engine,
                                              uint64_t nth,
                                              sluice_io_fault_t fault);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_IO_H */
