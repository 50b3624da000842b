//===- BenchWalks.cpp - Walk engine benchmark -----------------------------===//
//
// sluice-bench-walks: steps per second of the walk engine (sluice_walk_run)
// on the shared graphs, for each reference workload (ReferenceKernels.h)
// under the cost model (auto) and each forced sampler that is sound for it.
// Walks of --length vertices (default 80), one walker per vertex, no output
// (writer NULL), --threads threads (default 2). Every (graph, workload,
// sampler) runs --repeat times; the best walking rate is reported
// (stats.seconds: the walking only, as ThunderRW reports it) next to the
// wall time of the whole call (which adds alias-table construction and
// cost-ratio calibration).
//
// --export-thunderrw DIR writes a graph in ThunderRW's CSR input format
// (b_degree.bin, b_adj.bin, b_edge_weight.bin with the same synthetic
// weights the weighted workloads use here), for bench/walks/run.sh.
//
// Not a test: it is not registered with ctest. Results: bench/RESULTS.md.
//
//===----------------------------------------------------------------------===//
#include "bench/common/Rmat.h"
#include "bench/walks/BenchSupport.h"
#include "bench/walks/ReferenceKernels.h"
#include "dialects/Common/Version.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace sluice::walkref;

namespace {

struct GraphSpec {
  const char *name;
  const char *file;
  sluice_graph_format_t format;
};

const GraphSpec kGraphs[] = {
    {"email-Eu-core", "email-Eu-core.txt.gz", SLUICE_GRAPH_FORMAT_SNAP},
    {"facebook", "facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP},
    {"soc-Slashdot0902", "soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP},
    {"luxembourg_osm", "luxembourg_osm.el.gz", SLUICE_GRAPH_FORMAT_MTX_BODY},
};

constexpr uint64_t kWeightSeed = 1, kLabelSeed = 2;

using sluice::benchwalks::split;

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "sluice-bench-walks: %s\n", message.c_str());
  std::exit(1);
}

/// A shared graph as a simple undirected graph (what ThunderRW's converter
/// makes too): ids compacted, no self loops, no duplicates.
GraphPtr load(const std::string &dataDir, const GraphSpec &spec) {
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = spec.format;
  o.flags = SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
            SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS;
  std::string path = dataDir + "/" + spec.file;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(path.c_str(), &o, &g, &error) != SLUICE_STATUS_OK) {
    char text[2048];
    sluice_error_format(&error, text, sizeof(text));
    die(text);
  }
  return GraphPtr(g);
}

/// An R-MAT graph of `scale` (bench/common/Rmat.h).
GraphPtr rmat(uint32_t scale) {
  std::string error;
  sluice_graph_t *g = sluice::bench::generateRmat(scale, nullptr, error);
  if (!g)
    die("rmat: " + error);
  return GraphPtr(g);
}

/// The directory where graphs are kept as binary CSR after their first
/// load or generation (--graph-cache), so that repeated runs read them in
/// milliseconds. Empty: none.
std::string graphCacheDir;

GraphPtr graphFromCache(const std::string &name) {
  if (graphCacheDir.empty())
    return nullptr;
  std::string path = graphCacheDir + "/" + name + ".sluice-csr";
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  o.format = SLUICE_GRAPH_FORMAT_BINARY;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (::access(path.c_str(), F_OK) != 0 ||
      sluice_graph_load(path.c_str(), &o, &g, &error) != SLUICE_STATUS_OK)
    return nullptr;
  return GraphPtr(g);
}

GraphPtr keepInCache(const std::string &name, GraphPtr g) {
  if (graphCacheDir.empty())
    return g;
  std::string path = graphCacheDir + "/" + name + ".sluice-csr";
  sluice_error_t error;
  if (sluice_graph_write_binary(g.get(), path.c_str(), &error) !=
      SLUICE_STATUS_OK)
    die("graph cache: " + std::string(error.message));
  return g;
}

/// A shared graph by name, or rmatS: the R-MAT graph of scale S (10..26).
GraphPtr graphNamed(const std::string &dataDir, const std::string &name) {
  if (GraphPtr g = graphFromCache(name))
    return g;
  if (name.compare(0, 4, "rmat") == 0) {
    int scale = std::atoi(name.c_str() + 4);
    if (scale < 10 || scale > 26 || name != "rmat" + std::to_string(scale))
      die("unknown graph '" + name + "' (rmat10 .. rmat26)");
    return keepInCache(name, rmat(static_cast<uint32_t>(scale)));
  }
  for (const GraphSpec &g : kGraphs)
    if (name == g.name)
      return keepInCache(name, load(dataDir, g));
  die("unknown graph '" + name +
      "' (email-Eu-core, facebook, soc-Slashdot0902, luxembourg_osm, "
      "rmatS)");
}

bool samplerFromName(const std::string &s, sluice_walk_sampler_t *out) {
  static const std::map<std::string, sluice_walk_sampler_t> names = {
      {"auto", SLUICE_WALK_SAMPLER_AUTO},
      {"alias", SLUICE_WALK_SAMPLER_ALIAS},
      {"rejection", SLUICE_WALK_SAMPLER_REJECTION},
      {"reservoir", SLUICE_WALK_SAMPLER_RESERVOIR}};
  auto it = names.find(s);
  if (it == names.end())
    return false;
  *out = it->second;
  return true;
}

bool sound(const sluice_walk_kernel_t *k, sluice_walk_sampler_t s) {
  if (s == SLUICE_WALK_SAMPLER_ALIAS)
    return k->weight_class != SLUICE_WALK_WEIGHT_DYNAMIC;
  if (s == SLUICE_WALK_SAMPLER_REJECTION)
    return !(k->flags & SLUICE_WALK_UNBOUNDED);
  return true;
}

void writeFile(const std::string &path, const void *data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char *>(data), std::streamsize(bytes));
  if (!out)
    die("cannot write " + path);
}

/// ThunderRW's CSR folder: b_degree.bin = u32 element size (4), i32 n,
/// i64 m, i32 degrees; b_adj.bin = i32 targets; b_edge_weight.bin = f64.
void exportThunderRW(const sluice_graph_t *plain, const std::string &dir) {
  GraphPtr weighted = withSyntheticWeights(plain, kWeightSeed);
  const sluice_graph_t *g = weighted.get();
  uint64_t n = sluice_graph_num_vertices(g), m = sluice_graph_num_edges(g);
  const uint64_t *off = sluice_graph_offsets(g);
  std::string header(4 + 4 + 8, '\0');
  uint32_t elementSize = 4;
  int32_t n32 = static_cast<int32_t>(n);
  int64_t m64 = static_cast<int64_t>(m);
  std::memcpy(&header[0], &elementSize, 4);
  std::memcpy(&header[4], &n32, 4);
  std::memcpy(&header[8], &m64, 8);
  std::vector<int32_t> degrees(n);
  for (uint64_t v = 0; v < n; ++v)
    degrees[v] = static_cast<int32_t>(off[v + 1] - off[v]);
  std::string degreeFile = header;
  degreeFile.append(reinterpret_cast<const char *>(degrees.data()),
                    degrees.size() * 4);
  writeFile(dir + "/b_degree.bin", degreeFile.data(), degreeFile.size());
  writeFile(dir + "/b_adj.bin", sluice_graph_targets(g), m * 4);
  std::vector<double> weights(sluice_graph_weights(g),
                              sluice_graph_weights(g) + m);
  writeFile(dir + "/b_edge_weight.bin", weights.data(), m * 8);
  std::printf("wrote %s: %llu vertices, %llu arcs\n", dir.c_str(),
              static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(m));
}

/// The graph as a SNAP edge list (one "u v" line per undirected edge,
/// u < v), for end-to-end runs of sluicec on a generated graph.
void exportEdgeList(const sluice_graph_t *g, const std::string &path) {
  std::FILE *out = std::fopen(path.c_str(), "w");
  if (!out)
    die("cannot write " + path);
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *targets = sluice_graph_targets(g);
  std::fprintf(out, "# %llu vertices, %llu arcs (sluice-bench-walks)\n",
               static_cast<unsigned long long>(n),
               static_cast<unsigned long long>(off[n]));
  for (uint64_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      if (u < targets[e])
        std::fprintf(out, "%llu\t%u\n", static_cast<unsigned long long>(u),
                     targets[e]);
  if (std::fclose(out) != 0)
    die("cannot write " + path);
  std::printf("wrote %s\n", path.c_str());
}

void usage() {
  std::printf(
      "usage: sluice-bench-walks [options]\n"
      "  --data=DIR          shared graphs (default ../shared/data)\n"
      "  --graphs=a,b        soc-Slashdot0902,luxembourg_osm,email-Eu-core "
      "(default), facebook,\n"
      "                      rmatS (R-MAT of scale S, edge factor 16)\n"
      "  --workloads=a,b     deepwalk,udeepwalk,node2vec,wnode2vec,ppr,"
      "metapath,ppr2 "
      "(default all)\n"
      "  --samplers=a,b      auto,alias,rejection,reservoir (default all; "
      "unsound ones skipped)\n"
      "  --threads=N         default 2\n"
      "  --length=N          vertices per walk, default 80\n"
      "  --walkers-per-thread=N  interleaved walkers (default: engine's)\n"
      "  --cost-ratio=R      0 = calibrate (default)\n"
      "  --repeat=N          runs per case, best reported (default 3)\n"
      "  --export-thunderrw=DIR --graphs=NAME  write ThunderRW input\n"
      "  --export-edgelist=FILE --graphs=NAME  write a SNAP edge list\n"
      "  --graph-cache=DIR   keep the graphs there as binary CSR after their\n"
      "                      first load (repeated runs read them from it)\n"
      "  --huge-pages        walk copies of the graph's arrays of 16 MiB or\n"
      "                      more on transparent huge pages\n"
      "  --no-edge-sets      no neighbour sets of the hubs (has_edge always\n"
      "                      searches the sorted adjacency list)\n"
      "  --edge-sets         neighbour sets of the hubs whatever the graph's\n"
      "                      size (default: targets of 16 MiB or more)\n"
      "  --sampler-stats     also print, on stderr, rejection trials per\n"
      "                      rejection step, the pre-accepted share and the\n"
      "                      hubs' neighbour sets (count, MiB, build s)\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string dataDir = "../shared/data";
  std::vector<std::string> graphs = {"soc-Slashdot0902", "luxembourg_osm",
                                     "email-Eu-core"};
  std::vector<std::string> workloads;
  for (Workload w : kAllWorkloads)
    workloads.push_back(name(w));
  std::vector<std::string> samplers = {"auto", "alias", "rejection",
                                       "reservoir"};
  uint32_t threads = 2, length = 80, repeat = 3, width = 0;
  double costRatio = 0;
  std::string exportDir, exportEdges;
  bool samplerStats = false;
  uint32_t engineFlags = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> const char * {
      size_t len = std::strlen(prefix);
      return arg.compare(0, len, prefix) == 0 ? arg.c_str() + len : nullptr;
    };
    if (const char *v = value("--data="))
      dataDir = v;
    else if (const char *v = value("--graphs="))
      graphs = split(v);
    else if (const char *v = value("--workloads="))
      workloads = split(v);
    else if (const char *v = value("--samplers="))
      samplers = split(v);
    else if (const char *v = value("--threads="))
      threads = static_cast<uint32_t>(std::atoi(v));
    else if (const char *v = value("--length="))
      length = static_cast<uint32_t>(std::atoi(v));
    else if (const char *v = value("--repeat="))
      repeat = static_cast<uint32_t>(std::max(1, std::atoi(v)));
    else if (const char *v = value("--walkers-per-thread="))
      width = static_cast<uint32_t>(std::atoi(v));
    else if (const char *v = value("--cost-ratio="))
      costRatio = std::atof(v);
    else if (const char *v = value("--export-thunderrw="))
      exportDir = v;
    else if (const char *v = value("--export-edgelist="))
      exportEdges = v;
    else if (const char *v = value("--graph-cache="))
      graphCacheDir = v;
    else if (arg == "--sampler-stats")
      samplerStats = true;
    else if (arg == "--huge-pages")
      engineFlags |= SLUICE_WALK_ENGINE_HUGE_PAGES;
    else if (arg == "--no-edge-sets")
      engineFlags |= SLUICE_WALK_ENGINE_NO_EDGE_SETS;
    else if (arg == "--edge-sets")
      engineFlags |= SLUICE_WALK_ENGINE_EDGE_SETS;
    else if (arg == "--version") {
      std::fputs("sluice-bench-walks (Sluice) " SLUICE_VERSION_STRING "\n",
                 stdout);
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    } else {
      usage();
      die("unknown argument '" + arg + "'");
    }
  }

  if (!exportDir.empty() || !exportEdges.empty()) {
    if (graphs.size() != 1)
      die("--export-thunderrw and --export-edgelist take exactly one graph "
          "(--graphs=NAME)");
    GraphPtr g = graphNamed(dataDir, graphs[0]);
    if (!exportDir.empty())
      exportThunderRW(g.get(), exportDir);
    if (!exportEdges.empty())
      exportEdgeList(g.get(), exportEdges);
    return 0;
  }

  std::printf("| graph | workload | sampler | steps | walk s | Msteps/s | "
              "call s | r | rejection %% |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string &graphName : graphs) {
    GraphPtr plain = graphNamed(dataDir, graphName);
    // Derived graphs, built when a workload first needs one.
    GraphPtr weighted, labelled;
    for (const std::string &workloadName : workloads) {
      Workload w;
      if (!fromName(workloadName, &w))
        die("unknown workload '" + workloadName + "'");
      // DeepWalk as FlexiWalker and ThunderRW run it: on edge weights.
      const sluice_graph_t *g = plain.get();
      if (needsWeights(w) || w == Workload::DeepWalk) {
        if (!weighted)
          weighted = withSyntheticWeights(plain.get(), kWeightSeed);
        g = weighted.get();
      } else if (needsLabels(w)) {
        if (!labelled)
          labelled = withSyntheticLabels(plain.get(), 5, kLabelSeed);
        g = labelled.get();
      }
      const sluice_walk_kernel_t *k = kernel(w);
      Params params(w);
      for (const std::string &samplerName : samplers) {
        sluice_walk_sampler_t sampler;
        if (!samplerFromName(samplerName, &sampler))
          die("unknown sampler '" + samplerName + "'");
        if (!sound(k, sampler))
          continue;
        sluice_walk_options_t o;
        sluice_walk_options_init(&o);
        applyOptions(w, &o, nullptr); // ppr: from every vertex
        o.max_length = length;
        o.threads = threads;
        o.walkers_per_thread = width;
        o.sampler = sampler;
        o.cost_ratio = costRatio;
        o.seed = 1;
        o.quiet = 1;
        o.engine_flags = engineFlags;
        sluice_walk_stats_t best{};
        double bestCall = 0;
        for (uint32_t r = 0; r < repeat; ++r) {
          sluice_walk_stats_t s;
          sluice_error_t error;
          auto t0 = std::chrono::steady_clock::now();
          if (sluice_walk_run(g, k, params.data(), &o, nullptr, &s, &error) !=
              SLUICE_STATUS_OK)
            die(std::string(name(w)) + ": " + error.message);
          double call = std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
          if (r == 0 || s.seconds < best.seconds) {
            best = s;
            bestCall = call;
          }
        }
        double rate = best.seconds > 0 ? double(best.steps) / best.seconds : 0;
        double rejShare =
            best.steps ? 100.0 * double(best.rejection_steps) / double(best.steps)
                       : 0;
        std::printf("| %s | %s | %s | %llu | %.3f | %.2f | %.3f | %.2f | "
                    "%.1f |\n",
                    graphName.c_str(), name(w), samplerName.c_str(),
                    static_cast<unsigned long long>(best.steps), best.seconds,
                    rate / 1e6, bestCall, best.cost_ratio, rejShare);
        std::fflush(stdout);
        if (samplerStats && best.rejection_steps)
          std::fprintf(stderr,
                       "%s %s %s: %.3f trials per rejection step, %.1f%% of "
                       "trials pre-accepted, %llu bound violations\n",
                       graphName.c_str(), name(w), samplerName.c_str(),
                       double(best.rejection_trials) /
                           double(best.rejection_steps),
                       best.rejection_trials
                           ? 100.0 * double(best.pre_accepted) /
                                 double(best.rejection_trials)
                           : 0.0,
                       static_cast<unsigned long long>(best.bound_violations));
        if (samplerStats && best.edge_set_vertices)
          std::fprintf(stderr,
                       "%s %s %s: neighbour sets of %llu vertices, %.1f MiB, "
                       "built in %.3f s\n",
                       graphName.c_str(), name(w), samplerName.c_str(),
                       static_cast<unsigned long long>(best.edge_set_vertices),
                       double(best.edge_set_bytes) / (1 << 20),
                       best.edge_set_seconds);
      }
    }
  }
  return 0;
}
