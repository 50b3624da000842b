//===- BucketQueue.cpp - Delta-stepping's buckets and ordered rounds ------===//
//
// BucketQueue (see its header) and sluice_algo_frontier_bucket, the round of
// a `frontier: buckets(delta)` loop: the frontier's lowest bucket to run,
// the other vertices passed on to the loop's result. A frontier the round
// consumes hands its queue on to the result, whose seal files the vertices
// the round changed; one read again later is split by a scan, as it is.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/BucketQueue.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <algorithm>
#include <limits>

using sluice::rt::AlgoThreadPool;
using sluice::rt::BucketQueue;

namespace {

/// Keys the ring holds: integers well inside a double's exact range.
bool ringable(double key) { return std::fabs(key) < 0x1p52; }

} // namespace

BucketQueue::BucketQueue(const void *priority, int32_t type, double delta,
                         uint64_t numVertices, AlgoThreadPool *pool,
                         std::pmr::memory_resource *memory)
    : priority(priority), type(type), delta(delta), numVertices(numVertices),
      pool(pool), slot(sluice::rt::allocateArray<std::atomic<int32_t>>(
                      memory, numVertices)),
      ring(kWindow, memory), far(memory), taking(memory), spareBuckets(memory),
      sortBits((numVertices + 63) / 64, 0, memory) {
  for (uint64_t v = 0; v < numVertices; ++v)
    slot[v].store(kNotFiled, std::memory_order_relaxed);
  const uint32_t threads = pool ? pool->size() : 1;
  lanes.reserve(threads);
  for (uint32_t t = 0; t < threads; ++t)
    lanes.emplace_back(memory);
}

template <typename Fn> void BucketQueue::forShares(uint64_t count, Fn fn) {
  if (!pool || pool->size() == 1 || count < kParallelBelow) {
    fn(lanes.front(), 0, count, false);
    return;
  }
  const uint64_t threads = pool->size();
  pool->run([&](uint32_t t) {
    fn(lanes[t], count * t / threads, count * (t + 1) / threads, true);
  });
}

std::pmr::vector<uint32_t> &BucketQueue::bucketFor(double key,
                                                   bool &inRingNow) {
  // An empty ring moves to the first key it can hold.
  if (inRing == 0 && ringable(key)) {
    haveWindow = true;
    low = key;
  }
  inRingNow = inWindow(key);
  if (!inRingNow)
    return far[key];
  std::pmr::vector<uint32_t> &bucket = bucketAt(key);
  if (bucket.capacity() == 0 && !spareBuckets.empty()) {
    bucket.swap(spareBuckets.back());
    spareBuckets.pop_back();
  }
  return bucket;
}

void BucketQueue::push(uint32_t v, double key) {
  bool ringed;
  bucketFor(key, ringed).push_back(v);
  inRing += ringed;
}

void BucketQueue::pushEntries(double key, const uint32_t *vertices,
                              uint64_t count) {
  if (count == 0)
    return;
  bool ringed;
  std::pmr::vector<uint32_t> &bucket = bucketFor(key, ringed);
  bucket.insert(bucket.end(), vertices, vertices + count);
  if (ringed)
    inRing += count;
}

bool BucketQueue::claimSlot(uint32_t v, double key, int64_t &waiting) {
  const int32_t code = codeOf(key);
  if (exact(code))
    return claimExact<true>(v, code, waiting);
  int32_t was = slotOf(v);
  for (;;) {
    if (slot[v].compare_exchange_weak(was, code, std::memory_order_relaxed)) {
      waiting += was == kNotFiled;
      return true;
    }
  }
}

void BucketQueue::fileUnder(uint32_t v, double key) {
  int32_t code = codeOf(key);
  int32_t was = slotOf(v);
  // (A code for several keys files again: its old entry may be another's.)
  if (was == code && exact(code))
    return;
  if (was == kNotFiled)
    ++queued;
  setSlot(v, code);
  push(v, key);
}

void BucketQueue::mergeLanes() {
  for (Lane &lane : lanes) {
    for (auto [key, v] : lane.filed)
      push(v, key);
    lane.filed.clear();
  }
}

void BucketQueue::fileAll(const uint32_t *list, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    file(list[i]);
}

void BucketQueue::fileAfterFusion(const uint32_t *list, uint64_t count,
                                  double key,
                                  const std::pmr::vector<uint32_t> &spilled) {
  // After the round's take no slot holds its key's code: the spilled are
  // those that do now.
  const int32_t code = codeOf(key);
  fileAll(spilled.data(), spilled.size());
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t v = list[i];
    double now = keyOf(v);
    if (now != key) {
      fileUnder(v, now);
      continue;
    }
    // Ran: an entry of it in a later bucket (filed before it was lowered
    // into this one) goes stale.
    int32_t was = slotOf(v);
    if (was == code || was == kNotFiled)
      continue;
    setSlot(v, kNotFiled);
    --queued;
  }
}

void BucketQueue::gatherTaken(std::pmr::vector<uint32_t> &out) {
  uint64_t total = 0;
  for (Lane &lane : lanes)
    total += lane.taken.size();
  // A take on the caller filled the first lane alone: sorted in place
  // (its buffer and `out`'s trade places) when that beats the bitmap.
  if (total == lanes.front().taken.size() && total * 16 <= sortBits.size() &&
      out.get_allocator() == lanes.front().taken.get_allocator()) {
    out.swap(lanes.front().taken);
    std::sort(out.begin(), out.end());
    lanes.front().taken.clear();
    queued -= total;
    return;
  }
  // Sorted: through a bitmap when that beats sorting (a word per 64
  // vertices against k log k).
  if (total * 16 > sortBits.size()) {
    for (Lane &lane : lanes)
      for (uint32_t v : lane.taken)
        sortBits[v / 64] |= uint64_t(1) << (v % 64);
    out.reserve(total);
    for (uint64_t w = 0, nw = sortBits.size(); w < nw; ++w) {
      for (uint64_t bits = sortBits[w]; bits; bits &= bits - 1)
        out.push_back(static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits)));
      sortBits[w] = 0;
    }
  } else {
    for (Lane &lane : lanes)
      out.insert(out.end(), lane.taken.begin(), lane.taken.end());
    std::sort(out.begin(), out.end());
  }
  for (Lane &lane : lanes)
    lane.taken.clear();
  queued -= total;
}

void BucketQueue::takeLowest(std::pmr::vector<uint32_t> &out) {
  out.clear();
  while (queued > 0 && out.empty()) {
    // The lowest key of the ring (its empty buckets passed over for good)
    // and of the map. Some entry waits: a waiting vertex has one.
    double key = HUGE_VAL;
    bool ringHas = inRing > 0;
    if (ringHas) {
      while (bucketAt(low).empty())
        low += 1;
      key = low;
    }
    if (!far.empty())
      key = std::min(key, far.begin()->first);
    if (ringHas && key == low) {
      taking.swap(bucketAt(low));
      inRing -= taking.size();
    }
    if (!far.empty() && far.begin()->first == key) {
      std::pmr::vector<uint32_t> &more = far.begin()->second;
      taking.insert(taking.end(), more.begin(), more.end());
      far.erase(far.begin());
    }
    forShares(taking.size(),
              [&](Lane &lane, uint64_t begin, uint64_t end, bool shared) {
                if (shared)
                  takeEntries<true>(lane, key, begin, end);
                else
                  takeEntries<false>(lane, key, begin, end);
              });
    // The bucket's buffer, emptied, for the next bucket to fill (the ring
    // slot comes round again only after kWindow keys).
    taking.clear();
    if (taking.capacity() > 0) {
      spareBuckets.emplace_back(); // (of the queue's memory resource)
      spareBuckets.back().swap(taking);
    }
    mergeLanes();
    gatherTaken(out);
  }
}

template <bool shared>
void BucketQueue::takeEntries(Lane &lane, double key, uint64_t begin,
                              uint64_t end) {
  const int32_t code = codeOf(key);
  for (uint64_t i = begin; i < end; ++i) {
    uint32_t v = taking[i];
    // Stale (filed again elsewhere) or taken already.
    if (slotOf(v) != code)
      continue;
    // Taken, or (its priority changed without a refiling) filed where it
    // is; with other threads taking, a second entry of `v` here loses the
    // claim.
    double now = keyOf(v);
    int32_t next = now == key ? kNotFiled : codeOf(now);
    if constexpr (shared) {
      int32_t was = code;
      if (!slot[v].compare_exchange_strong(was, next,
                                           std::memory_order_relaxed))
        continue;
    } else {
      setSlot(v, next);
    }
    if (now == key)
      lane.taken.push_back(v);
    else
      lane.filed.emplace_back(now, v);
  }
}

void BucketQueue::members(uint32_t *out) const {
  for (uint64_t v = 0; v < numVertices; ++v)
    if (slotOf(static_cast<uint32_t>(v)) != kNotFiled)
      *out++ = static_cast<uint32_t>(v);
}

sluice_frontier_t *sluice_algo_frontier_bucket(sluice_frontier_t *f,
                                               const void *priority,
                                               int32_t type, double delta,
                                               sluice_frontier_t *rest,
                                               int32_t flags) {
  const bool consume = flags & SLUICE_ALGO_BUCKET_CONSUME;
  sluice_algo_ctx_t *ctx = f->ctx;
  sluice::rt::flushFrontierInserts();
  std::pmr::vector<uint32_t> &lowest = ctx->bucketScratch;
  lowest.clear();
  if (ctx->faulted.load(std::memory_order_relaxed))
    return sluice::rt::sealedFrontier(ctx, lowest.data(), 0);
  // The queue passes on when nothing reads `f` again and `rest` is a new
  // frontier (the loop's result before its round).
  bool restNew = !rest->all && !rest->sealed && !rest->queue &&
                 rest->count.load(std::memory_order_relaxed) == 0;
  if (consume && restNew) {
    std::unique_ptr<BucketQueue> queue;
    if (f->queue && f->queue->orders(priority, type, delta)) {
      queue = std::move(f->queue);
    } else {
      queue = std::make_unique<BucketQueue>(priority, type, delta,
                                            ctx->view.num_vertices,
                                            ctx->pool.get(), &ctx->arena);
      queue->fileAll(sluice_algo_frontier_list(f),
                     sluice_algo_frontier_size(f));
    }
    queue->takeLowest(lowest);
    sluice::rt::growFrontierList(rest);
    rest->queue = std::move(queue);
    sluice_frontier_t *current =
        sluice::rt::sealedFrontier(ctx, lowest.data(), lowest.size());
    // A fused round (BucketFusion.cpp) runs on sluice_algo_bucket_for.
    double key = lowest.empty() ? HUGE_VAL
                                : BucketQueue::keyOf(priority, type, delta,
                                                     lowest.front());
    rest->binKey = key;
    rest->binned =
        ctx->view.num_vertices <= sluice::rt::BucketBins::kBinnedVertices;
    if ((flags & SLUICE_ALGO_BUCKET_FUSE) && BucketQueue::fusible(key)) {
      // (Relative 2^-20 and an absolute delta / 2^20 dwarf the rounding of
      // p / delta and of the bound, a few ulps.)
      double above = (key + 1) * delta;
      above += std::fabs(above) * 0x1p-20 + delta * 0x1p-20;
      rest->fusion.reset(new sluice::rt::BucketFusion{
          priority,
          type,
          delta,
          key,
          above,
          false,
          {},
          std::pmr::vector<uint32_t>(&ctx->arena)});
      current->fusedInto = rest;
    }
    return current;
  }
  // Else one scan for the lowest bucket and one to split the list (sorted:
  // so are both parts).
  uint64_t count = sluice_algo_frontier_size(f);
  const uint32_t *list = sluice_algo_frontier_list(f);
  auto keyOf = [&](uint32_t v) {
    return BucketQueue::keyOf(priority, type, delta, v);
  };
  double low = HUGE_VAL;
  for (uint64_t i = 0; i < count; ++i)
    low = std::min(low, keyOf(list[i]));
  for (uint64_t i = 0; i < count; ++i) {
    if (keyOf(list[i]) == low)
      lowest.push_back(list[i]);
    else
      sluice_algo_frontier_insert(rest, list[i]);
  }
  return sluice::rt::sealedFrontier(ctx, lowest.data(), lowest.size());
}
