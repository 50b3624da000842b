/*===- sluice/algo_gpu.h - libsluicert: graph algorithms' loops on a GPU ===*
 *
 * `sluicec -c --target=gpu` compiles every loop variant of an algorithm
 * (the functions `sluice_algo_<A>_<loop>_<variant>` that `sluicec -c`
 * compiles for the CPU) into a PTX kernel of the same name: a thread per
 * item of the pass (a vertex, an entry of a frontier's list, or a block of
 * SLUICE_ALGO_REDUCE_BLOCK vertices for a loop that reduces into locals).
 * The algorithm's host code (rounds, frontiers, the final combine of
 * reductions) stays the CPU object's; a context with a GPU attached runs
 * each sluice_algo_parallel_for whose function is bound to a kernel on the
 * device instead (docs/algorithms.md, "GPU"):
 *
 *   sluice_algo_ctx_create(graph, &options, &ctx, &err);
 *   sluice_algo_gpu_attach(ctx, ptx_text, &err);   // UNSUPPORTED: no GPU
 *   sluice_algo_gpu_bind(ctx, sluice_algo_bfs_expand_push,
 *                        "sluice_algo_bfs_expand_push", &err);
 *   ...                                              // every variant
 *   sluice_algo_bfs(ctx, &params, props);
 *
 * Per launch the runtime uploads the properties the loop accesses (those
 * whose host bytes differ from the device's copy), the frontier it reads
 * (its list or bitmap) and the values it captured (in one copy),
 * launches, waits, and copies the properties it writes, the partials of a
 * reduction and the vertices the kernel inserted into the loop's new
 * frontier back: host and device code see the same values between passes,
 * at the cost of those copies (sluice_algo_gpu_stats). A pass whose function is
 *not bound, or a device error, faults the context at site
 *SLUICE_ALGO_GPU_FAULT_SITE with the driver's message (sluice_algo_fault_site).
 *
 * The structs below are what the kernels read; the compiler's lowering
 * (compiler/Conversion/GraphToGPU/AlgoGpuAbi.h) takes its field indices
 * from them.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALGO_GPU_H
#define SLUICE_ALGO_GPU_H

#include "sluice/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel's first argument (device memory): the view with device
 * pointers, then each vertex's original id. */
typedef struct sluice_algo_gpu_ctx_t {
  sluice_algo_view_t view;
  const int64_t *original_ids; /* num_vertices */
} sluice_algo_gpu_ctx_t;

/* The frontier a loop builds, on the device (the environment's `out`
 * slot): an insert sets the vertex's bit (atomic or) and, when it was
 * clear, appends the vertex at list[atomicAdd(count, 1)]. */
typedef struct sluice_algo_gpu_frontier_t {
  uint64_t *bits;  /* (num_vertices + 63) / 64 words */
  uint32_t *list;  /* num_vertices */
  uint64_t *count; /* one word */
} sluice_algo_gpu_frontier_t;

/* The 8-byte slots of a loop function's environment (`env` of
 * sluice_algo_parallel_for; compiler/Conversion/GraphToLLVM/GraphAbi.h,
 * EnvSlot): the property table, the frontier the loop builds, the list
 * and bitmap it reads, the partials of its reductions and their blocks,
 * then the values it captured. */
#define SLUICE_ALGO_ENV_PROPS 0
#define SLUICE_ALGO_ENV_OUT 1
#define SLUICE_ALGO_ENV_LIST 2
#define SLUICE_ALGO_ENV_BITMAP 3
#define SLUICE_ALGO_ENV_PARTIALS 4
#define SLUICE_ALGO_ENV_BLOCKS 5
#define SLUICE_ALGO_ENV_TILED                                                  \
  6 /* algo_tile.h's layout, algo_bins.h's bins (CPU) */
#define SLUICE_ALGO_ENV_CAPTURED 7

/* The fault site of a GPU error (sites of the program's ops are >= 0). */
#define SLUICE_ALGO_GPU_FAULT_SITE (-2)

/* Threads per block of every launch. */
#define SLUICE_ALGO_GPU_BLOCK 256
/* The threads of a kernel that runs a warp per item (a push loop whose
 * sources' out-edges, or a pull loop whose destinations' in-edges, are
 * split among the lanes). */
#define SLUICE_ALGO_GPU_LANES 32
/* A kernel K whose module also has `K_lanes` (the same loop, a warp per
 * item) launches `K_lanes` instead when the pass's items have at least
 * this average degree (a round over a frontier's list: its vertices' mean
 * out-degree; any other pass: the graph's edges / vertices): then the
 * average item's edges fill at least a quarter of the warp's 32 lanes
 * (the rest idle); below it a thread per item wastes fewer lanes (a road
 * graph's degree 2-3). Picked from that argument, not measured yet
 * (docs/algorithms.md, "A warp per item, by degree";
 * scripts/device-stage.sh measures both). */
#define SLUICE_ALGO_GPU_LANES_MIN_DEGREE 8.0
/* Each kernel K comes with a global `K_info`: int64 values
 * {SLUICE_ALGO_GPU_INFO_VERSION, environment slots, reduction locals,
 * threads per item (1, or SLUICE_ALGO_GPU_LANES), properties, then one
 * value per property: its bytes per vertex, or'ed with
 * SLUICE_ALGO_GPU_PROP_READ and _WRITTEN when the loop reads and writes
 * (sets or reduces into) it}. A launch of n items runs n x threads per
 * item threads; it copies the properties the kernel reads or writes to
 * the device and those it writes back. */
#define SLUICE_ALGO_GPU_INFO_VERSION 3
#define SLUICE_ALGO_GPU_INFO_HEADER 5
#define SLUICE_ALGO_GPU_PROP_BYTES 0xff
#define SLUICE_ALGO_GPU_PROP_READ 0x100
#define SLUICE_ALGO_GPU_PROP_WRITTEN 0x200
#define SLUICE_ALGO_GPU_INFO_MAX_PROPS 64

/* Opens the default GPU and loads `ptx` (NUL-terminated) for `ctx`, and
 * copies the graph's view there. UNSUPPORTED (with the driver's reason)
 * without a CUDA driver or device; INVALID_ARGUMENT when a GPU is already
 * attached or an argument is NULL. */
SLUICE_API sluice_status_t sluice_algo_gpu_attach(sluice_algo_ctx_t *ctx,
                                                  const char *ptx,
                                                  sluice_error_t *error);
/* From now on the passes of `fn` run as `kernel` of the attached module
 * (its `_info` global read now: NOT_FOUND when the module lacks either). */
SLUICE_API sluice_status_t sluice_algo_gpu_bind(sluice_algo_ctx_t *ctx,
                                                sluice_algo_range_fn_t fn,
                                                const char *kernel,
                                                sluice_error_t *error);
/* The host build of the same kernels (tests without a GPU: the device
 * code's logic, sluice_algo_gpu_attach's copies and launches): `symbol`
 * returns the address of a kernel K, compiled for the host as
 * sluice_algo_host_kernel_t, or of its `K_info` global; threads run one
 * after another, device memory is host memory. */
typedef void (*sluice_algo_host_kernel_t)(const sluice_algo_gpu_ctx_t *ctx,
                                          void *env, uint64_t count,
                                          int64_t thread);
typedef void *(*sluice_algo_host_symbol_t)(void *user, const char *name);
SLUICE_API sluice_status_t sluice_algo_gpu_attach_host(
    sluice_algo_ctx_t *ctx, sluice_algo_host_symbol_t symbol, void *user,
    sluice_error_t *error);

/* The compiled host code of an algorithm calls this with
 * SLUICE_ALGO_GPU_SYNC_BEGIN first, _HOST before each access of its own to
 * a property, and _END before it returns (it returns at once without a GPU
 * or with NULL). Between BEGIN and END the properties a pass writes stay on
 * the device (no copy back per pass); _HOST and _END copy back those that
 * changed there. Host code that never calls it (hand-written, or compiled
 * by an older sluicec) gets every written property back after each pass. */
#define SLUICE_ALGO_GPU_SYNC_BEGIN 0
#define SLUICE_ALGO_GPU_SYNC_HOST 1
#define SLUICE_ALGO_GPU_SYNC_END 2
SLUICE_API void sluice_algo_gpu_sync(sluice_algo_ctx_t *ctx, int32_t phase);
/* Before the host code reads element `v` of property `property` (its index
 * in the algorithm's property table): brings back that element alone when
 * a pass left the property on the device (BFS reads one depth a round). */
SLUICE_API void sluice_algo_gpu_sync_element(sluice_algo_ctx_t *ctx,
                                             int32_t property, uint32_t v);

/* Kernels launched on `ctx` so far. */
SLUICE_API uint64_t sluice_algo_gpu_launches(const sluice_algo_ctx_t *ctx);

/* Where a context's GPU passes spent their time so far: each copy is a
 * synchronous driver call, each launch waits for its kernel. */
typedef struct sluice_algo_gpu_stats_t {
  uint64_t launches;
  uint64_t copies_to_device, copies_from_device;
  uint64_t bytes_to_device, bytes_from_device;
  /* Property copies a pass skipped: the device held the host's bytes (or
   * newer ones, between SLUICE_ALGO_GPU_SYNC_BEGIN and _END). */
  uint64_t properties_kept;
  /* Copies back a pass left to the next sluice_algo_gpu_sync. */
  uint64_t properties_deferred;
  double copy_seconds;   /* in copies, both ways */
  double kernel_seconds; /* in launches, each until its kernel ended */
  /* Launches that ran a kernel's `_lanes` twin (a warp per item). */
  uint64_t lanes_launches;
} sluice_algo_gpu_stats_t;
/* The average degree from which a kernel's `_lanes` twin runs instead
 * of it (SLUICE_ALGO_GPU_LANES_MIN_DEGREE by default; a negative value
 * restores it; 0 always runs the twin, INFINITY never). No-op without a
 * GPU. */
SLUICE_API void sluice_algo_gpu_set_lanes_min_degree(sluice_algo_ctx_t *ctx,
                                                     double degree);
/* Fills `stats` (zeros when no GPU is attached or `ctx` is NULL). */
SLUICE_API void sluice_algo_gpu_stats(const sluice_algo_ctx_t *ctx,
                                      sluice_algo_gpu_stats_t *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALGO_GPU_H */
