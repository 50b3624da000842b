//===- RandomAdjacency.h - Seeded random CSR/CSC arrays for runtime tests -===//
//
// The compressed adjacency arrays the layout builders' tests draw
// (PushBinsTest: out-edges, a CSR; TiledCscTest: in-edges, a CSC), and the
// two orders in which those tests run a builder's ForEach.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALGO_RANDOMADJACENCY_H
#define SLUICE_TEST_UNIT_ALGO_RANDOMADJACENCY_H

#include "runtime/src/algo/TiledCsc.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace sluice::algotest {

/// n lists of vertex ids in one array: list v is ids[offsets[v],
/// offsets[v + 1]), with weights[e] beside ids[e] when the lists are
/// weighted.
struct Adjacency {
  uint64_t n = 0;
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> ids;
  std::vector<float> weights;
};

/// How randomAdjacency draws.
struct AdjacencyShape {
  /// Every 5th vertex (0, 5, ...) has an empty list and is in no list.
  bool isolateEveryFifth = false;
  /// No id twice in a list.
  bool distinct = false;
  /// A weight (1 to 100) / 7 per entry.
  bool weighted = false;
};

/// n lists of ids below n, each sorted, of skewed lengths (a quarter up to
/// n ids, the others up to 5), from `seed`.
inline Adjacency randomAdjacency(uint64_t n, uint32_t seed,
                                 AdjacencyShape shape) {
  std::mt19937 rng(seed);
  Adjacency c;
  c.n = n;
  for (uint64_t v = 0; v < n; ++v) {
    uint64_t degree = shape.isolateEveryFifth && v % 5 == 0 ? 0
                      : rng() % 4 == 0                      ? rng() % (n + 1)
                                                            : rng() % 6;
    std::vector<uint32_t> list;
    for (uint64_t i = 0; i < degree; ++i) {
      uint32_t u = static_cast<uint32_t>(rng() % n);
      if (!shape.isolateEveryFifth || u % 5 != 0)
        list.push_back(u);
    }
    std::sort(list.begin(), list.end());
    if (shape.distinct)
      list.erase(std::unique(list.begin(), list.end()), list.end());
    for (uint32_t u : list) {
      c.ids.push_back(u);
      if (shape.weighted)
        c.weights.push_back(static_cast<float>(1 + rng() % 100) / 7.0f);
    }
    c.offsets.push_back(c.ids.size());
  }
  return c;
}

/// A ForEach calling fn(0), fn(1), ... in order on this thread.
inline const rt::ForEach serialForEach =
    [](uint64_t count, const std::function<void(uint64_t)> &fn) {
      for (uint64_t i = 0; i < count; ++i)
        fn(i);
    };

/// A ForEach calling fn(count - 1), ..., fn(0) on this thread.
inline const rt::ForEach reversedForEach =
    [](uint64_t count, const std::function<void(uint64_t)> &fn) {
      for (uint64_t i = count; i-- > 0;)
        fn(i);
    };

} // namespace sluice::algotest

#endif // SLUICE_TEST_UNIT_ALGO_RANDOMADJACENCY_H
