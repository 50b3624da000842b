//===- AlgoReferenceTest.cpp - compiled algorithms vs serial references ---===//
//
// The path of `sluicec --run` (parse, check, lower, graph-to-llvm, JIT,
// sluice/algo.h) against independent serial implementations: BFS by a
// queue, SSSP by Dijkstra, PageRank by the textbook pull loop. GraphIt
// style, each algorithm runs under many schedules (push, pull, hybrid;
// sparse, dense and auto frontiers; serial, static and dynamic) and at 1
// and 2 threads, on seeded random graphs and on the shared real graphs
// with the examples' own files. BFS depths and SSSP distances (integer
// weights) must be equal; PageRank within 1e-9 in L1.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Graph/AlgoCompile.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <queue>
#include <random>
#include <set>

using namespace mlir;
using namespace sluice;

namespace {

struct GraphHolder {
  sluice_graph_t *g = nullptr;
  ~GraphHolder() { sluice_graph_release(g); }
};

/// A seeded random directed graph with integer weights 1..9.
void randomGraph(uint32_t n, uint32_t m, uint32_t seed, bool undirected,
                 GraphHolder &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src(m), dst(m);
  std::vector<float> w(m);
  for (uint32_t i = 0; i < m; ++i) {
    src[i] = rng() % n;
    dst[i] = rng() % n;
    w[i] = static_cast<float>(1 + rng() % 9);
  }
  sluice_error_t error;
  uint32_t flags = SLUICE_GRAPH_LOAD_DEDUPLICATE |
                   (undirected ? SLUICE_GRAPH_LOAD_UNDIRECTED : 0);
  ASSERT_EQ(sluice_graph_create_from_edges(n, m, src.data(), dst.data(),
                                           w.data(), nullptr, nullptr, flags,
                                           &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
}

/// A program compiled as sluicec --run compiles it.
struct Program {
  MLIRContext ctx;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Compilation> compilation;
  graph::AlgorithmOp algo;
  std::unique_ptr<target::CompiledAlgorithm> compiled;

  static DialectRegistry registry() {
    DialectRegistry r;
    registerSluiceDialects(r);
    return r;
  }
  Program() : ctx(registry()) {
    ctx.loadAllAvailableDialects();
    compilation = std::make_unique<Compilation>(ctx, sourceMgr);
  }
  /// Compiles algorithm `name` of the file at `path`.
  bool load(const std::string &path, StringRef name) {
    if (failed(compilation->parse(path)) || failed(compilation->check()) ||
        failed(compilation->lower()))
      return false;
    for (auto a : compilation->module().getOps<graph::AlgorithmOp>())
      if (a.getSymName() == name)
        algo = a;
    if (!algo)
      return false;
    auto c = target::CompiledAlgorithm::compile(algo, false);
    if (failed(c))
      return false;
    compiled = std::move(*c);
    return true;
  }
  /// Compiles `source` (written to a temporary file).
  bool loadText(const std::string &source, StringRef name) {
    std::string path = ::testing::TempDir() + "/algo-" + name.str() + ".sluice";
    std::ofstream(path) << source;
    return load(path, name);
  }
  /// Runs with `threads` and the source vertex id `source` (< 0: default).
  std::vector<uint64_t> run(const sluice_graph_t *g, uint32_t threads,
                            int64_t source = -1) {
    Builder b(&ctx);
    SmallVector<NamedAttribute> params;
    if (source >= 0)
      params.push_back(b.getNamedAttr("source", b.getI64IntegerAttr(source)));
    auto result = compiled->run(g, b.getDictionaryAttr(params), threads,
                                /*quiet=*/true, algo);
    EXPECT_TRUE(succeeded(result));
    if (failed(result) || result->outputs.empty())
      return {};
    const sluice_algo_column_t &column = result->outputs.front();
    auto n = sluice_graph_num_vertices(g);
    const auto *data = static_cast<const uint64_t *>(column.data);
    return std::vector<uint64_t>(data, data + n);
  }
};

std::vector<int64_t> referenceBfs(const sluice_graph_t *g, uint32_t s) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<int64_t> depth(n, -1);
  std::queue<uint32_t> q;
  depth[s] = 0;
  q.push(s);
  while (!q.empty()) {
    uint32_t u = q.front();
    q.pop();
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      if (depth[tgt[e]] < 0) {
        depth[tgt[e]] = depth[u] + 1;
        q.push(tgt[e]);
      }
  }
  return depth;
}

std::vector<double> referenceSssp(const sluice_graph_t *g, uint32_t s,
                                  double unreached) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  const float *w = sluice_graph_weights(g);
  std::vector<double> dist(n, unreached);
  using Item = std::pair<double, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[s] = 0;
  heap.push({0.0, s});
  while (!heap.empty()) {
    auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[u])
      continue;
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      double nd = d + (w ? double(w[e]) : 1.0);
      if (nd < dist[tgt[e]]) {
        dist[tgt[e]] = nd;
        heap.push({nd, tgt[e]});
      }
    }
  }
  return dist;
}

std::vector<double> referencePageRank(const sluice_graph_t *g, double damping,
                                      int iterations) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<double> rank(n, 1.0 / double(n)), incoming(n);
  for (int it = 0; it < iterations; ++it) {
    std::fill(incoming.begin(), incoming.end(), 0.0);
    for (uint64_t u = 0; u < n; ++u)
      for (uint64_t e = off[u]; e < off[u + 1]; ++e)
        incoming[tgt[e]] += rank[u] / double(off[u + 1] - off[u]);
    for (uint64_t v = 0; v < n; ++v)
      rank[v] = (1.0 - damping) / double(n) + damping * incoming[v];
  }
  return rank;
}

std::vector<int64_t> asI64(const std::vector<uint64_t> &bits) {
  return std::vector<int64_t>(bits.begin(), bits.end());
}
std::vector<double> asF64(const std::vector<uint64_t> &bits) {
  std::vector<double> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(double));
  return out;
}
double l1(const std::vector<double> &a, const std::vector<double> &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += std::fabs(a[i] - b[i]);
  return sum;
}

constexpr const char *kHeader =
    "topology box { cpu c }\ngraph g = load(\"unused.txt\", format: snap)\n";

std::string bfsProgram(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm bfs(source: i64 = 0) on g {
  vertex depth: i64 = -1
  depth[source] = 0
  frontier active = [source]
  while size(active) > 0 {
    @expand active = edges(src, dst) from active where depth[dst] == -1 {
      depth[dst] = depth[src] + 1
    }
  }
  output depth
}
schedule bfs { @expand { )" + schedule + " } }\n";
}

std::string ssspProgram(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm sssp(source: i64 = 0) on g {
  vertex dist: f64 = 1.0e300
  dist[source] = 0.0
  frontier changed = [source]
  while size(changed) > 0 {
    @relax changed = edges(u, v, w) from changed {
      dist[v] min= dist[u] + w
    }
  }
  output dist
}
schedule sssp { @relax { )" + schedule + " } }\n";
}

std::string pageRankProgram(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm pagerank(damping: f64 = 0.85, iterations: i64 = 20) on g {
  let n = num_vertices()
  vertex rank: f64 = 1.0 / n
  vertex incoming: f64 = 0.0
  repeat iterations {
    @gather edges(src, dst) {
      incoming[dst] += rank[src] / degree(src)
    }
    @apply vertices(v) {
      rank[v] = (1.0 - damping) / n + damping * incoming[v]
      incoming[v] = 0.0
    }
  }
  output rank
}
schedule pagerank { @gather { )" + schedule + " } }\n";
}

class BfsSchedules : public ::testing::TestWithParam<const char *> {};
class SsspSchedules : public ::testing::TestWithParam<const char *> {};
class PageRankSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(BfsSchedules, DepthsEqualTheReference) {
  Program p;
  ASSERT_TRUE(p.loadText(bfsProgram(GetParam()), "bfs"));
  for (uint32_t seed : {1u, 2u, 3u}) {
    GraphHolder g;
    randomGraph(2000, seed == 3 ? 30000 : 3000, seed, seed == 2, g);
    for (uint32_t threads : {1u, 2u}) {
      auto got = asI64(p.run(g.g, threads, seed));
      EXPECT_EQ(got, referenceBfs(g.g, seed))
          << GetParam() << " seed " << seed << " threads " << threads;
    }
  }
}

TEST_P(SsspSchedules, DistancesEqualDijkstra) {
  Program p;
  ASSERT_TRUE(p.loadText(ssspProgram(GetParam()), "sssp"));
  for (uint32_t seed : {4u, 5u}) {
    GraphHolder g;
    randomGraph(1500, 12000, seed, seed == 5, g);
    for (uint32_t threads : {1u, 2u}) {
      auto got = asF64(p.run(g.g, threads, 7));
      EXPECT_EQ(got, referenceSssp(g.g, 7, 1e300))
          << GetParam() << " seed " << seed << " threads " << threads;
    }
  }
}

TEST_P(PageRankSchedules, RanksWithin1e9OfTheReference) {
  Program p;
  ASSERT_TRUE(p.loadText(pageRankProgram(GetParam()), "pagerank"));
  GraphHolder g;
  randomGraph(3000, 40000, 6, false, g);
  auto reference = referencePageRank(g.g, 0.85, 20);
  for (uint32_t threads : {1u, 2u}) {
    auto got = asF64(p.run(g.g, threads));
    ASSERT_EQ(got.size(), reference.size());
    EXPECT_LT(l1(got, reference), 1e-9) << GetParam() << " threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, BfsSchedules,
    ::testing::Values("direction: push, frontier: sparse, parallel: serial",
                      "direction: push, frontier: sparse, parallel: dynamic(8)",
                      "direction: push, frontier: dense, parallel: static",
                      "direction: push, frontier: auto, parallel: dynamic(64)",
                      "direction: pull, parallel: static",
                      "direction: hybrid, frontier: auto, parallel: dynamic(32)"));
INSTANTIATE_TEST_SUITE_P(
    Schedules, SsspSchedules,
    ::testing::Values("direction: push, frontier: sparse, parallel: dynamic(16)",
                      "direction: push, frontier: bitmap, parallel: static",
                      "direction: pull, parallel: dynamic(4)",
                      "direction: hybrid, parallel: static"));
INSTANTIATE_TEST_SUITE_P(
    Schedules, PageRankSchedules,
    ::testing::Values("direction: pull, parallel: dynamic(64)",
                      "direction: push, parallel: static",
                      "direction: push, parallel: serial",
                      "direction: hybrid, parallel: dynamic(1)"));

bool loadShared(const char *file, sluice_graph_format_t format, uint32_t flags,
                GraphHolder &out);

/// The smallest original id in each vertex's component, by union-find.
std::vector<int64_t> referenceComponents(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<uint32_t> parent(n);
  for (uint32_t v = 0; v < n; ++v)
    parent[v] = v;
  auto find = [&](uint32_t v) {
    while (parent[v] != v)
      v = parent[v] = parent[parent[v]];
    return v;
  };
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      uint32_t a = find(u), b = find(tgt[e]);
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<int64_t> smallest(n, INT64_MAX), out(n);
  for (uint32_t v = 0; v < n; ++v)
    smallest[find(v)] = std::min<int64_t>(
        smallest[find(v)], int64_t(sluice_graph_original_id(g, v)));
  for (uint32_t v = 0; v < n; ++v)
    out[v] = smallest[find(v)];
  return out;
}

class CcSchedules : public ::testing::TestWithParam<const char *> {};

TEST_P(CcSchedules, ComponentsEqualUnionFind) {
  Program p;
  ASSERT_TRUE(p.loadText(std::string(kHeader) + R"(
algorithm cc() on g {
  vertex comp: i64 = 0
  @init vertices(v) { comp[v] = id(v) }
  frontier changed = all
  while size(changed) > 0 {
    @spread changed = edges(u, v) from changed { comp[v] min= comp[u] }
  }
  output comp
}
schedule cc { @spread { )" + std::string(GetParam()) + " } }\n",
                         "cc"));
  for (uint32_t seed : {8u, 9u}) {
    GraphHolder g;
    randomGraph(3000, seed == 8 ? 1200 : 2500, seed, /*undirected=*/true, g);
    auto reference = referenceComponents(g.g);
    std::set<int64_t> components(reference.begin(), reference.end());
    EXPECT_GT(components.size(), 100u); // many components to get right
    for (uint32_t threads : {1u, 2u})
      EXPECT_EQ(asI64(p.run(g.g, threads)), reference)
          << GetParam() << " seed " << seed << " threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, CcSchedules,
    ::testing::Values("direction: push, frontier: auto, parallel: dynamic(64)",
                      "direction: push, frontier: sparse, parallel: static",
                      "direction: pull, parallel: dynamic(16)",
                      "direction: hybrid, parallel: static"));

TEST(AlgoExamples, ConnectedComponentsOnEmailEuCore) {
  // cc.sluice's algorithm on a graph with several components.
  GraphHolder g;
  if (!loadShared("email-Eu-core.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/cc.sluice",
                     "cc"));
  auto reference = referenceComponents(g.g);
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asI64(p.run(g.g, threads)), reference) << threads;
}

/// has_edge and weight(u, v), answered by the runtime, against the graph's
/// arrays: per vertex, its reciprocated out-edges and their weights.
TEST(AlgoQueries, HasEdgeAndWeightMatchTheGraph) {
  Program p;
  ASSERT_TRUE(p.loadText(std::string(kHeader) + R"(
algorithm recip() on g {
  vertex back: f64 = 0.0
  @count edges(u, v) where has_edge(v, u) { back[u] += weight(v, u) }
  output back
}
schedule recip { @count { direction: push, parallel: dynamic(16) } }
)",
                         "recip"));
  GraphHolder g;
  randomGraph(500, 6000, 11, false, g);
  uint64_t n = sluice_graph_num_vertices(g.g);
  const uint64_t *off = sluice_graph_offsets(g.g);
  const uint32_t *tgt = sluice_graph_targets(g.g);
  const float *w = sluice_graph_weights(g.g);
  std::vector<double> reference(n, 0.0);
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      for (uint64_t f = off[tgt[e]]; f < off[tgt[e] + 1]; ++f)
        if (tgt[f] == u)
          reference[u] += w[f];
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asF64(p.run(g.g, threads)), reference) << threads;
}

/// The shared graphs, loaded as the examples declare them.
bool loadShared(const char *file, sluice_graph_format_t format, uint32_t flags,
                GraphHolder &out) {
  std::string path = std::string(SLUICE_SHARED_DATA_DIR) + "/" + file;
  if (!llvm::sys::fs::exists(path))
    return false;
  sluice_graph_load_options_t options;
  sluice_graph_load_options_init(&options);
  options.format = format;
  options.flags = flags | SLUICE_GRAPH_LOAD_COMPACT_IDS |
                  SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_QUIET;
  sluice_error_t error;
  return sluice_graph_load(path.c_str(), &options, &out.g, &error) ==
         SLUICE_STATUS_OK;
}

TEST(AlgoExamples, BfsOnFacebook) {
  GraphHolder g;
  if (!loadShared("facebook_combined.txt.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/bfs.sluice",
                     "bfs"));
  auto reference = referenceBfs(g.g, sluice_graph_vertex_of(g.g, 0));
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asI64(p.run(g.g, threads)), reference) << threads;
}

TEST(AlgoExamples, SsspOnLuxembourgRoads) {
  GraphHolder g;
  if (!loadShared("luxembourg_osm.el.gz", SLUICE_GRAPH_FORMAT_SNAP,
                  SLUICE_GRAPH_LOAD_UNDIRECTED, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/sssp.sluice",
                     "sssp"));
  auto reference = referenceSssp(g.g, sluice_graph_vertex_of(g.g, 1), 1e300);
  for (uint32_t threads : {1u, 2u})
    EXPECT_EQ(asF64(p.run(g.g, threads)), reference) << threads;
}

TEST(AlgoExamples, PageRankOnSlashdot) {
  GraphHolder g;
  if (!loadShared("soc-Slashdot0902.txt.gz", SLUICE_GRAPH_FORMAT_SNAP, 0, g))
    GTEST_SKIP() << "shared data not found";
  Program p;
  ASSERT_TRUE(p.load(std::string(SLUICE_EXAMPLES_DIR) +
                         "/algorithms/pagerank.sluice",
                     "pagerank"));
  auto reference = referencePageRank(g.g, 0.85, 20);
  for (uint32_t threads : {1u, 2u})
    EXPECT_LT(l1(asF64(p.run(g.g, threads)), reference), 1e-9) << threads;
}

} // namespace
