//===- KernelSupport.cpp - Helpers that compiled walk kernels call --------===//
//
// sluice/walk_support.h: edge weight and label lookups by endpoints, and
// checked list indexing (a bad index is a fault in the frame's slot).
//
//===----------------------------------------------------------------------===//
#include "sluice/walk_support.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

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

extern "C" size_t sluice_walk_fault_describe(const sluice_walk_fault_t *fault,
                                           char *out, size_t capacity) {
  char text[160];
  int n;
  if (!fault || fault->code == SLUICE_WALK_FAULT_NONE)
    n = std::snprintf(text, sizeof(text), "no fault");
  else if (fault->code == SLUICE_WALK_FAULT_LIST_INDEX)
    n = std::snprintf(text, sizeof(text),
                      "list index %" PRId64 " out of range (the list has %" PRId64
                      " element%s)",
                      fault->index, fault->size, fault->size == 1 ? "" : "s");
  else if (fault->code == SLUICE_WALK_FAULT_DIVISION_BY_ZERO)
    n = std::snprintf(text, sizeof(text),
                      "integer division by zero (%" PRId64 " / 0)",
                      fault->index);
  else if (fault->code == SLUICE_WALK_FAULT_REMAINDER_BY_ZERO)
    n = std::snprintf(text, sizeof(text),
                      "integer remainder by zero (%" PRId64 " %% 0)",
                      fault->index);
  else if (fault->code == SLUICE_WALK_FAULT_DIVISION_OVERFLOW)
    n = std::snprintf(text, sizeof(text),
                      "integer division overflows i64 (%" PRId64 " / -1)",
                      fault->index);
  else
    n = std::snprintf(text, sizeof(text), "unknown kernel fault %d",
                      static_cast<int>(fault->code));
  if (out && capacity) {
    size_t len = std::min(static_cast<size_t>(n), capacity - 1);
    std::memcpy(out, text, len);
    out[len] = '\0';
  }
  return static_cast<size_t>(n);
}

/// Records a fault of the kernel function running on `f` and returns the
/// neutral result 0; stops the process without a fault slot.
static int64_t recordFault(const sluice_walk_frame_t *f, int32_t code,
                           int64_t index, int64_t size) {
  sluice_walk_fault_t fault;
  std::memset(&fault, 0, sizeof(fault));
  fault.code = code;
  fault.index = index;
  fault.size = size;
  if (f) {
    fault.walker = f->walker;
    fault.step = f->step;
    fault.cur = f->cur;
  }
  if (f && f->fault) {
    // The first fault is the one reported; the kernel goes on with 0.
    if (f->fault->code == SLUICE_WALK_FAULT_NONE)
      *f->fault = fault;
    return 0;
  }
  char text[160];
  sluice_walk_fault_describe(&fault, text, sizeof(text));
  std::fprintf(stderr, "sluice: walk kernel error: %s\n", text);
  std::abort();
}

extern "C" int64_t sluice_kernel_list_get(const sluice_walk_frame_t *f,
                                        const sluice_walk_list_t *list,
                                        int64_t index) {
  if (__builtin_expect(list && index >= 0 && index < list->size, 1))
    return list->data[index];
  return recordFault(f, SLUICE_WALK_FAULT_LIST_INDEX, index,
                     list ? list->size : 0);
}

extern "C" int64_t sluice_kernel_idiv(const sluice_walk_frame_t *f, int64_t a,
                                    int64_t b) {
  if (__builtin_expect(b == 0, 0))
    return recordFault(f, SLUICE_WALK_FAULT_DIVISION_BY_ZERO, a, 0);
  if (__builtin_expect(b == -1 && a == INT64_MIN, 0))
    return recordFault(f, SLUICE_WALK_FAULT_DIVISION_OVERFLOW, a, -1);
  return a / b;
}

extern "C" int64_t sluice_kernel_irem(const sluice_walk_frame_t *f, int64_t a,
                                    int64_t b) {
  if (__builtin_expect(b == 0, 0))
    return recordFault(f, SLUICE_WALK_FAULT_REMAINDER_BY_ZERO, a, 0);
  if (b == -1)
    return 0; // -2^63 % -1 traps on x86; the remainder is 0 for every a
  return a % b;
}

extern "C" double sluice_kernel_label_mass(const sluice_graph_t *graph,
                                         uint32_t v,
                                         const sluice_walk_list_t *labels,
                                         int32_t edge, int32_t max) {
  if (!graph || !labels || labels->size <= 0 ||
      v >= sluice_graph_num_vertices(graph))
    return 0.0;
  const uint64_t *offsets = sluice_graph_offsets(graph);
  const uint32_t *targets = sluice_graph_targets(graph);
  const float *weights = sluice_graph_weights(graph);
  const int32_t *edgeLabels = sluice_graph_edge_labels(graph);
  size_t n = static_cast<size_t>(labels->size);
  double small[16];
  std::vector<double> large;
  double *sums = small;
  if (n > 16) {
    large.assign(n, 0.0);
    sums = large.data();
  } else {
    std::fill(small, small + n, 0.0);
  }
  uint64_t begin = offsets[v], end = offsets[v + 1], first = begin;
  for (uint64_t e = begin; e < end; ++e) {
    // edge_label(v, t) is the label of the first v -> t edge (sorted CSR:
    // the first of the run of equal targets).
    if (e == begin || targets[e] != targets[e - 1])
      first = e;
    int64_t label;
    if (edge)
      label = edgeLabels ? edgeLabels[first] : -1;
    else
      label = sluice_graph_vertex_label(graph, targets[e]);
    double w = weights ? static_cast<double>(weights[e]) : 1.0;
    for (size_t i = 0; i < n; ++i)
      if (labels->data[i] == label)
        sums[i] += w;
  }
  double r = sums[0];
  for (size_t i = 1; i < n; ++i)
    r = max ? std::max(r, sums[i]) : std::min(r, sums[i]);
  return r;
}
