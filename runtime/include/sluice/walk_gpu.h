/*===- sluice/walk_gpu.h - libsluicert: running compiled walks on a GPU -===*
 *
 * Runs a walk kernel that `sluicec -c --target=gpu` compiled to PTX (the
 * kernel `sluice_walk_<walk>`: one thread per walker and rejection sampling
 * with the exact fallback, or a warp of 32 threads per walker and weighted
 * reservoir sampling; docs/walk-codegen.md, "GPU") through sluice/gpu.h:
 * uploads the graph's CSR arrays, per-vertex weight aggregates, vertex and
 * edge labels, the original-id map, the parameter block (with the lists
 * its list slots point to) and the start vertices, launches the kernel
 * once per batch of walkers (a contiguous walker range; the walks do not
 * depend on the batch size: walker ids key the random numbers), and
 * appends each batch's walks to a writer in walker order, so the device
 * memory for the output is bounded by the batch. A run-time error of the
 * walk program (a list index out of range) stops the run with
 * SLUICE_STATUS_OUT_OF_RANGE and the CPU engine's message, for the
 * smallest walker that faulted (its first fault); the batches before it
 * are in the writer, which the caller then releases without committing.
 *
 * Without a CUDA driver or device it returns SLUICE_STATUS_UNSUPPORTED
 * with the reason (after checking its arguments).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_WALK_GPU_H
#define SLUICE_WALK_GPU_H

#include "sluice/walk.h"
#include "sluice/walk_output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a parameter slot reaches the device (the "kind" of the parameter
 * in the JSON description `sluicec -c --target=gpu` writes). */
typedef enum sluice_walk_param_kind_e {
  /* f64, i64 or bool: the 8 bytes as they are. */
  SLUICE_WALK_PARAM_SCALAR = 0,
  /* A list [i64]: the slot holds a `const sluice_walk_list_t *` (NULL: an
   * empty list), as for the CPU engine; its elements and a
   * sluice_walk_list_t are copied to the device and the device's slot
   * points to that copy. */
  SLUICE_WALK_PARAM_LIST = 1
} sluice_walk_param_kind_t;

/* The arguments of a walk kernel compiled by `sluicec -c --target=gpu`:
 * the kernel `sluice_walk_<walk>` takes one pointer, to this struct in
 * device memory (written before each launch). Every field is 8 bytes:
 * device addresses as uint64_t (0: none). walk-to-gpu reads the fields by
 * their offsets (compiler/Conversion/WalkToGPU/KernelArgs.h), and the
 * kernels' JSON description lists them in this order. */
typedef struct sluice_walk_gpu_args_t {
  uint64_t offsets;    /* u64 per vertex + 1: the CSR offsets */
  uint64_t targets;    /* u32 per edge */
  uint64_t weights;    /* f32 per edge, 0: unweighted */
  uint64_t weight_max; /* f32 per vertex: largest out-edge weight */
  uint64_t weight_min; /* f32 per vertex */
  uint64_t weight_sum; /* f32 per vertex */
  uint64_t labels;     /* i32 per vertex, 0: no labels */
  uint64_t params;     /* the 8-byte parameter slots */
  uint64_t starts;     /* u32 per start vertex */
  int64_t num_walkers; /* walkers of this launch */
  int64_t walks_per_vertex;
  int64_t max_length;
  double stop_probability;
  int64_t seed;
  uint64_t rows;        /* u32 [num_walkers][max_length] */
  uint64_t lengths;     /* u32 per walker of the launch */
  int64_t num_vertices;
  int64_t num_edges;
  uint64_t edge_labels; /* i32 per edge, 0: no edge labels */
  int64_t walker_base;  /* the launch's first walker */
  uint64_t fault;       /* sluice_walk_fault_t + u64 first faulting walker */
  uint64_t original_ids; /* u64 per vertex, 0: original = id_base + vertex */
  int64_t id_base;
} sluice_walk_gpu_args_t;

/* What only the GPU runs take. */
typedef struct sluice_walk_gpu_options_t {
  /* num_params sluice_walk_param_kind_t values, one per slot; NULL: every
   * slot is SCALAR. */
  const int32_t *param_kinds;
  /* Walkers per launch; 0: the environment variable
   * SLUICE_GPU_WALKERS_PER_LAUNCH when set (a positive integer), else as
   * many as keep the batch's rows within 256 MiB (at least 1). */
  uint64_t walkers_per_launch;
} sluice_walk_gpu_options_t;

/* Fills `options` with the defaults (every slot scalar, automatic batch). */
SLUICE_API void sluice_walk_gpu_options_init(sluice_walk_gpu_options_t *options);

/* `ptx`: NUL-terminated PTX text; `kernel_name`: its entry
 * ("sluice_walk_node2vec"); `params`: num_params 8-byte slots, every one a
 * scalar (a kernel with list parameters needs sluice_walk_run_gpu_ex and
 * the kinds). From `options` (NULL:
 * defaults): max_length, stop_probability, starts / num_starts,
 * walks_per_vertex, seed; the sampler says which kind of kernel `ptx`
 * holds (the "sampler" of its JSON description): AUTO or REJECTION for a
 * rejection kernel (launched with one thread per walker), RESERVOIR for a
 * reservoir kernel (a warp, "threads_per_walker": 32); ALIAS is refused.
 * A kernel launched as the wrong kind leaves walkers unwritten and the
 * call fails (SLUICE_STATUS_INTERNAL). threads and walkers_per_thread are
 * ignored. `writer` may be NULL; `stats` may be NULL (walks, steps,
 * seconds; every step counts as a rejection or a reservoir step). */
SLUICE_API sluice_status_t sluice_walk_run_gpu(
    const sluice_graph_t *graph, const char *ptx, const char *kernel_name,
    const void *params, uint32_t num_params,
    const sluice_walk_options_t *options, sluice_walk_writer_t *writer,
    sluice_walk_stats_t *stats, sluice_error_t *error);

/* sluice_walk_run_gpu with the slots' kinds and the batch size from
 * `gpu_options` (NULL: defaults, which is sluice_walk_run_gpu). */
SLUICE_API sluice_status_t sluice_walk_run_gpu_ex(
    const sluice_graph_t *graph, const char *ptx, const char *kernel_name,
    const void *params, uint32_t num_params,
    const sluice_walk_options_t *options,
    const sluice_walk_gpu_options_t *gpu_options,
    sluice_walk_writer_t *writer, sluice_walk_stats_t *stats,
    sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_GPU_H */
