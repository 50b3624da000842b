//===- AlgoTestUtils.h - Compiling and running algorithms in tests -*- C++ -*-===//
//
// What the algorithm tests share: a program compiled as `sluicec --run`
// compiles it (Program), seeded random graphs, the shared real graphs
// loaded as the examples declare them, and output conversions.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALGO_ALGOTESTUTILS_H
#define SLUICE_TEST_UNIT_ALGO_ALGOTESTUTILS_H

#include "compiler/Pipelines/Compilation.h"
#include "compiler/Target/Graph/AlgoCompile.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace sluice::algotest {

using namespace mlir;

struct GraphHolder {
  sluice_graph_t *g = nullptr;
  ~GraphHolder() { sluice_graph_release(g); }
};

/// A seeded random directed graph with integer weights 1..9.
inline void randomGraph(uint32_t n, uint32_t m, uint32_t seed, bool undirected,
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
  llvm::FileRemover sourceFile; ///< loadText's source

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
  /// Compiles `source`, written to a temporary file of its own (tests run
  /// in parallel processes: a fixed name would be shared); removed with
  /// the Program.
  bool loadText(const std::string &source, StringRef name) {
    SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "algo-" + name, "sluice", path)) {
      ADD_FAILURE() << "cannot create a temporary file: " << ec.message();
      return false;
    }
    sourceFile.setFile(path);
    std::ofstream(path.str().str()) << source;
    return load(path.str().str(), name);
  }
  /// Runs with `threads` and the source vertex id `source` (< 0: default);
  /// the first output (a vertex output as original ids), and the loops
  /// run in `passes` when given.
  std::vector<uint64_t> run(const sluice_graph_t *g, uint32_t threads,
                            int64_t source = -1, uint64_t *passes = nullptr) {
    Builder b(&ctx);
    SmallVector<NamedAttribute> params;
    if (source >= 0)
      params.push_back(b.getNamedAttr("source", b.getI64IntegerAttr(source)));
    auto result = compiled->run(g, b.getDictionaryAttr(params), threads,
                                /*quiet=*/true, algo);
    EXPECT_TRUE(succeeded(result));
    if (failed(result) || result->outputs.empty())
      return {};
    if (passes)
      *passes = result->passes;
    const sluice_algo_column_t &column = result->outputs.front();
    auto n = sluice_graph_num_vertices(g);
    if (column.type == SLUICE_ALGO_VERTEX) {
      // A vertex per vertex: its original id, as the writers print it.
      const auto *data = static_cast<const uint32_t *>(column.data);
      std::vector<uint64_t> ids(n);
      for (uint64_t v = 0; v < n; ++v)
        ids[v] = data[v] == SLUICE_VERTEX_NONE
                     ? ~uint64_t(0)
                     : sluice_graph_original_id(g, data[v]);
      return ids;
    }
    const auto *data = static_cast<const uint64_t *>(column.data);
    return std::vector<uint64_t>(data, data + n);
  }
};

/// PageRank by the textbook pull loop, serial, in f64: the reference of
/// the f64 and f32 PageRank tests.
inline std::vector<double> referencePageRank(const sluice_graph_t *g,
                                             double damping, int iterations) {
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

inline std::vector<int64_t> asI64(const std::vector<uint64_t> &bits) {
  return std::vector<int64_t>(bits.begin(), bits.end());
}
inline std::vector<double> asF64(const std::vector<uint64_t> &bits) {
  std::vector<double> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(double));
  return out;
}
/// The first n floats of an f32 output (Program::run's words hold them
/// packed, 4 bytes each).
inline std::vector<float> asF32(const std::vector<uint64_t> &bits) {
  std::vector<float> out(bits.size());
  std::memcpy(out.data(), bits.data(), bits.size() * sizeof(float));
  return out;
}
inline double l1(const std::vector<double> &a, const std::vector<double> &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += std::fabs(a[i] - b[i]);
  return sum;
}

/// A program's first lines: a machine and a graph (the tests pass graphs
/// of their own).
inline constexpr const char *kHeader =
    "topology box { cpu c }\ngraph g = load(\"unused.txt\", format: snap)\n";

/// The shared graphs, loaded as the examples declare them: from the
/// project's shared data set beside the checkout, else the copies bundled
/// in examples/data (email-Eu-core, ego-Facebook, luxembourg_osm).
inline bool loadShared(const char *file, sluice_graph_format_t format, uint32_t flags,
                GraphHolder &out) {
  std::string path = std::string(SLUICE_SHARED_DATA_DIR) + "/" + file;
  if (!llvm::sys::fs::exists(path))
    path = std::string(SLUICE_BUNDLED_DATA_DIR) + "/" + file;
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

/// The algorithm of example `file` (examples/algorithms) on the tests'
/// graph `g`, without its schedule and job: from `algorithm` to
/// `schedule`, `on NAME` replaced by `on g`.
inline std::string exampleAlgorithm(const std::string &file) {
  std::ifstream in(std::string(SLUICE_EXAMPLES_DIR) + "/algorithms/" + file);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  size_t begin = s.find("\nalgorithm "), end = s.find("\nschedule ");
  if (begin == std::string::npos || end == std::string::npos)
    return "";
  s = s.substr(begin, end - begin);
  size_t on = s.find(" on "), brace = s.find(" {", on);
  return s.replace(on, brace - on, " on g") + "\n";
}

/// PageRank (`iterations` by default) whose edges loop @scatter has
/// `schedule`.
inline std::string pageRank(const std::string &schedule, int iterations = 12) {
  return std::string(kHeader) + R"(
algorithm pagerank(damping: f64 = 0.85, iterations: i64 = )" +
         std::to_string(iterations) + R"() on g {
  let n = num_vertices()
  vertex rank: f64 = 1.0 / n
  vertex incoming: f64 = 0.0
  repeat iterations {
    @scatter edges(src, dst) {
      incoming[dst] += rank[src] / degree(src)
    }
    @apply vertices(v) {
      rank[v] = (1.0 - damping) / n + damping * incoming[v]
      incoming[v] = 0.0
    }
  }
  output rank
}
schedule pagerank { @scatter { )" +
         schedule + " } }\n";
}

/// Integer `min=`, `max=`, `+=` and `-=` of values from the source alone;
/// @far's `where` on the source is tested per edge when it is binned.
inline std::string integers(const std::string &schedule) {
  return std::string(kHeader) + R"(
algorithm ints(rounds: i64 = 3) on g {
  vertex x: i64 = 0
  vertex low: i64 = 1000000
  vertex high: i64 = 0
  vertex total: i64 = 0
  vertex far: i64 = 0
  vertex minus: i64 = 0
  @init vertices(v) { x[v] = id(v) % 13 }
  repeat rounds {
    @lo edges(src, dst) { low[dst] min= x[src] + degree(src) }
    @hi edges(src, dst) { high[dst] max= x[src] * 2 - degree(src) }
    @sum edges(src, dst) { total[dst] += x[src] + 1 }
    @sub edges(src, dst) { minus[dst] -= x[src] * 3 }
    @far edges(src, dst) where x[src] > 5 { far[dst] += x[src] }
    @apply vertices(v) {
      x[v] = (x[v] + low[v] + high[v] + total[v] + far[v] - minus[v]) % 17
      low[v] = 1000000
      high[v] = 0
      total[v] = 0
      far[v] = 0
      minus[v] = 0
    }
  }
  output x
}
schedule ints { @lo { )" +
         schedule + " }, @hi { " + schedule + " }, @sum { " + schedule +
         " }, @sub { " + schedule + " }, @far { " + schedule + " } }\n";
}

/// integers() computed serially, here, from the CSR: the independent
/// reference (ids are vertex numbers: the graphs here are built so).
inline std::vector<int64_t> referenceIntegers(const sluice_graph_t *g) {
  const uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *tgt = sluice_graph_targets(g);
  std::vector<int64_t> x(n), low(n, 1000000), high(n, 0), total(n, 0),
      far(n, 0), minus(n, 0);
  for (uint64_t v = 0; v < n; ++v)
    x[v] = sluice_graph_original_id(g, v) % 13;
  for (int round = 0; round < 3; ++round) {
    for (uint64_t u = 0; u < n; ++u) {
      const int64_t degree = int64_t(off[u + 1] - off[u]);
      for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
        const uint32_t v = tgt[e];
        low[v] = std::min(low[v], x[u] + degree);
        high[v] = std::max(high[v], x[u] * 2 - degree);
        total[v] += x[u] + 1;
        minus[v] -= x[u] * 3;
        if (x[u] > 5)
          far[v] += x[u];
      }
    }
    for (uint64_t v = 0; v < n; ++v) {
      x[v] = (x[v] + low[v] + high[v] + total[v] + far[v] - minus[v]) % 17;
      low[v] = 1000000;
      high[v] = total[v] = far[v] = minus[v] = 0;
    }
  }
  return x;
}

/// A graph of n vertices, 1 in 3 isolated (no edge in or out), the others
/// on random edges; n is no multiple of the bin sizes tested.
inline void isolatedGraph(uint32_t n, uint32_t m, uint32_t seed,
                          GraphHolder &out) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> src, dst;
  auto connected = [&] {
    uint32_t v;
    do
      v = rng() % n;
    while (v % 3 == 0);
    return v;
  };
  for (uint32_t i = 0; i < m; ++i) {
    src.push_back(connected());
    dst.push_back(connected());
  }
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(
                n, m, src.data(), dst.data(), nullptr, nullptr, nullptr,
                SLUICE_GRAPH_LOAD_DEDUPLICATE, &out.g, &error),
            SLUICE_STATUS_OK)
      << error.message;
  ASSERT_EQ(sluice_graph_num_vertices(out.g), n);
}

} // namespace sluice::algotest

#endif // SLUICE_TEST_UNIT_ALGO_ALGOTESTUTILS_H
