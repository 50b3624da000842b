//===- RuntimeTestUtil.h - Temp dirs, files and graphs for runtime tests --===//
//
// Helpers shared by the libsluicert tests: a self-deleting temporary
// directory, plain and gzip'd file writers, a unique_ptr for graphs, and a
// loader that returns status, error and graph together.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
#define SLUICE_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H

#include "sluice/graph.h"
#include "sluice/runtime.h"
#include "sluice/walk_output.h"

#include "gtest/gtest.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace sluice::test {

struct GraphDeleter {
  void operator()(sluice_graph_t *g) const { sluice_graph_release(g); }
};
using GraphPtr = std::unique_ptr<sluice_graph_t, GraphDeleter>;

/// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/sluicert-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      ADD_FAILURE() << "mkdtemp failed";
    dir = buf.data();
  }
  ~TempDir() { removeTree(dir); }
  std::string path(const std::string &name) const { return dir + "/" + name; }
  const std::string &root() const { return dir; }

  /// Names in the directory (including hidden ones), sorted.
  std::vector<std::string> list() const { return listDir(dir); }

  static std::vector<std::string> listDir(const std::string &d) {
    std::vector<std::string> names;
    if (DIR *h = opendir(d.c_str())) {
      while (dirent *e = readdir(h)) {
        std::string name = e->d_name;
        if (name != "." && name != "..")
          names.push_back(name);
      }
      closedir(h);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  static void removeTree(const std::string &d) {
    for (const std::string &name : listDir(d)) {
      std::string p = d + "/" + name;
      struct stat st;
      if (lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        removeTree(p);
      else
        unlink(p.c_str());
    }
    rmdir(d.c_str());
  }
  std::string dir;
};

inline void writeFile(const std::string &path, const std::string &content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline void writeGzip(const std::string &path, const std::string &content) {
  gzFile f = gzopen(path.c_str(), "wb9");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())),
            static_cast<int>(content.size()));
  gzclose(f);
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// Load options with progress off and the given format/flags/weights.
inline sluice_graph_load_options_t
options(sluice_graph_format_t format, uint32_t flags = 0,
        sluice_weights_t weights = SLUICE_WEIGHTS_NONE) {
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = format;
  o.flags = flags | SLUICE_GRAPH_LOAD_QUIET;
  o.weights = weights;
  return o;
}

/// The result of one sluice_graph_load call.
struct Loaded {
  sluice_status_t status = SLUICE_STATUS_INTERNAL;
  sluice_error_t error{};
  GraphPtr graph;
  bool handleTouched = false; // out_graph written on failure (a bug)
};

inline Loaded load(const std::string &path,
                   const sluice_graph_load_options_t &o) {
  Loaded r;
  sluice_graph_t *sentinel = reinterpret_cast<sluice_graph_t *>(0x1);
  sluice_graph_t *g = sentinel;
  r.status = sluice_graph_load(path.c_str(), &o, &g, &r.error);
  if (r.status == SLUICE_STATUS_OK)
    r.graph.reset(g);
  else
    r.handleTouched = g != sentinel;
  return r;
}

/// Adjacency of every vertex as (target, weight, label) for comparisons.
struct Arc {
  uint32_t target;
  float weight;
  int32_t label;
  bool operator==(const Arc &o) const {
    return target == o.target && weight == o.weight && label == o.label;
  }
};

inline std::vector<std::vector<Arc>> adjacency(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *t = sluice_graph_targets(g);
  const float *w = sluice_graph_weights(g);
  const int32_t *l = sluice_graph_edge_labels(g);
  std::vector<std::vector<Arc>> adj(n);
  for (uint64_t v = 0; v < n; ++v)
    for (uint64_t i = off[v]; i < off[v + 1]; ++i)
      adj[v].push_back({t[i], w ? w[i] : 1.0f, l ? l[i] : -1});
  return adj;
}

/// "path:line:col: message" of an error.
inline std::string formatted(const sluice_error_t &e) {
  char text[2048];
  sluice_error_format(&e, text, sizeof(text));
  return text;
}

inline std::string sharedData(const std::string &name) {
  return std::string(SLUICE_SHARED_DATA_DIR) + "/" + name;
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
