//===- HubGraph.h - The hub-and-path test graph of the GPU walk tests ------===//
//
// A hub (vertex 0) joined to 70 vertices on a path 1 - 2 - ... - 70,
// undirected; with `labelled`, edge {0, v} carries label v % 3 and edge
// {v, v + 1} label (2v + 1) % 3. The reservoir kernels' tests use it so that
// a warp's lanes scan several rounds of the hub's adjacency.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_SUPPORT_HUBGRAPH_H
#define SLUICE_TEST_UNIT_SUPPORT_HUBGRAPH_H

#include "sluice/graph.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace sluice::testgraphs {

using GraphPtr = std::unique_ptr<sluice_graph_t, void (*)(sluice_graph_t *)>;

/// The graph, or NULL with `error` filled.
inline GraphPtr hubGraph(bool labelled, sluice_error_t *error) {
  std::vector<uint32_t> src, dst;
  std::vector<int32_t> labels;
  for (uint32_t v = 1; v <= 70; ++v) {
    src.push_back(0);
    dst.push_back(v);
    labels.push_back(int32_t(v % 3));
  }
  for (uint32_t v = 1; v < 70; ++v) {
    src.push_back(v);
    dst.push_back(v + 1);
    labels.push_back(int32_t((2 * v + 1) % 3));
  }
  sluice_graph_t *g = nullptr;
  if (sluice_graph_create_from_edges(
          71, src.size(), src.data(), dst.data(), nullptr,
          labelled ? labels.data() : nullptr, nullptr,
          SLUICE_GRAPH_LOAD_UNDIRECTED, &g, error) != SLUICE_STATUS_OK)
    g = nullptr;
  return GraphPtr(g, sluice_graph_release);
}

} // namespace sluice::testgraphs

#endif // SLUICE_TEST_UNIT_SUPPORT_HUBGRAPH_H
