/*===- sluice/graph.h - libsluicert: graphs in CSR form -------------------===*
 *
 * A sluice_graph_t is an immutable graph in compressed sparse row form:
 * 64-bit edge offsets, 32-bit vertex ids, adjacency sorted by target (so
 * has_edge is a binary search), optional float32 edge weights, optional
 * int32 vertex and edge labels, and per-vertex aggregates of the outgoing
 * weights (sum, max, min) computed at load time for walk samplers.
 *
 * Graphs come from SNAP edge lists, Matrix Market files (with or without
 * their header), gzip'd or not, NumPy .npy/.npz edge arrays, from edge
 * arrays in memory, or from Sluice's binary
 * CSR format, which is mmap'd and never copied. See docs/runtime.md for the
 * formats, the memory layout and the error messages.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_GRAPH_H
#define SLUICE_GRAPH_H

#include "sluice/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An immutable graph. Created by sluice_graph_load() or
 * sluice_graph_create_from_edges(), destroyed by sluice_graph_release().
 * All queries are read-only and thread-safe. */
typedef struct sluice_graph_t sluice_graph_t;

/* "No such vertex" (vertex ids are 0 .. num_vertices-1 < 2^32 - 1). */
#define SLUICE_VERTEX_NONE UINT32_MAX
/* "No such edge" returned by sluice_graph_find_edge(). */
#define SLUICE_EDGE_NONE UINT64_MAX
/* The vertex label of an unlabelled vertex. */
#define SLUICE_LABEL_NONE (-1)

/* Input formats. */
typedef enum sluice_graph_format_e {
  /* Binary CSR if the file starts with its magic; .npy or .npz (zip) by
   * their magic strings; Matrix Market if the
   * (decompressed) text starts with "%%MatrixMarket"; else a CSV edge list
   * if its first line that is not blank or a comment has a comma, else a
   * SNAP edge list. A headerless Matrix Market body is never guessed. */
  SLUICE_GRAPH_FORMAT_AUTO = 0,
  /* SNAP edge list: "u v" per line, 0-based, '#' or '%' comment lines,
   * spaces or tabs between columns. Name "snap". */
  SLUICE_GRAPH_FORMAT_SNAP = 1,
  /* Matrix Market coordinate file with its banner and size line: fields
   * real, integer or pattern; symmetry general or symmetric (symmetric
   * means undirected); 1-based. Name "mtx". */
  SLUICE_GRAPH_FORMAT_MTX = 2,
  /* The entry lines of a Matrix Market file without banner or size line:
   * "i j [value]" per line, 1-based. Name "mtx-body". */
  SLUICE_GRAPH_FORMAT_MTX_BODY = 3,
  /* Sluice binary CSR (docs/runtime.md), mmap'd. Name "binary". */
  SLUICE_GRAPH_FORMAT_BINARY = 4,
  /* Comma-separated edge list: "u,v[,weight][,label]" per line, 0-based,
   * blanks around fields ignored, '#' or '%' comment lines. Name "csv".
   * (Since runtime 0.3.) */
  SLUICE_GRAPH_FORMAT_CSV = 5,
  /* NumPy .npy edge array of shape (E, 2), dtype int32 or int64 ('<i4',
   * '<i8'), C or Fortran order, row i the edge src -> dst, 0-based; no
   * weights. AUTO detects it by its magic string. Name "npy". */
  SLUICE_GRAPH_FORMAT_NPY = 6,
  /* NumPy .npz archive (numpy.savez or savez_compressed) of 1-D arrays
   * `src` and `dst` (int32 or int64, E entries) and optionally `weight`
   * (float32 or float64, read with SLUICE_WEIGHTS_COLUMN). AUTO detects a
   * zip archive. Name "npz". */
  SLUICE_GRAPH_FORMAT_NPZ = 7
} sluice_graph_format_t;
/* Edge lists (snap, mtx-body, csv) may start with a header line ("src dst",
 * "source,target,weight"): the first line that is not blank or a comment
 * is skipped when neither of its first two fields is a number. */

/* Parses a format name: "auto", "snap", "mtx", "mtx-body", "binary", "csv",
 * "npy", "npz".
 * SLUICE_STATUS_INVALID_ARGUMENT for anything else. */
SLUICE_API sluice_status_t sluice_graph_format_from_name(
    const char *name, sluice_graph_format_t *out_format);
/* The name of a format ("mtx-body"), "unknown" outside the enum. */
SLUICE_API const char *sluice_graph_format_name(sluice_graph_format_t format);

/* Where edge weights come from. */
typedef enum sluice_weights_e {
  /* No weight array; every edge weighs 1 in the aggregate queries. */
  SLUICE_WEIGHTS_NONE = 0,
  /* Read the column after the two vertex ids (Matrix Market: the value): a
   * finite number >= 0; a negative one is a PARSE_ERROR at its line. */
  SLUICE_WEIGHTS_COLUMN = 1,
  /* A weight array with every weight 1.0 (for graphs that will be
   * re-weighted in place later, or written as weighted binary files). */
  SLUICE_WEIGHTS_ONES = 2
} sluice_weights_t;

/* Load flags (sluice_graph_load_options_t.flags). */
enum {
  /* Add the reverse of every edge (a self loop is stored once). */
  SLUICE_GRAPH_LOAD_UNDIRECTED = 1u << 0,
  /* Drop edges u -> u before anything else (also before compaction). */
  SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS = 1u << 1,
  /* Merge duplicate edges: keep one copy of each (u, v) edge, the first in
   * input order, with its weight and label. In an undirected load u v and
   * v u are the same edge (both arcs get the first copy's weight). */
  SLUICE_GRAPH_LOAD_DEDUPLICATE = 1u << 2,
  /* Renumber the ids that occur in the (kept) edges to 0 .. n-1 in
   * increasing order of the original id; the original ids stay queryable
   * (an identity mapping, when the ids are already dense, is not stored).
   * Without it, num_vertices is the largest id + 1 (or the declared size). */
  SLUICE_GRAPH_LOAD_COMPACT_IDS = 1u << 3,
  /* Read an int32 edge label (>= 0) from the column after the weight (or
   * after the two vertex ids / the value when weights are not a column). */
  SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN = 1u << 4,
  /* No progress lines, however long the load takes. */
  SLUICE_GRAPH_LOAD_QUIET = 1u << 5,
  /* Merge duplicate edges like DEDUPLICATE, but the merged edge weighs the
   * sum of its copies' weights (added in input order in double precision,
   * stored as float); its label is the first copy's. A load without a
   * weight column (SLUICE_WEIGHTS_NONE) gets a weight array of the
   * multiplicities (every copy weighs 1). Not with DEDUPLICATE. */
  SLUICE_GRAPH_LOAD_SUM_DUPLICATES = 1u << 6,
  /* With COMPACT_IDS, keep the vertices a Matrix Market size line declares
   * (ids 1 .. rows, rows < 2^32 - 1) even when they have no edge (they
   * become vertices of degree 0). Without COMPACT_IDS they are always
   * kept; other formats declare no vertices. */
  SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES = 1u << 7
};

/* Options for sluice_graph_load(). Initialise with
 * sluice_graph_load_options_init(), then set what you need. */
typedef struct sluice_graph_load_options_t {
  sluice_graph_format_t format; /* default AUTO */
  uint32_t flags;               /* SLUICE_GRAPH_LOAD_*; default 0: directed */
  sluice_weights_t weights;     /* default NONE */
  /* Optional file of "vertex label" lines (ids as in the graph file: 0-based
   * for SNAP, 1-based for Matrix Market; labels are int32 >= 0). With
   * compact ids, lines for ids that are not in the graph are skipped;
   * without, they are an error. Vertices without a line get
   * SLUICE_LABEL_NONE. NULL: no vertex labels. */
  const char *vertex_labels_path;
  /* Progress: a line every progress_interval_ms once the load has run for
   * progress_delay_ms (defaults 1000 and 1000), to `progress` or, when it
   * is NULL, to stderr. */
  sluice_progress_fn_t progress;
  void *progress_user_data;
  uint32_t progress_delay_ms;
  uint32_t progress_interval_ms;
  /* Optional file of "u v label" lines (ids as in the graph file, labels
   * int32 >= 0): the label of every u -> v arc (and v -> u in a graph
   * loaded undirected). An edge that is not in the graph or is labelled
   * twice is an error at its line; arcs without a line get
   * SLUICE_LABEL_NONE. Not with SLUICE_GRAPH_LOAD_EDGE_LABEL_COLUMN, nor
   * for a binary file that has edge labels. NULL: none. */
  const char *edge_labels_path;
  /* Optional: num_keep_vertex_ids ids (as in the graph file, like start
   * vertices) that are vertices of the graph even without an edge, e.g. the
   * start vertices of walks (a walk from a vertex without edges has length
   * 1). An id the input cannot have is ignored (sluice_graph_vertex_of
   * then finds no vertex): below the id base, beyond a Matrix Market size
   * line, 2^32 - 1 or more without COMPACT_IDS, or any id of a binary file
   * that does not hold it. NULL / 0: none. (Since runtime 0.2.) */
  const uint64_t *keep_vertex_ids;
  uint64_t num_keep_vertex_ids;
  /* Threads that parse a large plain (not gzip'd) SNAP, CSV or Matrix
   * Market body file: its lines cut into chunks, parsed side by side and
   * merged in file order, so the graph and any error are those of a
   * serial parse. 0 (the default): every core, as sluice_algo_options_t
   * and the walk engine. (Since runtime 0.3.) */
  uint32_t threads;
} sluice_graph_load_options_t;

SLUICE_API void
sluice_graph_load_options_init(sluice_graph_load_options_t *options);

/* Loads a graph. `options` may be NULL (defaults). Text inputs may be
 * gzip-compressed (detected from the content, not the name). For a binary
 * file the transforming options are requirements: asking for an undirected,
 * deduplicated (DEDUPLICATE or SUM_DUPLICATES), loop-free or weighted graph
 * fails with INVALID_ARGUMENT when the file is not one; COMPACT_IDS and
 * KEEP_DECLARED_VERTICES are ignored (the file keeps its vertices);
 * vertex_labels_path attaches labels to a file without them.
 * On error *out_graph is left untouched and `error` says what and where. */
SLUICE_API sluice_status_t
sluice_graph_load(const char *path, const sluice_graph_load_options_t *options,
                  sluice_graph_t **out_graph, sluice_error_t *error);

/* Builds a graph from arrays of `num_edges` edges sources[i] -> targets[i]
 * with ids < num_vertices. `weights` (finite, >= 0), `edge_labels`
 * (num_edges entries, >= 0) and
 * `vertex_labels` (num_vertices entries, SLUICE_LABEL_NONE allowed) may be
 * NULL. `flags` takes UNDIRECTED, DROP_SELF_LOOPS, DEDUPLICATE,
 * SUM_DUPLICATES and COMPACT_IDS with their load meaning. The arrays are
 * copied. */
SLUICE_API sluice_status_t sluice_graph_create_from_edges(
    uint64_t num_vertices, uint64_t num_edges, const uint32_t *sources,
    const uint32_t *targets, const float *weights, const int32_t *edge_labels,
    const int32_t *vertex_labels, uint32_t flags, sluice_graph_t **out_graph,
    sluice_error_t *error);

/* Writes `graph` in the binary CSR format: to a temporary file in the same
 * directory, fsync'd, then renamed over `path`. On error no file is left
 * behind and an existing `path` is unchanged. A `path` that is a file the
 * graph was loaded from is INVALID_ARGUMENT. */
SLUICE_API sluice_status_t sluice_graph_write_binary(
    const sluice_graph_t *graph, const char *path, sluice_error_t *error);

/* Releases the graph (its memory or its mapping). NULL is allowed. */
SLUICE_API void sluice_graph_release(sluice_graph_t *graph);

/* Facts about a graph (sluice_graph_properties()). */
enum {
  SLUICE_GRAPH_DIRECTED = 1u << 0,      /* not built as undirected */
  SLUICE_GRAPH_WEIGHTED = 1u << 1,      /* has a weight array */
  SLUICE_GRAPH_VERTEX_LABELS = 1u << 2, /* has vertex labels */
  SLUICE_GRAPH_EDGE_LABELS = 1u << 3,   /* has edge labels */
  SLUICE_GRAPH_COMPACTED = 1u << 4,     /* has an original-id array (ids
                                           were renumbered and the mapping
                                           is not the identity) */
  SLUICE_GRAPH_NO_DUPLICATES = 1u << 5, /* no (u, v) stored twice */
  SLUICE_GRAPH_NO_SELF_LOOPS = 1u << 6, /* no u -> u */
  SLUICE_GRAPH_MAPPED = 1u << 7         /* CSR arrays mmap'd from a file */
};

SLUICE_API uint32_t sluice_graph_properties(const sluice_graph_t *graph);
SLUICE_API uint64_t sluice_graph_num_vertices(const sluice_graph_t *graph);
/* Stored arcs: an undirected graph with m edges (no self loops) has 2m. */
SLUICE_API uint64_t sluice_graph_num_edges(const sluice_graph_t *graph);

/* The CSR arrays, valid until the graph is released: offsets has
 * num_vertices + 1 entries, the out-neighbours of v are
 * targets[offsets[v] .. offsets[v+1]) in increasing order, with weights and
 * edge labels at the same positions. weights, labels: NULL when absent. */
SLUICE_API const uint64_t *sluice_graph_offsets(const sluice_graph_t *graph);
SLUICE_API const uint32_t *sluice_graph_targets(const sluice_graph_t *graph);
SLUICE_API const float *sluice_graph_weights(const sluice_graph_t *graph);
SLUICE_API const int32_t *
sluice_graph_vertex_labels(const sluice_graph_t *graph);
SLUICE_API const int32_t *sluice_graph_edge_labels(const sluice_graph_t *graph);

/* Out-degree; 0 for a vertex out of range. */
SLUICE_API uint64_t sluice_graph_degree(const sluice_graph_t *graph,
                                        uint32_t vertex);
/* 1 if u -> v is an edge (binary search), else 0 (also out of range). */
SLUICE_API int sluice_graph_has_edge(const sluice_graph_t *graph, uint32_t u,
                                     uint32_t v);
/* Index into targets/weights/edge labels of the first u -> v edge, or
 * SLUICE_EDGE_NONE. */
SLUICE_API uint64_t sluice_graph_find_edge(const sluice_graph_t *graph,
                                           uint32_t u, uint32_t v);
/* SLUICE_LABEL_NONE when the graph has no vertex labels or v is out of
 * range. */
SLUICE_API int32_t sluice_graph_vertex_label(const sluice_graph_t *graph,
                                             uint32_t vertex);

/* Per-vertex aggregates of the outgoing edge weights (an unweighted graph
 * counts every edge as 1). A vertex without out-edges (or out of range)
 * has sum, max and min 0. The sum is accumulated in double, stored as
 * float. The array getters return NULL for an unweighted graph. */
SLUICE_API float sluice_graph_weight_sum(const sluice_graph_t *graph,
                                         uint32_t vertex);
SLUICE_API float sluice_graph_weight_max(const sluice_graph_t *graph,
                                         uint32_t vertex);
SLUICE_API float sluice_graph_weight_min(const sluice_graph_t *graph,
                                         uint32_t vertex);
SLUICE_API const float *sluice_graph_weight_sums(const sluice_graph_t *graph);
SLUICE_API const float *sluice_graph_weight_maxes(const sluice_graph_t *graph);
SLUICE_API const float *sluice_graph_weight_mins(const sluice_graph_t *graph);

/* Original ids: the id a vertex has in its input file. With compact ids it
 * comes from the mapping; otherwise it is vertex + id_base, where id_base is
 * 1 for Matrix Market inputs and 0 otherwise. UINT64_MAX for a vertex out
 * of range. */
SLUICE_API uint32_t sluice_graph_id_base(const sluice_graph_t *graph);
SLUICE_API uint64_t sluice_graph_original_id(const sluice_graph_t *graph,
                                             uint32_t vertex);
/* The mapping array (num_vertices entries, strictly increasing), or NULL
 * when the ids were not renumbered, or when compaction found the ids dense
 * (id_base .. id_base + n - 1 all present: the mapping is the identity and
 * is not stored). */
SLUICE_API const uint64_t *
sluice_graph_original_ids(const sluice_graph_t *graph);
/* The vertex whose original id is `original_id`, or SLUICE_VERTEX_NONE. */
SLUICE_API uint32_t sluice_graph_vertex_of(const sluice_graph_t *graph,
                                           uint64_t original_id);

/* What a load did to the edges it read (sluice_graph_load_stats()). */
typedef struct sluice_graph_load_stats_t {
  /* Edges read: entry lines of a text file, num_edges of an edge array,
   * stored arcs of a binary file. */
  uint64_t input_edges;
  /* Of them, self loops u -> u (dropped with DROP_SELF_LOOPS, else
   * stored). */
  uint64_t self_loops;
  /* Of them (dropped self loops aside), edges that repeat an earlier edge;
   * in an undirected load u v and v u are the same edge. Merged into the
   * first copy (DEDUPLICATE, SUM_DUPLICATES) or stored as parallel arcs.
   * For a binary file, self_loops and duplicate_edges count what it
   * stores. */
  uint64_t duplicate_edges;
  /* Stored arcs removed by merging duplicates (an undirected duplicate of
   * u v, u != v, removes two arcs). */
  uint64_t merged_arcs;
  /* Vertices without any arc, in or out (declared or kept ids, or ids
   * whose only edges were dropped self loops without COMPACT_IDS). */
  uint64_t isolated_vertices;
} sluice_graph_load_stats_t;

/* Fills `out_stats` with what the load that built `graph` did (zeros for a
 * NULL graph). (Since runtime 0.2.) */
SLUICE_API void sluice_graph_load_stats(const sluice_graph_t *graph,
                                        sluice_graph_load_stats_t *out_stats);

/* Bytes held by a graph, by part; see docs/runtime.md for the layout. */
typedef struct sluice_graph_memory_t {
  uint64_t offsets_bytes;      /* 8 * (num_vertices + 1) */
  uint64_t targets_bytes;      /* 4 * num_edges */
  uint64_t weights_bytes;      /* 4 * num_edges when weighted */
  uint64_t labels_bytes;       /* 4 * num_vertices and/or 4 * num_edges */
  uint64_t aggregates_bytes;   /* 12 * num_vertices when weighted */
  uint64_t original_ids_bytes; /* 8 * num_vertices when compacted */
  uint64_t heap_bytes;         /* of the total, allocated on the heap */
  uint64_t mapped_bytes;       /* of the total, mmap'd from a binary file */
  uint64_t total_bytes;
} sluice_graph_memory_t;

SLUICE_API void sluice_graph_memory(const sluice_graph_t *graph,
                                    sluice_graph_memory_t *out_memory);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_GRAPH_H */
