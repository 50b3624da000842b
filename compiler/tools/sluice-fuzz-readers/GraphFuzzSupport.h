//===- GraphFuzzSupport.h - Shared pieces of the graph-loader targets -----===//
//
// The runtime's graph loaders read paths (text through LineReader, binary
// CSR by mmap), so the graph targets hand them a memfd: MemFile holds the
// fuzz input in memory under /proc/self/fd/N, and nothing is written to
// disk. checkGraph walks every query of a loaded graph, so a loader that
// accepts an input whose CSR breaks an invariant shows up as a sanitizer
// report rather than passing silently.
//
// Without compact ids a text graph has (largest id + 1) vertices, and a
// Matrix Market file as many as its size line declares: the loader must
// allocate that much (8 bytes a vertex and more), so a 20-byte file may
// rightly ask for 32 GiB. declaresManyVertices lets the targets skip such
// inputs instead of reporting them as out-of-memory.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_FUZZREADERS_GRAPHFUZZSUPPORT_H
#define SLUICE_COMPILER_TOOLS_FUZZREADERS_GRAPHFUZZSUPPORT_H

#include "sluice/graph.h"

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <unistd.h>

namespace sluice::fuzz {

/// An anonymous in-memory file whose contents each input replaces.
class MemFile {
public:
  explicit MemFile(const char *name) : fd(memfd_create(name, MFD_CLOEXEC)) {
    if (fd < 0) {
      perror("memfd_create");
      abort();
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;
  ~MemFile() { close(fd); }

  /// Replaces the contents with `size` bytes at `data`; returns the path
  /// that opens them.
  const char *assign(const void *data, size_t size) {
    if (ftruncate(fd, 0) != 0) {
      perror("ftruncate");
      abort();
    }
    const char *p = static_cast<const char *>(data);
    for (size_t done = 0; done < size;) {
      ssize_t n = pwrite(fd, p + done, size - done, static_cast<off_t>(done));
      if (n <= 0) {
        perror("pwrite");
        abort();
      }
      done += static_cast<size_t>(n);
    }
    return path.c_str();
  }
  const char *assign(const std::string &text) {
    return assign(text.data(), text.size());
  }

private:
  int fd;
  std::string path;
};

/// The first `limit` bytes of the text a loader reads from `data`: the data
/// itself, or its gzip members inflated (LineReader detects gzip by the
/// magic 1f 8b). False if the gzip'd text is longer than `limit`.
inline bool loaderText(const uint8_t *data, size_t size, std::string &text,
                       size_t limit = size_t(1) << 20) {
  if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
    text.assign(reinterpret_cast<const char *>(data), size);
    return true;
  }
  text.clear();
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    abort();
  z.next_in = const_cast<Bytef *>(data);
  z.avail_in = static_cast<uInt>(size);
  char out[16384];
  bool fits = true;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef *>(out);
    z.avail_out = sizeof(out);
    int r = inflate(&z, Z_NO_FLUSH);
    text.append(out, sizeof(out) - z.avail_out);
    if (text.size() > limit) {
      fits = false;
      break;
    }
    if (r == Z_STREAM_END && z.avail_in >= 2 && z.next_in[0] == 0x1f &&
        z.next_in[1] == 0x8b) {
      inflateReset(&z); // the next member
      continue;
    }
    if (r != Z_OK)
      break; // the end, or an error the loader reports
  }
  inflateEnd(&z);
  return fits;
}

/// True if loading `data` without compact ids may build more than 2^16
/// vertices: a line whose first or second field (the two ids, or a Matrix
/// Market size line's rows and columns) is a number above 2^16, or gzip'd
/// text over 1 MiB.
inline bool declaresManyVertices(const uint8_t *data, size_t size) {
  std::string text;
  if (!loaderText(data, size, text))
    return true;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t eol = rest.find_first_of("\r\n");
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view()
                                         : rest.substr(eol + 1);
    size_t i = 0;
    for (int field = 0; field < 2; ++field) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
      uint64_t value = 0;
      size_t digits = 0;
      for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i)
        if (++digits <= 8)
          value = value * 10 + uint64_t(line[i] - '0');
      if (digits > 6 || value > (uint64_t(1) << 16))
        return true;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t')
        ++i;
    }
  }
  return false;
}

/// The options of the text targets' second byte beyond the weights mode
/// (byte % 3): bit 2 sums duplicates, bit 3 keeps a Matrix Market file's
/// declared vertices, bit 4 keeps the ids 0, 3, 9 and 40000 (a start list).
inline void applyGraphSemantics(uint8_t byte,
                                sluice_graph_load_options_t &options) {
  static const uint64_t kKeep[] = {0, 3, 9, 40000};
  if (byte & 4)
    options.flags |= SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
  if (byte & 8)
    options.flags |= SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES;
  if (byte & 16) {
    options.keep_vertex_ids = kKeep;
    options.num_keep_vertex_ids = 4;
  }
}

/// Calls every query of `g` on every vertex and edge, checking the
/// invariants the runtime relies on (offsets non-decreasing and ending at
/// the edge count, targets in range); aborts when one fails.
inline void checkGraph(const sluice_graph_t *g) {
  const uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t m = sluice_graph_num_edges(g);
  const uint64_t *offsets = sluice_graph_offsets(g);
  const uint32_t *targets = sluice_graph_targets(g);
  const float *weights = sluice_graph_weights(g);
  const int32_t *vertexLabels = sluice_graph_vertex_labels(g);
  const int32_t *edgeLabels = sluice_graph_edge_labels(g);
  const uint64_t *originals = sluice_graph_original_ids(g);
  (void)sluice_graph_properties(g);
  (void)sluice_graph_id_base(g);
  (void)sluice_graph_weight_sums(g);
  (void)sluice_graph_weight_maxes(g);
  (void)sluice_graph_weight_mins(g);
  sluice_graph_memory_t memory;
  sluice_graph_memory(g, &memory);
  sluice_graph_load_stats_t stats;
  sluice_graph_load_stats(g, &stats);
  if (stats.isolated_vertices > n || stats.self_loops > stats.input_edges ||
      stats.duplicate_edges > stats.input_edges)
    abort();
  if (!offsets) {
    if (n != 0 || m != 0)
      abort();
    return;
  }
  if (offsets[0] != 0 || offsets[n] != m)
    abort();
  volatile uint64_t sink = 0;
  for (uint64_t v = 0; v < n; ++v) {
    const uint32_t u = static_cast<uint32_t>(v);
    if (offsets[v] > offsets[v + 1] ||
        sluice_graph_degree(g, u) != offsets[v + 1] - offsets[v])
      abort();
    sink = sink + sluice_graph_original_id(g, u);
    if (sluice_graph_vertex_of(g, sluice_graph_original_id(g, u)) != u)
      abort();
    sink = sink + static_cast<uint64_t>(sluice_graph_vertex_label(g, u));
    sink = sink + static_cast<uint64_t>(sluice_graph_weight_sum(g, u) +
                                        sluice_graph_weight_max(g, u) +
                                        sluice_graph_weight_min(g, u));
    if (vertexLabels)
      sink = sink + static_cast<uint64_t>(vertexLabels[v]);
    if (originals)
      sink = sink + originals[v];
    for (uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
      if (targets[e] >= n)
        abort();
      if (!sluice_graph_has_edge(g, u, targets[e]) ||
          sluice_graph_find_edge(g, u, targets[e]) == SLUICE_EDGE_NONE)
        abort();
      if (weights)
        sink = sink + static_cast<uint64_t>(weights[e]);
      if (edgeLabels)
        sink = sink + static_cast<uint64_t>(edgeLabels[e]);
    }
  }
}

/// Loads `path` with `options`; what loads is checked by checkGraph.
inline void loadAndCheck(const char *path,
                         const sluice_graph_load_options_t &options) {
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(path, &options, &graph, &error) == SLUICE_STATUS_OK) {
    checkGraph(graph);
    sluice_graph_release(graph);
  }
}

/// The label-file targets: data[0] picks the load flags and the graph
/// (SNAP or Matrix Market, ids 0-7 with 4 and 6 unused, a self loop and a
/// parallel edge), the rest is the labels file named by `field`
/// (vertex_labels_path or edge_labels_path).
inline int fuzzLabelFile(const uint8_t *data, size_t size,
                         const char *sluice_graph_load_options_t::*field) {
  static constexpr char kSnapGraph[] = "0 1\n1 2\n2 0\n2 2\n5 3\n5 3\n7 0\n";
  static constexpr char kMtxGraph[] =
      "%%MatrixMarket matrix coordinate pattern general\n"
      "8 8 7\n1 2\n2 3\n3 1\n3 3\n6 4\n6 4\n8 1\n";
  static MemFile snap("fuzz-graph-snap"), mtx("fuzz-graph-mtx"),
      labels("fuzz-labels");
  static const char *snapPath = snap.assign(kSnapGraph, sizeof(kSnapGraph) - 1);
  static const char *mtxPath = mtx.assign(kMtxGraph, sizeof(kMtxGraph) - 1);
  if (size < 1)
    return 0;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.flags = SLUICE_GRAPH_LOAD_QUIET;
  if (data[0] & 1)
    options.flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS;
  if (data[0] & 4)
    options.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  if (data[0] & 8)
    options.flags |= SLUICE_GRAPH_LOAD_DEDUPLICATE;
  if (data[0] & 16)
    options.flags |= SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
  options.*field = labels.assign(data + 1, size - 1);
  loadAndCheck((data[0] & 2) ? mtxPath : snapPath, options);
  return 0;
}

} // namespace sluice::fuzz

#endif // SLUICE_COMPILER_TOOLS_FUZZREADERS_GRAPHFUZZSUPPORT_H
