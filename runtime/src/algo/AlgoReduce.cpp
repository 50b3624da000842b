//===- AlgoReduce.cpp - Reductions into locals, common neighbours ---------===//
//
// The partials of a loop that reduces into locals and their combination
// in block order (what makes the result independent of the threads), and
// common_neighbors by a merge of sorted adjacencies.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

void *sluice_algo_partials(sluice_algo_ctx_t *ctx, uint64_t count) {
  if (ctx->partials.size() < count)
    ctx->partials.resize(count);
  return ctx->partials.data();
}

namespace {

template <typename T> T combine(int32_t kind, T x, T y) {
  switch (kind) {
  case SLUICE_ALGO_REDUCE_MIN:
    if constexpr (std::is_floating_point_v<T>)
      return std::fmin(x, y);
    else
      return std::min(x, y);
  case SLUICE_ALGO_REDUCE_MAX:
    if constexpr (std::is_floating_point_v<T>)
      return std::fmax(x, y);
    else
      return std::max(x, y);
  default:
    if constexpr (std::is_floating_point_v<T>)
      return x + y;
    else // wraps, as the generated additions do
      return static_cast<T>(static_cast<uint64_t>(x) +
                            static_cast<uint64_t>(y));
  }
}

template <typename T>
T reduce(sluice_algo_ctx_t *ctx, const T *partials, uint64_t count,
         int32_t kind, T init) {
  if (ctx->faulted.load(std::memory_order_relaxed))
    return init;
  T acc = init;
  for (uint64_t b = 0; b < count; ++b)
    acc = combine(kind, acc, partials[b]);
  return acc;
}

/// Common neighbours of u and v below `bound` (exclusive).
int64_t mergeCount(const sluice_algo_view_t &view, uint32_t u, uint32_t v,
                   uint64_t bound) {
  const uint32_t *a = view.out_targets + view.out_offsets[u];
  const uint32_t *aEnd = view.out_targets + view.out_offsets[u + 1];
  const uint32_t *b = view.out_targets + view.out_offsets[v];
  const uint32_t *bEnd = view.out_targets + view.out_offsets[v + 1];
  int64_t count = 0;
  while (a != aEnd && b != bEnd && *a < bound && *b < bound) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++count;
      ++a;
      ++b;
    }
  }
  return count;
}

} // namespace

double sluice_algo_reduce_f64(sluice_algo_ctx_t *ctx, const double *partials,
                              uint64_t count, int32_t kind, double init) {
  return reduce(ctx, partials, count, kind, init);
}

int64_t sluice_algo_reduce_i64(sluice_algo_ctx_t *ctx, const int64_t *partials,
                               uint64_t count, int32_t kind, int64_t init) {
  return reduce(ctx, partials, count, kind, init);
}

int64_t sluice_algo_common_neighbors(sluice_algo_ctx_t *ctx, uint32_t u,
                                     uint32_t v) {
  return mergeCount(ctx->view, u, v, UINT64_MAX);
}

int64_t sluice_algo_common_neighbors_below(sluice_algo_ctx_t *ctx, uint32_t u,
                                           uint32_t v) {
  return mergeCount(ctx->view, u, v, std::min(u, v));
}
