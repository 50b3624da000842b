//===- AlgoContext.cpp - Algorithm contexts, parallel for, faults ---------===//
//
// sluice_algo_ctx_create builds the in-edges (CSC) of the graph with a
// parallel counting sort, so every destination's sources come out sorted;
// sluice_algo_parallel_for hands [0, n) to the pool (static shares or
// dynamic chunks, taken from a contiguous part per share first; a small
// pass stays on the caller); faults latch the first
// site and stop further passes.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/Error.h"
#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

using namespace sluice::rt;

AlgoThreadPool::AlgoThreadPool(uint32_t threads) : numThreads(threads) {
  for (uint32_t t = 1; t < threads; ++t)
    workers.emplace_back([this] { workerLoop(); });
}

AlgoThreadPool::~AlgoThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &w : workers)
    w.join();
}

void AlgoThreadPool::claimShares(void (*fn)(void *, uint32_t), void *arg) {
  for (uint32_t s = nextShare.fetch_add(1, std::memory_order_relaxed);
       s < numThreads; s = nextShare.fetch_add(1, std::memory_order_relaxed))
    fn(arg, s);
}

template <typename Pred> bool AlgoThreadPool::spinWhile(Pred waiting) {
  auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0; waiting(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
    if (i % 256 == 255 && std::chrono::steady_clock::now() - start > kSpin)
      return waiting();
  }
  return false;
}

void AlgoThreadPool::runErased(void (*fn)(void *, uint32_t), void *arg) {
  if (numThreads == 1) {
    fn(arg, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    call = fn;
    callee = arg;
    nextShare.store(0, std::memory_order_relaxed);
    open = true;
    ++generation;
    published.store(generation, std::memory_order_release);
  }
  wake.notify_all();
  claimShares(fn, arg);
  // Every share is claimed: close the pass to late workers, then wait for
  // those that joined it, spinning first.
  {
    std::lock_guard<std::mutex> lock(mutex);
    open = false;
  }
  if (!spinWhile(
          [this] { return active.load(std::memory_order_acquire) != 0; }))
    return;
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock,
            [this] { return active.load(std::memory_order_acquire) == 0; });
}

void AlgoThreadPool::workerLoop() {
  uint64_t seen = 0;
  for (;;) {
    // A short spin first: the next pass of a round loop usually comes
    // sooner than a sleeping thread would wake.
    spinWhile([&] {
      return published.load(std::memory_order_acquire) == seen &&
             !stopping.load(std::memory_order_relaxed);
    });
    void (*fn)(void *, uint32_t);
    void *arg;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      if (!open)
        continue; // every share went while this thread slept
      active.fetch_add(1, std::memory_order_relaxed);
      fn = call;
      arg = callee;
    }
    claimShares(fn, arg);
    // The last to leave wakes a caller that went to sleep (under the
    // mutex: the caller tests `active` under it before sleeping).
    if (active.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_one();
    }
  }
}

void sluice_algo_options_init(sluice_algo_options_t *options) {
  options->threads = 0;
  options->quiet = 0;
}

sluice_status_t sluice_algo_ctx_create(const sluice_graph_t *graph,
                                       const sluice_algo_options_t *options,
                                       sluice_algo_ctx_t **out_ctx,
                                       sluice_error_t *error) {
  if (!graph || !out_ctx)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_algo_ctx_create needs a graph and an output handle");
  sluice_algo_options_t defaults;
  sluice_algo_options_init(&defaults);
  if (!options)
    options = &defaults;
  auto ctx = std::make_unique<sluice_algo_ctx_t>();
  uint32_t threads = options->threads
                         ? options->threads
                         : std::max(1u, std::thread::hardware_concurrency());
  ctx->graph = graph;
  ctx->pool = std::make_unique<AlgoThreadPool>(threads);
  ctx->progress = std::make_unique<Progress>(!options->quiet, nullptr, nullptr,
                                             1000, 1000, "algorithm");
  ctx->progressOn = !options->quiet;

  const uint64_t n = sluice_graph_num_vertices(graph);
  const uint64_t m = sluice_graph_num_edges(graph);
  const uint64_t *offsets = sluice_graph_offsets(graph);
  const uint32_t *targets = sluice_graph_targets(graph);
  const float *weights = sluice_graph_weights(graph);
  // The transpose by a counting sort over the sources in order, so each
  // destination's sources are sorted: in-degrees, their prefix sums, then
  // one scatter. The scatter is serial; the counting is per thread.
  ctx->inOffsets.assign(n + 1, 0);
  for (uint64_t e = 0; e < m; ++e)
    ++ctx->inOffsets[targets[e] + 1];
  for (uint64_t v = 0; v < n; ++v)
    ctx->inOffsets[v + 1] += ctx->inOffsets[v];
  ctx->inSources.resize(m);
  if (weights)
    ctx->inWeights.resize(m);
  std::vector<uint64_t> next(ctx->inOffsets.begin(), ctx->inOffsets.end() - 1);
  for (uint64_t u = 0; u < n; ++u)
    for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      uint64_t slot = next[targets[e]]++;
      ctx->inSources[slot] = static_cast<uint32_t>(u);
      if (weights)
        ctx->inWeights[slot] = weights[e];
    }
  ctx->arena.reserve(n);
  static std::atomic<uint64_t> serials{0};
  ctx->serial = serials.fetch_add(1, std::memory_order_relaxed) + 1;
  ctx->view.num_vertices = n;
  ctx->view.num_edges = m;
  ctx->view.out_offsets = offsets;
  ctx->view.out_targets = targets;
  ctx->view.out_weights = weights;
  ctx->view.in_offsets = ctx->inOffsets.data();
  ctx->view.in_sources = ctx->inSources.data();
  ctx->view.in_weights = weights ? ctx->inWeights.data() : nullptr;
  ctx->ids.ids = sluice_graph_original_ids(graph);
  ctx->ids.base = sluice_graph_id_base(graph);
  *out_ctx = ctx.release();
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

void sluice_algo_ctx_release(sluice_algo_ctx_t *ctx) {
  flushFrontierInserts(); // before the frontiers it may point to go
  delete ctx;
}

const sluice_algo_view_t *sluice_algo_view(sluice_algo_ctx_t *ctx) {
  return &ctx->view;
}

const sluice_algo_ids_t *sluice_algo_id_table(sluice_algo_ctx_t *ctx) {
  return &ctx->ids;
}

const sluice_graph_t *sluice_algo_graph(sluice_algo_ctx_t *ctx) {
  return ctx->graph;
}

uint32_t sluice_algo_threads(const sluice_algo_ctx_t *ctx) {
  return ctx->pool->size();
}

uint64_t sluice_algo_passes(const sluice_algo_ctx_t *ctx) {
  return ctx->passes;
}

namespace {

/// Reports the passes run so far. A report reads the clock (50 to 100 ns
/// on the VM of bench/RESULTS.md: a few percent of a road network's SSSP,
/// whose 6,886 passes take microseconds each), so it comes every `stride`
/// passes: one a pass while passes take a millisecond or more, doubling up
/// to 64 while they take less (a progress line is then at most 64 short
/// passes, well under a second, late).
void reportPass(sluice_algo_ctx_t *ctx) {
  if (!ctx->progressOn || --ctx->progressLeft > 0)
    return;
  auto now = std::chrono::steady_clock::now();
  ctx->progressStride = now - ctx->progressAt < std::chrono::milliseconds(1)
                            ? std::min<uint32_t>(ctx->progressStride * 2, 64)
                            : 1;
  ctx->progressLeft = ctx->progressStride;
  ctx->progressAt = now;
  ctx->progress->update("running", ctx->passes, 0, "parallel passes");
}

} // namespace

void sluice_algo_parallel_for(sluice_algo_ctx_t *ctx, uint64_t n,
                              int32_t schedule, uint64_t chunk,
                              sluice_algo_range_fn_t fn, void *env) {
  parallelFor(ctx, n, schedule, chunk, fn, env, nullptr, nullptr);
}

void sluice::rt::parallelFor(sluice_algo_ctx_t *ctx, uint64_t n,
                             int32_t schedule, uint64_t chunk,
                             sluice_algo_range_fn_t fn, void *env,
                             void (*shareEnd)(void *), void *arg) {
  auto endShare = [&] {
    if (shareEnd)
      shareEnd(arg);
    flushFrontierInserts();
  };
  if (ctx->faulted.load(std::memory_order_relaxed) || n == 0)
    return;
  ++ctx->passes;
  reportPass(ctx);
  if (ctx->gpu) {
    algoGpuParallelFor(ctx, n, fn, env);
    return;
  }
  const uint32_t threads = ctx->pool->size();
  const bool blocks = schedule & SLUICE_ALGO_BLOCKS;
  schedule &= ~int32_t(SLUICE_ALGO_BLOCKS);
  // Each thread flushes its frontier inserts when its share is done
  // (before the pool reports the pass finished).
  if (schedule == SLUICE_ALGO_SERIAL || threads == 1 ||
      (!blocks && n < SLUICE_ALGO_SERIAL_BELOW)) {
    fn(ctx, env, 0, n);
    endShare();
    return;
  }
  if (schedule == SLUICE_ALGO_DYNAMIC) {
    // The chunks fall into one contiguous part per share, each with its
    // cursor on a cache line of its own: a share takes its own part's
    // chunks in order, then the chunks left in the others' parts. Claims
    // stay the size the schedule asks for, but until the parts run out
    // no two threads claim on the same line (with one shared counter a
    // claim can move its line between cores: 4096 claims a pass over 2^18
    // vertices in chunks of 64), and each thread reads the edges of
    // consecutive vertices.
    const uint64_t step = chunk ? chunk : 1;
    const uint64_t chunks = (n + step - 1) / step;
    struct alignas(64) Part {
      std::atomic<uint64_t> next;
      uint64_t end;
    };
    std::unique_ptr<Part[]> parts(new Part[threads]);
    for (uint32_t t = 0; t < threads; ++t) {
      parts[t].next.store(chunks * t / threads, std::memory_order_relaxed);
      parts[t].end = chunks * (t + 1) / threads;
    }
    ctx->pool->run([&](uint32_t share) {
      for (uint32_t k = 0; k < threads; ++k) {
        Part &part = parts[(share + k) % threads];
        for (uint64_t c = part.next.fetch_add(1, std::memory_order_relaxed);
             c < part.end;
             c = part.next.fetch_add(1, std::memory_order_relaxed))
          fn(ctx, env, c * step, std::min(n, (c + 1) * step));
      }
      endShare();
    });
    return;
  }
  ctx->pool->run([&](uint32_t t) {
    uint64_t begin = n / threads * t + std::min<uint64_t>(t, n % threads);
    uint64_t end = begin + n / threads + (t < n % threads ? 1 : 0);
    if (begin < end)
      fn(ctx, env, begin, end);
    endShare();
  });
}

void sluice_algo_fault(sluice_algo_ctx_t *ctx, int32_t site,
                       const char *message) {
  std::lock_guard<std::mutex> lock(ctx->faultMutex);
  if (ctx->faultSite >= 0)
    return;
  ctx->faultSite = site;
  ctx->faultMessage = message ? message : "";
  ctx->faulted.store(true);
}

int32_t sluice_algo_fault_site(const sluice_algo_ctx_t *ctx,
                               const char **message) {
  if (message)
    *message = ctx->faultMessage.c_str();
  return ctx->faultSite;
}

uint32_t sluice_algo_vertex_of(sluice_algo_ctx_t *ctx, int64_t id,
                               int32_t site) {
  uint32_t v = id < 0 ? SLUICE_VERTEX_NONE
                      : sluice_graph_vertex_of(ctx->graph, uint64_t(id));
  if (v != SLUICE_VERTEX_NONE)
    return v;
  std::string message = "vertex " + std::to_string(id) +
                        " is not in the graph (" +
                        std::to_string(ctx->view.num_vertices) + " vertices";
  if (ctx->view.num_vertices) {
    uint64_t first = sluice_graph_original_id(ctx->graph, 0);
    uint64_t last = sluice_graph_original_id(
        ctx->graph, static_cast<uint32_t>(ctx->view.num_vertices - 1));
    message += ", ids " + std::to_string(first) + " to " + std::to_string(last);
  }
  message += ")";
  sluice_algo_fault(ctx, site, message.c_str());
  return 0;
}

static bool badDivision(sluice_algo_ctx_t *ctx, int64_t a, int64_t b,
                        int32_t site) {
  if (b == 0) {
    sluice_algo_fault(ctx, site, "integer division by zero");
    return true;
  }
  return a == std::numeric_limits<int64_t>::min() && b == -1;
}

int64_t sluice_algo_idiv(sluice_algo_ctx_t *ctx, int64_t a, int64_t b,
                         int32_t site) {
  if (badDivision(ctx, a, b, site)) {
    if (b == -1)
      sluice_algo_fault(ctx, site, "integer division overflows (-2^63 / -1)");
    return 0;
  }
  return a / b;
}

int64_t sluice_algo_irem(sluice_algo_ctx_t *ctx, int64_t a, int64_t b,
                         int32_t site) {
  if (badDivision(ctx, a, b, site))
    return 0; // -2^63 % -1 is 0
  return a % b;
}

int32_t sluice_algo_has_edge(sluice_algo_ctx_t *ctx, uint32_t u,
                             uint32_t v) {
  return sluice_graph_find_edge(ctx->graph, u, v) != SLUICE_EDGE_NONE ? 1 : 0;
}

double sluice_algo_edge_weight(sluice_algo_ctx_t *ctx, uint32_t u,
                               uint32_t v) {
  uint64_t e = sluice_graph_find_edge(ctx->graph, u, v);
  if (e == SLUICE_EDGE_NONE)
    return 0.0;
  return ctx->view.out_weights ? double(ctx->view.out_weights[e]) : 1.0;
}

int64_t sluice_algo_edge_label(sluice_algo_ctx_t *ctx, uint32_t u,
                               uint32_t v) {
  uint64_t e = sluice_graph_find_edge(ctx->graph, u, v);
  const int32_t *labels = sluice_graph_edge_labels(ctx->graph);
  return e == SLUICE_EDGE_NONE || !labels ? -1 : labels[e];
}

int64_t sluice_algo_vertex_label(sluice_algo_ctx_t *ctx, uint32_t v) {
  return sluice_graph_vertex_label(ctx->graph, v);
}

int64_t sluice_algo_original_id(sluice_algo_ctx_t *ctx, uint32_t v) {
  return static_cast<int64_t>(sluice_graph_original_id(ctx->graph, v));
}

double sluice_algo_atomic_add_f64(double *p, double value) {
  auto *a = reinterpret_cast<std::atomic<double> *>(p);
  double old = a->load(std::memory_order_relaxed);
  while (!a->compare_exchange_weak(old, old + value, std::memory_order_relaxed))
    ;
  return old;
}

double sluice_algo_atomic_min_f64(double *p, double value) {
  auto *a = reinterpret_cast<std::atomic<double> *>(p);
  double old = a->load(std::memory_order_relaxed);
  while (value < old &&
         !a->compare_exchange_weak(old, value, std::memory_order_relaxed))
    ;
  return old;
}

int64_t sluice_algo_atomic_min_i64(int64_t *p, int64_t value) {
  auto *a = reinterpret_cast<std::atomic<int64_t> *>(p);
  int64_t old = a->load(std::memory_order_relaxed);
  while (value < old &&
         !a->compare_exchange_weak(old, value, std::memory_order_relaxed))
    ;
  return old;
}
