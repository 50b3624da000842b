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

/* `xs[i]` of a list parameter, for the kernel function running on frame
 * `f`. An index outside [0, size) is a run-time error of the walk program:
 * it is recorded in f->fault (the first one only; see sluice_walk_fault_t)
 * and 0 is returned, so the kernel finishes its call and the engine stops
 * the run. Without a fault slot (f or f->fault NULL) the process stops
 * with a message naming the index and the size. */
SLUICE_API int64_t sluice_kernel_list_get(const sluice_walk_frame_t *f,
                                        const sluice_walk_list_t *list,
                                        int64_t index);

/* Integer `a / b` and `a % b` of a walk program (truncated, as C), for the
 * kernel function running on frame `f`. b == 0, and a / b with a = -2^63 and
 * b = -1, are run-time errors recorded as sluice_kernel_list_get records a
 * bad index (SLUICE_WALK_FAULT_DIVISION_BY_ZERO, _REMAINDER_BY_ZERO,
 * _DIVISION_OVERFLOW), with 0 as the result. -2^63 % -1 is 0. */
SLUICE_API int64_t sluice_kernel_idiv(const sluice_walk_frame_t *f, int64_t a,
                                    int64_t b);
SLUICE_API int64_t sluice_kernel_irem(const sluice_walk_frame_t *f, int64_t a,
                                    int64_t b);

/* The label mass of vertex v for the labels of `labels`: for each label l
 * of the list, the sum of the stored weights (1.0 each on an unweighted
 * graph) of v's out-edges u -> t with label(t) == l, or, when `edge` is
 * non-zero, with edge_label(v, t) == l (the label of the first v -> t edge,
 * as `edge_label` reads it); returns the largest of these sums when `max` is
 * non-zero, else the smallest; 0 for an empty list or a vertex without
 * out-edges. O(degree * size). The sum bounds of label-filtered weights
 * (walk.label_mass, docs/sampling.md). */
SLUICE_API double sluice_kernel_label_mass(const sluice_graph_t *graph,
                                         uint32_t v,
                                         const sluice_walk_list_t *labels,
                                         int32_t edge, int32_t max);

/* "list index 7 out of range (the list has 5 elements)": the fault's
 * message, without where it happened; `out` gets at most `capacity` bytes
 * (NUL-terminated). Returns the length of the full message. */
SLUICE_API size_t sluice_walk_fault_describe(const sluice_walk_fault_t *fault,
                                           char *out, size_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_SUPPORT_H */
