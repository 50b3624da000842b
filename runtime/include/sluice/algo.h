/*===- sluice/algo.h - libsluicert: graph algorithms on the CPU ------------===*
 *
 * What the code of a compiled `algorithm` (graph-to-llvm,
 * compiler/Conversion/GraphToLLVM) calls, and what an embedder needs to run
 * it (docs/algorithms.md):
 *
 *  - a context over a loaded sluice_graph_t: the out-edges (CSR, the
 *    graph's own arrays) and the in-edges (CSC, built once), weights when
 *    the graph has them, and a pool of threads;
 *  - a parallel for over [0, n) with serial, static or dynamic(chunk)
 *    scheduling;
 *  - frontiers: a sorted list of vertices and a bitmap of the same set,
 *    built concurrently by inserts;
 *  - atomic reductions (what push loops need where updates collide);
 *  - faults (a vertex id the graph does not have, a zero divisor) that stop
 *    the algorithm's loops and are reported with the site that faulted;
 *  - writing vertex properties as text ("id value" lines, original ids) or
 *    as .npy.
 *
 * Thread safety: a context runs one algorithm at a time; inserts into a
 * frontier and the atomic helpers may be called from the parallel for's
 * threads.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALGO_H
#define SLUICE_ALGO_H

#include "sluice/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The edges of the graph as generated code reads them (field order is ABI:
 * compiler/Conversion/GraphToLLVM/GraphAbi.h binds it by static_assert). */
typedef struct sluice_algo_view_t {
  uint64_t num_vertices;
  uint64_t num_edges;
  const uint64_t *out_offsets; /* num_vertices + 1 */
  const uint32_t *out_targets; /* num_edges, sorted per source */
  const float *out_weights;    /* num_edges, or NULL: every edge weighs 1 */
  const uint64_t *in_offsets;  /* num_vertices + 1 */
  const uint32_t *in_sources;  /* num_edges, sorted per destination */
  const float *in_weights;     /* num_edges (in_sources order), or NULL */
} sluice_algo_view_t;

/* A graph, its transpose and a thread pool. */
typedef struct sluice_algo_ctx_t sluice_algo_ctx_t;
/* A set of vertices, owned by its context (released with it). */
typedef struct sluice_frontier_t sluice_frontier_t;

/* How sluice_algo_parallel_for shares [0, n) between threads (the values
 * of the graph dialect's Parallel enum). */
typedef enum sluice_algo_schedule_e {
  SLUICE_ALGO_SERIAL = 0,  /* the calling thread, in order */
  SLUICE_ALGO_STATIC = 1,  /* one contiguous share per thread */
  SLUICE_ALGO_DYNAMIC = 2, /* chunks of `chunk`: each thread takes those of
                              its own contiguous part of [0, n) in order,
                              then those left in the others' parts */
  /* Or'ed into a schedule: the items are blocks of SLUICE_ALGO_REDUCE_BLOCK
   * vertices (a loop reducing into locals), so a few of them are still
   * worth the threads (see SLUICE_ALGO_SERIAL_BELOW). */
  SLUICE_ALGO_BLOCKS = 16
} sluice_algo_schedule_t;

/* A pass over fewer items than this (a small frontier's list) runs on the
 * calling thread whatever its schedule: waking the pool costs more than
 * the threads save (a road network's BFS and SSSP run ~1,000 such
 * rounds). Not for SLUICE_ALGO_BLOCKS passes. */
#define SLUICE_ALGO_SERIAL_BELOW 128

typedef struct sluice_algo_options_t {
  uint32_t threads; /* 0: every core */
  int quiet;        /* no progress lines */
} sluice_algo_options_t;

SLUICE_API void sluice_algo_options_init(sluice_algo_options_t *options);

/* A context over `graph` (borrowed: it must outlive the context). Builds
 * the in-edges (in parallel) and starts the threads. */
SLUICE_API sluice_status_t
sluice_algo_ctx_create(const sluice_graph_t *graph,
                       const sluice_algo_options_t *options,
                       sluice_algo_ctx_t **out_ctx, sluice_error_t *error);
SLUICE_API void sluice_algo_ctx_release(sluice_algo_ctx_t *ctx);
SLUICE_API const sluice_algo_view_t *sluice_algo_view(sluice_algo_ctx_t *ctx);
SLUICE_API const sluice_graph_t *sluice_algo_graph(sluice_algo_ctx_t *ctx);
SLUICE_API uint32_t sluice_algo_threads(const sluice_algo_ctx_t *ctx);

/* One share of a parallel for: [begin, end). */
typedef void (*sluice_algo_range_fn_t)(sluice_algo_ctx_t *ctx, void *env,
                                       uint64_t begin, uint64_t end);

/* Calls `fn` on shares of [0, n) that cover it once, on the context's
 * threads, and returns when all are done. `chunk` (> 0) is the share size
 * of DYNAMIC (ignored otherwise). `n` < SLUICE_ALGO_SERIAL_BELOW without
 * SLUICE_ALGO_BLOCKS: one share on the calling thread. Does nothing once
 * the context faulted. */
SLUICE_API void sluice_algo_parallel_for(sluice_algo_ctx_t *ctx, uint64_t n,
                                         int32_t schedule, uint64_t chunk,
                                         sluice_algo_range_fn_t fn, void *env);

/* Passes of sluice_algo_parallel_for so far (the progress lines count
 * them). */
SLUICE_API uint64_t sluice_algo_passes(const sluice_algo_ctx_t *ctx);

/* An empty frontier to insert into. */
SLUICE_API sluice_frontier_t *sluice_algo_frontier_new(sluice_algo_ctx_t *ctx);
/* The frontier of every vertex. */
SLUICE_API sluice_frontier_t *sluice_algo_frontier_all(sluice_algo_ctx_t *ctx);
/* Adds `v` (< num_vertices); safe from the threads of a parallel for.
 * Returns 1 when `v` was not in the frontier. */
SLUICE_API int sluice_algo_frontier_insert(sluice_frontier_t *f, uint32_t v);
/* The frontier's bitmap (one bit per vertex, 64-bit words) for a pass that
 * inserts by setting bits itself, with an atomic or per word it changes: a
 * pull pass, whose iterations own their destinations, collects a word's
 * inserts in a register and ors it in once. Safe from the threads of a
 * parallel for (each may call it); the frontier's size and list are then
 * made from the bitmap by sluice_algo_frontier_seal, which must come
 * before any read. */
SLUICE_API uint64_t *sluice_algo_frontier_direct_bits(sluice_frontier_t *f);
/* Ends the inserts: the list is sorted (the frontier's order is the
 * vertices', whatever the threads did); a frontier of at least a 64th of
 * the vertices is listed from its bitmap when first read. */
SLUICE_API void sluice_algo_frontier_seal(sluice_frontier_t *f);
/* Gives `f`, which nothing reads again, back to its context: its buffers
 * and the handle itself serve the frontiers made after it (the compiler
 * calls it on a round loop's frontier once the round is done and on a
 * round's bucket after its pass). `f` reads as empty until a later
 * frontier reuses the handle; releasing it again before then does
 * nothing. */
SLUICE_API void sluice_algo_frontier_release(sluice_frontier_t *f);
SLUICE_API uint64_t sluice_algo_frontier_size(const sluice_frontier_t *f);
/* The frontier's first vertex in vertex order, 0 when it is empty (what
 * graph.frontier.any lowers to): the list's first entry, or the bitmap's
 * first set bit for a frontier kept as its bitmap (no list is made). */
SLUICE_API uint32_t sluice_algo_frontier_any(sluice_frontier_t *f);
/* The vertices, sorted (materialised for the frontier of all vertices). */
SLUICE_API const uint32_t *sluice_algo_frontier_list(sluice_frontier_t *f);
/* The bitmap (bit v % 64 of word v / 64), num_vertices bits. */
SLUICE_API const uint64_t *sluice_algo_frontier_bitmap(sluice_frontier_t *f);
/* Whether a round over `f` should read it as a bitmap over every vertex
 * (dense) rather than as its list: when its vertices and their out-edges
 * are more than a 20th of the graph's (Beamer et al.'s rule of thumb). */
SLUICE_API int sluice_algo_frontier_prefers_dense(sluice_frontier_t *f);
/* Direction-optimising rounds (Beamer et al.; GAPBS's DOBFS): whether the
 * round over `from` that builds `out` (may be NULL) should pull (1) or
 * push (0), and `out` remembers the choice for the next round. Push while
 * the out-edges of `from` are at most 1/alpha of the out-edges push rounds
 * have not scanned yet; once pulling, pull while the frontier grows or
 * holds more than 1/beta of the vertices. A frontier no such round built
 * starts pushing (the frontier of all vertices pulls). */
SLUICE_API int sluice_algo_frontier_pull_next(sluice_frontier_t *from,
                                              sluice_frontier_t *out,
                                              double alpha, double beta);

/* Faults: the first one is kept (its site, an index the compiler gives
 * each op that may fault, and a message); then every parallel for and
 * frontier round of the context does nothing, so the algorithm ends. */
SLUICE_API void sluice_algo_fault(sluice_algo_ctx_t *ctx, int32_t site,
                                  const char *message);
/* The site of the first fault (-1: none) and its message. */
SLUICE_API int32_t sluice_algo_fault_site(const sluice_algo_ctx_t *ctx,
                                          const char **message);
/* The vertex of original id `id`; a fault at `site` (and vertex 0) when
 * the graph has none. */
SLUICE_API uint32_t sluice_algo_vertex_of(sluice_algo_ctx_t *ctx, int64_t id,
                                          int32_t site);
/* a / b and a % b truncated toward zero; a zero divisor (and
 * INT64_MIN / -1) faults at `site` and gives 0. */
SLUICE_API int64_t sluice_algo_idiv(sluice_algo_ctx_t *ctx, int64_t a,
                                    int64_t b, int32_t site);
SLUICE_API int64_t sluice_algo_irem(sluice_algo_ctx_t *ctx, int64_t a,
                                    int64_t b, int32_t site);

/* The graph queries of algorithms (language.md, section 6.4), by CSR
 * vertex: whether u -> v exists (0 or 1); the weight of the first u -> v
 * edge (1.0 on an unweighted graph, 0.0 when there is none); the label of
 * that edge (-1 when none or unlabelled); the label of v (-1 when
 * unlabelled). */
SLUICE_API int32_t sluice_algo_has_edge(sluice_algo_ctx_t *ctx, uint32_t u,
                                        uint32_t v);
SLUICE_API double sluice_algo_edge_weight(sluice_algo_ctx_t *ctx, uint32_t u,
                                          uint32_t v);
SLUICE_API int64_t sluice_algo_edge_label(sluice_algo_ctx_t *ctx, uint32_t u,
                                          uint32_t v);
SLUICE_API int64_t sluice_algo_vertex_label(sluice_algo_ctx_t *ctx,
                                            uint32_t v);
/* How the compiled CPU code finds v's original id (`id(v)`) without a
 * call: ids[v] when `ids` is not NULL, else base + v (the graph's
 * sluice_graph_original_ids and sluice_graph_id_base); a vertex past the
 * graph's has none (-1, as sluice_algo_original_id). Owned by the
 * context. */
typedef struct sluice_algo_ids_t {
  const uint64_t *ids; /* num_vertices, or NULL */
  uint64_t base;
} sluice_algo_ids_t;
SLUICE_API const sluice_algo_ids_t *
sluice_algo_id_table(sluice_algo_ctx_t *ctx);
/* The original id of v (`id(v)`). */
SLUICE_API int64_t sluice_algo_original_id(sluice_algo_ctx_t *ctx,
                                           uint32_t v);

/* Atomic reductions; each returns the value before. (Generated code
 * inlines the same operations as LLVM atomicrmw.) */
SLUICE_API double sluice_algo_atomic_add_f64(double *p, double value);
SLUICE_API double sluice_algo_atomic_min_f64(double *p, double value);
SLUICE_API int64_t sluice_algo_atomic_min_i64(int64_t *p, int64_t value);

/* Reductions into locals (`change += E` in a vertices loop; language.md,
 * section 11.2), bit-identical for any number of threads: the loop runs
 * over blocks of SLUICE_ALGO_REDUCE_BLOCK vertices, each block combining
 * its vertices' contributions in vertex order into one partial per local;
 * sluice_algo_reduce_* then combine the partials in block order. The
 * kinds are the graph dialect's ReductionKind values. */
#define SLUICE_ALGO_REDUCE_BLOCK 4096
typedef enum sluice_algo_reduction_e {
  SLUICE_ALGO_REDUCE_ADD = 0,
  SLUICE_ALGO_REDUCE_MIN = 3,
  SLUICE_ALGO_REDUCE_MAX = 4
} sluice_algo_reduction_t;
/* Room for `count` 8-byte partials, owned by the context and valid until
 * the next call (loops do not nest: one loop's partials at a time). */
SLUICE_API void *sluice_algo_partials(sluice_algo_ctx_t *ctx, uint64_t count);
/* `init` combined with partials[0], ..., partials[count - 1], in that
 * order (ADD: +, MIN and MAX: fmin and fmax, or the integers' min and max;
 * i64 sums wrap). Once the context faulted the partials were not written:
 * `init` alone. */
SLUICE_API double sluice_algo_reduce_f64(sluice_algo_ctx_t *ctx,
                                         const double *partials,
                                         uint64_t count, int32_t kind,
                                         double init);
SLUICE_API int64_t sluice_algo_reduce_i64(sluice_algo_ctx_t *ctx,
                                          const int64_t *partials,
                                          uint64_t count, int32_t kind,
                                          int64_t init);
/* `common_neighbors(u, v)`: the vertices w with edges u -> w and v -> w,
 * by a merge of the two sorted adjacencies (a multigraph's parallel edges
 * count once per pair). `_below` counts only the w < min(u, v) (CSR
 * order): summed over the edges u -> v with v < u, each triangle of an
 * undirected graph once. */
SLUICE_API int64_t sluice_algo_common_neighbors(sluice_algo_ctx_t *ctx,
                                                uint32_t u, uint32_t v);
SLUICE_API int64_t sluice_algo_common_neighbors_below(sluice_algo_ctx_t *ctx,
                                                      uint32_t u, uint32_t v);
/* An edges loop scheduled `order: degree` or `order: auto` (`order`
 * below): the vertex order its comparisons of vertices and
 * common_neighbors_below use. SLUICE_ALGO_ORDER_DEGREE: by degree, highest
 * first, ties by the graph's order (GAPBS's relabelling for triangle
 * counting); SLUICE_ALGO_ORDER_AUTO: that order when the degrees are
 * skewed (GAPBS's heuristic: half the average out-degree, edges per vertex
 * of a symmetric graph, is at least 10, and the average is above 1.3 times
 * the median of 1000 sampled non-zero degrees, sampled with a fixed seed),
 * else the graph's.
 *
 * sluice_algo_order_begin before a pass of the loop named `name` (the
 * compiler's name for it, e.g. "loop 'count' of algorithm 'tc'"): the
 * position of each vertex in the degree order (num_vertices entries), or
 * NULL for the graph's order. Until sluice_algo_order_end,
 * sluice_algo_common_neighbors_below counts the w whose position is below
 * both u's and v's, and sluice_algo_order_vertices gives the vertices in
 * the degree order (the pass runs over them in it: the highest degrees,
 * the most work, first); NULL otherwise. The order and each vertex's
 * out-neighbours sorted by it are built on the context's threads on first use,
 * and kept. sluice_algo_order_note: what the context's ordered loops decided,
 * one line per loop in the order of their first run (e.g. "loop 'count' of
 * algorithm 'tc': order: auto relabelled by degree (...)"); NULL past the
 * last. Valid until the context's release. */
#define SLUICE_ALGO_ORDER_DEGREE 1
#define SLUICE_ALGO_ORDER_AUTO 2
SLUICE_API const uint32_t *sluice_algo_order_begin(sluice_algo_ctx_t *ctx,
                                                   int32_t order,
                                                   const char *name);
SLUICE_API const uint32_t *
sluice_algo_order_vertices(const sluice_algo_ctx_t *ctx);
SLUICE_API void sluice_algo_order_end(sluice_algo_ctx_t *ctx);
/* Until sluice_algo_order_end, when sluice_algo_order_begin gave ranks:
 * the graph relabelled by the order (GAPBS's relabelled CSR), per
 * position p the positions of its vertex's out-neighbours, sorted, at
 * targets[offsets[p]] up to targets[offsets[p + 1]]; NULL otherwise. A
 * push loop whose destinations are only compared and counted runs over
 * it, and sluice_algo_common_neighbors_at counts common neighbours of two
 * positions in it (`below`: those below both). */
SLUICE_API const uint64_t *
sluice_algo_order_offsets(const sluice_algo_ctx_t *ctx);
SLUICE_API const uint32_t *
sluice_algo_order_targets(const sluice_algo_ctx_t *ctx);
SLUICE_API int64_t sluice_algo_common_neighbors_at(sluice_algo_ctx_t *ctx,
                                                   uint32_t pu, uint32_t pv,
                                                   int32_t below);
/* The merge generated push loops run inline (graph-to-llvm), for the
 * pairs it leaves to the runtime (long lists, and lists whose lengths
 * differ more than 32 times: a gallop through the longer): the common
 * elements below `bound` of the sorted lists a[0, aLength) and
 * b[0, bLength), each element paired with at most one equal element of the
 * other list. */
SLUICE_API int64_t sluice_algo_count_common(const uint32_t *a, uint64_t aLength,
                                            const uint32_t *b, uint64_t bLength,
                                            uint64_t bound);
SLUICE_API const char *sluice_algo_order_note(const sluice_algo_ctx_t *ctx,
                                              uint32_t index);
/* Delta-stepping's ordered frontier (`frontier: buckets(delta)`): the
 * vertices u of `f` in the lowest bucket floor(priority[u] / delta) of
 * them all (a NaN priority counts as +inf), as a new sealed frontier, and
 * the others passed on to `rest`. `priority` holds num_vertices f64 values
 * (`type` SLUICE_ALGO_F64) or i64 values (SLUICE_ALGO_I64). `f` must be
 * sealed.
 *
 * With `consume` (nothing reads `f` again) and `rest` new (nothing
 * inserted yet), the others stay in a bucket queue that moves on to
 * `rest`: its seal files the vertices inserted into it under their
 * buckets, and the next call on it takes its lowest bucket without
 * looking at the vertices of the other buckets. Otherwise the call scans
 * `f` and inserts the others into `rest`. Either way `rest` holds the same
 * set of vertices once sealed.
 *
 * `flags`: SLUICE_ALGO_BUCKET_CONSUME (nothing reads `f` again), with
 * SLUICE_ALGO_BUCKET_FUSE (the round may be fused, see
 * sluice_algo_bucket_for) or not. */
SLUICE_API sluice_frontier_t *
sluice_algo_frontier_bucket(sluice_frontier_t *f, const void *priority,
                            int32_t type, double delta, sluice_frontier_t *rest,
                            int32_t flags);
#define SLUICE_ALGO_BUCKET_CONSUME 1
#define SLUICE_ALGO_BUCKET_FUSE 2
/* A fused round keeps running a thread's own vertices of the round's
 * bucket while they are fewer than this (GAPBS's kBinSizeThreshold,
 * src/sssp.cc). */
#define SLUICE_ALGO_FUSE_BELOW 1000
/* Runs a round of a `frontier: buckets` loop: `fn` over the vertices of
 * `current` (a frontier sluice_algo_frontier_bucket returned), as
 * sluice_algo_parallel_for(ctx, size(current), schedule, chunk, fn, env)
 * does, with `env` (of `env_slots` 8-byte slots) holding the list `fn`
 * reads in slot `list_slot`.
 *
 * When sluice_algo_frontier_bucket fused the round (SLUICE_ALGO_BUCKET_FUSE
 * and the queue handed on), GAPBS's bucket fusion: a vertex whose priority
 * the pass lowers into the round's bucket goes (also) to the lowering
 * thread's own bin, and each thread, its share done, runs `fn` over its
 * bin (a copy of `env` whose list slot points at it) while the bin holds
 * fewer than SLUICE_ALGO_FUSE_BELOW vertices, without ending the round;
 * a bin left larger passes on to `rest`. Then `rest`, sealed, holds only
 * the vertices still to run: those run in the round are not filed again.
 * The caller makes this legal: the loop only lowers the priority (min=) at
 * the edge's destination, and nothing reads `rest` but the next round and
 * a test of its size against zero. */
SLUICE_API void sluice_algo_bucket_for(sluice_frontier_t *current,
                                       int32_t schedule, uint64_t chunk,
                                       sluice_algo_range_fn_t fn, void *env,
                                       uint64_t env_slots, uint64_t list_slot);
/* Inserts `v` into `f`, a `frontier: buckets` loop's result, during the
 * loop's round (GAPBS's local bins): when the round handed `f` the bucket
 * queue (sluice_algo_frontier_bucket with SLUICE_ALGO_BUCKET_CONSUME), `v`
 * goes straight into the calling thread's bin of its bucket
 * floor(priority[v] / delta), read now, with no bitmap and no list; `f`'s
 * seal hands the threads' bins whole to the queue. A vertex already
 * waiting in that bucket is not filed again; one waiting in a higher
 * bucket is (its old entry goes stale). In a fused round a vertex of the
 * round's bucket goes to the thread's fused bin instead. Without the
 * queue, or on a graph of more than 2^19 vertices (the bins' random
 * accesses to the queue then cost more than the bitmap's), as
 * sluice_algo_frontier_insert. Safe from the threads of the
 * round's pass. Returns 1 when `v` was filed. */
SLUICE_API int sluice_algo_bucket_insert(sluice_frontier_t *f, uint32_t v);
/* The element types of a vertex property. */
typedef enum sluice_algo_type_e {
  SLUICE_ALGO_F64 = 0,    /* double */
  SLUICE_ALGO_I64 = 1,    /* int64_t */
  SLUICE_ALGO_BOOL = 2,   /* uint8_t, 0 or 1 */
  SLUICE_ALGO_VERTEX = 3, /* uint32_t, a CSR vertex (written as its id) */
  SLUICE_ALGO_F32 = 4     /* float */
} sluice_algo_type_t;

/* One vertex property, num_vertices values. */
typedef struct sluice_algo_column_t {
  const char *name;
  int32_t type; /* sluice_algo_type_t */
  const void *data;
} sluice_algo_column_t;

/* Writes the columns as text, one line per vertex in CSR order:
 * "id v1 v2 ..." with the vertex's original id, doubles with 17 significant
 * digits ("%.17g") and floats with 9 ("%.9g"), both of which read back to
 * the same value, integers in decimal (no header: the columns are in the
 * order given). Written to a temporary and renamed into place, so `path`
 * must be a file, not a device. */
SLUICE_API sluice_status_t
sluice_algo_write_text(const char *path, const sluice_graph_t *graph,
                       const sluice_algo_column_t *columns, uint32_t count,
                       sluice_error_t *error);
/* Writes one column as a 1-D .npy array in CSR order ('<f8', '<f4', '<i8',
 * '|u1';
 * vertices as their original ids, '<i8'). */
SLUICE_API sluice_status_t sluice_algo_write_npy(const char *path,
                                                 const sluice_graph_t *graph,
                                                 const sluice_algo_column_t *column,
                                                 sluice_error_t *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALGO_H */
