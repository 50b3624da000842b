//===- Graph.cpp - Graph queries, edge-array construction, release --------===//
#include "runtime/src/GraphImpl.h"

#include "runtime/src/Error.h"
#include "runtime/src/GraphBuilder.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>

using namespace sluice::rt;

namespace {

template <typename T> uint64_t heapBytes(const std::vector<T> &v) {
  return static_cast<uint64_t>(v.capacity()) * sizeof(T);
}

bool inRange(const sluice_graph_t *g, uint32_t v) {
  return g && v < g->numVertices;
}

} // namespace

MappedFile::~MappedFile() {
  if (data && size)
    munmap(const_cast<void *>(data), size);
}

sluice_status_t sluice::rt::checkNotAnInput(const sluice_graph_t *graph,
                                            const std::string &output,
                                            const char *what,
                                            sluice_error_t *error) {
  if (!graph || graph->inputs.empty())
    return SLUICE_STATUS_OK;
  struct stat st;
  if (::stat(output.c_str(), &st) != 0)
    return SLUICE_STATUS_OK; // nothing there to overwrite
  for (const InputFile &input : graph->inputs)
    if (st.st_dev == input.device && st.st_ino == input.inode)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {output},
                  std::string("the ") + what +
                      " is the file the graph was "
                      "read from ('" +
                      input.path + "'); refusing to overwrite it");
  return SLUICE_STATUS_OK;
}

void sluice_graph_t::bindStorage() {
  offsets = viewOf(storage.offsets);
  targets = viewOf(storage.targets);
  weights =
      (properties & SLUICE_GRAPH_WEIGHTED) ? viewOf(storage.weights) : nullptr;
  edgeLabels = (properties & SLUICE_GRAPH_EDGE_LABELS)
                   ? viewOf(storage.edgeLabels)
                   : nullptr;
  vertexLabels = (properties & SLUICE_GRAPH_VERTEX_LABELS)
                     ? viewOf(storage.vertexLabels)
                     : nullptr;
  originalIds = (properties & SLUICE_GRAPH_COMPACTED)
                    ? viewOf(storage.originalIds)
                    : nullptr;
}

//===----------------------------------------------------------------------===//
// Construction from arrays
//===----------------------------------------------------------------------===//

extern "C" sluice_status_t sluice_graph_create_from_edges(
    uint64_t numVertices, uint64_t numEdges, const uint32_t *sources,
    const uint32_t *targets, const float *weights, const int32_t *edgeLabels,
    const int32_t *vertexLabels, uint32_t flags, sluice_graph_t **outGraph,
    sluice_error_t *error) {
  sluice_error_clear(error);
  const uint32_t allowed =
      SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
      SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_SUM_DUPLICATES |
      SLUICE_GRAPH_LOAD_COMPACT_IDS;
  auto invalid = [&](const std::string &message) {
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
  };
  if (!outGraph)
    return invalid("out_graph is NULL");
  if (numEdges && (!sources || !targets))
    return invalid("sources and targets must not be NULL when num_edges > 0");
  if (flags & ~allowed)
    return invalid("unsupported flags " + hex(flags & ~allowed) +
                   " for edge arrays");
  if ((flags & SLUICE_GRAPH_LOAD_DEDUPLICATE) &&
      (flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES))
    return invalid("duplicate edges both merged (DEDUPLICATE) and summed "
                   "(SUM_DUPLICATES); choose one");
  if (numVertices > kMaxVertices)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                std::to_string(numVertices) + " vertices exceed the limit of " +
                    std::to_string(kMaxVertices));
  for (uint64_t i = 0; i < numEdges; ++i) {
    if (sources[i] >= numVertices || targets[i] >= numVertices)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "edge " + std::to_string(i) + " (" +
                      std::to_string(sources[i]) + " -> " +
                      std::to_string(targets[i]) +
                      ") has a vertex id not below num_vertices " +
                      std::to_string(numVertices));
    if (weights && !std::isfinite(weights[i]))
      return invalid("weight of edge " + std::to_string(i) + " is not finite");
    if (weights && weights[i] < 0)
      return invalid("weight of edge " + std::to_string(i) + " is negative (" +
                     formatFloat(weights[i]) + ")");
    if (edgeLabels && edgeLabels[i] < 0)
      return invalid("edge " + std::to_string(i) + " has the negative label " +
                     std::to_string(edgeLabels[i]));
  }
  for (uint64_t v = 0; vertexLabels && v < numVertices; ++v)
    if (vertexLabels[v] < SLUICE_LABEL_NONE)
      return invalid("vertex " + std::to_string(v) +
                     " has the negative label " +
                     std::to_string(vertexLabels[v]));

  return guarded(error, {}, [&]() -> sluice_status_t {
    const bool compact = flags & SLUICE_GRAPH_LOAD_COMPACT_IDS;
    const bool sum = flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
    EdgeCollector collector(compact, flags & SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS,
                            weights != nullptr || sum, edgeLabels != nullptr);
    for (uint64_t i = 0; i < numEdges; ++i)
      collector.add(sources[i], targets[i], weights ? weights[i] : 1.0f,
                    edgeLabels ? edgeLabels[i] : 0);
    EdgeStaging staging = collector.finish(numVertices, 0);
    auto graph = std::make_unique<sluice_graph_t>();
    BuildOptions options;
    options.undirected = flags & SLUICE_GRAPH_LOAD_UNDIRECTED;
    options.duplicates = duplicatesOf(flags);
    buildCsr(staging, options, nullptr, *graph);
    if (vertexLabels) {
      std::vector<int32_t> &labels = graph->storage.vertexLabels;
      labels.resize(graph->numVertices);
      for (uint64_t v = 0; v < graph->numVertices; ++v)
        labels[v] =
            vertexLabels[compact ? sluice_graph_original_id(
                                       graph.get(), static_cast<uint32_t>(v))
                                 : v];
      graph->properties |= SLUICE_GRAPH_VERTEX_LABELS;
      graph->vertexLabels = viewOf(labels);
    }
    *outGraph = graph.release();
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_graph_release(sluice_graph_t *graph) { delete graph; }

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

extern "C" uint32_t sluice_graph_properties(const sluice_graph_t *g) {
  return g ? g->properties : 0;
}
extern "C" uint64_t sluice_graph_num_vertices(const sluice_graph_t *g) {
  return g ? g->numVertices : 0;
}
extern "C" uint64_t sluice_graph_num_edges(const sluice_graph_t *g) {
  return g ? g->numEdges : 0;
}
extern "C" const uint64_t *sluice_graph_offsets(const sluice_graph_t *g) {
  return g ? g->offsets : nullptr;
}
extern "C" const uint32_t *sluice_graph_targets(const sluice_graph_t *g) {
  return g ? g->targets : nullptr;
}
extern "C" const float *sluice_graph_weights(const sluice_graph_t *g) {
  return g ? g->weights : nullptr;
}
extern "C" const int32_t *sluice_graph_vertex_labels(const sluice_graph_t *g) {
  return g ? g->vertexLabels : nullptr;
}
extern "C" const int32_t *sluice_graph_edge_labels(const sluice_graph_t *g) {
  return g ? g->edgeLabels : nullptr;
}

extern "C" uint64_t sluice_graph_degree(const sluice_graph_t *g, uint32_t v) {
  return inRange(g, v) ? g->offsets[v + 1] - g->offsets[v] : 0;
}

extern "C" uint64_t sluice_graph_find_edge(const sluice_graph_t *g, uint32_t u,
                                           uint32_t v) {
  if (!inRange(g, u))
    return SLUICE_EDGE_NONE;
  const uint64_t first = g->offsets[u];
  const uint32_t *begin = g->targets + first;
  const uint64_t degree = g->offsets[u + 1] - first;
  if (degree == 0)
    return SLUICE_EDGE_NONE;
  // Branch-free lower_bound (the step is a conditional move): second-order
  // walk weights ask has_edge(prev, next) at nearly every step, where the
  // branches of std::lower_bound were mispredicted about once per call.
  // The first element >= v is in [base, base + n].
  const uint32_t *base = begin;
  uint64_t n = degree;
  while (n > 1) {
    uint64_t half = n / 2;
    base = base[half] < v ? base + half : base;
    n -= half;
  }
  // Its index may be `degree` (v above every neighbour): the element read
  // is then the last one, and found / not found is arithmetic, not a
  // branch (SLUICE_EDGE_NONE is all ones).
  uint64_t index = static_cast<uint64_t>(base - begin) + (*base < v);
  uint64_t inside = index != degree;
  uint64_t found = inside & (begin[index - (1 - inside)] == v);
  return (first + index) | (found - 1);
}

extern "C" int sluice_graph_has_edge(const sluice_graph_t *g, uint32_t u,
                                     uint32_t v) {
  if (g && g->edgeSets) {
    int found = g->edgeSets->find(u, v);
    if (found >= 0)
      return found;
  }
  return sluice_graph_find_edge(g, u, v) != SLUICE_EDGE_NONE;
}

extern "C" int32_t sluice_graph_vertex_label(const sluice_graph_t *g,
                                             uint32_t v) {
  return inRange(g, v) && g->vertexLabels ? g->vertexLabels[v]
                                          : SLUICE_LABEL_NONE;
}

extern "C" float sluice_graph_weight_sum(const sluice_graph_t *g, uint32_t v) {
  if (!inRange(g, v))
    return 0;
  if (g->weightSums)
    return g->weightSums[v];
  return static_cast<float>(g->offsets[v + 1] - g->offsets[v]);
}
extern "C" float sluice_graph_weight_max(const sluice_graph_t *g, uint32_t v) {
  if (!inRange(g, v))
    return 0;
  if (g->weightMaxes)
    return g->weightMaxes[v];
  return g->offsets[v + 1] != g->offsets[v] ? 1.0f : 0.0f;
}
extern "C" float sluice_graph_weight_min(const sluice_graph_t *g, uint32_t v) {
  if (!inRange(g, v))
    return 0;
  if (g->weightMins)
    return g->weightMins[v];
  return g->offsets[v + 1] != g->offsets[v] ? 1.0f : 0.0f;
}
extern "C" const float *sluice_graph_weight_sums(const sluice_graph_t *g) {
  return g ? g->weightSums : nullptr;
}
extern "C" const float *sluice_graph_weight_maxes(const sluice_graph_t *g) {
  return g ? g->weightMaxes : nullptr;
}
extern "C" const float *sluice_graph_weight_mins(const sluice_graph_t *g) {
  return g ? g->weightMins : nullptr;
}

extern "C" uint32_t sluice_graph_id_base(const sluice_graph_t *g) {
  return g ? g->idBase : 0;
}
extern "C" uint64_t sluice_graph_original_id(const sluice_graph_t *g,
                                             uint32_t v) {
  if (!inRange(g, v))
    return UINT64_MAX;
  return g->originalIds ? g->originalIds[v] : uint64_t(v) + g->idBase;
}
extern "C" const uint64_t *sluice_graph_original_ids(const sluice_graph_t *g) {
  return g ? g->originalIds : nullptr;
}
extern "C" uint32_t sluice_graph_vertex_of(const sluice_graph_t *g,
                                           uint64_t original) {
  if (!g)
    return SLUICE_VERTEX_NONE;
  if (g->originalIds) {
    const uint64_t *end = g->originalIds + g->numVertices;
    const uint64_t *it = std::lower_bound(g->originalIds, end, original);
    if (it == end || *it != original)
      return SLUICE_VERTEX_NONE;
    return static_cast<uint32_t>(it - g->originalIds);
  }
  if (original < g->idBase || original - g->idBase >= g->numVertices)
    return SLUICE_VERTEX_NONE;
  return static_cast<uint32_t>(original - g->idBase);
}

extern "C" void sluice_graph_load_stats(const sluice_graph_t *g,
                                        sluice_graph_load_stats_t *out) {
  if (!out)
    return;
  *out = g ? g->loadStats : sluice_graph_load_stats_t{};
}

extern "C" void sluice_graph_memory(const sluice_graph_t *g,
                                    sluice_graph_memory_t *out) {
  if (!out)
    return;
  *out = sluice_graph_memory_t{};
  if (!g)
    return;
  const uint64_t n = g->numVertices, m = g->numEdges;
  out->offsets_bytes = 8 * (n + 1);
  out->targets_bytes = 4 * m;
  out->weights_bytes = g->weights ? 4 * m : 0;
  out->labels_bytes =
      (g->vertexLabels ? 4 * n : 0) + (g->edgeLabels ? 4 * m : 0);
  out->aggregates_bytes = g->weightSums ? 12 * n : 0;
  out->original_ids_bytes = g->originalIds ? 8 * n : 0;
  const GraphStorage &s = g->storage;
  out->heap_bytes = heapBytes(s.offsets) + heapBytes(s.targets) +
                    heapBytes(s.weights) + heapBytes(s.vertexLabels) +
                    heapBytes(s.edgeLabels) + heapBytes(s.originalIds) +
                    heapBytes(s.weightSums) + heapBytes(s.weightMaxes) +
                    heapBytes(s.weightMins);
  out->mapped_bytes = g->mapping ? g->mapping->length() : 0;
  out->total_bytes = out->heap_bytes + out->mapped_bytes;
}
