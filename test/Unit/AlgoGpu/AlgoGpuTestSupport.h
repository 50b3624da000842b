//===- AlgoGpuTestSupport.h - GPU algorithm tests: runs, graphs, oracles -*- C++
//-*-===//
//
// What the GPU integration suite (the PTX on a device) and the emulation
// suite (the same kernels compiled for the host) share: the loop functions
// of gpu-algos.o and their kernels, the graphs, one run of a compiled
// algorithm on the CPU or with kernels attached, reference BFS and labels.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALGOGPU_ALGOGPUTESTSUPPORT_H
#define SLUICE_TEST_UNIT_ALGOGPU_ALGOGPUTESTSUPPORT_H

#include "gpu-algos.h"
#include "sluice/algo_gpu.h"
#include "sluice/graph.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <sstream>
#include <string>
#include <vector>

// The loop functions of the object (sluice_algo_range_fn_t), bound to the
// kernels of the same name.
extern "C" {
#define SLUICE_LOOP(name)                                                      \
  void name(sluice_algo_ctx_t *, void *, uint64_t, uint64_t);
SLUICE_LOOP(sluice_algo_bfs_expand_push)
SLUICE_LOOP(sluice_algo_bfs_expand_pull)
SLUICE_LOOP(sluice_algo_sssp_relax_push)
SLUICE_LOOP(sluice_algo_pagerank_gather_src_vertices)
SLUICE_LOOP(sluice_algo_pagerank_gather_pull)
SLUICE_LOOP(sluice_algo_prcoo_scatter_src_vertices)
SLUICE_LOOP(sluice_algo_prcoo_scatter_coo)
SLUICE_LOOP(sluice_algo_prcoo_apply_vertices)
SLUICE_LOOP(sluice_algo_prpush_scatter_src_vertices)
SLUICE_LOOP(sluice_algo_prpush_scatter_push)
SLUICE_LOOP(sluice_algo_prpush_apply_vertices)
SLUICE_LOOP(sluice_algo_cc_init_vertices)
SLUICE_LOOP(sluice_algo_cc_spread_push)
SLUICE_LOOP(sluice_algo_ccpull_init_vertices)
SLUICE_LOOP(sluice_algo_ccpull_spread_pull)
SLUICE_LOOP(sluice_algo_tc_count_push)
SLUICE_LOOP(sluice_algo_bc_expand_push)
SLUICE_LOOP(sluice_algo_bc_count_pull)
SLUICE_LOOP(sluice_algo_bc_coef_vertices)
SLUICE_LOOP(sluice_algo_bc_accumulate_push)
#undef SLUICE_LOOP
}

namespace sluice::algogpu {

struct Bound {
  sluice_algo_range_fn_t fn;
  const char *kernel;
};

#define SLUICE_BOUND(name)                                                     \
  Bound { name, #name }
inline const Bound kKernels[] = {
    SLUICE_BOUND(sluice_algo_bfs_expand_push),
    SLUICE_BOUND(sluice_algo_bfs_expand_pull),
    SLUICE_BOUND(sluice_algo_sssp_relax_push),
    SLUICE_BOUND(sluice_algo_pagerank_gather_src_vertices),
    SLUICE_BOUND(sluice_algo_pagerank_gather_pull),
    SLUICE_BOUND(sluice_algo_prcoo_scatter_src_vertices),
    SLUICE_BOUND(sluice_algo_prcoo_scatter_coo),
    SLUICE_BOUND(sluice_algo_prcoo_apply_vertices),
    SLUICE_BOUND(sluice_algo_prpush_scatter_src_vertices),
    SLUICE_BOUND(sluice_algo_prpush_scatter_push),
    SLUICE_BOUND(sluice_algo_prpush_apply_vertices),
    SLUICE_BOUND(sluice_algo_cc_init_vertices),
    SLUICE_BOUND(sluice_algo_cc_spread_push),
    SLUICE_BOUND(sluice_algo_ccpull_init_vertices),
    SLUICE_BOUND(sluice_algo_ccpull_spread_pull),
    SLUICE_BOUND(sluice_algo_tc_count_push),
    SLUICE_BOUND(sluice_algo_bc_expand_push),
    SLUICE_BOUND(sluice_algo_bc_count_pull),
    SLUICE_BOUND(sluice_algo_bc_coef_vertices),
    SLUICE_BOUND(sluice_algo_bc_accumulate_push)};
#undef SLUICE_BOUND

inline std::string envOr(const char *name, const std::string &fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

inline std::string ptxPath() {
  return envOr("SLUICE_GPU_ARTIFACTS", SLUICE_GPU_ALGOS_DIR) + "/gpu-algos.ptx";
}

inline bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string findGraph(const std::string &file) {
  for (const std::string &dir : {envOr("SLUICE_GPU_DATA", ""),
                                 std::string(SLUICE_GPU_SHARED_DATA_DIR)}) {
    if (!dir.empty() && fileExists(dir + "/" + file))
      return dir + "/" + file;
  }
  return {};
}

using GraphPtr = std::unique_ptr<sluice_graph_t, void (*)(sluice_graph_t *)>;

/// A SNAP file as `load(..., format: snap)` reads it.
inline GraphPtr loadSnap(const std::string &file, bool undirected,
                         std::string &why) {
  GraphPtr none(nullptr, sluice_graph_release);
  std::string path = findGraph(file);
  if (path.empty()) {
    why = file + " not found (SLUICE_GPU_DATA, ../shared/data)";
    return none;
  }
  sluice_graph_load_options_t load;
  sluice_graph_load_options_init(&load);
  load.format = SLUICE_GRAPH_FORMAT_SNAP;
  load.flags = SLUICE_GRAPH_LOAD_COMPACT_IDS |
               SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES |
               SLUICE_GRAPH_LOAD_DEDUPLICATE |
               SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS | SLUICE_GRAPH_LOAD_QUIET;
  if (undirected)
    load.flags |= SLUICE_GRAPH_LOAD_UNDIRECTED;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(path.c_str(), &load, &g, &error) != SLUICE_STATUS_OK) {
    why = "cannot load " + path + ": " + error.message;
    return none;
  }
  return GraphPtr(g, sluice_graph_release);
}

using ContextPtr =
    std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)>;

/// A graph of `n` vertices from the edges src[k] -> dst[k] and a quiet
/// context on it (`error` says why not when either is null).
struct EdgeGraph {
  GraphPtr graph{nullptr, sluice_graph_release};
  ContextPtr ctx{nullptr, sluice_algo_ctx_release};
  std::string error;
};
inline EdgeGraph fromEdges(uint32_t n, const std::vector<uint32_t> &src,
                           const std::vector<uint32_t> &dst) {
  EdgeGraph out;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (sluice_graph_create_from_edges(n, src.size(), src.data(), dst.data(),
                                     nullptr, nullptr, nullptr, 0, &g,
                                     &error) != SLUICE_STATUS_OK) {
    out.error = error.message;
    return out;
  }
  out.graph.reset(g);
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = nullptr;
  if (sluice_algo_ctx_create(g, &options, &ctx, &error) != SLUICE_STATUS_OK)
    out.error = error.message;
  out.ctx.reset(ctx);
  return out;
}

/// One run: the properties (8 bytes a value each, the widest), and why the
/// GPU half did not run (`skip`) or failed (`error`).
struct Outcome {
  std::vector<std::vector<uint64_t>> props;
  std::string skip, error;
  uint64_t launches = 0;
  double seconds = 0; ///< The entry call alone (uploads and launches in it).
  sluice_algo_gpu_stats_t stats{};
};

/// How a run gets its kernels: attaches them to the context (UNSUPPORTED:
/// skip, with the message).
using Attach =
    std::function<sluice_status_t(sluice_algo_ctx_t *, sluice_error_t *)>;

/// The PTX on the CUDA driver.
inline sluice_status_t attachPtx(sluice_algo_ctx_t *ctx,
                                 sluice_error_t *error) {
  std::string ptx = readFile(ptxPath());
  return sluice_algo_gpu_attach(ctx, ptx.c_str(), error);
}

/// Runs `entry` with `params` on `graph` on the CPU, or with the kernels
/// `attach` attaches (every loop bound).
template <typename Params>
Outcome run(const sluice_graph_t *graph,
            void (*entry)(sluice_algo_ctx_t *, const Params *, void **),
            const Params &params, size_t numProps, const Attach &attach,
            uint32_t threads = 2) {
  Outcome out;
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.threads = threads;
  options.quiet = 1;
  sluice_algo_ctx_t *ctx = nullptr;
  sluice_error_t error;
  if (sluice_algo_ctx_create(graph, &options, &ctx, &error) !=
      SLUICE_STATUS_OK) {
    out.error = error.message;
    return out;
  }
  std::unique_ptr<sluice_algo_ctx_t, void (*)(sluice_algo_ctx_t *)> owner(
      ctx, sluice_algo_ctx_release);
  if (attach) {
    sluice_status_t s = attach(ctx, &error);
    if (s == SLUICE_STATUS_UNSUPPORTED) {
      out.skip = error.message;
      return out;
    }
    if (s != SLUICE_STATUS_OK) {
      out.error = std::string("attach: ") + error.message;
      return out;
    }
    for (const Bound &b : kKernels)
      if (sluice_algo_gpu_bind(ctx, b.fn, b.kernel, &error) !=
          SLUICE_STATUS_OK) {
        out.error = std::string("bind ") + b.kernel + ": " + error.message;
        return out;
      }
  }
  uint64_t n = sluice_graph_num_vertices(graph);
  out.props.assign(numProps, std::vector<uint64_t>(n, 0));
  std::vector<void *> table;
  for (auto &p : out.props)
    table.push_back(p.data());
  auto start = std::chrono::steady_clock::now();
  entry(ctx, &params, table.data());
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const char *message = nullptr;
  if (sluice_algo_fault_site(ctx, &message) != -1)
    out.error = std::string("fault: ") + (message ? message : "");
  out.launches = sluice_algo_gpu_launches(ctx);
  sluice_algo_gpu_stats(ctx, &out.stats);
  return out;
}

inline std::vector<int64_t> asI64(const std::vector<uint64_t> &v) {
  return {v.begin(), v.end()};
}

inline std::vector<double> asF64(const std::vector<uint64_t> &v) {
  std::vector<double> d(v.size());
  std::memcpy(d.data(), v.data(), v.size() * 8);
  return d;
}

/// A queue BFS from `source` (vertex 0 by default) over the out-edges:
/// depths, -1 unreached.
inline std::vector<int64_t> referenceBfs(const sluice_graph_t *g,
                                         uint32_t source = 0) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *dst = sluice_graph_targets(g);
  std::vector<int64_t> depth(n, -1);
  std::queue<uint32_t> q;
  depth[source] = 0;
  q.push(source);
  while (!q.empty()) {
    uint32_t u = q.front();
    q.pop();
    for (uint64_t e = off[u]; e < off[u + 1]; ++e)
      if (depth[dst[e]] < 0) {
        depth[dst[e]] = depth[u] + 1;
        q.push(dst[e]);
      }
  }
  return depth;
}

/// Each vertex's smallest reachable original id over the out-edges to a
/// fixpoint (label propagation, serial): cc.sluice's labels.
inline std::vector<int64_t> referenceLabels(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *dst = sluice_graph_targets(g);
  std::vector<int64_t> comp(n);
  for (uint64_t v = 0; v < n; ++v)
    comp[v] = static_cast<int64_t>(
        sluice_graph_original_id(g, static_cast<uint32_t>(v)));
  for (bool changed = true; changed;) {
    changed = false;
    for (uint64_t u = 0; u < n; ++u)
      for (uint64_t e = off[u]; e < off[u + 1]; ++e)
        if (comp[u] < comp[dst[e]]) {
          comp[dst[e]] = comp[u];
          changed = true;
        }
  }
  return comp;
}

inline void expectRelativelyClose(const std::vector<double> &gpu,
                                  const std::vector<double> &cpu,
                                  const char *what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  size_t bad = 0;
  for (size_t v = 0; v < cpu.size(); ++v) {
    double tol = 1e-9 * std::max(std::fabs(cpu[v]), std::fabs(gpu[v]));
    if (!(std::fabs(gpu[v] - cpu[v]) <= tol) && bad++ < 5)
      ADD_FAILURE() << what << ": vertex " << v << ": GPU " << gpu[v]
                    << ", CPU " << cpu[v];
  }
  EXPECT_EQ(bad, 0u) << what;
}

/// Prints the two halves' times (the entry call: on the GPU its uploads,
/// launches and copies back; the CPU at 2 threads) and the GPU's
/// sluice_algo_gpu_stats: the device's figures until a benchmark exists
/// (under emulation the "GPU" is the host build of the kernels).
inline void printTimes(const char *what, const Outcome &cpu,
                       const Outcome &gpu) {
  const sluice_algo_gpu_stats_t &st = gpu.stats;
  std::printf("[   time   ] %s: CPU (2 threads) %.3f ms, GPU %.3f ms in %llu "
              "launches (kernels %.3f ms; %llu + %llu copies, %.3f ms, "
              "%.1f + %.1f KiB; %llu property copies skipped)\n",
              what, cpu.seconds * 1e3, gpu.seconds * 1e3,
              static_cast<unsigned long long>(gpu.launches),
              st.kernel_seconds * 1e3,
              static_cast<unsigned long long>(st.copies_to_device),
              static_cast<unsigned long long>(st.copies_from_device),
              st.copy_seconds * 1e3, st.bytes_to_device / 1024.0,
              st.bytes_from_device / 1024.0,
              static_cast<unsigned long long>(st.properties_kept));
}

/// The GPU half's verdict: skip without a device, fail on an error.
#define SLUICE_GPU_HALF(cpu, outcome)                                          \
  do {                                                                         \
    if (!(outcome).skip.empty())                                               \
      GTEST_SKIP() << "no GPU: " << (outcome).skip;                            \
    ASSERT_EQ((outcome).error, "");                                            \
    EXPECT_GT((outcome).launches, 0u);                                         \
    printTimes(                                                                \
        ::testing::UnitTest::GetInstance()->current_test_info()->name(), cpu,  \
        outcome);                                                              \
  } while (0)

/// Runs `entry` on the CPU, its output (the first property, i64) equal to
/// `reference`, then with `attach`: the output equal to the CPU's.
template <typename Params>
void checkExact(const sluice_graph_t *g,
                void (*entry)(sluice_algo_ctx_t *, const Params *, void **),
                const Params &params, const std::vector<int64_t> &reference,
                const Attach &attach) {
  Outcome cpu = run(g, entry, params, 1, nullptr);
  ASSERT_EQ(cpu.error, "");
  EXPECT_EQ(asI64(cpu.props[0]), reference);
  Outcome gpu = run(g, entry, params, 1, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  EXPECT_EQ(gpu.props[0], cpu.props[0]);
}

inline void checkBfs(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_bfs_t params{};
  params.source = static_cast<int64_t>(sluice_graph_original_id(g, 0));
  checkExact(g, sluice_algo_bfs, params, referenceBfs(g), attach);
}

inline void checkSssp(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_sssp_t params{};
  params.source = static_cast<int64_t>(sluice_graph_original_id(g, 0));
  Outcome cpu = run(g, sluice_algo_sssp, params, 1, nullptr);
  ASSERT_EQ(cpu.error, "");
  // Unweighted: every edge weighs 1, the distances are the BFS depths.
  std::vector<int64_t> depth = referenceBfs(g);
  std::vector<double> dist = asF64(cpu.props[0]);
  for (size_t v = 0; v < depth.size(); ++v)
    ASSERT_EQ(dist[v], depth[v] < 0 ? 1.0e300 : double(depth[v])) << v;
  Outcome gpu = run(g, sluice_algo_sssp, params, 1, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  EXPECT_EQ(gpu.props[0], cpu.props[0]);
}

inline void checkComponents(const sluice_graph_t *g, const Attach &attach) {
  checkExact(g, sluice_algo_cc, sluice_algo_params_cc_t{}, referenceLabels(g),
             attach);
}

/// tc's count by brute force: for each out-edge u -> v with v < u, the
/// out-neighbours w < v of u that v has an edge to (a search of v's list).
inline std::vector<int64_t> referenceTriangles(const sluice_graph_t *g) {
  uint64_t n = sluice_graph_num_vertices(g);
  const uint64_t *off = sluice_graph_offsets(g);
  const uint32_t *dst = sluice_graph_targets(g);
  std::vector<int64_t> count(n, 0);
  for (uint32_t u = 0; u < n; ++u)
    for (uint64_t e = off[u]; e < off[u + 1]; ++e) {
      uint32_t v = dst[e];
      if (v >= u)
        continue;
      for (uint64_t f = off[u]; f < off[u + 1]; ++f)
        if (dst[f] < v && std::find(dst + off[v], dst + off[v + 1], dst[f]) !=
                              dst + off[v + 1])
          ++count[u];
    }
  return count;
}

/// Triangles per vertex: the CPU's equal the brute-force count, the GPU's
/// the CPU's.
inline void checkTriangles(const sluice_graph_t *g, const Attach &attach) {
  checkExact(g, sluice_algo_tc, sluice_algo_params_tc_t{},
             referenceTriangles(g), attach);
}

/// The properties of pagerank and prpush: rank, incoming and the
/// temporary graph-hoist-source-terms adds for `rank[src] / degree(src)`
/// (gather_src0, scatter_src0; gpu-algos.h lists them).
inline constexpr size_t kPageRankProps = 3;

inline void checkPageRankPull(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_pagerank_t params{0.85, 20};
  Outcome cpu = run(g, sluice_algo_pagerank, params, kPageRankProps, nullptr);
  ASSERT_EQ(cpu.error, "");
  std::vector<double> rank = asF64(cpu.props[0]);
  double total = std::accumulate(rank.begin(), rank.end(), 0.0);
  EXPECT_GT(total, 0.0);
  EXPECT_LE(total, 1.0 + 1e-9);
  Outcome gpu = run(g, sluice_algo_pagerank, params, kPageRankProps, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  expectRelativelyClose(asF64(gpu.props[0]), rank, "pagerank");
}

inline void checkPageRankPush(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_prpush_t params{0.85, 1.0e-14};
  Outcome cpu = run(g, sluice_algo_prpush, params, kPageRankProps, nullptr);
  ASSERT_EQ(cpu.error, "");
  Outcome gpu = run(g, sluice_algo_prpush, params, kPageRankProps, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  expectRelativelyClose(asF64(gpu.props[0]), asF64(cpu.props[0]),
                        "pagerank push to tolerance");
}

/// PageRank pushed over the edges as coordinates (`format: coo`: on the
/// CPU blocks of 4096 edges, on the GPU a thread per edge, each finding
/// its source by a binary search): the CPU's within 1e-9 relative of the
/// pull's, the GPU's of the CPU's.
inline void checkPageRankCoo(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_pagerank_t pull{0.85, 20};
  Outcome reference =
      run(g, sluice_algo_pagerank, pull, kPageRankProps, nullptr);
  ASSERT_EQ(reference.error, "");
  sluice_algo_params_prcoo_t params{0.85, 20};
  Outcome cpu = run(g, sluice_algo_prcoo, params, kPageRankProps, nullptr);
  ASSERT_EQ(cpu.error, "");
  expectRelativelyClose(asF64(cpu.props[0]), asF64(reference.props[0]),
                        "pagerank over coordinates, CPU");
  Outcome gpu = run(g, sluice_algo_prcoo, params, kPageRankProps, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  expectRelativelyClose(asF64(gpu.props[0]), asF64(cpu.props[0]),
                        "pagerank over coordinates, a thread per edge");
}

/// `attach`, then kernels' `_lanes` twins run from average degree
/// `minDegree` (0: always, INFINITY: never).
inline Attach withLanesFrom(Attach attach, double minDegree) {
  return [attach, minDegree](sluice_algo_ctx_t *ctx, sluice_error_t *error) {
    sluice_status_t s = attach(ctx, error);
    if (s == SLUICE_STATUS_OK)
      sluice_algo_gpu_set_lanes_min_degree(ctx, minDegree);
    return s;
  };
}

/// Prints a pull loop's kernel seconds with a warp or a thread per
/// destination on `g`: the figures that set SLUICE_ALGO_GPU_LANES_MIN_DEGREE
/// on a device.
inline void printLanes(const sluice_graph_t *g, const char *loop, bool warp,
                       const Outcome &gpu) {
  std::printf(
      "[  lanes   ] average degree %.2f: %s, %s: kernels %.3f ms in "
      "%llu launches\n",
      double(sluice_graph_num_edges(g)) / double(sluice_graph_num_vertices(g)),
      loop, warp ? "a warp per destination" : "a thread per destination",
      gpu.stats.kernel_seconds * 1e3,
      static_cast<unsigned long long>(gpu.launches));
}

/// PageRank's gather (a pull loop a warp per destination can run) with the
/// `_lanes` twin forced and with it off: each within 1e-9 relative of the
/// CPU (the lanes add a destination's in-edges in another order); the twin
/// runs every gather when forced, never when off.
inline void checkPageRankBothKernels(const sluice_graph_t *g,
                                     const Attach &attach,
                                     int64_t iterations = 20) {
  sluice_algo_params_pagerank_t pr{0.85, iterations};
  Outcome cpu = run(g, sluice_algo_pagerank, pr, kPageRankProps, nullptr);
  ASSERT_EQ(cpu.error, "");
  for (bool warp : {true, false}) {
    Outcome gpu = run(g, sluice_algo_pagerank, pr, kPageRankProps,
                      withLanesFrom(attach, warp ? 0.0 : double(INFINITY)));
    SLUICE_GPU_HALF(cpu, gpu);
    expectRelativelyClose(asF64(gpu.props[0]), asF64(cpu.props[0]),
                          warp ? "pagerank, a warp per destination"
                               : "pagerank, a thread per destination");
    EXPECT_EQ(gpu.stats.lanes_launches, warp ? uint64_t(iterations) : 0u);
    printLanes(g, "pagerank gather", warp, gpu);
  }
}

/// ccpull's spread (min= at the destination, a frontier of the changed)
/// with the twin forced and off: the labels equal the CPU's, which equal
/// the reference's.
inline void checkComponentsPulledBothKernels(const sluice_graph_t *g,
                                             const Attach &attach) {
  Outcome cpu =
      run(g, sluice_algo_ccpull, sluice_algo_params_ccpull_t{}, 1, nullptr);
  ASSERT_EQ(cpu.error, "");
  EXPECT_EQ(asI64(cpu.props[0]), referenceLabels(g));
  for (bool warp : {true, false}) {
    Outcome gpu = run(g, sluice_algo_ccpull, sluice_algo_params_ccpull_t{}, 1,
                      withLanesFrom(attach, warp ? 0.0 : double(INFINITY)));
    SLUICE_GPU_HALF(cpu, gpu);
    EXPECT_EQ(gpu.props[0], cpu.props[0]);
    EXPECT_EQ(gpu.stats.lanes_launches > 0, warp);
    printLanes(g, "ccpull spread", warp, gpu);
  }
}

/// bc's properties: depth, sigma, delta (its output), coef.
inline constexpr size_t kBetweennessProps = 4;
inline constexpr size_t kDelta = 2;

/// Betweenness dependencies from the first vertex (AlgoCentralityTest
/// checks the CPU's against Brandes): the source's own is the number of
/// other vertices it reaches; the GPU's within 1e-9 relative of the CPU's.
inline void checkBetweenness(const sluice_graph_t *g, const Attach &attach) {
  sluice_algo_params_bc_t params{};
  params.source = static_cast<int64_t>(sluice_graph_original_id(g, 0));
  Outcome cpu = run(g, sluice_algo_bc, params, kBetweennessProps, nullptr);
  ASSERT_EQ(cpu.error, "");
  std::vector<int64_t> depth = referenceBfs(g);
  double reached = double(std::count_if(depth.begin(), depth.end(),
                                        [](int64_t d) { return d > 0; }));
  std::vector<double> delta = asF64(cpu.props[kDelta]);
  EXPECT_NEAR(delta[0], reached, 1e-9 * reached);
  Outcome gpu = run(g, sluice_algo_bc, params, kBetweennessProps, attach);
  SLUICE_GPU_HALF(cpu, gpu);
  expectRelativelyClose(asF64(gpu.props[kDelta]), delta, "betweenness");
}

/// The shared graphs the GPU-vs-CPU suites run on (skipped when absent):
/// facebook (undirected) and email-Eu-core.
class SharedGraphTest : public ::testing::TestWithParam<const char *> {
protected:
  void loadGraph() {
    std::string why;
    bool undirected = std::string(GetParam()) == "facebook_combined.txt.gz" ||
                      std::string(GetParam()) == "luxembourg_osm.el.gz";
    graph = loadSnap(GetParam(), undirected, why);
    if (!graph)
      GTEST_SKIP() << why;
  }
  GraphPtr graph{nullptr, sluice_graph_release};
};
inline const char *const kSharedGraphs[] = {"facebook_combined.txt.gz",
                                            "email-Eu-core.txt.gz"};
/// On a device also Slashdot (82,168 vertices, 948,464 directed edges):
/// launches wide enough to fill more than a few of the GPU's SMs.
inline const char *const kDeviceGraphs[] = {"facebook_combined.txt.gz",
                                            "email-Eu-core.txt.gz",
                                            "soc-Slashdot0902.txt.gz"};
/// The pull loops' two kernels (a thread or a warp per destination) on a
/// skewed graph of average degree 11.6 (Slashdot) and a road graph of 2.1
/// (luxembourg_osm, undirected) besides the small ones.
inline const char *const kLanesGraphs[] = {
    "facebook_combined.txt.gz", "email-Eu-core.txt.gz",
    "soc-Slashdot0902.txt.gz", "luxembourg_osm.el.gz"};
inline std::string
sharedGraphName(const ::testing::TestParamInfo<const char *> &info) {
  std::string file(info.param);
  if (file.substr(0, 5) == "faceb")
    return "facebook";
  if (file.substr(0, 5) == "email")
    return "emailEuCore";
  if (file.substr(0, 5) == "luxem")
    return "luxembourgOsm";
  return "slashdot";
}

} // namespace sluice::algogpu

#endif // SLUICE_TEST_UNIT_ALGOGPU_ALGOGPUTESTSUPPORT_H
