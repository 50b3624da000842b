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
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::rt {

/// A size for the run's notes: "1.5 MiB", "640.0 KiB", "96 B".
inline std::string bytesText(double b) {
  char text[32];
  if (b >= 1024.0 * 1024.0)
    std::snprintf(text, sizeof(text), "%.1f MiB", b / (1024.0 * 1024.0));
  else if (b >= 1024.0)
    std::snprintf(text, sizeof(text), "%.1f KiB", b / 1024.0);
  else
    std::snprintf(text, sizeof(text), "%.0f B", b);
  return text;
}

/// Persistent worker threads. run() calls `work(s)` once for each share s
/// in [0, threads), on whichever threads claim it first: the caller claims
/// shares too, and a worker that wakes after every share was claimed does
/// nothing, so a pass never waits on a thread that has not started (on a
/// loaded machine the caller may run every share itself). Workers spin a
/// few microseconds for the next pass before sleeping: a frontier loop's
/// passes come back to back. Likewise the caller, done with its shares,
/// spins that long for the workers that joined before it sleeps: a share
/// ends about when the caller's does, and a sleeping caller would wait
/// for the scheduler to run it again.
class AlgoThreadPool {
public:
  explicit AlgoThreadPool(uint32_t threads);
  ~AlgoThreadPool();
  AlgoThreadPool(const AlgoThreadPool &) = delete;
  AlgoThreadPool &operator=(const AlgoThreadPool &) = delete;

  uint32_t size() const { return numThreads; }
  template <typename Fn> void run(Fn &&fn) {
    runErased([](void *f, uint32_t s) { (*static_cast<Fn *>(f))(s); }, &fn);
  }

private:
  void runErased(void (*call)(void *, uint32_t), void *fn);
  void workerLoop();
  /// Runs shares of the current pass until none is left.
  void claimShares(void (*fn)(void *, uint32_t), void *arg);
  /// Spins up to kSpin while `waiting()` holds; whether it still does.
  template <typename Pred> static bool spinWhile(Pred waiting);

  /// How long a thread spins before it sleeps (about 50 microseconds: the
  /// next pass of a round loop, or a share's end, usually comes sooner
  /// than a sleeping thread would wake).
  static constexpr std::chrono::microseconds kSpin{50};

  uint32_t numThreads;
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake, done;
  /// The pass's number, also readable without the mutex (spinning workers).
  uint64_t generation = 0;
  std::atomic<uint64_t> published{0};
  /// Whether workers may still join the pass (under the mutex), and how
  /// many did and have not finished (joined under the mutex, left
  /// without it).
  bool open = false;
  std::atomic<uint32_t> active{0};
  std::atomic<uint32_t> nextShare{0};
  std::atomic<bool> stopping{false};
  void (*call)(void *, uint32_t) = nullptr;
  void *callee = nullptr;
};

/// Frontier inserts go through a per-thread buffer (Frontier.cpp): one
/// atomic add on the frontier's counter per buffer instead of one per
/// vertex. Every parallel pass flushes its threads' buffers when it ends,
/// and every read of a frontier (size, list, bitmap, seal) and the context's
/// release flush the calling thread's.
void flushFrontierInserts();

/// Gives `f` (not sealed) a list of room for every vertex: a frontier that
/// files its inserts into a bucket queue when sealed needs them all.
void growFrontierList(sluice_frontier_t *f);

/// A new sealed frontier of `vertices[0, count)` (sorted, distinct), owned
/// by `ctx`.
sluice_frontier_t *sealedFrontier(sluice_algo_ctx_t *ctx,
                                  const uint32_t *vertices, uint64_t count);

/// A pass of sluice_algo_parallel_for whose shares each call
/// `shareEnd(arg)` when their items are done, before their inserts are
/// flushed (null: none).
void parallelFor(sluice_algo_ctx_t *ctx, uint64_t n, int32_t schedule,
                 uint64_t chunk, sluice_algo_range_fn_t fn, void *env,
                 void (*shareEnd)(void *), void *arg);

/// GAPBS's bucket fusion of one round (BucketFusion.cpp), on the round's
/// result frontier: the bucket the round runs and the vertices of it that
/// threads' bins passed on (their bins grew past SLUICE_ALGO_FUSE_BELOW).
struct BucketFusion {
  const void *priority;
  int32_t type;
  double delta;
  double key;
  /// A bound no priority of bucket `key` passes: (key + 1) * delta
  /// widened by far more than the rounding of p / delta, so that most
  /// inserts (into later buckets) are told apart by one compare.
  double above;
  /// While the round's pass runs: inserts at `key` go to the thread's bin.
  bool active = false;
  std::mutex spillMutex;
  /// (On the context's arena.)
  std::pmr::vector<uint32_t> spilled;
};
/// The priority of `v` in a fused round, as a double (a relaxed atomic
/// load: other threads lower it meanwhile).
inline double fusedPriority(const BucketFusion &fusion, uint32_t v) {
  return loadPriority(fusion.priority, fusion.type, v);
}
/// A thread's bins of the buckets a round files into
/// (sluice_algo_bucket_insert, BucketBins.cpp; GAPBS's local bins): the
/// result frontier they are for, per bucket base + d (d < kNear) its
/// vertices, the vertices of other buckets with their keys, and how many
/// vertices started (or stopped) waiting. The result's seal hands them to
/// its bucket queue whole.
struct BucketBins {
  static constexpr unsigned kNear = 64;
  /// Graphs past this many vertices keep the bitmap and list: a claim's
  /// random access to the queue's slots (4 bytes a vertex) then misses
  /// the cache where the bitmap (a bit a vertex) and the seal's filing in
  /// vertex order did not (kron20 +5%, urand20 +37% CPU time at 1 thread,
  /// bench/RESULTS.md; kron18's 262,144 vertices gained 5%).
  static constexpr uint64_t kBinnedVertices = uint64_t(1) << 19;
  explicit BucketBins(std::pmr::memory_resource *memory) : others(memory) {
    near.reserve(kNear);
    for (unsigned d = 0; d < kNear; ++d)
      near.emplace_back(memory);
  }
  sluice_frontier_t *frontier = nullptr;
  /// The round's key (near[d] holds bucket base + d); far below every key
  /// when the round's key is not an exact integer.
  int64_t base = 0;
  /// The round is fused: its key's vertices go to the fused bin.
  bool fused = false;
  int64_t fusedKey = 0;
  /// Other threads may file at once (the context has several).
  bool shared = true;
  /// Bit d: near[d] holds vertices.
  uint64_t used = 0;
  int64_t waiting = 0;
  std::vector<std::pmr::vector<uint32_t>> near;
  std::pmr::vector<std::pair<double, uint32_t>> others;
};
/// A thread's bins of fused rounds (BucketFusion.cpp): the vertices of the
/// fused round's bucket it lowered and has not run yet, each with its
/// priority read after the lowering; the ones it runs now and the
/// environment it runs them with. Its buffers are the context's (its
/// arena): they grow once in a run, not once a round. Also the thread's
/// bins of the buckets a round files into.
struct FuseBin {
  explicit FuseBin(std::pmr::memory_resource *memory)
      : items(memory), taken(memory), running(memory), env(memory),
        filing(memory) {}
  sluice_frontier_t *frontier = nullptr;
  std::pmr::vector<std::pair<uint32_t, double>> items, taken;
  std::pmr::vector<uint32_t> running;
  std::pmr::vector<uint64_t> env;
  BucketBins filing;
};
/// A context's bins, one per thread that made a fused insert in it.
struct FuseBins {
  std::mutex mutex;
  std::vector<std::unique_ptr<FuseBin>> bins;
};

/// The calling thread's bins in the context of serial `ctxSerial` (the
/// context owns them: a context made later at the same address has
/// another serial). The default TLS model: linked into an executable the
/// access is one load (the linker relaxes it); initial-exec would put the
/// library's whole TLS segment (the insert buffers too) in the static TLS
/// block, which a module loaded with dlopen (Python's) cannot get.
struct BinRef {
  uint64_t ctxSerial = 0;
  FuseBin *bin = nullptr;
};
extern thread_local BinRef binRef;
/// The calling thread's bins in `ctx`, made (threadBins: found).
FuseBin &newThreadBins(sluice_algo_ctx_t *ctx);
inline FuseBin &threadBins(sluice_algo_ctx_t *ctx);
/// Hands the threads' bins of `f` (a bucket queue's frontier, its round's
/// pass over) to its queue; without a queue, drops them.
void mergeBucketBins(sluice_frontier_t *f);

/// An insert of `v`, whose priority is now `p`, into `f` during its fused
/// round: into the calling thread's bin when its bucket is the round's
/// (`p` above fusion.above: it is not).
void fuseInsert(sluice_frontier_t *f, uint32_t v, double p);
/// Into `bin` (the calling thread's), `v` of the round's bucket.
void fuseInto(FuseBin &bin, sluice_frontier_t *f, uint32_t v, double p);

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
/// The bins of a context's binned push loops and their choices
/// (PushBins.cpp).
struct BinState;
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
  sluice::rt::ArenaArray<std::atomic<uint64_t>> bits;
  /// The vertices: `count` of them in `list`, which has room for
  /// `listRoom`; inserts fill it up to `listLimit` (a 64th of the vertices,
  /// past which the frontier is dense; all of them with a bucket queue).
  sluice::rt::ArenaArray<uint32_t> list;
  uint64_t listRoom = 0;
  uint64_t listLimit = 0;
  std::atomic<uint64_t> count{0};
  /// A `frontier: buckets` loop's result (BucketQueue.cpp): the vertices
  /// waiting in buckets. Its seal files the inserted vertices there and
  /// `count` is then the queue's size; `list` and `bits` are made from the
  /// queue when read.
  std::unique_ptr<sluice::rt::BucketQueue> queue;
  /// A fused round's result (sluice_algo_bucket_for): the round's bucket;
  /// its seal leaves the vertices the round ran out of the queue. On the
  /// round's own frontier, `fusedInto` is that result.
  std::unique_ptr<sluice::rt::BucketFusion> fusion;
  sluice_frontier_t *fusedInto = nullptr;
  /// With a queue: the key of the round filing into it (its threads' bins,
  /// sluice_algo_bucket_insert, are kept relative to it).
  double binKey = 0;
  /// Whether sluice_algo_bucket_insert files into the threads' bins (the
  /// graph has at most kBinnedVertices vertices) or into the bitmap and
  /// list.
  bool binned = false;
  /// Whether `list` holds the vertices, sorted. A sealed frontier of at
  /// least a 64th of the vertices keeps its bitmap and is listed from it
  /// on first read (a pull round reads only the bitmap).
  bool listed = true;
  /// What the round that built this frontier chose
  /// (sluice_algo_frontier_pull_next): whether it pulled, the size of the
  /// frontier it ran over, and the out-edges push rounds had not yet
  /// scanned after it (UINT64_MAX: none scanned, all of the graph's).
  bool pulled = false;
  uint64_t pulledFrom = 0;
  uint64_t edgesLeft = UINT64_MAX;
  /// Whether a pass set bits through sluice_algo_frontier_direct_bits:
  /// `count` and `list` are then made from the bitmap at the seal.
  std::atomic<bool> direct{false};
  /// Released (sluice_algo_frontier_release): the struct waits in the
  /// context's spares for its next frontier.
  bool released = false;
};

struct sluice_algo_ctx_t {
  const sluice_graph_t *graph = nullptr;
  sluice_algo_view_t view{};
  /// sluice_algo_id_table: the graph's original ids, for inlined `id(v)`.
  sluice_algo_ids_t ids{};
  std::vector<uint64_t> inOffsets;
  std::vector<uint32_t> inSources;
  std::vector<float> inWeights;
  std::unique_ptr<sluice::rt::AlgoThreadPool> pool;
  /// The rounds' structures (frontiers' lists and bitmaps, bucket queues
  /// and their buckets, fused rounds' bins; RoundArena.h), reserved for
  /// the graph's vertices when the context is made; declared before what
  /// it holds (freed after it).
  sluice::rt::RoundArena arena;
  std::vector<std::unique_ptr<sluice_frontier_t>> frontiers;
  /// Those of `frontiers` released, made anew for the next frontiers.
  std::vector<sluice_frontier_t *> spareFrontiers;
  std::atomic<bool> faulted{false};
  std::mutex faultMutex;
  int32_t faultSite = -1;
  std::string faultMessage;
  uint64_t passes = 0;
  std::unique_ptr<sluice::rt::Progress> progress;
  /// Progress lines on (not quiet); the passes between two reports and
  /// those left until the next, and when the last report was
  /// (AlgoContext.cpp, reportPass).
  bool progressOn = false;
  uint32_t progressStride = 1, progressLeft = 1;
  std::chrono::steady_clock::time_point progressAt;
  /// sluice_algo_partials' room.
  std::vector<uint64_t> partials;
  /// Frontier buffers that frontiers gave back (Frontier.cpp), lists of
  /// room for a dense frontier and cleared bitmaps: a round's new frontier
  /// reuses them instead of mapping and faulting in fresh pages.
  struct SpareList {
    sluice::rt::ArenaArray<uint32_t> buffer;
    uint64_t room;
  };
  std::vector<SpareList> spareLists;
  /// sluice_algo_frontier_bucket's vertices of the round (reused: no
  /// allocation per round).
  std::pmr::vector<uint32_t> bucketScratch{&arena};
  /// Fused rounds' bins (BucketFusion.cpp), found by each thread through
  /// `serial`, which no other context of the process has.
  uint64_t serial = 0;
  std::unique_ptr<sluice::rt::FuseBins> fuseBins =
      std::make_unique<sluice::rt::FuseBins>();
  std::vector<sluice::rt::ArenaArray<std::atomic<uint64_t>>> spareBits;
  /// With a GPU attached, bound passes run there (released first).
  std::unique_ptr<sluice::rt::AlgoGpu, sluice::rt::AlgoGpuDeleter> gpu;
  /// sluice/algo_tile.h's layouts and choices, made on first use.
  std::shared_ptr<sluice::rt::TileState> tiles;
  /// sluice/algo_bins.h's bins and choices, made on first use.
  std::shared_ptr<sluice::rt::BinState> bins;
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

inline sluice::rt::FuseBin &sluice::rt::threadBins(sluice_algo_ctx_t *ctx) {
  BinRef &ref = binRef;
  if (ref.ctxSerial == ctx->serial)
    return *ref.bin;
  return newThreadBins(ctx);
}

#endif // SLUICE_RUNTIME_SRC_ALGO_ALGOINTERNAL_H
