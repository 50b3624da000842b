//===- AlgoInternal.h - The algorithm context and its frontiers -*- C++ -*-===//
//
// The structs behind the opaque handles of sluice/algo.h: a context holds
// the graph's view (the graph's CSR plus the CSC built from it), a pool of
// threads that run the shares of a parallel for, the first fault, and the
// frontiers it handed out (released with it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALGO_ALGOINTERNAL_H
#define SLUICE_RUNTIME_SRC_ALGO_ALGOINTERNAL_H

#include "sluice/algo.h"

#include "runtime/src/Progress.h"
#include "runtime/src/algo/BucketQueue.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::rt {

/// Persistent worker threads; run() calls `work(t)` for t in [0, threads)
/// with t = 0 on the caller, and returns when every call returned.
class AlgoThreadPool {
public:
  explicit AlgoThreadPool(uint32_t threads);
  ~AlgoThreadPool();
  AlgoThreadPool(const AlgoThreadPool &) = delete;
  AlgoThreadPool &operator=(const AlgoThreadPool &) = delete;

  uint32_t size() const { return numThreads; }
  template <typename Fn> void run(Fn &&fn) {
    runErased([](void *f, uint32_t t) { (*static_cast<Fn *>(f))(t); }, &fn);
  }

private:
  void runErased(void (*call)(void *, uint32_t), void *fn);
  void workerLoop(uint32_t t);

  uint32_t numThreads;
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  uint64_t generation = 0;
  uint32_t pending = 0;
  bool stopping = false;
  void (*call)(void *, uint32_t) = nullptr;
  void *callee = nullptr;
};

/// Frontier inserts go through a per-thread buffer (Frontier.cpp): one
/// atomic add on the frontier's counter per buffer instead of one per
/// vertex. Every parallel pass flushes its threads' buffers when it ends,
/// and every read of a frontier (size, list, bitmap, seal) and the context's
/// release flush the calling thread's.
void flushFrontierInserts();

/// A new sealed frontier of `vertices` (sorted, distinct), owned by `ctx`.
sluice_frontier_t *sealedFrontier(sluice_algo_ctx_t *ctx,
                                  const std::vector<uint32_t> &vertices);

/// A GPU attached to a context (sluice/algo_gpu.h, AlgoGpu.cpp).
struct AlgoGpu;
struct AlgoGpuDeleter {
  void operator()(AlgoGpu *gpu) const;
};
/// One pass of `fn` as its bound kernel (a fault when there is none).
void algoGpuParallelFor(sluice_algo_ctx_t *ctx, uint64_t n,
                        sluice_algo_range_fn_t fn, void *env);
/// The tiled in-edges built for a context and its tiled loops' choices
/// (TileChoice.cpp).
struct TileState;
/// The degree order of a context's ordered loops (VertexOrder.cpp).
struct VertexOrderState;
struct VertexOrderDeleter {
  void operator()(VertexOrderState *state) const;
};

} // namespace sluice::rt

struct sluice_frontier_t {
  sluice_algo_ctx_t *ctx = nullptr;
  bool all = false;
  bool sealed = false;
  uint64_t numVertices = 0;
  /// Membership, one bit per vertex (atomic while inserting).
  std::unique_ptr<std::atomic<uint64_t>[]> bits;
  /// The vertices: `count` of them in `list` (capacity num_vertices).
  std::unique_ptr<uint32_t[]> list;
  std::atomic<uint64_t> count{0};
  /// A `frontier: buckets` loop's result (BucketQueue.cpp): the vertices
  /// waiting in buckets. Its seal files the inserted vertices there and
  /// `count` is then the queue's size; `list` and `bits` are made from the
  /// queue when read.
  std::unique_ptr<sluice::rt::BucketQueue> queue;
};

struct sluice_algo_ctx_t {
  const sluice_graph_t *graph = nullptr;
  sluice_algo_view_t view{};
  std::vector<uint64_t> inOffsets;
  std::vector<uint32_t> inSources;
  std::vector<float> inWeights;
  std::unique_ptr<sluice::rt::AlgoThreadPool> pool;
  std::vector<std::unique_ptr<sluice_frontier_t>> frontiers;
  std::atomic<bool> faulted{false};
  std::mutex faultMutex;
  int32_t faultSite = -1;
  std::string faultMessage;
  uint64_t passes = 0;
  std::unique_ptr<sluice::rt::Progress> progress;
  /// sluice_algo_partials' room.
  std::vector<uint64_t> partials;
  /// Frontier buffers of num_vertices capacity that sealed frontiers gave
  /// back (Frontier.cpp): a round's new frontier reuses them instead of
  /// mapping and faulting in fresh pages.
  std::vector<std::unique_ptr<uint32_t[]>> spareLists;
  std::vector<std::unique_ptr<std::atomic<uint64_t>[]>> spareBits;
  /// With a GPU attached, bound passes run there (released first).
  std::unique_ptr<sluice::rt::AlgoGpu, sluice::rt::AlgoGpuDeleter> gpu;
  /// sluice/algo_tile.h's layouts and choices, made on first use.
  std::shared_ptr<sluice::rt::TileState> tiles;
  /// sluice_algo_order_begin's order and notes, made on first use.
  std::unique_ptr<sluice::rt::VertexOrderState, sluice::rt::VertexOrderDeleter>
      order;
  /// Between sluice_algo_order_begin and _end of a loop run in degree
  /// order: each vertex's position in it, the vertices in it, and the
  /// graph relabelled by it (per position, its out-neighbours' positions,
  /// sorted: common_neighbors_below reads them); else null.
  const uint32_t *orderRank = nullptr;
  const uint32_t *orderVertices = nullptr;
  const uint64_t *orderOffsets = nullptr;
  const uint32_t *orderTargets = nullptr;
};

#endif // SLUICE_RUNTIME_SRC_ALGO_ALGOINTERNAL_H
