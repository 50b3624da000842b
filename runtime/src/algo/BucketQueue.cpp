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

using sluice::rt::BucketQueue;

namespace {

constexpr double kNotFiled = std::numeric_limits<double>::quiet_NaN();

/// Keys the ring holds: integers well inside a double's exact range.
bool ringable(double key) { return std::fabs(key) < 0x1p52; }

} // namespace

BucketQueue::BucketQueue(const void *priority, int32_t type, double delta,
                         uint64_t numVertices)
    : priority(priority), type(type), delta(delta),
      slot(numVertices, kNotFiled), ring(kWindow) {}

double BucketQueue::keyOf(const void *priority, int32_t type, double delta,
                          uint32_t v) {
  double p = type == SLUICE_ALGO_I64
                 ? double(static_cast<const int64_t *>(priority)[v])
                 : static_cast<const double *>(priority)[v];
  return keyOf(p, delta);
}

void BucketQueue::push(uint32_t v, double key) {
  // An empty ring moves to the first key it can hold.
  if (inRing == 0 && ringable(key)) {
    haveWindow = true;
    low = key;
  }
  if (inWindow(key)) {
    bucketAt(key).push_back(v);
    ++inRing;
  } else {
    far[key].push_back(v);
  }
}

void BucketQueue::file(uint32_t v) {
  double key = keyOf(v);
  if (slot[v] == key)
    return;
  if (std::isnan(slot[v]))
    ++queued;
  slot[v] = key;
  push(v, key);
}

void BucketQueue::takeLowest(std::vector<uint32_t> &out) {
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
    taking.clear();
    if (ringHas && key == low) {
      taking.swap(bucketAt(low));
      inRing -= taking.size();
    }
    if (!far.empty() && far.begin()->first == key) {
      std::vector<uint32_t> &more = far.begin()->second;
      taking.insert(taking.end(), more.begin(), more.end());
      far.erase(far.begin());
    }
    for (uint32_t v : taking) {
      // Stale (filed again elsewhere) or taken already.
      if (slot[v] != key)
        continue;
      double now = keyOf(v);
      if (now == key) {
        slot[v] = kNotFiled;
        --queued;
        out.push_back(v);
      } else {
        // Its priority changed without a refiling: file it where it is.
        slot[v] = now;
        push(v, now);
      }
    }
  }
  std::sort(out.begin(), out.end());
}

void BucketQueue::members(uint32_t *out) const {
  for (uint64_t v = 0, n = slot.size(); v < n; ++v)
    if (!std::isnan(slot[v]))
      *out++ = static_cast<uint32_t>(v);
}

sluice_frontier_t *sluice_algo_frontier_bucket(sluice_frontier_t *f,
                                               const void *priority,
                                               int32_t type, double delta,
                                               sluice_frontier_t *rest,
                                               int32_t consume) {
  sluice_algo_ctx_t *ctx = f->ctx;
  sluice::rt::flushFrontierInserts();
  std::vector<uint32_t> lowest;
  if (ctx->faulted.load(std::memory_order_relaxed))
    return sluice::rt::sealedFrontier(ctx, lowest);
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
                                            ctx->view.num_vertices);
      uint64_t count = sluice_algo_frontier_size(f);
      const uint32_t *list = sluice_algo_frontier_list(f);
      for (uint64_t i = 0; i < count; ++i)
        queue->file(list[i]);
    }
    queue->takeLowest(lowest);
    sluice::rt::growFrontierList(rest);
    rest->queue = std::move(queue);
    return sluice::rt::sealedFrontier(ctx, lowest);
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
  return sluice::rt::sealedFrontier(ctx, lowest);
}
