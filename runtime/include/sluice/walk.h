/*===- sluice/walk.h - libsluicert: walk kernels and the walk engine ------===*
 *
 * The contract between compiled walk kernels and the runtime's walk engine.
 *
 * `sluicec` lowers a `walk` declaration (docs/language.md, section 10) to a
 * *kernel*: a few small functions specialised for that walk (the transition
 * weight of one candidate edge, the stop condition, the state update, the
 * state initialiser, and the per-vertex bounds derived by the bound
 * analysis), described by a `sluice_walk_kernel_t`. The engine
 * (sluice_walk_run) owns everything else: start vertices, the walkers each
 * thread interleaves, prefetching, the random numbers, the choice of sampler
 * per step (alias, rejection, reservoir, or the cost model's pick), and the
 * output. Kernels come from the JIT (`sluicec run`), from an object file
 * (`sluicec -c`, which also writes a header declaring the kernel), or are
 * written by hand in C (the unit tests' reference kernels).
 *
 * Vertex ids here are the graph's CSR ids (uint32_t, see graph.h).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_WALK_H
#define SLUICE_WALK_H

#include "sluice/graph.h"
#include "sluice/runtime.h"
#include "sluice/walk_output.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the layout of the structs below changes; a kernel built
 * for another version is refused with SLUICE_STATUS_UNSUPPORTED. */
#define SLUICE_WALK_ABI_VERSION 2

/* A run-time error inside a kernel function (a list index out of range, an
 * integer division by zero):
 * the kernel records the first one in the frame's `fault` slot, goes on
 * with a neutral value (0), and the engine stops the run and reports it
 * (sluice_walk_run returns SLUICE_STATUS_OUT_OF_RANGE with a message naming
 * the walk, the walker, the step, the vertex and the bad index). */
typedef enum sluice_walk_fault_code_e {
  SLUICE_WALK_FAULT_NONE = 0,
  /* `xs[i]` with i outside [0, size(xs)): `index` and `size` say which. */
  SLUICE_WALK_FAULT_LIST_INDEX = 1,
  /* Integer `a / 0`: `index` is the dividend a. */
  SLUICE_WALK_FAULT_DIVISION_BY_ZERO = 2,
  /* Integer `a % 0`: `index` is the dividend a. */
  SLUICE_WALK_FAULT_REMAINDER_BY_ZERO = 3,
  /* Integer `-2^63 / -1`, whose quotient 2^63 is not an i64. */
  SLUICE_WALK_FAULT_DIVISION_OVERFLOW = 4
} sluice_walk_fault_code_t;

typedef struct sluice_walk_fault_t {
  int32_t code;     /* a sluice_walk_fault_code_t; 0 = no fault */
  uint32_t cur;     /* frame->cur when it happened */
  int64_t index;    /* the bad index */
  int64_t size;     /* the list's size */
  uint64_t walker;  /* frame->walker when it happened */
  int64_t step;     /* frame->step when it happened */
} sluice_walk_fault_t;

/* What one walker sees while its kernel functions run. The engine owns it;
 * kernel functions read it and (update/init only) write `state`. */
typedef struct sluice_walk_frame_t {
  const sluice_graph_t *graph;
  /* The walk's parameter block: one 8-byte slot per parameter, in
   * declaration order (f64 as double, i64 and bool as int64_t, a list
   * [i64] as a pointer to a sluice_walk_list_t). Owned by the caller of
   * sluice_walk_run. */
  const void *params;
  /* This walker's state variables, one 8-byte slot each in declaration
   * order (f64 stored as double bits, i64/bool as int64_t). */
  int64_t *state;
  uint64_t walker; /* global walker index: start vertex rank * walks_per_vertex + k */
  uint32_t prev;   /* the vertex before `cur`; equals `cur` before the first step */
  uint32_t cur;    /* the current vertex */
  int64_t step;    /* steps taken so far (0 before the first step) */
  uint64_t seed;   /* the run's seed (for random(), see sluice_walk_random) */
  /* Engine-owned count of random() draws made in this step (reset by the
   * engine at each step); sluice_walk_random advances it. */
  uint64_t *random_draws;
  /* Engine-owned fault slot (see sluice_walk_fault_t), shared by the
   * walkers of one thread; NULL: a fault stops the process with a message
   * (no caller to report to). */
  sluice_walk_fault_t *fault;
} sluice_walk_frame_t;

/* A list parameter ([i64]). */
typedef struct sluice_walk_list_t {
  const int64_t *data;
  int64_t size;
} sluice_walk_list_t;

/* Weight of moving from f->cur to `next` along CSR edge `edge` (an index in
 * [offsets[cur], offsets[cur+1])) whose stored weight is `w` (1.0 on an
 * unweighted graph). Values <= 0 (and NaN) mean "never". */
typedef double (*sluice_walk_weight_fn_t)(const sluice_walk_frame_t *f,
                                          uint32_t next, uint64_t edge,
                                          double w);
/* Non-zero when the walk ends before the next step (the `stop` item). */
typedef int (*sluice_walk_stop_fn_t)(const sluice_walk_frame_t *f);
/* Runs the `update` item after a step from f->cur to `next` (the engine
 * moves prev/cur/step afterwards). */
typedef void (*sluice_walk_update_fn_t)(sluice_walk_frame_t *f,
                                        uint32_t next);
/* Sets the state variables to their initial values (before step 0). */
typedef void (*sluice_walk_init_fn_t)(sluice_walk_frame_t *f);
/* A bound for f->cur, for all its candidate edges and any history:
 * the upper bound of the weight (rejection sampling's envelope), the lower
 * bound (0 when the weight may be zero), or bounds of the sum of weights
 * (the cost model's W_sum). Computed from per-vertex aggregates
 * (sluice_graph_weight_max/min/sum, degree) and parameters. */
typedef double (*sluice_walk_bound_fn_t)(const sluice_walk_frame_t *f);

/* How the bound analysis classified the weight expression. */
typedef enum sluice_walk_weight_class_e {
  /* The same for every edge (e.g. 1.0, or a parameter): uniform choice. */
  SLUICE_WALK_WEIGHT_CONSTANT = 0,
  /* A function of (cur, next, w, edge fields, parameters) only: an alias
   * table per vertex can be built once. */
  SLUICE_WALK_WEIGHT_STATIC = 1,
  /* Depends on prev, step, state or random(): drawn per step (rejection,
   * reservoir or the cost model's choice). */
  SLUICE_WALK_WEIGHT_DYNAMIC = 2
} sluice_walk_weight_class_t;

/* What the schedule (or the engine's cost model) uses to draw a step. */
typedef enum sluice_walk_sampler_e {
  SLUICE_WALK_SAMPLER_AUTO = 0,      /* cost model per vertex and step */
  SLUICE_WALK_SAMPLER_REJECTION = 1, /* needs an upper bound */
  SLUICE_WALK_SAMPLER_RESERVOIR = 2, /* one pass, exponential jumps */
  SLUICE_WALK_SAMPLER_ALIAS = 3,     /* needs a STATIC or CONSTANT weight */
  SLUICE_WALK_SAMPLER_UNIFORM = 4    /* needs a CONSTANT weight: an index
                                        from the degree, no table */
} sluice_walk_sampler_t;

/* Kernel flags. */
enum {
  /* The weight reads `prev` (a second-order walk). */
  SLUICE_WALK_SECOND_ORDER = 1u << 0,
  /* The weight may be zero (or negative) for some edge: rejection and
   * alias must cope with vertices that have no positive candidate. */
  SLUICE_WALK_MAY_BE_ZERO = 1u << 1,
  /* No upper bound could be proven: only reservoir sampling is sound. */
  SLUICE_WALK_UNBOUNDED = 1u << 2,
  /* The weight draws no random() and reads no list element (so it can
   * neither consume random numbers nor fault): the engine may skip calling
   * it when a rejection trial's coin falls below lower_bound, where the
   * trial accepts whatever the weight (the same walks, fewer calls).
   * Set by sluicec; a hand-written kernel may set it when it holds. */
  SLUICE_WALK_PURE_WEIGHT = 1u << 3
};

/* A compiled walk. Any function pointer may be NULL where the walk has no
 * such item: weight NULL means weight(cur, next, w) = w; upper_bound NULL
 * requires SLUICE_WALK_UNBOUNDED. */
typedef struct sluice_walk_kernel_t {
  uint32_t abi_version; /* SLUICE_WALK_ABI_VERSION */
  uint32_t flags;       /* SLUICE_WALK_* flags above */
  const char *name;     /* the walk's name in the program */
  sluice_walk_weight_class_t weight_class;
  uint32_t num_params; /* 8-byte slots in frame.params */
  uint32_t num_state;  /* 8-byte slots in frame.state */
  sluice_walk_weight_fn_t weight;
  sluice_walk_stop_fn_t stop;
  sluice_walk_update_fn_t update;
  sluice_walk_init_fn_t init;
  sluice_walk_bound_fn_t upper_bound;     /* of one edge's weight */
  sluice_walk_bound_fn_t lower_bound;     /* of one edge's weight */
  sluice_walk_bound_fn_t sum_upper_bound; /* of the sum over cur's edges */
  sluice_walk_bound_fn_t sum_lower_bound; /* of the sum over cur's edges */
} sluice_walk_kernel_t;

/* Limits of sluice_walk_options_t, checked by sluice_walk_run (and by the
 * compiler, which reports them at the option that breaks them). */
#define SLUICE_WALK_MAX_THREADS 1024u
#define SLUICE_WALK_MAX_WALKERS_PER_THREAD 65536u

/* One run of a walk over a graph. */
typedef struct sluice_walk_options_t {
  uint32_t max_length; /* vertices per walk, counting the start (>= 1) */
  /* `stop probability`: end the walk before each step with this
   * probability (0 = never). */
  double stop_probability;
  /* Start vertices (CSR ids); NULL = every vertex in id order. */
  const uint32_t *starts;
  uint64_t num_starts;
  uint32_t walks_per_vertex; /* >= 1 */
  uint64_t seed;
  uint32_t threads;            /* 0 = hardware concurrency; at most SLUICE_WALK_MAX_THREADS */
  uint32_t walkers_per_thread; /* interleaved walkers per thread; 0 = engine default; at most SLUICE_WALK_MAX_WALKERS_PER_THREAD */
  sluice_walk_sampler_t sampler;
  /* The cost ratio r = c_rej / c_res of the cost model; 0 = calibrate at
   * start-up (sluice_sampler_calibrate_cost_ratio). */
  double cost_ratio;
  sluice_progress_fn_t progress; /* NULL: lines to stderr for runs > 1 s */
  void *progress_user_data;
  int quiet; /* non-zero: no progress at all */
  /* SLUICE_WALK_ENGINE_* bits: switches of the engine's fast paths, for
   * tests and measurements (the walks are the same); 0 = every fast path
   * where it applies. */
  uint32_t engine_flags;
} sluice_walk_options_t;

/* A rejection step draws at most min(MAX, max(MIN, PER_EDGE * degree))
 * trials, then the exact two-pass draw: the CPU engine and the GPU
 * kernels alike (walk-to-gpu takes the numbers from here). */
#define SLUICE_WALK_REJECTION_MAX_TRIALS 64
#define SLUICE_WALK_REJECTION_MIN_TRIALS 4
#define SLUICE_WALK_REJECTION_TRIALS_PER_EDGE 2

/* engine_flags: run node2vec-like walks through the generic rejection
 * loop instead of the specialised one (docs/sampling.md). */
#define SLUICE_WALK_ENGINE_GENERIC 0x1u
/* engine_flags: no pre-acceptance by the per-vertex lower bound (every
 * rejection trial evaluates the weight). */
#define SLUICE_WALK_ENGINE_NO_PRE_ACCEPT 0x2u
/* engine_flags: walk copies of a large graph's arrays (16 MiB or more) on
 * transparent huge pages instead of the graph's own (docs/sampling.md). */
#define SLUICE_WALK_ENGINE_HUGE_PAGES 0x4u
/* engine_flags: no neighbour sets of the hubs for second-order kernels
 * (has_edge then always searches the sorted adjacency list). */
#define SLUICE_WALK_ENGINE_NO_EDGE_SETS 0x8u
/* engine_flags: build the neighbour sets of the hubs for a second-order
 * kernel whatever the graph's size (by default only when its targets
 * array is 16 MiB or more). NO_EDGE_SETS wins over it. */
#define SLUICE_WALK_ENGINE_EDGE_SETS 0x10u

/* Fills `options` with the defaults (length 80, 1 walk per vertex, every
 * vertex, seed 0, auto sampler, calibrated cost ratio). */
SLUICE_API void sluice_walk_options_init(sluice_walk_options_t *options);

/* What a run did. */
typedef struct sluice_walk_stats_t {
  uint64_t walks;
  uint64_t steps; /* edges traversed, over all walks */
  double seconds; /* wall time of the walking itself (not output) */
  uint64_t rejection_steps;  /* steps drawn by rejection */
  uint64_t reservoir_steps;  /* steps drawn by reservoir */
  uint64_t alias_steps;      /* steps drawn from alias tables */
  uint64_t rejection_trials; /* proposals drawn by rejection */
  uint64_t bound_violations; /* weights found above the kernel's upper bound */
  double cost_ratio;         /* the r the cost model used */
  /* Rejection trials accepted by the lower bound alone, without calling
   * the weight (kernels with SLUICE_WALK_PURE_WEIGHT and a lower bound). */
  uint64_t pre_accepted;
  /* Second-order kernels: the hubs' neighbour sets has_edge consulted
   * (docs/sampling.md): vertices with a set, bytes of the sets and their
   * index, seconds to build them (included in no other field). */
  uint64_t edge_set_vertices;
  uint64_t edge_set_bytes;
  double edge_set_seconds;
} sluice_walk_stats_t;

/* Runs the walks and writes them to `writer` (which may be NULL: walk
 * without output, e.g. to benchmark), in walker order, so the output is the
 * same for any thread count. `params` is the parameter block (may be NULL
 * when num_params is 0). `stats` may be NULL. */
SLUICE_API sluice_status_t sluice_walk_run(const sluice_graph_t *graph,
                                           const sluice_walk_kernel_t *kernel,
                                           const void *params,
                                           const sluice_walk_options_t *options,
                                           sluice_walk_writer_t *writer,
                                           sluice_walk_stats_t *stats,
                                           sluice_error_t *error);

/* random() inside a kernel function: a uniform double in [0, 1) drawn from
 * a stream keyed by (seed, walker, step) that is separate from the
 * sampler's, and that advances with each call within one step. */
SLUICE_API double sluice_walk_random(const sluice_walk_frame_t *f);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_WALK_H */
