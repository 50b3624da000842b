/*===- sluice/walk_support.h - libsluicert: helpers for compiled kernels --===*
 *
 * Small functions that compiled walk kernels call (besides the graph
 * queries of graph.h and sluice_walk_random of walk.h) for the language's
 * built-ins that have no direct graph.h counterpart. `sluicec` emits calls
 * to them; C code may use them too. Their prefix is sluice_kernel_, never
 * sluice_walk_: the compiler names a walk W's functions sluice_walk_W_*, so
 * a walk called `edge` could otherwise clash with them.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_WALK_SUPPORT_H
#define SLUICE_WALK_SUPPORT_H

#include "sluice/walk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `weight(u, v)`: the stored weight of the first u -> v edge, 1.0 on an
 * unweighted graph, 0.0 when there is no such edge. */
SLUICE_API double sluice_kernel_edge_weight(const sluice_graph_t *graph,
                                          uint32_t u, uint32_t v);

/* `edge_label(u, v)`: the label of the first u -> v edge; -1 when there is
 * no such edge or the graph has no edge labels. */
SLUICE_API int64_t sluice_kernel_edge_label(const sluice_graph_t *graph,
                                          uint32_t u, uint32_t v);

/* `xs[i]` of a list parameter. An index outside [0, size) has no value a
 * kernel could go on with: the process stops with a message naming the
 * index and the size (a run-time error of the walk program). */
SLUICE_API int64_t sluice_kernel_list_get(const sluice_walk_list_t *list,
                                        int64_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_SUPPORT_H */
