//===- Frontier.cpp - Sets of vertices: a sorted list and a bitmap --------===//
//
// A frontier is built by concurrent inserts: an atomic fetch_or on its
// bitmap word decides who adds a vertex, an atomic counter gives its slot
// in the list. The list has room for a 64th of the vertices: a frontier
// that reaches it is dense, kept as its bitmap (a pull round reads nothing
// else) and listed from it when read. seal() sorts the list of a sparse
// frontier, shrinks it to its size and drops the bitmap (rebuilt when a
// round asks for it), so the frontiers of a long run cost what their
// vertices do; release() gives a dead frontier's buffers and struct back.
// Both go to the context's spares and are reused: fresh pages cost a
// fault each (and come from the context's RoundArena, in huge pages). A
// frontier with a bucket queue (a `frontier: buckets` loop's result) has a list
// of every vertex, files its inserts there when sealed (in vertex order when
// they are many, so the queue's arrays are read in order) and is listed from
// the queue when read; after a fused round (BucketFusion.cpp) the vertices the
// round ran are left out.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <optional>

namespace {

uint64_t words(uint64_t n) { return (n + 63) / 64; }

/// A frontier of this many vertices (a 64th of them) is dense: its list
/// holds no more.
uint64_t denseAt(uint64_t n) { return std::max<uint64_t>(words(n), 1); }

/// Gives `f`'s list buffer to the context's spares.
void giveListBack(sluice_frontier_t *f) {
  f->ctx->spareLists.push_back({std::move(f->list), f->listRoom});
  f->listRoom = 0;
}

/// A list buffer of room for `room` vertices (at least one), from the
/// context's arena.
sluice::rt::ArenaArray<uint32_t> newList(sluice_algo_ctx_t *ctx,
                                         uint64_t room) {
  return sluice::rt::allocateArray<uint32_t>(&ctx->arena, room);
}

/// A spare list buffer with room for at least `room` vertices (the most
/// recent such), or none.
std::optional<sluice_algo_ctx_t::SpareList>
takeSpareList(sluice_algo_ctx_t *ctx, uint64_t room) {
  auto &spares = ctx->spareLists;
  for (size_t i = spares.size(); i-- > 0;) {
    if (spares[i].room < room)
      continue;
    sluice_algo_ctx_t::SpareList spare = std::move(spares[i]);
    spares.erase(spares.begin() + i);
    return spare;
  }
  return std::nullopt;
}

/// A cleared bitmap of `ctx`'s vertices: a spare, else a new one.
sluice::rt::ArenaArray<std::atomic<uint64_t>> takeBits(sluice_algo_ctx_t *ctx) {
  if (ctx->spareBits.empty()) {
    const uint64_t nw = words(ctx->view.num_vertices);
    auto bits =
        sluice::rt::allocateArray<std::atomic<uint64_t>>(&ctx->arena, nw);
    for (uint64_t w = 0; w < nw; ++w)
      bits[w].store(0, std::memory_order_relaxed);
    return bits;
  }
  auto bits = std::move(ctx->spareBits.back());
  ctx->spareBits.pop_back();
  return bits;
}

/// This thread's vertices inserted into `frontier` and not yet in its list.
struct InsertBuffer {
  sluice_frontier_t *frontier = nullptr;
  uint32_t size = 0;
  uint32_t items[1024];
};
thread_local InsertBuffer insertBuffer;

/// A new empty frontier of `ctx`: a released one made anew (a round loop
/// releases a frontier or two a round: thousands of rounds then cost no
/// allocation and no fresh page), else a new one the context owns.
sluice_frontier_t *make(sluice_algo_ctx_t *ctx) {
  sluice_frontier_t *f;
  if (!ctx->spareFrontiers.empty()) {
    f = ctx->spareFrontiers.back();
    ctx->spareFrontiers.pop_back();
    f->~sluice_frontier_t();
    new (f) sluice_frontier_t();
  } else {
    ctx->frontiers.push_back(std::make_unique<sluice_frontier_t>());
    f = ctx->frontiers.back().get();
  }
  f->ctx = ctx;
  f->numVertices = ctx->view.num_vertices;
  return f;
}

/// Gives `f`'s bitmap, whose set bits are those of `list[0, count)`, to the
/// context's spares, cleared.
void giveBitsBack(sluice_frontier_t *f, const uint32_t *list, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    f->bits[list[i] / 64].store(0, std::memory_order_relaxed);
  f->ctx->spareBits.push_back(std::move(f->bits));
}

/// Writes the members of `f`'s bitmap to `out`, in order.
void listBits(const sluice_frontier_t *f, uint32_t *out) {
  uint64_t k = 0;
  for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w)
    for (uint64_t bits = f->bits[w].load(std::memory_order_relaxed); bits;
         bits &= bits - 1)
      out[k++] = static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits));
}

/// Sorts the `count` vertices of `f`'s list: from the bitmap in one pass
/// when the frontier is large enough for that to beat sorting (a word per
/// 64 vertices against k log k).
void sortList(sluice_frontier_t *f, uint64_t count) {
  if (f->bits && count * 16 > words(f->numVertices))
    listBits(f, f->list.get());
  else
    std::sort(f->list.get(), f->list.get() + count);
}

/// After a pass that set `f`'s bits directly (and maybe inserted too): its
/// count from the bitmap, and its list, in order, when it has room for them
/// (a frontier past that is dense: its bitmap holds it). Whether it listed
/// them (the list is then sorted already).
bool countBits(sluice_frontier_t *f) {
  uint64_t count = 0;
  for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w)
    count += __builtin_popcountll(f->bits[w].load(std::memory_order_relaxed));
  if (f->queue && count > f->listRoom)
    sluice::rt::growFrontierList(f);
  const bool list = f->queue || count < denseAt(f->numVertices);
  if (list)
    listBits(f, f->list.get());
  f->count = count;
  return list;
}

/// The out-edges of `f`'s vertices, summed until they pass `limit` (then
/// the sum so far); a frontier kept as its bitmap is read there, without
/// building its list.
uint64_t outEdges(sluice_frontier_t *f, double limit) {
  const uint64_t *offsets = f->ctx->view.out_offsets;
  uint64_t sum = 0;
  if (!f->listed) {
    for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w) {
      for (uint64_t bits = f->bits[w].load(std::memory_order_relaxed); bits;
           bits &= bits - 1) {
        uint64_t v = w * 64 + __builtin_ctzll(bits);
        sum += offsets[v + 1] - offsets[v];
      }
      if (double(sum) > limit)
        return sum;
    }
    return sum;
  }
  const uint32_t *list = sluice_algo_frontier_list(f);
  for (uint64_t i = 0, count = f->count.load(); i < count; ++i) {
    sum += offsets[list[i] + 1] - offsets[list[i]];
    if (double(sum) > limit)
      return sum;
  }
  return sum;
}

} // namespace

sluice_frontier_t *sluice_algo_frontier_new(sluice_algo_ctx_t *ctx) {
  sluice_frontier_t *f = make(ctx);
  // Buffers an earlier frontier gave back (its bitmap cleared word by word
  // at its vertices: a round over a few vertices clears few words), else
  // new ones (a new list is not touched beyond what is inserted).
  f->bits = takeBits(ctx);
  const uint64_t dense = denseAt(ctx->view.num_vertices);
  if (auto spare = takeSpareList(ctx, dense)) {
    f->list = std::move(spare->buffer);
    f->listRoom = spare->room;
  } else {
    f->list = newList(ctx, dense);
    f->listRoom = dense;
  }
  f->listLimit = dense;
  return f;
}

sluice_frontier_t *sluice::rt::sealedFrontier(sluice_algo_ctx_t *ctx,
                                              const uint32_t *vertices,
                                              uint64_t count) {
  sluice_frontier_t *f = make(ctx);
  f->sealed = true;
  f->count = count;
  f->listLimit = count;
  // A spare buffer when one has room (a round's bucket, released after the
  // round, gives it back), else one of its size.
  if (auto spare = takeSpareList(ctx, count)) {
    f->list = std::move(spare->buffer);
    f->listRoom = spare->room;
  } else {
    f->list = newList(ctx, count);
    f->listRoom = count;
  }
  std::copy(vertices, vertices + count, f->list.get());
  return f;
}

sluice_frontier_t *sluice_algo_frontier_all(sluice_algo_ctx_t *ctx) {
  sluice_frontier_t *f = make(ctx);
  f->all = true;
  f->sealed = true;
  f->count = ctx->view.num_vertices;
  return f;
}

void sluice::rt::flushFrontierInserts() {
  InsertBuffer &b = insertBuffer;
  if (b.size) {
    // Into the list while it has room (a frontier past it is dense: the
    // bitmap holds it).
    sluice_frontier_t *f = b.frontier;
    uint64_t at = f->count.fetch_add(b.size, std::memory_order_relaxed);
    if (at < f->listLimit)
      std::copy(b.items,
                b.items + std::min<uint64_t>(b.size, f->listLimit - at),
                f->list.get() + at);
  }
  b.size = 0;
  b.frontier = nullptr;
}

int sluice_algo_frontier_insert(sluice_frontier_t *f, uint32_t v) {
  if (f->all || f->sealed || v >= f->numVertices)
    return 0;
  // (Every lowering into a fused round's bucket goes to a bin, inserted
  // before or not.)
  if (f->fusion && f->fusion->active) {
    double p = sluice::rt::fusedPriority(*f->fusion, v);
    if (p <= f->fusion->above)
      sluice::rt::fuseInsert(f, v, p);
  }
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

uint64_t *sluice_algo_frontier_direct_bits(sluice_frontier_t *f) {
  if (f->all || f->sealed || !f->bits)
    return nullptr;
  f->direct.store(true, std::memory_order_relaxed);
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t),
                "the bitmap is written as plain words");
  return reinterpret_cast<uint64_t *>(f->bits.get());
}

void sluice_algo_frontier_seal(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->sealed)
    return;
  const bool inOrder =
      f->direct.exchange(false, std::memory_order_relaxed) && countBits(f);
  f->sealed = true;
  uint64_t count = f->count.load();
  if (f->queue) {
    // Into the buckets, in vertex order when the bitmap lists them in one
    // pass (the priorities and the queue's slots read in order); a few
    // are filed as inserted (a take sorts its bucket: sorting them here
    // cost more than the reads in order save). The buffers go back to the
    // context, the list is made from the queue when read.
    if (!inOrder && f->bits && count * 16 > words(f->numVertices))
      listBits(f, f->list.get());
    // The threads' bins first (sluice_algo_bucket_insert; their vertices'
    // slots are set already), then what was inserted into the list.
    sluice::rt::mergeBucketBins(f);
    if (f->fusion) {
      f->queue->fileAfterFusion(f->list.get(), count, f->fusion->key,
                                f->fusion->spilled);
      f->fusion.reset();
    } else {
      f->queue->fileAll(f->list.get(), count);
    }
    f->count = f->queue->size();
    if (f->bits)
      giveBitsBack(f, f->list.get(), count);
    if (f->list)
      giveListBack(f);
    return;
  }
  // A dense frontier (its list full) keeps its bitmap and is listed from
  // it when read (a pull round reads only the bitmap): its list buffer
  // goes to the context's spares now.
  if (count >= denseAt(f->numVertices)) {
    giveListBack(f);
    f->listed = false;
    return;
  }
  if (!inOrder)
    sortList(f, count);
  // The list shrinks to its size; its full-size buffer and the bitmap go
  // to the context's spares for the next frontier.
  sluice::rt::ArenaArray<uint32_t> exact = newList(f->ctx, count);
  std::copy(f->list.get(), f->list.get() + count, exact.get());
  giveListBack(f);
  f->list = std::move(exact);
  f->listRoom = f->listLimit = count;
  if (f->bits)
    giveBitsBack(f, f->list.get(), count);
}

void sluice::rt::growFrontierList(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  const uint64_t n = std::max<uint64_t>(f->numVertices, 1);
  if (f->listRoom < n) {
    std::optional<sluice_algo_ctx_t::SpareList> spare =
        takeSpareList(f->ctx, n);
    sluice::rt::ArenaArray<uint32_t> list =
        spare ? std::move(spare->buffer) : newList(f->ctx, n);
    uint64_t room = spare ? spare->room : n;
    std::copy(f->list.get(), f->list.get() + f->count.load(), list.get());
    giveListBack(f);
    f->list = std::move(list);
    f->listRoom = room;
  }
  f->listLimit = n;
}

void sluice_algo_frontier_release(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->released)
    return;
  if (f->queue && !f->sealed)
    sluice::rt::mergeBucketBins(f);
  if (f->bits) {
    // Cleared at the vertices of a sorted list, else whole.
    if (f->sealed && f->listed && f->list && !f->all)
      giveBitsBack(f, f->list.get(), f->count.load());
    else {
      for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w)
        f->bits[w].store(0, std::memory_order_relaxed);
      f->ctx->spareBits.push_back(std::move(f->bits));
    }
  }
  // A list with room for a dense frontier goes to the spares; a sealed
  // sparse frontier's, shrunk to its size, is freed (malloc hands its
  // pages out again).
  if (f->list && f->listRoom >= denseAt(f->numVertices))
    giveListBack(f);
  f->list.reset();
  f->queue.reset();
  f->fusion.reset();
  f->fusedInto = nullptr;
  f->direct = false;
  f->all = false;
  f->sealed = true;
  f->listed = true;
  f->listRoom = f->listLimit = 0;
  f->count = 0;
  // The struct itself, for the context's next frontier.
  f->released = true;
  f->ctx->spareFrontiers.push_back(f);
}

uint64_t sluice_algo_frontier_size(const sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->ctx->faulted.load(std::memory_order_relaxed))
    return 0;
  return f->count.load(std::memory_order_relaxed);
}

uint32_t sluice_algo_frontier_any(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (f->ctx->faulted.load(std::memory_order_relaxed) ||
      f->count.load(std::memory_order_relaxed) == 0 || f->all)
    return 0;
  if (f->listed && f->list && !f->queue)
    return f->list[0];
  if (f->bits && !f->queue) {
    for (uint64_t w = 0, nw = words(f->numVertices); w < nw; ++w)
      if (uint64_t bits = f->bits[w].load(std::memory_order_relaxed))
        return static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits));
  }
  return sluice_algo_frontier_list(f)[0];
}

const uint32_t *sluice_algo_frontier_list(sluice_frontier_t *f) {
  sluice::rt::flushFrontierInserts();
  if (!f->listed) {
    // A sealed frontier kept as its bitmap, listed on first use.
    f->list = newList(f->ctx, f->count.load());
    listBits(f, f->list.get());
    f->listed = true;
  } else if (!f->list && f->queue && f->sealed) {
    // The vertices waiting in buckets, listed on first use.
    f->list = newList(f->ctx, f->queue->size());
    f->queue->members(f->list.get());
  } else if (!f->list) {
    // The frontier of all vertices, listed on first use.
    f->list = newList(f->ctx, f->numVertices);
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
    f->bits = takeBits(f->ctx);
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
  const sluice_algo_view_t &view = f->ctx->view;
  uint64_t count = f->count.load();
  if (count * 20 > view.num_vertices)
    return 1;
  const double limit = double(view.num_edges) / 20;
  return double(outEdges(f, limit)) > limit ? 1 : 0;
}

int sluice_algo_frontier_pull_next(sluice_frontier_t *from,
                                   sluice_frontier_t *out, double alpha,
                                   double beta) {
  sluice::rt::flushFrontierInserts();
  const sluice_algo_view_t &view = from->ctx->view;
  const uint64_t count = from->count.load();
  uint64_t left = std::min(from->edgesLeft, view.num_edges);
  bool pull;
  uint64_t scanned = 0;
  if (from->all) {
    pull = true;
  } else if (from->pulled) {
    pull = count >= from->pulledFrom ||
           double(count) > double(view.num_vertices) / beta;
  } else {
    // The out-edges of the frontier, summed until they pass the limit.
    const double limit = double(left) / alpha;
    scanned = outEdges(from, limit);
    pull = double(scanned) > limit;
  }
  if (out) {
    out->pulled = pull;
    out->pulledFrom = count;
    out->edgesLeft = pull ? left : left - std::min(scanned, left);
  }
  return pull ? 1 : 0;
}
