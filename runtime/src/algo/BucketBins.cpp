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

using sluice::rt::BucketBins;
using sluice::rt::BucketQueue;
using sluice::rt::FuseBin;

int sluice_algo_bucket_insert(sluice_frontier_t *f, uint32_t v) {
  if (!f->queue || f->sealed || v >= f->numVertices)
    return sluice_algo_frontier_insert(f, v);
  BucketQueue &queue = *f->queue;
  FuseBin &bin = sluice::rt::threadBins(f->ctx);
  BucketBins &bins = bin.filing;
  if (bins.frontier != f) {
    // (Bins of a frontier released unsealed are dropped.)
    for (; bins.used; bins.used &= bins.used - 1)
      bins.near[__builtin_ctzll(bins.used)].clear();
    bins.others.clear();
    bins.waiting = 0;
    bins.frontier = f;
    bins.base = f->binKey;
  }
  double key;
  if (f->fusion && f->fusion->active) {
    const sluice::rt::BucketFusion &fusion = *f->fusion;
    double p = sluice::rt::fusedPriority(fusion, v);
    key = BucketQueue::keyOf(p, fusion.delta);
    if (key == fusion.key) {
      // Runs in this round, on this thread (or is passed on at the seal).
      sluice::rt::fuseInto(bin, f, v, p);
      queue.releaseSlot(v, key, bins.waiting);
      return 1;
    }
  } else {
    key = queue.liveKeyOf(v);
  }
  if (!queue.claimSlot(v, key, bins.waiting))
    return 0;
  double d = key - bins.base;
  if (d >= 0 && d < double(BucketBins::kNear)) {
    unsigned at = unsigned(d);
    bins.near[at].push_back(v);
    bins.used |= uint64_t(1) << at;
  } else {
    bins.others.emplace_back(key, v);
  }
  return 1;
}

void sluice::rt::mergeBucketBins(sluice_frontier_t *f) {
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
        queue->pushEntries(bins->base + d, near.data(), near.size());
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
