//===- Rmat.h - The benchmarks' deterministic R-MAT graphs ------*- C++ -*-===//
//
// An R-MAT graph (Graph500's Kronecker parameters a = 0.57, b = c = 0.19),
// 2^scale vertex ids and 16 * 2^scale generated edges, ids scrambled by a
// fixed permutation (as Graph500 and GAPBS do, so that the high-degree
// vertices are not the low ids), then made a simple undirected graph as the
// shared graphs are: self loops and duplicates dropped, ids compacted
// (vertices without an edge vanish; original ids are the generated ones).
// Deterministic: the same graph on every machine. Shared by
// sluice-bench-walks and sluice-bench-gnn.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_BENCH_COMMON_RMAT_H
#define SLUICE_BENCH_COMMON_RMAT_H

#include "sluice/graph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice::bench {

/// The graph, or null with the runtime's message in `error`.
/// `vertexLabels`: null or 2^scale labels by generated id.
inline sluice_graph_t *generateRmat(uint32_t scale,
                                    const int32_t *vertexLabels,
                                    std::string &error) {
  const uint64_t n = uint64_t(1) << scale, m = 16 * n;
  uint64_t state = 0x5eed0000ull + scale;
  auto next = [&]() { // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<uint32_t> perm(n);
  for (uint64_t v = 0; v < n; ++v)
    perm[v] = static_cast<uint32_t>(v);
  for (uint64_t v = n - 1; v > 0; --v)
    std::swap(perm[v], perm[next() % (v + 1)]);
  std::vector<uint32_t> sources(m), targets(m);
  // Thresholds of a 64-bit uniform for the quadrants a, a + b, a + b + c.
  const double a = 0.57, b = 0.19, c = 0.19;
  const uint64_t ta = uint64_t(a * 0x1p64), tb = uint64_t((a + b) * 0x1p64),
                 tc = uint64_t((a + b + c) * 0x1p64);
  for (uint64_t e = 0; e < m; ++e) {
    uint64_t u = 0, v = 0;
    for (uint32_t bit = 0; bit < scale; ++bit) {
      uint64_t r = next();
      uint64_t row = r >= tb, col = (r >= ta && r < tb) || r >= tc;
      u = u << 1 | row;
      v = v << 1 | col;
    }
    sources[e] = perm[u];
    targets[e] = perm[v];
  }
  sluice_graph_t *g = nullptr;
  sluice_error_t failure;
  if (sluice_graph_create_from_edges(
          n, m, sources.data(), targets.data(), nullptr, nullptr, vertexLabels,
          SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
              SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS,
          &g, &failure) != SLUICE_STATUS_OK) {
    error = failure.message;
    return nullptr;
  }
  return g;
}

} // namespace sluice::bench

#endif // SLUICE_BENCH_COMMON_RMAT_H
