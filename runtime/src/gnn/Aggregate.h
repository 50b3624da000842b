//===- Aggregate.h - Tiled neighbour aggregation of GNN layers --*- C++ -*-===//
//
// The aggregation of a dense layer over a block (Sampler.h): with H the
// block's src rows (width `in`) and A the aggregate of its dst rows,
//
//   SAGE: A[d] = [H[d] | sum_e coef_e H[nbr_e]]            (width 2 in)
//   GCN:  A[d] = selfCoef_d H[d] + sum_e coef_e H[nbr_e]   (width in)
//
// and the backward pass's transpose, which scatters dA into dH:
// dH[d] += s_d dA_self[d], dH[nbr_e] += coef_e dA_neigh[d].
//
// Both kernels walk the feature columns in tiles of `tile` columns (the
// GCN tiling paper's feature-dimension tiling): for each tile, every dst
// row of the thread's share and every one of its edges, so the slice of
// the gathered rows a pass touches (rows x tile floats) can stay in cache
// when whole rows would not. The forward pass splits the dst rows over the
// threads and tiles all columns; the backward scatter splits the columns
// over the threads (each thread owns its dH columns) and tiles its share.
// Every output value is summed in the same order for any tile and any
// thread count (its self term, then the edges in block order), so the
// tiled kernels give the same bits as the untiled ones (tile >= in).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_AGGREGATE_H
#define SLUICE_RUNTIME_SRC_GNN_AGGREGATE_H

#include "runtime/src/gnn/Sampler.h"

#include <cstddef>

namespace sluice::rt {
class AlgoThreadPool;
}

namespace sluice::rt::gnn {

/// Writes A (numDst x (sage ? 2 in : in)) from H (numSrc x in). `tile`
/// columns per pass; 0 or more than `in`: one pass over whole rows.
void aggregateForward(AlgoThreadPool *pool, const Block &b, bool sage,
                      const float *h, size_t in, float *agg, size_t tile);

/// Adds the transpose of the aggregation applied to dA (numDst x (sage ?
/// 2 in : in)) to dH (numSrc x in). `tile` columns per pass within each
/// thread's share of the columns; 0 or more than the share: one pass.
void aggregateBackward(AlgoThreadPool *pool, const Block &b, bool sage,
                       const float *dA, size_t in, float *dH, size_t tile);

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_AGGREGATE_H
