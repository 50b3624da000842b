//===- GpuWalkSupport.h - Shared by the GPU walk suite and its benchmark --===//
//
// The walks of Inputs/gpu-walks.sluice as compiled at build time (the CPU
// object's descriptors and setup functions, the PTX kernel names), where
// the PTX and the graphs are (compiled-in paths, overridable by
// environment variables for a staged copy), and loading graphs. Used by
// SluiceWalkGpuIntegrationTests and sluice-bench-walks-gpu; runtime only
// (libsluicert), no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_WALKGPU_GPUWALKSUPPORT_H
#define SLUICE_TEST_UNIT_WALKGPU_GPUWALKSUPPORT_H

#include "gpu-walks.h"

#include "sluice/graph.h"
#include "sluice/walk.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace sluice::gpuwalks {

/// One compiled walk: its CPU descriptor, its PTX entry and the setup
/// functions of the generated header (NULL when the walk has none).
struct CompiledWalk {
  const char *name;
  const sluice_walk_kernel_t *kernel;
  std::string ptxKernel() const { return std::string("sluice_walk_") + name; }
  int64_t (*length)(const sluice_walk_frame_t *);
  double (*stopProbability)(const sluice_walk_frame_t *);
  int64_t (*start)(const sluice_walk_frame_t *, int64_t *, int64_t);
};

inline const std::vector<CompiledWalk> &compiledWalks() {
  static const std::vector<CompiledWalk> walks = {
      {"node2vec", &sluice_walk_kernel_node2vec, sluice_walk_node2vec_length,
       nullptr, nullptr},
      {"deepwalk", &sluice_walk_kernel_deepwalk, sluice_walk_deepwalk_length,
       nullptr, nullptr},
      {"ppr", &sluice_walk_kernel_ppr, sluice_walk_ppr_length,
       sluice_walk_ppr_stop_probability, sluice_walk_ppr_start},
      {"ppr2", &sluice_walk_kernel_ppr2, sluice_walk_ppr2_length,
       sluice_walk_ppr2_stop_probability, nullptr},
  };
  return walks;
}

inline const CompiledWalk *findWalk(const std::string &name) {
  for (const CompiledWalk &w : compiledWalks())
    if (name == w.name)
      return &w;
  return nullptr;
}

inline bool fileExists(const std::string &path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0;
}

inline std::string envOr(const char *name, const std::string &fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

/// The directory of gpu-walks.ptx(.json): $SLUICE_GPU_ARTIFACTS, else the
/// build tree's.
inline std::string artifactsDir() {
  return envOr("SLUICE_GPU_ARTIFACTS", SLUICE_GPU_ARTIFACTS_DIR);
}
inline std::string ptxPath() { return artifactsDir() + "/gpu-walks.ptx"; }

/// A graph file by name: in $SLUICE_GPU_DATA, then examples/data, then
/// ../shared/data of the source tree. Empty when it is nowhere.
inline std::string findGraph(const std::string &file) {
  for (const std::string &dir :
       {envOr("SLUICE_GPU_DATA", ""), std::string(SLUICE_GPU_EXAMPLES_DATA_DIR),
        std::string(SLUICE_GPU_SHARED_DATA_DIR)}) {
    if (dir.empty())
      continue;
    std::string p = dir + "/" + file;
    if (fileExists(p))
      return p;
  }
  return {};
}

/// The whole file; `ok` false when it cannot be read.
inline std::string readFile(const std::string &path, bool &ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The kernel objects of a `-c --target=gpu` JSON description (the
/// elements of its "kernels" array) as text: a scan for objects at depth 3
/// (top object, "kernels" array, kernel), skipping strings. Runtime only:
/// this binary has no JSON library.
inline std::vector<std::string> kernelObjects(const std::string &json) {
  std::vector<std::string> out;
  int depth = 0;
  bool inString = false;
  size_t begin = 0;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth == 3 && c == '{')
        begin = i;
    } else if (c == '}' || c == ']') {
      if (depth-- == 3 && c == '}')
        out.push_back(json.substr(begin, i - begin + 1));
    }
  }
  return out;
}

/// The value text of `"key": value` in a kernel object (a string without
/// its quotes, or a number), empty when absent.
inline std::string jsonField(const std::string &object,
                             const std::string &key) {
  size_t at = object.find("\"" + key + "\":");
  if (at == std::string::npos)
    return {};
  at = object.find_first_not_of(" \n", at + key.size() + 3);
  if (at == std::string::npos)
    return {};
  if (object[at] == '"') {
    size_t end = object.find('"', at + 1);
    return end == std::string::npos ? std::string()
                                    : object.substr(at + 1, end - at - 1);
  }
  size_t end = object.find_first_of(",}\n ", at);
  return object.substr(at, end == std::string::npos ? end : end - at);
}

/// The "threads_per_walker" of `kernel` in the JSON description (1 for a
/// rejection kernel, 32 for a reservoir kernel), 0 when the kernel is not
/// described or the field is missing.
inline int threadsPerWalker(const std::string &json,
                            const std::string &kernel) {
  for (const std::string &k : kernelObjects(json))
    if (jsonField(k, "kernel") == kernel) {
      std::string t = jsonField(k, "threads_per_walker");
      return t.empty() ? 0 : std::atoi(t.c_str());
    }
  return 0;
}

/// The sampler option that launches `kernel` as its JSON description says:
/// RESERVOIR for a warp per walker, REJECTION for a thread per walker.
/// False when the description does not say.
inline bool samplerFromJson(const std::string &json,
                            const std::string &kernel,
                            sluice_walk_sampler_t &sampler) {
  int t = threadsPerWalker(json, kernel);
  if (t == 32)
    sampler = SLUICE_WALK_SAMPLER_RESERVOIR;
  else if (t == 1)
    sampler = SLUICE_WALK_SAMPLER_REJECTION;
  else
    return false;
  return true;
}

/// A build-time artefact's text (`path` under artifactsDir()); empty with
/// `why` when it cannot be read.
inline std::string readArtifact(const std::string &path, std::string &why) {
  bool ok = false;
  std::string text = readFile(path, ok);
  if (!ok || text.empty())
    why = "cannot read " + path +
          " (build target SluiceGpuWalkArtifacts, or set SLUICE_GPU_ARTIFACTS)";
  return text;
}

/// A fresh directory under $TMPDIR (default /tmp) named `prefix`-XXXXXX,
/// removed with everything in it on destruction; `dir` empty when it could
/// not be made.
class TempDir {
public:
  explicit TempDir(const std::string &prefix) {
    std::string tmpl = envOr("TMPDIR", "/tmp") + "/" + prefix + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      dir = buf.data();
  }
  ~TempDir() {
    if (!dir.empty())
      std::system(("rm -rf '" + dir + "'").c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  std::string dir;
};

/// A SNAP edge list (plain or .gz), optionally undirected and with a weight
/// column, as `load(...)` reads it by default (the flags of
/// compiler/Target/Walk/GraphLoadOptions.h, which this LLVM-free suite
/// cannot include): compacted ids, duplicates merged, self loops dropped.
inline sluice_status_t loadSnap(const std::string &path, bool undirected,
                                bool weighted, sluice_graph_t **out,
                                sluice_error_t *error) {
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  load.flags = SLUICE_GRAPH_LOAD_COMPACT_IDS |
               SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES |
               SLUICE_GRAPH_LOAD_DEDUPLICATE |
               SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS | SLUICE_GRAPH_LOAD_QUIET;
  if (undirected)
    load.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  if (weighted)
    load.weights = SLUICE_WEIGHTS_COLUMN;
  return sluice_graph_load(path.c_str(), &load, out, error);
}

/// The walk's options for `params` as its setup functions give them
/// (length, stop probability, start vertices mapped from the file's ids to
/// CSR ids into `starts`). False with `why` when a start is not a vertex.
inline bool walkOptions(const CompiledWalk &walk, const sluice_graph_t *graph,
                        const void *params, sluice_walk_options_t &options,
                        std::vector<uint32_t> &starts, std::string &why) {
  sluice_walk_frame_t frame;
  std::memset(&frame, 0, sizeof(frame));
  frame.graph = graph;
  frame.params = params;
  options.max_length = static_cast<uint32_t>(walk.length(&frame));
  options.stop_probability =
      walk.stopProbability ? walk.stopProbability(&frame) : 0.0;
  starts.clear();
  if (walk.start) {
    std::vector<int64_t> ids(1024);
    int64_t n = walk.start(&frame, ids.data(), int64_t(ids.size()));
    ids.resize(static_cast<size_t>(n < 0 ? 0 : n));
    for (int64_t id : ids) {
      uint32_t v = id < 0 ? SLUICE_VERTEX_NONE
                          : sluice_graph_vertex_of(graph, uint64_t(id));
      if (v == SLUICE_VERTEX_NONE) {
        why = "start vertex " + std::to_string(id) + " is not in the graph";
        return false;
      }
      starts.push_back(v);
    }
    options.starts = starts.data();
    options.num_starts = starts.size();
  }
  return true;
}

} // namespace sluice::gpuwalks

#endif
