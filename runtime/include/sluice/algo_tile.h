/*===- sluice/algo_tile.h - libsluicert: tiled pull loops ------------------===*
 *
 * Cache-blocked in-edges for pull loops scheduled `tile: N` or `tile: auto`
 * (docs/algorithms.md, "Tiled pull loops"): the source vertices are split
 * into tiles of `tile` consecutive vertices, and the destinations into
 * blocks (the items of the loop's parallel for). A block runs its
 * destinations tile by tile: first every in-edge whose source is in tile
 * 0, then tile 1, ..., so the source data one block reads at a time is
 * one tile's. Each destination's in-edges still come in the CSC's order
 * (sources ascending: a tile is a range of sources), all on one thread,
 * so a loop whose updates are at the destination computes the same bits
 * tiled and untiled, for any number of threads.
 *
 * Layout (one "entry" per destination and tile it has in-edges from):
 *
 *   block b:  entries [block_entries[b], block_entries[b + 1]), ordered by
 *             tile, then destination
 *   entry k:  destination entry_dst[k], its in-edges from the entry's tile
 *             at sources[entry_edges[k] .. entry_edges[k + 1]) (weights
 *             likewise), sources ascending
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_ALGO_TILE_H
#define SLUICE_ALGO_TILE_H

#include "sluice/algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field order is ABI (compiler/Conversion/GraphToLLVM/TiledLoops.cpp binds
 * it by static_assert): 8 bytes each. */
typedef struct sluice_algo_tiled_t {
  uint64_t tile;                 /* sources per tile (> 0) */
  uint64_t num_tiles;            /* ceil(num_vertices / tile) */
  uint64_t num_blocks;           /* destination blocks */
  uint64_t num_entries;          /* (destination, tile) pairs with edges */
  const uint64_t *block_entries; /* num_blocks + 1 */
  const uint32_t *entry_dst;     /* num_entries */
  const uint64_t *entry_edges;   /* num_entries + 1 */
  const uint32_t *sources;       /* num_edges */
  const float *weights;          /* num_edges, or NULL (unweighted) */
} sluice_algo_tiled_t;

/* The tiled in-edges of the context's graph with tiles of `tile` (> 0)
 * sources, built on the context's threads the first time a size is asked
 * for and kept until the context is released. NULL when `tile` is 0 or
 * the layout does not fit in memory (a note says so). The destination
 * blocks depend only on the graph and the context's threads. */
SLUICE_API const sluice_algo_tiled_t *
sluice_algo_tiled_csc(sluice_algo_ctx_t *ctx, uint64_t tile);

/* One run of the tiled pull loop named `name` (the compiler's name for it,
 * e.g. "loop 'gather' of algorithm 'pagerank'": runs of one name share
 * their choice): the layout to run it over, or NULL to run it untiled. `tile` >
 * 0: tiles of that many sources. `tile` == 0 (`tile: auto`): chosen from the
 * cache sizes, the `source_bytes` the loop reads per source vertex and the
 * in-degrees, and when that model is unsure by timing the loop's first runs
 * with a few candidate sizes (every run computes the same values, whatever the
 * size). Each begin is followed by sluice_algo_tile_end after the run. */
SLUICE_API const sluice_algo_tiled_t *
sluice_algo_tile_begin(sluice_algo_ctx_t *ctx, const char *name, int64_t tile,
                       uint64_t source_bytes);
SLUICE_API void sluice_algo_tile_end(sluice_algo_ctx_t *ctx, const char *name);

/* What the context's tiled loops ran with so far, one line per loop in
 * the order of their first run (e.g. "loop 'gather' of algorithm
 * 'pagerank': tile: auto chose tiles of 65536 sources ..."); NULL past the
 * last. Valid until the next call with the same index or the context's release.
 */
SLUICE_API const char *sluice_algo_tile_note(sluice_algo_ctx_t *ctx,
                                             uint32_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_ALGO_TILE_H */
