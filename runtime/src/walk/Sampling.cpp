//===- Sampling.cpp - Philox C entry point and per-graph alias tables -----===//
//
// The C API of sluice/sampling.h that needs no timing, and the construction
// of GraphAliasTables (Vose per vertex over the CSR weights).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/Sampling.h"

#include <stdexcept>
#include <string>

using namespace sluice::walk;

extern "C" SLUICE_API void sluice_philox4x32_10(const uint32_t counter[4],
                                                const uint32_t key[2],
                                                uint32_t out[4]) {
  if (!counter || !key || !out)
    return;
  philox4x32_10(counter, key, out);
}

extern "C" SLUICE_API int sluice_sampler_prefers_reservoir(double cost_ratio,
                                                           double weight_bound,
                                                           double weight_sum) {
  return prefersReservoir(cost_ratio, weight_bound, weight_sum) ? 1 : 0;
}

GraphAliasTables::GraphAliasTables(const sluice_graph_t *graph) {
  if (!graph)
    throw std::invalid_argument("GraphAliasTables: null graph");
  numVertices_ = sluice_graph_num_vertices(graph);
  offsets_ = sluice_graph_offsets(graph);
  targets_ = sluice_graph_targets(graph);
  const float *weights = sluice_graph_weights(graph);
  uint64_t numEdges = sluice_graph_num_edges(graph);
  prob_.resize(numEdges);
  alias_.resize(numEdges);
  hasMass_.assign(numVertices_, 0);
  std::vector<double> scaled;
  std::vector<uint32_t> small, large;
  for (uint64_t v = 0; v < numVertices_; ++v) {
    uint64_t begin = offsets_[v], degree = offsets_[v + 1] - begin;
    if (degree == 0)
      continue;
    if (degree > UINT32_MAX)
      throw std::length_error("GraphAliasTables: vertex " + std::to_string(v) +
                              " has degree " + std::to_string(degree) +
                              " >= 2^32");
    double total;
    if (weights) {
      const float *w = weights + begin;
      total = buildAlias(static_cast<uint32_t>(degree),
                         [w](uint64_t i) { return double(w[i]); },
                         prob_.data() + begin, alias_.data() + begin, scaled,
                         small, large);
    } else {
      total = buildAlias(static_cast<uint32_t>(degree),
                         [](uint64_t) { return 1.0; }, prob_.data() + begin,
                         alias_.data() + begin, scaled, small, large);
    }
    hasMass_[v] = total > 0;
  }
}
