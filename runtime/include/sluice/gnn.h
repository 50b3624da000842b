/*===- sluice/gnn.h - libsluicert: mini-batch GNN training on the CPU ------===*
 *
 * What a compiled `train` job of a `gnn` model runs (docs/gnn.md): one
 * epoch after another of
 *
 *  - seed mini-batches: the training vertices in a shuffled order;
 *  - k-hop neighbour sampling with the model's fanouts (fanouts[0] is the
 *    number of out-neighbours sampled for each seed, fanouts[1] for each of
 *    those, ...; without replacement; a vertex of smaller degree keeps all
 *    its neighbours), keyed by (seed, epoch, batch) so that the result does
 *    not depend on the number of threads;
 *  - the feature gather of every vertex the batch reached;
 *  - the layers forward (GraphSAGE with a mean aggregator, GCN with
 *    Kipf and Welling's symmetric normalisation, the sampled neighbour sum
 *    scaled by degree / sampled so that it estimates the full sum, or GAT
 *    with multi-head attention over the sampled neighbours), ReLU
 *    between layers, softmax cross-entropy on the seeds, backward, and one
 *    Adam step.
 *
 * Numerics are fp32 with a fixed summation order: the same options give the
 * same bits for any number of threads. The dense layers' neighbour
 * aggregation may run elsewhere (`aggregator`, e.g. on a GPU through
 * sluice/gnn_gpu.h, whose kernels give the same bits). Class labels are
 * the graph's vertex labels (load it with a vertex label file); unlabelled
 * vertices take part in aggregation but not in the loss. The labelled
 * vertices are split at random (seeded) into training, validation and test
 * sets.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_GNN_H
#define SLUICE_GNN_H

#include "sluice/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sluice_gnn_kind_t {
  SLUICE_GNN_SAGE = 0, /* h' = W_self h_v + W_neigh mean(h_u) + b */
  SLUICE_GNN_GCN = 1,  /* h' = W sum_u h_u / sqrt((d_v + 1)(d_u + 1)) + b */
  SLUICE_GNN_GAT = 2   /* h' = sum_{u in {v} + N(v)} alpha_vu W h_u + b, per
                          head, alpha the softmax of LeakyReLU(a_src . W h_u
                          + a_dst . W h_v); hidden layers concatenate the
                          heads, the output layer averages them */
} sluice_gnn_kind_t;

/* How the input layer reads the features (sluice_gnn_options_t). */
typedef enum sluice_gnn_input_t {
  SLUICE_GNN_INPUT_AUTO = 0,  /* sparse when the measured density is at most
                                 SLUICE_GNN_SPARSE_DENSITY, else dense */
  SLUICE_GNN_INPUT_DENSE = 1, /* dense rows, a GEMM */
  SLUICE_GNN_INPUT_SPARSE = 2 /* compressed rows (column, value), SGCN-style */
} sluice_gnn_input_t;

/* The density (share of non-zero features) at or below which AUTO reads
 * the input layer sparsely (docs/gnn.md, "Sparse input"). */
#define SLUICE_GNN_SPARSE_DENSITY 0.1

/* The most layers a model may have. */
#define SLUICE_GNN_MAX_LAYERS 8

/* The most attention heads of a GAT layer. */
#define SLUICE_GNN_MAX_HEADS 64

/* One sampled block (host arrays; what the trainer's sampler builds). */
typedef struct sluice_gnn_block_t {
  uint32_t num_dst;        /* dst rows: src rows 0 .. num_dst - 1 */
  uint32_t num_src;        /* src rows, at least num_dst */
  const uint32_t *offsets; /* num_dst + 1: dst d's edges */
  const uint32_t *nbr;     /* per edge: its src row, below num_src */
  const float *coef;       /* per edge */
  const float *self_coef;  /* per dst (GCN; may be NULL for SAGE) */
} sluice_gnn_block_t;

/* Where the dense layers' neighbour aggregation of training runs
 * (sluice_gnn_options_t.aggregator): called instead of the CPU's, with the
 * arguments of sluice_gnn_gpu_forward and sluice_gnn_gpu_backward
 * (sluice/gnn_gpu.h; sluice_gnn_gpu_aggregator fills one that runs them on
 * a GPU). forward writes agg from h; backward adds the transpose applied
 * to da to dh, which holds zeros on entry. A status other than OK fails
 * the training with that status and message. */
typedef struct sluice_gnn_aggregator_t {
  sluice_status_t (*forward)(void *user, const sluice_gnn_block_t *block,
                             const float *h, uint32_t in, float *agg,
                             sluice_error_t *error);
  sluice_status_t (*backward)(void *user, const sluice_gnn_block_t *block,
                              const float *da, uint32_t in, float *dh,
                              sluice_error_t *error);
  void *user;
} sluice_gnn_aggregator_t;

/* What one epoch did (the epoch callback and sluice_gnn_result_t). */
typedef struct sluice_gnn_epoch_t {
  uint32_t epoch;            /* 1-based */
  double loss;               /* mean training loss over the epoch's seeds */
  double train_accuracy;     /* on the epoch's training seeds, as trained */
  double val_accuracy;       /* after the epoch; NaN without validation set */
  double test_accuracy;      /* after the epoch; NaN without test set */
  double seconds;            /* the whole epoch, evaluation included */
  double sample_seconds;     /* neighbour sampling (training batches) */
  double gather_seconds;     /* feature gather (training batches) */
  double compute_seconds;    /* forward, backward and optimizer */
  double wait_seconds;       /* the trainer blocked on the next batch: the
                                sampling and gather not hidden under
                                compute (all of it without a pipeline) */
  double aggregate_seconds;  /* the neighbour aggregation of the dense
                                layers, forward and backward (part of
                                compute_seconds; training batches) */
  uint64_t batches;
  uint64_t sampled_vertices; /* summed over the batches' input layers */
  uint64_t sampled_edges;    /* summed over the batches' layers */
} sluice_gnn_epoch_t;

typedef void (*sluice_gnn_epoch_fn_t)(void *user_data,
                                      const sluice_gnn_epoch_t *epoch);

typedef struct sluice_gnn_options_t {
  sluice_gnn_kind_t kind; /* default SAGE */
  uint32_t layers;        /* >= 1 */
  const uint32_t *fanouts; /* `layers` entries, each >= 1 */
  uint32_t features;       /* input width */
  uint32_t hidden;         /* width of the hidden layers */
  uint32_t classes;        /* output width; labels must be below it */
  uint32_t batch;          /* seeds per mini-batch; default 64 */
  uint32_t epochs;         /* default 10 */
  float learning_rate;     /* Adam; default 0.01 */
  float weight_decay;      /* L2 added to the gradient; default 0 */
  float dropout;           /* share of each hidden layer's outputs zeroed
                              during training (inverted dropout); default 0 */
  uint64_t seed;           /* initial weights, split, order, sampling */
  uint32_t threads;        /* 0: every core */
  double train_fraction;   /* of the labelled vertices; default 0.6 */
  double val_fraction;     /* default 0.2; the rest is the test set */
  /* num_vertices x features fp32, row-major, borrowed for the call. NULL
   * (and no feature_path): identity features (one-hot vertex ids; features
   * must equal the number of vertices). */
  const float *feature_data;
  /* Or a file of features: NumPy .npy (float32, 2-D, C order) or raw
   * float32, `features` values per row; row r holds the vertex whose
   * original id is r + the graph's id base (sluice_graph_id_base), so the
   * file needs a row for the largest original id. Read through the tiered
   * feature store (docs/feature-store.md): with feature_out_of_core, rows
   * are ranked by their expected accesses under the fanouts, the hottest
   * feature_cache_bytes of them kept in host memory and the rest read with
   * O_DIRECT through the io_uring engine in one batch per mini-batch;
   * without it the whole file is loaded. An I/O error fails the training
   * (IO_ERROR) without using the rows it lost. */
  const char *feature_path;
  int feature_out_of_core;
  uint64_t feature_cache_bytes;
  sluice_gnn_input_t input; /* default AUTO */
  /* Batches sampled and gathered ahead of compute by a producer thread
   * (Hyperion's pipeline); 0: one after another on the calling thread.
   * Default 2. The results do not depend on it. */
  uint32_t pipeline_depth;
  /* Feature columns per tile of the neighbour aggregation of the dense
   * layers (docs/gnn.md, "Tiled aggregation"); 0 (default): chosen per
   * layer and direction from the cache sizes and the blocks, refined by a
   * short probe on the first batches where the model is unsure. The tile
   * does not change the results, only the time. */
  uint32_t aggregate_tile;
  /* 1: no evaluation after the epochs (accuracies NaN); for benchmarks. */
  int skip_evaluation;
  sluice_gnn_epoch_fn_t on_epoch; /* may be NULL */
  void *user_data;
  /* GAT: attention heads of every layer, 1 to SLUICE_GNN_MAX_HEADS; the
   * hidden width must be a multiple of it (each hidden head is hidden /
   * heads wide; the output layer's heads are classes wide, averaged).
   * Default 1; the other kinds take 1 only. */
  uint32_t heads;
  /* NULL (default): the CPU's tiled aggregation. Else the dense layers'
   * aggregation (not the sparse input layer's, which builds none) runs
   * there; sage and gcn only. The tile fields of the result then describe
   * the CPU tiles the tuner would have used. */
  const sluice_gnn_aggregator_t *aggregator;
} sluice_gnn_options_t;

typedef struct sluice_gnn_result_t {
  uint32_t epochs;
  uint32_t best_epoch;         /* highest validation accuracy (first) */
  double best_val_accuracy;
  double test_accuracy;        /* after best_epoch */
  double final_test_accuracy;  /* after the last epoch */
  double final_loss;
  uint64_t train_vertices, val_vertices, test_vertices;
  double seconds;              /* all epochs */
  double input_density;        /* measured share of non-zero inputs */
  int input_sparse;            /* the input layer read compressed rows */
  uint64_t parameters;         /* trainable values */
  /* The feature store (feature_path only): rows served from the host cache
   * and read from the file, bytes read, the I/O engine's busy time, and the
   * rows cached. */
  uint64_t feature_cache_hits;
  uint64_t feature_file_rows;
  uint64_t feature_file_bytes;
  double feature_io_seconds;
  uint64_t feature_cached_rows;
  /* Tiled aggregation: per layer (input layer first), the feature columns
   * per tile of the forward aggregation and of the backward scatter at the
   * end of the training (0: the layer has none: a sparse input layer, or
   * the input layer's scatter, which is never needed), the model's choice
   * before any probe, whether a probe chose among candidates, and the L1d
   * and L2 cache sizes the model read. */
  uint32_t forward_tile[SLUICE_GNN_MAX_LAYERS];
  uint32_t backward_tile[SLUICE_GNN_MAX_LAYERS];
  uint32_t model_forward_tile[SLUICE_GNN_MAX_LAYERS];
  uint32_t model_backward_tile[SLUICE_GNN_MAX_LAYERS];
  int tile_probed;             /* a probe chose at least one tile */
  uint64_t cache_l1d_bytes;
  uint64_t cache_l2_bytes;
} sluice_gnn_result_t;

SLUICE_API void sluice_gnn_options_init(sluice_gnn_options_t *options);

/* Trains on `graph` (its vertex labels are the classes). Invalid options,
 * a graph without labels, a label >= classes or too few labelled vertices
 * for the split are INVALID_ARGUMENT with a message that names the
 * offending value. `out` may be NULL. */
SLUICE_API sluice_status_t sluice_gnn_train(const sluice_graph_t *graph,
                                            const sluice_gnn_options_t *options,
                                            sluice_gnn_result_t *out,
                                            sluice_error_t *error);

/* The expected reads of each vertex (of its features, say) in one epoch of
 * k-hop neighbour sampling, exact (no random numbers), in `columns`
 * independent columns (e.g. one per server that owns the seeds). On entry
 * `counts` (n x columns, row-major) holds hop 0: how often vertex v is a
 * seed in column c. On return it holds the total over hops 0..layers,
 * where hop h samples min(fanouts[h-1], deg u) distinct out-neighbours of
 * every vertex u reached at hop h-1, each neighbour with probability
 * min(f, deg u) / deg u. `offsets` (n + 1) and `targets` are a CSR; an
 * edge to a vertex >= n, decreasing offsets or sizes that do not fit are
 * errors. */
SLUICE_API sluice_status_t sluice_gnn_expected_accesses(
    const uint64_t *offsets, const uint32_t *targets, uint64_t n,
    const uint32_t *fanouts, uint32_t layers, uint32_t columns,
    double *counts, sluice_error_t *error);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_GNN_H */
