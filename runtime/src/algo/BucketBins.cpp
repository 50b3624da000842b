//===- BucketBins.cpp - A round's relaxed vertices into per-thread bins ---===//
//
// sluice_algo_bucket_insert: GAPBS's local bins (src/sssp.cc). While a
// `frontier: buckets` round runs, a destination whose priority the pass
// lowered goes straight into the inserting thread's bin of its bucket
// floor(priority / delta): no frontier bitmap, no list, no filing of the
// list at the seal. The bucket queue's per-vertex slot is claimed at the
// insert (BucketQueue::claimSlot: a vertex already waiting in that bucket,
// or a lower one, needs no new entry), so the seal only appends each
// thread's bins to the queue's buckets, in bucket order.
//
// Exact: the slot a vertex ends the pass with is the lowest bucket any
// insert read for it, which is the bucket of its final priority (the
// insert after the last lowering reads that priority), and the vertex has
// an entry there. Entries under higher buckets are stale (their slot names
// another bucket) and skipped when taken; a vertex left waiting in a
// higher bucket than its priority's (a thread that read the priority
// before another's lowering and claimed after it: only with several
// threads) is refiled where it belongs when that entry is taken, as a
// priority changed unseen is. In a fused round (BucketFusion.cpp) a
// vertex of the round's bucket goes to the thread's fused bin and stops
// waiting (BucketQueue::releaseSlot) instead.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <cmath>

using sluice::rt::BucketBins;
using sluice::rt::BucketQueue;
using sluice::rt::FuseBin;

namespace {

/// A thread's first insert of the round into `f`: its bins start over
/// (those of a frontier released unsealed are dropped).
[[gnu::noinline]] void startBins(BucketBins &bins, sluice_frontier_t *f) {
  for (; bins.used; bins.used &= bins.used - 1)
    bins.near[__builtin_ctzll(bins.used)].clear();
  bins.others.clear();
  bins.waiting = 0;
  bins.frontier = f;
  // (Keys of the near bins are exact integers; else none is near.)
  bins.base =
      std::fabs(f->binKey) < 0x1p52 ? int64_t(f->binKey) : INT64_MIN / 2;
  const sluice::rt::BucketFusion *fusion = f->fusion.get();
  bins.fused = fusion && fusion->active;
  bins.fusedKey = bins.fused ? int64_t(fusion->key) : 0;
  bins.shared = f->ctx->pool && f->ctx->pool->size() > 1;
}

/// An insert whose key is not an exact key from 0 up (negative, past an
/// int32, infinite or NaN priorities): the queue's own keys and codes.
[[gnu::noinline]] int insertOther(sluice_frontier_t *f, FuseBin &bin,
                                  uint32_t v, double p) {
  BucketQueue &queue = *f->queue;
  BucketBins &bins = bin.filing;
  double key = BucketQueue::keyOf(p, queue.width());
  if (bins.fused && key == f->fusion->key) {
    sluice::rt::fuseInto(bin, f, v, p);
    queue.releaseSlot<true>(v, key, bins.waiting);
    return 1;
  }
  if (!queue.claimSlot(v, key, bins.waiting))
    return 0;
  bins.others.emplace_back(key, v);
  return 1;
}

} // namespace

int sluice_algo_bucket_insert(sluice_frontier_t *f, uint32_t v) {
  BucketQueue *queue = f->queue.get();
  if (!queue || !f->binned || f->sealed || v >= f->numVertices)
    return sluice_algo_frontier_insert(f, v);
  FuseBin &bin = sluice::rt::threadBins(f->ctx);
  BucketBins &bins = bin.filing;
  if (bins.frontier != f)
    startBins(bins, f);
  // floor(p / delta) is the truncation from 0 up: one conversion.
  double p = queue->livePriority(v);
  double q = p / queue->width();
  if (!(q >= 0 && q < double(BucketQueue::kExactKeys)))
    return insertOther(f, bin, v, p);
  const int64_t key = int64_t(q);
  if (bins.fused && key == bins.fusedKey) {
    // Runs in this round, on this thread (or is passed on at the seal).
    sluice::rt::fuseInto(bin, f, v, p);
    if (bins.shared)
      queue->releaseSlot<true>(v, double(key), bins.waiting);
    else
      queue->releaseSlot<false>(v, double(key), bins.waiting);
    return 1;
  }
  if (bins.shared ? !queue->claimExact<true>(v, int32_t(key), bins.waiting)
                  : !queue->claimExact<false>(v, int32_t(key), bins.waiting))
    return 0;
  uint64_t d = uint64_t(key - bins.base);
  if (d < BucketBins::kNear) {
    bins.near[d].push_back(v);
    bins.used |= uint64_t(1) << d;
  } else {
    bins.others.emplace_back(double(key), v);
  }
  return 1;
}

void sluice::rt::mergeBucketBins(sluice_frontier_t *f) {
  // Inserts into a frontier that is not binned never reach the bins.
  if (!f->binned)
    return;
  FuseBins &all = *f->ctx->fuseBins;
  std::lock_guard<std::mutex> lock(all.mutex);
  std::vector<BucketBins *> mine;
  uint64_t used = 0;
  for (const std::unique_ptr<FuseBin> &bin : all.bins) {
    if (bin->filing.frontier != f)
      continue;
    mine.push_back(&bin->filing);
    used |= bin->filing.used;
  }
  BucketQueue *queue = f->queue.get();
  // Bucket by bucket, lowest first (the first one filed places the ring of
  // an empty queue).
  for (; used; used &= used - 1) {
    unsigned d = __builtin_ctzll(used);
    for (BucketBins *bins : mine) {
      std::pmr::vector<uint32_t> &near = bins->near[d];
      if (queue)
        queue->pushEntries(double(bins->base + int64_t(d)), near.data(),
                           near.size());
      near.clear();
    }
  }
  for (BucketBins *bins : mine) {
    if (queue) {
      for (auto [key, v] : bins->others)
        queue->pushEntries(key, &v, 1);
      queue->adjustQueued(bins->waiting);
    }
    bins->others.clear();
    bins->used = 0;
    bins->waiting = 0;
    bins->frontier = nullptr;
  }
}
