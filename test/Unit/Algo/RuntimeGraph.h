//===- RuntimeGraph.h - A graph and an algorithm context for tests -*- C++
//-*-===//
//
// The runtime unit tests (Frontier, BucketQueue, TiledCsc) build graphs
// from edge arrays through the C API and run on a context over them; this
// is that set-up once. (AlgoTestUtils.h is the compiler-side tests'.)
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALGO_RUNTIMEGRAPH_H
#define SLUICE_TEST_UNIT_ALGO_RUNTIMEGRAPH_H

#include "sluice/algo.h"
#include "sluice/graph.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace sluice::algotest {

/// A graph and a context over it, released together.
struct Graph {
  sluice_graph_t *g = nullptr;
  sluice_algo_ctx_t *ctx = nullptr;
  ~Graph() {
    sluice_algo_ctx_release(ctx);
    sluice_graph_release(g);
  }
};

/// The graph of edges src[i] -> dst[i] on `n` vertices (weights optional),
/// loaded with `flags`, and a quiet context of `threads` over it.
inline void makeGraphFromEdges(uint32_t n, const std::vector<uint32_t> &src,
                               const std::vector<uint32_t> &dst,
                               const float *weights, uint32_t flags,
                               uint32_t threads, Graph &out) {
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(n, src.size(), src.data(),
                                           dst.data(), weights, nullptr,
                                           nullptr, flags, &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.threads = threads;
  options.quiet = 1;
  ASSERT_EQ(sluice_algo_ctx_create(out.g, &options, &out.ctx, &error),
            SLUICE_STATUS_OK);
}

/// A seeded random directed graph of `m` edges (duplicates merged) with
/// weights 1..maxWeight, and a context of `threads` over it.
inline void makeRandomGraph(uint32_t n, uint32_t m, uint32_t seed,
                            uint32_t maxWeight, uint32_t threads, Graph &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src(m), dst(m);
  std::vector<float> w(m);
  for (uint32_t i = 0; i < m; ++i) {
    src[i] = rng() % n;
    dst[i] = rng() % n;
    w[i] = float(1 + rng() % maxWeight);
  }
  makeGraphFromEdges(n, src, dst, w.data(), SLUICE_GRAPH_LOAD_DEDUPLICATE,
                     threads, out);
}

} // namespace sluice::algotest

#endif // SLUICE_TEST_UNIT_ALGO_RUNTIMEGRAPH_H
