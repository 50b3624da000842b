//===- Frontier.cpp - Sets of vertices: a sorted list and a bitmap --------===//
//
// A frontier is built by concurrent inserts: an atomic fetch_or on its
// bitmap word decides who adds a vertex, an atomic counter gives its slot
// in the list. seal() sorts the list, shrinks it to its size and, for a
// sparse frontier, drops the bitmap (rebuilt when a round asks for it), so
// the frontiers of a long run cost what their vertices do. A frontier
// with a bucket queue (a `frontier: buckets` loop's result) files its
// inserts there when sealed (sorted first, as any frontier's list) and is
// listed from the queue when read.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>

namespace {

uint64_t words(uint64_t n) { return (n + 63) / 64; }

/// This thread's vertices inserted into `frontier` and not yet in its list.
struct InsertBuffer {
  sluice_frontier_t *frontier = nullptr;
  uint32_t size = 0;
  uint32_t items[1024];
};
thread_local InsertBuffer insertBuffer;

sluice_frontier_t *adopt(sluice_algo_ctx_t *ctx,
                         std::unique_ptr<sluice_frontier_t> f) {
  f->ctx = ctx;
  f->numVertices = ctx->view.num_vertices;
  ctx->frontiers.push_back(std::move(f));
  return ctx->frontiers.back().get();
}

/// Gives `f`'s bitmap, whose set bits are those of `list[0, count)`, to the
/// context's spares, cleared.
void giveBitsBack(sluice_frontier_t *f, const uint32_t *list, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    f->bits[list[i] / 64].store(0, std::memory_order_relaxed);
  f->ctx->spareBits.push_back(std::move(f->bits));
}

} // namespace

sluice_frontier_t *sluice_algo_frontier_new(sluice_algo_ctx_t *ctx) {
  auto f = std::make_unique<sluice_frontier_t>();
  uint64_t n = ctx->view.num_vertices;
  // Buffers an earlier sealed frontier gave back, else new ones (a new
  // list is not touched beyond what is inserted: pages of a large frontier
  // that stays small are never mapped in).
  if (!ctx->spareBits.empty()) {
    // (Given back cleared: a round over a few vertices clears few words.)
    f->bits = std::move(ctx->spareBits.back());
    ctx->spareBits.pop_back();
  } else {
    f->bits.reset(new std::atomic<uint64_t>[words(n)]());
  }
  if (!ctx->spareLists.empty()) {
    f->list = std::move(ctx->spareLists.back());
    ctx->spareLists.pop_back();
  } else {
    f->list.reset(new uint32_t[std::max<uint64_t>(n, 1)]);
  }
  return adopt(ctx, std::move(f));
}

sluice_frontier_t *
sluice::rt::sealedFrontier(sluice_algo_ctx_t *ctx,
                           const std::vector<uint32_t> &vertices) {
  auto f = std::make_unique<sluice_frontier_t>();
  f->sealed = true;
  f->count = vertices.size();
  f->list.reset(new uint32_t[std::max<size_t>(vertices.size(), 1)]);
  std::copy(vertices.begin(), vertices.end(), f->list.get());
  return adopt(ctx, std::move(f));
}

sluice_frontier_t *sluice_algo_frontier_all(sluice_algo_ctx_t *ctx) {
  auto f = std::make_unique<sluice_frontier_t>();
  f->all = true;
  f->sealed = true;
  f->count = ctx->view.num_vertices;
  return adopt(ctx, std::move(f));
}

void sluice::rt::flushFrontierInserts() {
  InsertBuffer &b = insertBuffer;
  if (b.size) {
    uint64_t at = b.frontier->count.fetch_add(b.size, std::memory_order_relaxed);
    std::copy(b.items, b.items + b.size, b.frontier->list.get() + at);
  }
  b.size = 0;
  b.frontier = nullptr;
}

int sluice_algo_frontier_insert(sluice_frontier_t *f, uint32_t v) {
  if (f->all || f->sealed || v >= f->numVertices)
    return 0;
  uint64_t bit = uint64_t(1) << (v % 64);
  // A plain load first: most rejected inserts need no atomic write.
  if ((f->bits[v / 64].load(std::memory_order_relaxed) & bit) ||
      (f->bits[v / 64].fetch_or(bit, std::memory_order_relaxed) & bit))
    return 0;
  InsertBuffer &b = insertBuffer;
  if (b.frontier != f) {
    sluice::rt::flushFrontierInserts();
    b.frontier = f;
  }
  b.items[b.size++] = v;
  if (b.size == sizeof(b.items) / sizeof(b.items[0])) {
    sluice::rt::flushFrontierInserts();
    b.frontier = f;
  }
  return 1;
}

void sluice_algo_frontier_seal(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->sealed)
    return;
  f->sealed = true;
  uint64_t count = f->count.load();
  // Sorted: from the bitmap in one pass when the frontier is large enough
  // for that to beat sorting (a word per 64 vertices against k log k).
  if (f->bits && count * 16 > words(f->numVertices)) {
    uint64_t k = 0;
    for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w)
      for (uint64_t bits = f->bits[w].load(std::memory_order_relaxed); bits;
           bits &= bits - 1)
        f->list[k++] = static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits));
  } else {
    std::sort(f->list.get(), f->list.get() + count);
  }
  if (f->queue) {
    // Into the buckets, in vertex order (the priorities and the queue's
    // slots read in order); the buffers go back to the context, the list
    // is made from the queue when read.
    f->queue->fileAll(f->list.get(), count);
    f->count = f->queue->size();
    if (f->bits)
      giveBitsBack(f, f->list.get(), count);
    if (f->list)
      f->ctx->spareLists.push_back(std::move(f->list));
    return;
  }
  // The list shrinks to its size; its full-size buffer (and the bitmap of
  // a sparse frontier) go to the context's spares for the next frontier.
  std::unique_ptr<uint32_t[]> exact(new uint32_t[std::max<uint64_t>(count, 1)]);
  std::copy(f->list.get(), f->list.get() + count, exact.get());
  f->ctx->spareLists.push_back(std::move(f->list));
  f->list = std::move(exact);
  if (count * 64 < f->numVertices)
    giveBitsBack(f, f->list.get(), count);
}

uint64_t sluice_algo_frontier_size(const sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->ctx->faulted.load(std::memory_order_relaxed))
    return 0;
  return f->count.load(std::memory_order_relaxed);
}

const uint32_t *sluice_algo_frontier_list(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (!f->list && f->queue && f->sealed) {
    // The vertices waiting in buckets, listed on first use.
    f->list.reset(new uint32_t[std::max<uint64_t>(f->queue->size(), 1)]);
    f->queue->members(f->list.get());
  } else if (!f->list) {
    // The frontier of all vertices, listed on first use.
    f->list.reset(new uint32_t[std::max<uint64_t>(f->numVertices, 1)]);
    for (uint64_t v = 0; v < f->numVertices; ++v)
      f->list[v] = static_cast<uint32_t>(v);
  }
  return f->list.get();
}

const uint64_t *sluice_algo_frontier_bitmap(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (!f->bits) {
    if (f->queue)
      sluice_algo_frontier_list(f);
    uint64_t n = f->numVertices;
    f->bits.reset(new std::atomic<uint64_t>[words(n)]());
    if (f->all) {
      for (uint64_t v = 0; v < n; ++v)
        f->bits[v / 64].fetch_or(uint64_t(1) << (v % 64));
    } else {
      uint64_t count = f->count.load();
      for (uint64_t i = 0; i < count; ++i)
        f->bits[f->list[i] / 64].fetch_or(uint64_t(1) << (f->list[i] % 64));
    }
  }
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t),
                "the bitmap is read as plain words");
  return reinterpret_cast<const uint64_t *>(f->bits.get());
}

int sluice_algo_frontier_prefers_dense(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->all)
    return 1;
  if (f->queue)
    sluice_algo_frontier_list(f);
  const sluice_algo_view_t &view = f->ctx->view;
  uint64_t count = f->count.load();
  if (count * 20 > view.num_vertices)
    return 1;
  uint64_t edges = 0;
  for (uint64_t i = 0; i < count; ++i)
    edges += view.out_offsets[f->list[i] + 1] - view.out_offsets[f->list[i]];
  return edges * 20 > view.num_edges ? 1 : 0;
}
