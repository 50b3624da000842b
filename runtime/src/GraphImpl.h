//===- GraphImpl.h - The representation behind sluice_graph_t --*- C++ -*-===//
//
// A graph is a set of read-only views (the pointers the C API hands out)
// over storage that is either owned vectors (text loads, edge arrays) or a
// read-only file mapping (binary CSR). Per-vertex aggregates and labels
// attached from a separate file are always on the heap.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GRAPHIMPL_H
#define SLUICE_RUNTIME_SRC_GRAPHIMPL_H

#include "sluice/graph.h"

#include "runtime/src/EdgeSets.h"

#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace sluice::rt {

/// The largest number of vertices: ids are uint32 and UINT32_MAX is
/// SLUICE_VERTEX_NONE.
constexpr uint64_t kMaxVertices = UINT32_MAX;

/// A non-NULL pointer for an empty array, so that `ptr + 0` is valid C.
template <typename T> const T *viewOf(const std::vector<T> &v) {
  static const T empty{};
  return v.empty() ? &empty : v.data();
}

/// A read-only mmap of a whole file; unmapped on destruction.
class MappedFile {
public:
  MappedFile(const void *data, uint64_t size) : data(data), size(size) {}
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  const unsigned char *bytes() const {
    return static_cast<const unsigned char *>(data);
  }
  uint64_t length() const { return size; }

private:
  const void *data;
  uint64_t size;
};

/// A file a graph was read from (the graph file, a label file): its name as
/// given and its identity, so that no output of the runtime overwrites it.
struct InputFile {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
};

/// Owned arrays of a graph built in memory.
struct GraphStorage {
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> targets;
  std::vector<float> weights;
  std::vector<int32_t> vertexLabels;
  std::vector<int32_t> edgeLabels;
  std::vector<uint64_t> originalIds;
  std::vector<float> weightSums, weightMaxes, weightMins;
};

} // namespace sluice::rt

struct sluice_graph_t {
  uint64_t numVertices = 0;
  uint64_t numEdges = 0;
  uint32_t properties = 0;
  uint32_t idBase = 0;

  // Views; NULL when absent.
  const uint64_t *offsets = nullptr;
  const uint32_t *targets = nullptr;
  const float *weights = nullptr;
  const int32_t *vertexLabels = nullptr;
  const int32_t *edgeLabels = nullptr;
  const uint64_t *originalIds = nullptr;
  const float *weightSums = nullptr;
  const float *weightMaxes = nullptr;
  const float *weightMins = nullptr;
  /// Hash sets of the hubs' neighbours that has_edge consults first; only
  /// the walk engine's views of a graph have them (NULL otherwise).
  const sluice::rt::EdgeSets *edgeSets = nullptr;

  sluice::rt::GraphStorage storage;
  std::unique_ptr<sluice::rt::MappedFile> mapping;
  /// The files it was loaded from (none for a graph built from arrays).
  std::vector<sluice::rt::InputFile> inputs;
  /// What the load dropped and merged (sluice_graph_load_stats).
  sluice_graph_load_stats_t loadStats{};

  /// Points every view at `storage` for the arrays that are not mapped
  /// (a non-empty vector, or the offsets of an empty graph).
  void bindStorage();

  /// Makes this graph a view of `other` (sizes, properties, every array
  /// view, load stats); it owns nothing, and `other` must outlive it. The
  /// walk engine uses it to point kernels at copies of some arrays.
  void viewArraysOf(const sluice_graph_t &other) {
    numVertices = other.numVertices;
    numEdges = other.numEdges;
    properties = other.properties;
    idBase = other.idBase;
    offsets = other.offsets;
    targets = other.targets;
    weights = other.weights;
    vertexLabels = other.vertexLabels;
    edgeLabels = other.edgeLabels;
    originalIds = other.originalIds;
    weightSums = other.weightSums;
    weightMaxes = other.weightMaxes;
    weightMins = other.weightMins;
    edgeSets = other.edgeSets;
    loadStats = other.loadStats;
  }
};

namespace sluice::rt {

/// INVALID_ARGUMENT when `output` names (by device and inode: hard and
/// symbolic links included) a file `graph` was loaded from; OK otherwise,
/// also when `output` does not exist yet. `what` names the output in the
/// message ("walk output"). Call it before anything is opened for writing.
sluice_status_t checkNotAnInput(const sluice_graph_t *graph,
                                const std::string &output, const char *what,
                                sluice_error_t *error);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_GRAPHIMPL_H
