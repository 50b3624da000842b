//===- GraphCache.h - a binary CSR cache next to a text graph ---*- C++ -*-===//
//
// `sluicec --run` loads a text graph (SNAP, Matrix Market, edge list) once
// and keeps what the load built as a binary CSR file next to the input:
//
//   <input>.<key>.sluice-csr        the graph (sluice_graph_write_binary)
//   <input>.<key>.sluice-csr.source what it was built from: the source's
//                                   size and modification time, and the
//                                   text load's statistics
//
// `key` hashes the load options (format, flags, weights, the label files,
// the vertices kept), so each way of loading the same file has its own
// cache. A later run with the same options maps the binary file instead
// of parsing the text, unless the source (or a label file) changed since:
// then the text is loaded again and the cache rewritten. Writing is best
// effort: a directory that cannot be written just has no cache.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_WALK_GRAPHCACHE_H
#define SLUICE_COMPILER_TARGET_WALK_GRAPHCACHE_H

#include "sluice/graph.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace sluice::target {

class GraphCache {
public:
  /// The cache of `input` loaded with `options`.
  GraphCache(llvm::StringRef input, const sluice_graph_load_options_t &options);

  /// The cache file's path.
  const std::string &path() const { return cachePath; }

  /// Loads the cached graph when the cache is up to date with the source
  /// (nullptr otherwise, or when the cache does not load); `stats` gets the
  /// statistics of the text load it was built from.
  sluice_graph_t *load(uint32_t quietFlag, sluice_graph_load_stats_t &stats) const;

  /// Writes `graph`, just loaded from the text with `stats`, as the cache.
  /// False (and `why`) when it cannot be written.
  bool store(const sluice_graph_t *graph,
             const sluice_graph_load_stats_t &stats, std::string &why) const;

private:
  /// "size mtime" of each input file (the graph and its label files).
  std::optional<std::string> sourceStamp() const;

  std::string input, vertexLabels, edgeLabels;
  std::string cachePath;
};

/// Loads `input` with `options`, through its cache when `useCache`: read
/// when it is up to date, else the text is loaded and the cache written.
/// `note` says what the cache did ("read PATH", "written PATH", "not
/// written (why)"; empty without cache). Null, with the runtime's located
/// message in `error`, when the graph does not load.
sluice_graph_t *loadThroughCache(llvm::StringRef input,
                                 const sluice_graph_load_options_t &options,
                                 bool useCache, std::string &note,
                                 std::string &error);

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_WALK_GRAPHCACHE_H
