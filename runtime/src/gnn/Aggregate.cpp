//===- Aggregate.cpp - Tiled neighbour aggregation of GNN layers ----------===//

#include "runtime/src/gnn/Aggregate.h"

#include "runtime/src/gnn/Dense.h"

#include <algorithm>

namespace sluice::rt::gnn {

namespace {

/// The columns of one pass: `tile`, or all `width` when tile is 0 or
/// larger.
size_t passWidth(size_t tile, size_t width) {
  return tile == 0 || tile > width ? width : tile;
}

} // namespace

void aggregateForward(AlgoThreadPool *pool, const Block &b, bool sage,
                      const float *h, size_t in, float *agg, size_t tile) {
  if (in == 0)
    return;
  const size_t rows = sage ? 2 * in : in;
  const size_t t = passWidth(tile, in);
  parallelRows(pool, b.numDst, [&](size_t begin, size_t end) {
    for (size_t j0 = 0; j0 < in; j0 += t) {
      const size_t j1 = std::min(in, j0 + t);
      for (size_t d = begin; d < end; ++d) {
        float *ad = agg + d * rows;
        const float *hd = h + d * in;
        float *neigh = ad;
        if (sage) {
          neigh = ad + in;
          for (size_t j = j0; j < j1; ++j) {
            ad[j] = hd[j];
            neigh[j] = 0.0f;
          }
        } else {
          const float s = b.selfCoef[d];
          for (size_t j = j0; j < j1; ++j)
            ad[j] = s * hd[j];
        }
        for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
          const float c = b.coef[e];
          const float *hu = h + size_t(b.nbr[e]) * in;
          for (size_t j = j0; j < j1; ++j)
            neigh[j] += c * hu[j];
        }
      }
    }
  });
}

void aggregateBackward(AlgoThreadPool *pool, const Block &b, bool sage,
                       const float *dA, size_t in, float *dH, size_t tile) {
  if (in == 0)
    return;
  const size_t rows = sage ? 2 * in : in;
  parallelRows(pool, in, [&](size_t begin, size_t end) {
    const size_t t = passWidth(tile, end - begin);
    for (size_t j0 = begin; j0 < end; j0 += t) {
      const size_t j1 = std::min(end, j0 + t);
      for (size_t d = 0; d < b.numDst; ++d) {
        const float *ad = dA + d * rows;
        const float *neigh = sage ? ad + in : ad;
        const float s = sage ? 1.0f : b.selfCoef[d];
        float *hd = dH + d * in;
        for (size_t j = j0; j < j1; ++j)
          hd[j] += s * ad[j];
        for (uint32_t e = b.offsets[d]; e < b.offsets[d + 1]; ++e) {
          const float c = b.coef[e];
          float *hu = dH + size_t(b.nbr[e]) * in;
          for (size_t j = j0; j < j1; ++j)
            hu[j] += c * neigh[j];
        }
      }
    }
  });
}

} // namespace sluice::rt::gnn
