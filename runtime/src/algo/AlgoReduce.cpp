//===- AlgoReduce.cpp - Reductions into locals, common neighbours ---------===//
//
// The partials of a loop that reduces into locals and their combination
// in block order (what makes the result independent of the threads), and
// common_neighbors by a merge of sorted adjacencies (galloping through the
// longer one when their lengths differ a lot), in the graph's order or in a
// loop's degree order (VertexOrder.cpp).
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

/// The first element of the sorted [first, last) not below x, searching
/// forward from `first` in steps that double, then by bisection: O(log d)
/// for a jump of d elements, O(1) for a short one.
const uint32_t *gallop(const uint32_t *first, const uint32_t *last,
                       uint32_t x) {
  size_t step = 1;
  const uint32_t *lo = first;
  while (lo + step < last && lo[step] < x) {
    lo += step;
    step *= 2;
  }
  return std::lower_bound(lo, std::min(lo + step, last), x);
}

/// Lists whose lengths differ by more than this factor are intersected by
/// galloping through the long one for each element of the short one; the
/// others by a merge.
constexpr size_t kGallopRatio = 32;

/// Common neighbours of u and v below `bound` (exclusive): the adjacency
/// lists are sorted, and an element is paired with at most one equal
/// element of the other list. Both walks stop at the first element at or
/// above the bound (no search for where the lists' prefixes below it end:
/// a hub's list is long and its prefix often short). A high-degree vertex
/// (a hub of a skewed graph) met with a low-degree one costs the short
/// list's length times a logarithm, not the hub's degree.
///
/// `offsets` and `targets` are the CSR's, or the graph relabelled by a
/// degree order (VertexOrder.cpp; u and v are then positions).
[[gnu::always_inline]] inline int64_t
mergeLists(const uint32_t *a, const uint32_t *aEnd, const uint32_t *b,
           const uint32_t *bEnd, uint64_t bound) {
  if (aEnd - a > bEnd - b) {
    std::swap(a, b);
    std::swap(aEnd, bEnd);
  }
  int64_t count = 0;
  if (size_t(bEnd - b) > kGallopRatio * size_t(aEnd - a)) {
    for (; a != aEnd && *a < bound; ++a) {
      b = gallop(b, bEnd, *a);
      if (b == bEnd || *b >= bound)
        break;
      if (*b == *a) { // paired as the merge pairs them
        ++count;
        ++b;
      }
    }
    return count;
  }
  // A merge as GAPBS's: per element of the shorter list, the longer one's
  // walk up to it (branches the CPU can run ahead on, unlike a
  // branch-free merge whose every load waits for the last comparison).
  // Only elements up to the longer list's last one can be paired, so the
  // bound drops to just above it; every element walked to is then at most
  // that last one, and the walk stops on the longer list without testing
  // for its end, only after a pair (GAPBS's walk needs no test: its u is
  // in v's list).
  if (b == bEnd)
    return 0;
  bound = std::min<uint64_t>(bound, uint64_t(bEnd[-1]) + 1);
  for (; a != aEnd; ++a) {
    uint32_t x = *a;
    if (x >= bound)
      break;
    while (*b < x)
      ++b;
    if (*b == x) { // the last one paired: a repeated x must not walk on
      ++count;
      if (++b == bEnd)
        break;
    }
  }
  return count;
}

[[gnu::always_inline]] inline int64_t mergeCount(const uint64_t *offsets,
                                                 const uint32_t *targets,
                                                 uint32_t u, uint32_t v,
                                                 uint64_t bound) {
  return mergeLists(targets + offsets[u], targets + offsets[u + 1],
                    targets + offsets[v], targets + offsets[v + 1], bound);
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
  return mergeCount(ctx->view.out_offsets, ctx->view.out_targets, u, v,
                    UINT64_MAX);
}

int64_t sluice_algo_common_neighbors_below(sluice_algo_ctx_t *ctx, uint32_t u,
                                           uint32_t v) {
  // In a loop run in degree order: the neighbours below both in it.
  if (const uint32_t *rank = ctx->orderRank)
    return mergeCount(ctx->orderOffsets, ctx->orderTargets, rank[u], rank[v],
                      std::min(rank[u], rank[v]));
  return mergeCount(ctx->view.out_offsets, ctx->view.out_targets, u, v,
                    std::min(u, v));
}

int64_t sluice_algo_common_neighbors_at(sluice_algo_ctx_t *ctx, uint32_t pu,
                                        uint32_t pv, int32_t below) {
  return mergeCount(ctx->orderOffsets, ctx->orderTargets, pu, pv,
                    below ? std::min(pu, pv) : UINT64_MAX);
}

int64_t sluice_algo_count_common(const uint32_t *a, uint64_t aLength,
                                 const uint32_t *b, uint64_t bLength,
                                 uint64_t bound) {
  return mergeLists(a, a + aLength, b, b + bLength, bound);
}
