//===- KernelSupport.cpp - Helpers that compiled walk kernels call --------===//
//
// sluice/walk_support.h: edge weight and label lookups by endpoints, and
// checked list indexing.
//
//===----------------------------------------------------------------------===//
#include "sluice/walk_support.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

extern "C" double sluice_kernel_edge_weight(const sluice_graph_t *graph,
                                          uint32_t u, uint32_t v) {
  uint64_t e = sluice_graph_find_edge(graph, u, v);
  if (e == SLUICE_EDGE_NONE)
    return 0.0;
  const float *weights = sluice_graph_weights(graph);
  return weights ? static_cast<double>(weights[e]) : 1.0;
}

extern "C" int64_t sluice_kernel_edge_label(const sluice_graph_t *graph,
                                          uint32_t u, uint32_t v) {
  uint64_t e = sluice_graph_find_edge(graph, u, v);
  const int32_t *labels = sluice_graph_edge_labels(graph);
  if (e == SLUICE_EDGE_NONE || !labels)
    return -1;
  return labels[e];
}

extern "C" int64_t sluice_kernel_list_get(const sluice_walk_list_t *list,
                                        int64_t index) {
  if (!list || index < 0 || index >= list->size) {
    std::fprintf(stderr,
                 "sluice: walk kernel error: list index %" PRId64
                 " out of range (the list has %" PRId64 " elements)\n",
                 index, list ? list->size : int64_t(0));
    std::abort();
  }
  return list->data[index];
}
