//===- AlgoRuntimeTest.cpp - libsluicert's algorithm runtime (sluice/algo.h)
//-===//
//
// Through the C API: the in-edges against a brute-force transpose, the
// parallel for's coverage under every schedule and thread count, small
// passes on the calling thread, back-to-back passes whose shares end late
// (the pool's wait, spinning then sleeping), frontiers
// built by concurrent inserts, the atomic helpers under contention, faults,
// and the text and .npy writers.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

struct GraphHolder {
  sluice_graph_t *g = nullptr;
  ~GraphHolder() { sluice_graph_release(g); }
};

/// A random directed graph with `n` vertices and `m` weighted edges
/// (seeded), deduplicated.
void randomGraph(uint32_t n, uint32_t m, uint32_t seed, bool weighted,
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
  ASSERT_EQ(sluice_graph_create_from_edges(
                n, m, src.data(), dst.data(), weighted ? w.data() : nullptr,
                nullptr, nullptr, SLUICE_GRAPH_LOAD_DEDUPLICATE, &out.g,
                &error),
            SLUICE_STATUS_OK)
      << error.message;
}

struct CtxHolder {
  sluice_algo_ctx_t *ctx = nullptr;
  ~CtxHolder() { sluice_algo_ctx_release(ctx); }
};

void makeCtx(const sluice_graph_t *g, uint32_t threads, CtxHolder &out) {
  sluice_algo_options_t options;
  sluice_algo_options_init(&options);
  options.threads = threads;
  options.quiet = 1;
  sluice_error_t error;
  ASSERT_EQ(sluice_algo_ctx_create(g, &options, &out.ctx, &error),
            SLUICE_STATUS_OK);
}

TEST(AlgoRuntime, InEdgesAreTheTransposeSortedBySource) {
  GraphHolder g;
  randomGraph(300, 2000, 7, /*weighted=*/true, g);
  CtxHolder c;
  makeCtx(g.g, 2, c);
  const sluice_algo_view_t *view = sluice_algo_view(c.ctx);
  ASSERT_EQ(view->num_vertices, 300u);
  // Every (src, dst, weight) of the CSR, and of the CSC, sorted.
  std::vector<std::tuple<uint32_t, uint32_t, float>> out, in;
  for (uint32_t u = 0; u < view->num_vertices; ++u)
    for (uint64_t e = view->out_offsets[u]; e < view->out_offsets[u + 1]; ++e)
      out.emplace_back(u, view->out_targets[e], view->out_weights[e]);
  for (uint32_t v = 0; v < view->num_vertices; ++v) {
    for (uint64_t e = view->in_offsets[v]; e < view->in_offsets[v + 1]; ++e) {
      in.emplace_back(view->in_sources[e], v, view->in_weights[e]);
      if (e > view->in_offsets[v]) {
        EXPECT_LT(view->in_sources[e - 1], view->in_sources[e]);
      }
    }
  }
  std::sort(out.begin(), out.end());
  std::sort(in.begin(), in.end());
  EXPECT_EQ(out, in);
  EXPECT_EQ(view->in_offsets[view->num_vertices], view->num_edges);
}

void countVisits(sluice_algo_ctx_t *, void *env, uint64_t begin,
                 uint64_t end) {
  auto *visits = static_cast<std::vector<std::atomic<int>> *>(env);
  for (uint64_t i = begin; i < end; ++i)
    (*visits)[i].fetch_add(1);
}

TEST(AlgoRuntime, ParallelForCoversTheRangeOnceUnderEverySchedule) {
  GraphHolder g;
  randomGraph(10, 20, 1, false, g);
  for (uint32_t threads : {1u, 2u, 3u, 8u}) {
    CtxHolder c;
    makeCtx(g.g, threads, c);
    EXPECT_EQ(sluice_algo_threads(c.ctx), threads);
    for (int32_t schedule :
         {SLUICE_ALGO_SERIAL, SLUICE_ALGO_STATIC, SLUICE_ALGO_DYNAMIC})
      for (uint64_t n : {0ull, 1ull, 7ull, 1000ull, 12345ull})
        // Chunks of 500: fewer chunks than threads, parts left empty.
        for (uint64_t chunk : {1ull, 64ull, 500ull}) {
          std::vector<std::atomic<int>> visits(n);
          sluice_algo_parallel_for(c.ctx, n, schedule, chunk, countVisits,
                                   &visits);
          for (uint64_t i = 0; i < n; ++i)
            ASSERT_EQ(visits[i].load(), 1)
                << "i " << i << " n " << n << " schedule " << schedule
                << " chunk " << chunk << " threads " << threads;
        }
  }
}

/// The calls of a pass: each range and the thread that ran it.
struct CallLog {
  std::atomic<int> calls{0};
  std::atomic<uint64_t> begin{~0ull}, end{0};
  std::thread::id thread;
};

void logCall(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  auto *log = static_cast<CallLog *>(env);
  log->calls.fetch_add(1);
  log->begin = begin;
  log->end = end;
  log->thread = std::this_thread::get_id();
}

TEST(AlgoRuntime, SmallPassesRunOnTheCallingThread) {
  GraphHolder g;
  randomGraph(10, 20, 1, false, g);
  CtxHolder c;
  makeCtx(g.g, 4, c);
  // Below SLUICE_ALGO_SERIAL_BELOW items: one call over the whole range on
  // the caller, whatever the schedule and chunk.
  for (int32_t schedule : {SLUICE_ALGO_STATIC, SLUICE_ALGO_DYNAMIC})
    for (uint64_t n :
         {uint64_t(1), uint64_t(2), uint64_t(SLUICE_ALGO_SERIAL_BELOW - 1)}) {
      CallLog log;
      sluice_algo_parallel_for(c.ctx, n, schedule, 1, logCall, &log);
      EXPECT_EQ(log.calls.load(), 1) << n;
      EXPECT_EQ(log.begin.load(), 0u);
      EXPECT_EQ(log.end.load(), n);
      EXPECT_EQ(log.thread, std::this_thread::get_id());
    }
  // At the threshold a dynamic pass of chunk 1 is split, one call an item.
  CallLog log;
  sluice_algo_parallel_for(c.ctx, SLUICE_ALGO_SERIAL_BELOW, SLUICE_ALGO_DYNAMIC,
                           1, logCall, &log);
  EXPECT_EQ(log.calls.load(), SLUICE_ALGO_SERIAL_BELOW);
  // Blocks of a reduction are worth the threads however few: one call a
  // block (static shares of 3 blocks on 4 threads).
  CallLog blocks;
  sluice_algo_parallel_for(c.ctx, 3, SLUICE_ALGO_STATIC | SLUICE_ALGO_BLOCKS, 0,
                           logCall, &blocks);
  EXPECT_EQ(blocks.calls.load(), 3);
}

/// Visits each item once; the last item of a pass sleeps `lateMicros`
/// first, so the pass ends on whichever thread has it, after the others.
struct LateEnv {
  std::vector<std::atomic<int>> *visits;
  uint32_t lateMicros;
};

void visitLate(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  auto *e = static_cast<LateEnv *>(env);
  for (uint64_t i = begin; i < end; ++i) {
    if (i + 1 == e->visits->size() && e->lateMicros)
      std::this_thread::sleep_for(std::chrono::microseconds(e->lateMicros));
    (*e->visits)[i].fetch_add(1, std::memory_order_relaxed);
  }
}

TEST(AlgoRuntime, BackToBackPassesWaitForLateShares) {
  GraphHolder g;
  randomGraph(10, 20, 1, false, g);
  // Passes back to back (workers still spinning), after a pause (asleep),
  // and with a share that ends late, under and past the caller's spin
  // (it then sleeps until the worker wakes it): every item is visited
  // once before the call returns.
  for (uint32_t threads : {2u, 3u, 8u}) {
    CtxHolder c;
    makeCtx(g.g, threads, c);
    std::vector<std::atomic<int>> visits(1000);
    for (int pass = 0; pass < 600; ++pass) {
      for (auto &v : visits)
        v.store(0, std::memory_order_relaxed);
      LateEnv env{&visits, uint32_t(pass % 3 == 1   ? 20
                                    : pass % 3 == 2 ? 300
                                                    : 0)};
      if (pass % 100 == 99)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      int32_t schedule = pass % 2 ? SLUICE_ALGO_STATIC : SLUICE_ALGO_DYNAMIC;
      sluice_algo_parallel_for(c.ctx, visits.size(), schedule, 16, visitLate,
                               &env);
      for (size_t i = 0; i < visits.size(); ++i)
        ASSERT_EQ(visits[i].load(std::memory_order_relaxed), 1)
            << "threads " << threads << " pass " << pass << " item " << i;
    }
  }
}

struct InsertEnv {
  sluice_frontier_t *f;
  uint32_t n;
};

void insertMultiples(sluice_algo_ctx_t *, void *env, uint64_t begin,
                     uint64_t end) {
  auto *e = static_cast<InsertEnv *>(env);
  for (uint64_t i = begin; i < end; ++i) {
    sluice_algo_frontier_insert(e->f, static_cast<uint32_t>((i * 3) % e->n));
    sluice_algo_frontier_insert(e->f, static_cast<uint32_t>((i * 3) % e->n));
  }
}

TEST(AlgoRuntime, FrontiersFromConcurrentInsertsAreSortedSets) {
  GraphHolder g;
  randomGraph(1000, 100, 3, false, g);
  CtxHolder c;
  makeCtx(g.g, 4, c);
  sluice_frontier_t *f = sluice_algo_frontier_new(c.ctx);
  InsertEnv env{f, 1000};
  // i * 3 % 1000 for i < 200: 0, 3, ..., 597, each inserted twice.
  sluice_algo_parallel_for(c.ctx, 200, SLUICE_ALGO_DYNAMIC, 7, insertMultiples,
                           &env);
  sluice_algo_frontier_seal(f);
  ASSERT_EQ(sluice_algo_frontier_size(f), 200u);
  const uint32_t *list = sluice_algo_frontier_list(f);
  const uint64_t *bits = sluice_algo_frontier_bitmap(f);
  for (uint32_t i = 0; i < 200; ++i)
    EXPECT_EQ(list[i], 3 * i);
  for (uint32_t v = 0; v < 1000; ++v)
    EXPECT_EQ((bits[v / 64] >> (v % 64)) & 1, (v % 3 == 0 && v < 600) ? 1u : 0u)
        << v;
  // 200 of 1000 vertices: more than a 20th, so dense.
  EXPECT_EQ(sluice_algo_frontier_prefers_dense(f), 1);
  sluice_frontier_t *one = sluice_algo_frontier_new(c.ctx);
  EXPECT_EQ(sluice_algo_frontier_insert(one, 5), 1);
  EXPECT_EQ(sluice_algo_frontier_insert(one, 5), 0);
  sluice_algo_frontier_seal(one);
  EXPECT_EQ(sluice_algo_frontier_prefers_dense(one), 0);
  // A sparse frontier drops its bitmap at seal and rebuilds it on demand.
  EXPECT_EQ(sluice_algo_frontier_bitmap(one)[0], uint64_t(1) << 5);
  sluice_frontier_t *all = sluice_algo_frontier_all(c.ctx);
  EXPECT_EQ(sluice_algo_frontier_size(all), 1000u);
  EXPECT_EQ(sluice_algo_frontier_list(all)[999], 999u);
}

struct AtomicEnv {
  double sum = 0, min = 1e300;
  int64_t imin = INT64_MAX;
};

void contend(sluice_algo_ctx_t *, void *env, uint64_t begin, uint64_t end) {
  auto *e = static_cast<AtomicEnv *>(env);
  for (uint64_t i = begin; i < end; ++i) {
    sluice_algo_atomic_add_f64(&e->sum, 0.5);
    sluice_algo_atomic_min_f64(&e->min, 1000.0 - static_cast<double>(i));
    sluice_algo_atomic_min_i64(&e->imin, 5000 - static_cast<int64_t>(i));
  }
}

TEST(AlgoRuntime, AtomicReductionsUnderContention) {
  GraphHolder g;
  randomGraph(10, 20, 1, false, g);
  CtxHolder c;
  makeCtx(g.g, 4, c);
  AtomicEnv env;
  sluice_algo_parallel_for(c.ctx, 100000, SLUICE_ALGO_DYNAMIC, 1, contend,
                           &env);
  EXPECT_EQ(env.sum, 50000.0); // halves add exactly
  EXPECT_EQ(env.min, 1000.0 - 99999.0);
  EXPECT_EQ(env.imin, 5000 - 99999);
}

TEST(AlgoRuntime, FaultsKeepTheFirstSiteAndStopTheLoops) {
  GraphHolder g;
  randomGraph(10, 20, 1, false, g);
  CtxHolder c;
  makeCtx(g.g, 2, c);
  EXPECT_EQ(sluice_algo_vertex_of(c.ctx, 3, 0), 3u);
  EXPECT_EQ(sluice_algo_fault_site(c.ctx, nullptr), -1);
  EXPECT_EQ(sluice_algo_idiv(c.ctx, -7, 2, 1), -3);
  EXPECT_EQ(sluice_algo_irem(c.ctx, -7, 2, 1), -1);
  EXPECT_EQ(sluice_algo_vertex_of(c.ctx, 10, 4), 0u);
  EXPECT_EQ(sluice_algo_idiv(c.ctx, 1, 0, 5), 0);
  const char *message = nullptr;
  EXPECT_EQ(sluice_algo_fault_site(c.ctx, &message), 4);
  EXPECT_STREQ(message, "vertex 10 is not in the graph (10 vertices, ids 0 "
                        "to 9)");
  std::vector<std::atomic<int>> visits(5);
  sluice_algo_parallel_for(c.ctx, 5, SLUICE_ALGO_STATIC, 0, countVisits,
                           &visits);
  EXPECT_EQ(visits[0].load(), 0);
}

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AlgoRuntime, WritesTextWithOriginalIdsAndNpy) {
  // Ids 10, 20, 30 compacted to vertices 0, 1, 2.
  uint32_t src[] = {10, 20}, dst[] = {20, 30};
  GraphHolder g;
  sluice_error_t error;
  ASSERT_EQ(sluice_graph_create_from_edges(31, 2, src, dst, nullptr, nullptr,
                                           nullptr, SLUICE_GRAPH_LOAD_COMPACT_IDS,
                                           &g.g, &error),
            SLUICE_STATUS_OK);
  double rank[] = {0.1, 0.25, 1e300};
  int64_t depth[] = {0, -1, 2};
  sluice_algo_column_t columns[] = {{"rank", SLUICE_ALGO_F64, rank},
                                    {"depth", SLUICE_ALGO_I64, depth}};
  // A directory of its own: other test processes (another build's) may
  // write at the same time.
  std::string pattern = ::testing::TempDir() + "/algo-out-XXXXXX";
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  std::string dir = pattern;
  std::string text = dir + "/algo-out.txt", npy = dir + "/algo-out.npy";
  struct Cleanup {
    std::string text, npy, dir;
    ~Cleanup() {
      std::remove(text.c_str());
      std::remove(npy.c_str());
      rmdir(dir.c_str());
    }
  } cleanup{text, npy, dir};
  ASSERT_EQ(sluice_algo_write_text(text.c_str(), g.g, columns, 2, &error),
            SLUICE_STATUS_OK);
  EXPECT_EQ(slurp(text), "10 0.10000000000000001 0\n"
                         "20 0.25 -1\n30 1.0000000000000001e+300 2\n");
  ASSERT_EQ(sluice_algo_write_npy(npy.c_str(), g.g, &columns[1], &error),
            SLUICE_STATUS_OK);
  std::string bytes = slurp(npy);
  // The header (magic, version, its length, the dict) is a multiple of 64.
  ASSERT_GT(bytes.size(), 10u);
  size_t header = 10 + static_cast<uint8_t>(bytes[8]) +
                  256 * static_cast<uint8_t>(bytes[9]);
  EXPECT_EQ(header % 64, 0u);
  ASSERT_EQ(bytes.size(), header + 3 * 8);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_NE(bytes.find("'descr': '<i8', 'fortran_order': False, 'shape': (3,)"),
            std::string::npos);
  int64_t values[3];
  std::memcpy(values, bytes.data() + header, sizeof(values));
  EXPECT_EQ(values[1], -1);
  EXPECT_EQ(values[2], 2);
}

/// Reductions into locals combine the value before the loop with the
/// partials in order (f64: that order's rounding), and keep the value
/// before once the context faulted.
TEST(AlgoRuntime, ReductionsCombinePartialsInOrder) {
  GraphHolder g;
  randomGraph(10, 20, 3, false, g);
  CtxHolder c;
  makeCtx(g.g, 2, c);
  auto *partials = static_cast<double *>(sluice_algo_partials(c.ctx, 3));
  partials[0] = 1e16;
  partials[1] = 1.0;
  partials[2] = -1e16;
  EXPECT_EQ(sluice_algo_reduce_f64(c.ctx, partials, 3, SLUICE_ALGO_REDUCE_ADD,
                                   1.0),
            ((1.0 + 1e16) + 1.0) + -1e16);
  EXPECT_EQ(sluice_algo_reduce_f64(c.ctx, partials, 3, SLUICE_ALGO_REDUCE_MIN,
                                   0.0),
            -1e16);
  int64_t ints[] = {5, -7, 3};
  EXPECT_EQ(sluice_algo_reduce_i64(c.ctx, ints, 3, SLUICE_ALGO_REDUCE_ADD, 10),
            11);
  EXPECT_EQ(sluice_algo_reduce_i64(c.ctx, ints, 3, SLUICE_ALGO_REDUCE_MAX, 0),
            5);
  sluice_algo_fault(c.ctx, 0, "test");
  EXPECT_EQ(sluice_algo_reduce_i64(c.ctx, ints, 3, SLUICE_ALGO_REDUCE_ADD, 10),
            10);
}

/// common_neighbors against multiset intersections, and the lowest bucket
/// of a frontier.
TEST(AlgoRuntime, CommonNeighborsAndBuckets) {
  GraphHolder g;
  randomGraph(60, 600, 4, false, g);
  CtxHolder c;
  makeCtx(g.g, 2, c);
  const sluice_algo_view_t *view = sluice_algo_view(c.ctx);
  auto neighbours = [&](uint32_t u) {
    return std::vector<uint32_t>(view->out_targets + view->out_offsets[u],
                                 view->out_targets + view->out_offsets[u + 1]);
  };
  // Every pair: the random graph repeats edges, so lists repeat elements,
  // some at a list's end (a pair there must not walk past it).
  for (uint32_t u = 0; u < 60; ++u)
    for (uint32_t v = 0; v < 60; ++v) {
      std::vector<uint32_t> a = neighbours(u), b = neighbours(v), both;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                            std::back_inserter(both));
      EXPECT_EQ(sluice_algo_common_neighbors(c.ctx, u, v),
                int64_t(both.size()));
      EXPECT_EQ(sluice_algo_common_neighbors_below(c.ctx, u, v),
                std::count_if(both.begin(), both.end(), [&](uint32_t w) {
                  return w < std::min(u, v);
                }));
    }
  // Repeated edges (kept without SLUICE_GRAPH_LOAD_DEDUPLICATE): 0 -> 1 2
  // 2 3, 5 -> 2 3 and 6 -> 2 2 3 3 3 pair at most once per copy, also when
  // the pair is at a list's end.
  {
    std::vector<uint32_t> src{0, 0, 0, 0, 5, 5, 6, 6, 6, 6, 6};
    std::vector<uint32_t> dst{1, 2, 2, 3, 2, 3, 2, 2, 3, 3, 3};
    GraphHolder multi;
    sluice_error_t error;
    ASSERT_EQ(sluice_graph_create_from_edges(7, src.size(), src.data(),
                                             dst.data(), nullptr, nullptr,
                                             nullptr, 0, &multi.g, &error),
              SLUICE_STATUS_OK)
        << error.message;
    CtxHolder m;
    makeCtx(multi.g, 1, m);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 0, 5), 2);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 5, 0), 2);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 0, 6), 3);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 6, 6), 5);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 5, 6), 2);
    EXPECT_EQ(sluice_algo_common_neighbors_below(m.ctx, 6, 5), 2);
    EXPECT_EQ(sluice_algo_common_neighbors(m.ctx, 1, 6), 0);
  }
  // Priorities 0.5, 2.5, 1.0, 7.0 at vertices 1, 4, 6, 9; buckets of 2:
  // 0, 1, 0, 3. The lowest (0) holds 1 and 6; 4 and 9 pass on.
  std::vector<double> priority(60, 100.0);
  priority[1] = 0.5, priority[4] = 2.5, priority[6] = 1.0, priority[9] = 7.0;
  sluice_frontier_t *f = sluice_algo_frontier_new(c.ctx);
  for (uint32_t v : {9u, 4u, 6u, 1u})
    sluice_algo_frontier_insert(f, v);
  sluice_algo_frontier_seal(f);
  sluice_frontier_t *rest = sluice_algo_frontier_new(c.ctx);
  sluice_frontier_t *low = sluice_algo_frontier_bucket(
      f, priority.data(), SLUICE_ALGO_F64, 2.0, rest, 0);
  sluice_algo_frontier_seal(rest);
  ASSERT_EQ(sluice_algo_frontier_size(low), 2u);
  EXPECT_EQ(sluice_algo_frontier_list(low)[0], 1u);
  EXPECT_EQ(sluice_algo_frontier_list(low)[1], 6u);
  ASSERT_EQ(sluice_algo_frontier_size(rest), 2u);
  EXPECT_EQ(sluice_algo_frontier_list(rest)[0], 4u);
  EXPECT_EQ(sluice_algo_frontier_list(rest)[1], 9u);
}

} // namespace
