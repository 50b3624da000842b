/*===- sluice/algo_bins.h - libsluicert: binned push loops -----------------===*
 *
 * Propagation blocking (Beamer, Asanovic, Patterson, "Reducing PageRank
 * communication via propagation blocking", IPDPS'17) for push loops
 * scheduled `direction: push, tile: N` or `tile: auto` whose only effect
 * is one reduction at the destination (docs/algorithms.md, "Binned push
 * loops"). A run has two passes:
 *
 *   binning     the loop's parallel for over the sources: the value of
 *               every out-edge e of a source is written to
 *               values[slots[e]], the pair of e in the bin of its
 *               destination's range of `tile` vertices;
 *   accumulate  a parallel for over the bins: bin b's pairs
 *               [bin_pairs[b], bin_pairs[b + 1]) are reduced into their
 *               destinations pair_dst[k] by one thread, no atomics.
 *
 * A bin holds its pairs by source, ascending (then in the CSR's order), so
 * each destination gets its values in the order a serial push (and the
 * CSC-ordered pull) gives them, on any number of threads. The layout
 * (bin_pairs, slots, pair_dst) depends only on the graph and `tile` and is
 * built on the context's threads the first time a size is asked for;
 * with the values (8 bytes per edge, whatever the value's type) it is
 * kept until the context is released. Slots are 32 bits: a graph of more
 * than 2^32 - 1 edges gets no bins (the push runs with atomics).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALGO_BINS_H
#define SLUICE_ALGO_BINS_H

#include "sluice/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field order is ABI (compiler/Conversion/GraphToLLVM/BinnedPush.cpp binds
 * it by static_assert): 8 bytes each. */
typedef struct sluice_algo_bins_t {
  uint64_t tile;             /* destinations per bin (> 0) */
  uint64_t num_bins;         /* ceil(num_vertices / tile) */
  uint64_t num_pairs;        /* num_edges */
  const uint64_t *bin_pairs; /* num_bins + 1 */
  const uint32_t *slots;     /* num_edges: the pair of CSR out-edge e */
  const uint32_t *pair_dst;  /* num_pairs */
  void *values;              /* num_pairs slots of 8 bytes */
} sluice_algo_bins_t;

/* One run of the binned push loop named `name` (the compiler's name for
 * it, e.g. "loop 'scatter' of algorithm 'pagerank'"): the bins to run it
 * with, or NULL to run the push with atomics (on a GPU, or when the bins
 * do not fit in memory: the note says so). `tile` > 0: bins of that many
 * destinations; 0 (`tile: auto`): the largest power of two whose
 * `dest_bytes` per destination (what the accumulate pass updates) fill at
 * most half the L2, with at least 4 bins per thread while a bin keeps 256
 * destinations or more. Each begin is followed by sluice_algo_bins_end
 * after the run. */
SLUICE_API const sluice_algo_bins_t *
sluice_algo_bins_begin(sluice_algo_ctx_t *ctx, const char *name, int64_t tile,
                       uint64_t dest_bytes);
SLUICE_API void sluice_algo_bins_end(sluice_algo_ctx_t *ctx, const char *name);

/* What the context's binned loops ran with so far, one line per loop in
 * the order of their first run; NULL past the last. Valid until the next
 * call with the same index or the context's release. */
SLUICE_API const char *sluice_algo_bins_note(sluice_algo_ctx_t *ctx,
                                             uint32_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALGO_BINS_H */
