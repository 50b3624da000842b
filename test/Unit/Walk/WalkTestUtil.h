//===- WalkTestUtil.h - Graphs, runs and chi-square for walk tests -*- C++ -*-===//
//
// Shared by the walk engine tests: building small graphs, running the
// engine into memory (through a real text writer), loading the shared
// email-Eu-core graph, and Pearson's chi-square with pooling.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_WALK_WALKTESTUTIL_H
#define SLUICE_TEST_UNIT_WALK_WALKTESTUTIL_H

#include "bench/walks/ReferenceKernels.h"
#include "sluice/walk.h"
#include "test/Unit/Support/ChiSquare.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace sluice::walktest {

using walkref::GraphPtr;

using testsupport::chiSquare;
using testsupport::criticalValue;
using testsupport::Fit;

/// A temporary file path, removed on destruction.
class TempFile {
public:
  explicit TempFile(const std::string &suffix) {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") +
                          "/sluice-walk-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    dir_ = mkdtemp(buf.data()) ? buf.data() : "/tmp";
    path_ = dir_ + "/out" + suffix;
  }
  ~TempFile() {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string &path() const { return path_; }

private:
  std::string dir_, path_;
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// The result of one engine run, read back from its text output.
struct Walks {
  sluice_status_t status = SLUICE_STATUS_INTERNAL;
  sluice_error_t error{};
  sluice_walk_stats_t stats{};
  std::vector<std::vector<uint32_t>> walks;
  std::string bytes; // the output file
};

/// Runs the engine with a text writer of width options.max_length and
/// parses the output.
inline Walks runWalks(const sluice_graph_t *graph,
                      const sluice_walk_kernel_t *kernel, const void *params,
                      const sluice_walk_options_t &options) {
  Walks out;
  TempFile file(".walks");
  sluice_walk_writer_t *writer = nullptr;
  out.status = sluice_walk_writer_open(file.path().c_str(),
                                       SLUICE_WALK_FORMAT_TEXT,
                                       options.max_length, 0, graph, &writer,
                                       &out.error);
  if (out.status != SLUICE_STATUS_OK)
    return out;
  out.status = sluice_walk_run(graph, kernel, params, &options, writer,
                               &out.stats, &out.error);
  if (out.status == SLUICE_STATUS_OK)
    out.status = sluice_walk_writer_commit(writer, &out.error);
  sluice_walk_writer_release(writer);
  if (out.status != SLUICE_STATUS_OK)
    return out;
  out.bytes = readFile(file.path());
  std::istringstream lines(out.bytes);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<uint32_t> walk;
    uint32_t v;
    while (fields >> v)
      walk.push_back(v);
    out.walks.push_back(std::move(walk));
  }
  return out;
}

/// Options for tests: quiet, fixed cost ratio, 2 threads.
inline sluice_walk_options_t testOptions() {
  sluice_walk_options_t o;
  sluice_walk_options_init(&o);
  o.quiet = 1;
  o.threads = 2;
  o.cost_ratio = 4.0;
  o.seed = 12345;
  return o;
}

/// A graph from an edge list (u, v) with optional weights / vertex labels.
inline GraphPtr makeGraph(uint64_t n,
                          const std::vector<std::pair<uint32_t, uint32_t>> &e,
                          const std::vector<float> &weights = {},
                          const std::vector<int32_t> &labels = {},
                          uint32_t flags = 0) {
  std::vector<uint32_t> s, t;
  for (auto [u, v] : e) {
    s.push_back(u);
    t.push_back(v);
  }
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  sluice_status_t status = sluice_graph_create_from_edges(
      n, e.size(), s.data(), t.data(), weights.empty() ? nullptr : weights.data(),
      nullptr, labels.empty() ? nullptr : labels.data(), flags, &g, &error);
  EXPECT_EQ(status, SLUICE_STATUS_OK) << error.message;
  return GraphPtr(g);
}

/// A random undirected graph: n vertices, about m edges (no self loops or
/// duplicates), vertex labels 0..4, deterministic in `seed`.
inline GraphPtr randomGraph(uint32_t n, uint64_t m, uint64_t seed) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  uint64_t x = seed;
  auto next = [&x] {
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (uint64_t i = 0; i < m; ++i) {
    // Skewed degrees: the first endpoint prefers small ids.
    uint32_t u = static_cast<uint32_t>(next() % (next() % n + 1));
    uint32_t v = static_cast<uint32_t>(next() % n);
    if (u != v)
      e.push_back({u, v});
  }
  std::vector<int32_t> labels(n);
  for (uint32_t v = 0; v < n; ++v)
    labels[v] = static_cast<int32_t>(next() % 5);
  return makeGraph(n, e, {}, labels,
                   SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DEDUPLICATE);
}

/// email-Eu-core as a simple undirected graph with the examples' synthetic
/// labels; NULL (and the test skips) when the shared data is absent.
inline GraphPtr loadEmail() {
  const char *dir = std::getenv("SLUICE_SHARED_DATA_DIR");
  std::string path = std::string(dir && *dir ? dir : SLUICE_SHARED_DATA_DIR) +
                     "/email-Eu-core.txt.gz";
  std::string labels =
      std::string(SLUICE_EXAMPLES_DIR) + "/walks/email-Eu-core.labels";
  if (access(path.c_str(), R_OK) != 0)
    return nullptr;
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = SLUICE_GRAPH_FORMAT_SNAP;
  o.flags = SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
            SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS |
            SLUICE_GRAPH_LOAD_QUIET;
  o.vertex_labels_path = labels.c_str();
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  sluice_status_t status = sluice_graph_load(path.c_str(), &o, &g, &error);
  EXPECT_EQ(status, SLUICE_STATUS_OK) << error.message;
  return GraphPtr(g);
}

} // namespace sluice::walktest

#endif // SLUICE_TEST_UNIT_WALK_WALKTESTUTIL_H
