//===- GraphCache.cpp - a binary CSR cache next to a text graph -----------===//
#include "compiler/Target/Walk/GraphCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <chrono>
#include <cstdio>

using namespace sluice::target;

namespace {

/// The version of what the cache key and the .source file mean.
constexpr int kCacheVersion = 1;

/// "size mtime-ns" of `path`, or nothing when it cannot be read.
std::optional<std::string> stamp(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                status.getLastModificationTime().time_since_epoch())
                .count();
  return std::to_string(status.getSize()) + " " + std::to_string(ns);
}

} // namespace

GraphCache::GraphCache(llvm::StringRef input,
                       const sluice_graph_load_options_t &options)
    : input(input.str()),
      vertexLabels(options.vertex_labels_path ? options.vertex_labels_path
                                              : ""),
      edgeLabels(options.edge_labels_path ? options.edge_labels_path : "") {
  // Everything that changes what the load builds (not QUIET, not the
  // progress callback).
  std::string key;
  llvm::raw_string_ostream os(key);
  os << "sluice-graph-cache " << kCacheVersion << "\nformat "
     << int(options.format) << "\nflags "
     << (options.flags & ~uint32_t(SLUICE_GRAPH_LOAD_QUIET)) << "\nweights "
     << int(options.weights) << "\nvertex_labels " << vertexLabels
     << "\nedge_labels " << edgeLabels << "\nkeep";
  for (uint64_t i = 0; i < options.num_keep_vertex_ids; ++i)
    os << " " << options.keep_vertex_ids[i];
  os.flush();
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(key.data()),
                              key.size()));
  cachePath = this->input + "." +
              llvm::toHex(llvm::ArrayRef<uint8_t>(hash.data(), 8),
                          /*LowerCase=*/true) +
              ".sluice-csr";
}

std::optional<std::string> GraphCache::sourceStamp() const {
  std::string out;
  for (const std::string *file : {&input, &vertexLabels, &edgeLabels}) {
    if (file->empty()) {
      out += "- ";
      continue;
    }
    std::optional<std::string> s = stamp(*file);
    if (!s)
      return std::nullopt;
    out += *s + " ";
  }
  return out;
}

sluice_graph_t *GraphCache::load(uint32_t quietFlag,
                                 sluice_graph_load_stats_t &stats) const {
  std::optional<std::string> now = sourceStamp();
  if (!now)
    return nullptr;
  auto buffer = llvm::MemoryBuffer::getFile(cachePath + ".source");
  if (!buffer)
    return nullptr;
  // Line 1: the sources' stamp; line 2: the five load statistics.
  auto [first, rest] = (*buffer)->getBuffer().split('\n');
  if (first != *now)
    return nullptr;
  unsigned long long v[5];
  if (std::sscanf(rest.str().c_str(), "%llu %llu %llu %llu %llu", &v[0],
                  &v[1], &v[2], &v[3], &v[4]) != 5)
    return nullptr;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format = SLUICE_GRAPH_FORMAT_BINARY;
  options.flags = quietFlag;
  sluice_graph_t *graph = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(cachePath.c_str(), &options, &graph, &error) !=
      SLUICE_STATUS_OK)
    return nullptr; // a broken cache is rebuilt from the text
  stats = {v[0], v[1], v[2], v[3], v[4]};
  return graph;
}

bool GraphCache::store(const sluice_graph_t *graph,
                       const sluice_graph_load_stats_t &stats,
                       std::string &why) const {
  std::optional<std::string> now = sourceStamp();
  if (!now) {
    why = "the source cannot be stat'ed";
    return false;
  }
  // No .source while the graph is rewritten: a cache without it is never
  // used.
  llvm::sys::fs::remove(cachePath + ".source");
  sluice_error_t error;
  if (sluice_graph_write_binary(graph, cachePath.c_str(), &error) !=
      SLUICE_STATUS_OK) {
    why = error.message;
    return false;
  }
  // The .source file last.
  std::string text = *now + "\n" + std::to_string(stats.input_edges) + " " +
                     std::to_string(stats.self_loops) + " " +
                     std::to_string(stats.duplicate_edges) + " " +
                     std::to_string(stats.merged_arcs) + " " +
                     std::to_string(stats.isolated_vertices) + "\n";
  // A temporary of this process (runs may share the cache), renamed over.
  std::string temp =
      cachePath + ".source." + std::to_string(llvm::sys::Process::getProcessId()) +
      ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(temp, ec);
    if (ec) {
      why = ec.message();
      return false;
    }
    out << text;
    out.close();
    if (out.has_error()) {
      why = out.error().message();
      out.clear_error();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, cachePath + ".source")) {
    why = ec.message();
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

sluice_graph_t *
sluice::target::loadThroughCache(llvm::StringRef input,
                                 const sluice_graph_load_options_t &options,
                                 bool useCache, std::string &note,
                                 std::string &error) {
  std::optional<GraphCache> cache;
  if (useCache && options.format != SLUICE_GRAPH_FORMAT_BINARY)
    cache.emplace(input, options);
  sluice_graph_load_stats_t stats;
  sluice_graph_t *graph = nullptr;
  if (cache &&
      (graph = cache->load(options.flags & SLUICE_GRAPH_LOAD_QUIET, stats))) {
    note = "read " + cache->path();
    return graph;
  }
  sluice_error_t failure;
  if (sluice_graph_load(input.str().c_str(), &options, &graph, &failure) !=
      SLUICE_STATUS_OK) {
    char text[2048];
    sluice_error_format(&failure, text, sizeof(text));
    error = text;
    return nullptr;
  }
  if (cache) {
    std::string why;
    sluice_graph_load_stats(graph, &stats);
    note = cache->store(graph, stats, why) ? "written " + cache->path()
                                           : "not written (" + why + ")";
  }
  return graph;
}
