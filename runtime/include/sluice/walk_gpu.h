/*===- sluice/walk_gpu.h - libsluicert: running compiled walks on a GPU -===*
 *
 * Runs a walk kernel that `sluicec -c --target=gpu` compiled to PTX (the
 * kernel `sluice_walk_<walk>`: one thread per walker and rejection sampling
 * with the exact fallback, or a warp of 32 threads per walker and weighted
 * reservoir sampling; docs/walk-codegen.md, "GPU") through sluice/gpu.h:
 * uploads the graph's CSR arrays, per-vertex weight aggregates, vertex and
 * edge labels, the parameter block and the start vertices, launches the
 * kernel once, and appends the walks to a writer in walker order.
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

/* `ptx`: NUL-terminated PTX text; `kernel_name`: its entry
 * ("sluice_walk_node2vec"); `params`: num_params 8-byte slots (list
 * parameters are not supported on the GPU). From `options` (NULL:
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_GPU_H */
