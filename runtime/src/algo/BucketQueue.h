//===- BucketQueue.h - Delta-stepping's buckets of vertices ----*- C++ -*-===//
//
// The vertices waiting in a `frontier: buckets(delta)` frontier, filed by
// bucket floor(p[v] / delta) of their priority p (Meyer and Sanders'
// delta-stepping). A ring of buckets covers the keys [low, low + kWindow)
// in an array; keys outside it (far ahead, below it, infinite) wait in an
// ordered map. Finding the next round's bucket walks forward from the last
// one (each key once over a run), so a round costs what its bucket and the
// vertices it changed do, not what the waiting vertices do.
//
// A vertex is filed at most once (slot[v]: the key it waits under, as an
// int32 when that holds it, else a code for below or above). When
// its priority drops to another bucket it is filed again and its old entry
// goes stale: the entry is skipped when its bucket comes up (its slot names
// the other key). A vertex whose priority changed without being filed again
// (a write outside the loop) is refiled when its bucket comes up.
//
// With a thread pool, taking a large bucket (the stale test and the claim
// of each entry's slot: reads of the slot and priority arrays in no order)
// runs on the pool's threads, each into its own lane; the taken vertices
// are sorted through a bitmap when they are many. The rounds are the
// serial queue's. A take on the caller alone claims slots with plain
// stores (no other thread reads them then).
//
// A run of many small rounds (a road network's thousands) costs what its
// rounds' fixed work does: a taken bucket's buffer goes to a list of
// spares that the next bucket to fill takes, so filing allocates only
// while more buckets hold vertices at once than ever before. Its slots,
// ring, buckets (the far ones too) and lanes come from one memory resource (a
// context's RoundArena: huge pages, so a first run faults few pages in).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALGO_BUCKETQUEUE_H
#define SLUICE_RUNTIME_SRC_ALGO_BUCKETQUEUE_H

#include "sluice/algo.h"

#include "runtime/src/algo/RoundArena.h"

#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <memory_resource>
#include <utility>
#include <vector>

namespace sluice::rt {

class AlgoThreadPool;

/// Element `v` of a priority property (`type` SLUICE_ALGO_I64 or F64) as a
/// double, read while other threads lower priorities (a relaxed atomic
/// load).
inline double loadPriority(const void *priority, int32_t type, uint32_t v) {
  if (type == SLUICE_ALGO_I64) {
    int64_t p;
    __atomic_load(static_cast<const int64_t *>(priority) + v, &p,
                  __ATOMIC_RELAXED);
    return double(p);
  }
  double p;
  __atomic_load(static_cast<const double *>(priority) + v, &p,
                __ATOMIC_RELAXED);
  return p;
}

class BucketQueue {
public:
  /// Buckets in the ring (a power of two).
  static constexpr uint64_t kWindow = 4096;

  /// Taking fewer entries than this stays on the caller.
  static constexpr uint64_t kParallelBelow = 2048;

  /// Buckets of width `delta` (> 0) over `numVertices` priorities of
  /// `type` (SLUICE_ALGO_F64 or SLUICE_ALGO_I64) at `priority`; with
  /// `pool`, taking a large bucket runs on its threads; its arrays from
  /// `memory`.
  BucketQueue(
      const void *priority, int32_t type, double delta, uint64_t numVertices,
      AlgoThreadPool *pool = nullptr,
      std::pmr::memory_resource *memory = std::pmr::get_default_resource());

  /// The bucket of a priority: floor(p / delta); NaN last, with +inf.
  static double keyOf(double p, double delta) {
    double key = std::floor(p / delta);
    return std::isnan(key) ? HUGE_VAL : key;
  }
  /// The bucket of vertex `v` under `priority` (of `type`).
  static double keyOf(const void *priority, int32_t type, double delta,
                      uint32_t v) {
    double p = type == SLUICE_ALGO_I64
                   ? double(static_cast<const int64_t *>(priority)[v])
                   : static_cast<const double *>(priority)[v];
    return keyOf(p, delta);
  }
  double keyOf(uint32_t v) const { return keyOf(priority, type, delta, v); }
  /// Whether the queue orders by this property and width.
  bool orders(const void *p, int32_t t, double d) const {
    return p == priority && t == type && d == delta;
  }

  /// Files `v` under its bucket now (nothing when it waits there already).
  void file(uint32_t v) { fileUnder(v, keyOf(v)); }
  /// Files `list[0, count)` as file() does, one by one (sorted, the
  /// priorities and slots are read in order).
  void fileAll(const uint32_t *list, uint64_t count);
  /// After a fused round of bucket `key` (BucketFusion.cpp): files
  /// `spilled` (vertices passed on by the threads' bins), then of
  /// `list[0, count)` (the vertices the round lowered) those of another
  /// bucket, as fileAll does; one of bucket `key` not spilled ran in the
  /// round after its last lowering and waits no more.
  void fileAfterFusion(const uint32_t *list, uint64_t count, double key,
                       const std::pmr::vector<uint32_t> &spilled);
  /// Whether a round of bucket `key` can be fused: the slots hold the key
  /// itself (fileAfterFusion tells the spilled vertices by it).
  static bool fusible(double key) { return exact(codeOf(key)); }
  /// The priority of `v` now, read while other threads lower priorities.
  double livePriority(uint32_t v) const {
    return loadPriority(priority, type, v);
  }
  /// The buckets' width.
  double width() const { return delta; }
  /// Keys from 0 up to this are their own slot codes.
  static constexpr int64_t kExactKeys = INT32_MAX - 1;

  /// Filing during a round's pass, by its threads at once (BucketBins.cpp:
  /// each pushes its entries later, with pushEntries). claimSlot: `v`
  /// waits under `key` from now on; whether it needs an entry there (not
  /// when it waits there already, or in a lower bucket, whose take refiles
  /// it where its priority then belongs). releaseSlot: `v` ran in the
  /// fused round of bucket `key` and waits no more (an entry elsewhere
  /// goes stale). Both count the vertices that start or stop waiting in
  /// `waiting`, which adjustQueued adds once the pass is over.
  bool claimSlot(uint32_t v, double key, int64_t &waiting);
  /// claimSlot of a key that is its own code (0 <= key <= kExactKeys);
  /// `shared`: other threads claim slots meanwhile (else plain stores: a
  /// locked instruction per claim cost a one-thread kron18 run ~5%).
  template <bool shared>
  bool claimExact(uint32_t v, int32_t code, int64_t &waiting) {
    int32_t was = slotOf(v);
    for (;;) {
      // Waits there already, or lower (another thread's lowering came
      // first, or a write outside the loop): that entry's take decides.
      if (was != kNotFiled && exact(was) && was <= code)
        return false;
      if constexpr (!shared) {
        setSlot(v, code);
        waiting += was == kNotFiled;
        return true;
      }
      if (slot[v].compare_exchange_weak(was, code, std::memory_order_relaxed)) {
        waiting += was == kNotFiled;
        return true;
      }
    }
  }
  /// `shared` as for claimExact.
  template <bool shared>
  void releaseSlot(uint32_t v, double key, int64_t &waiting) {
    const int32_t code = codeOf(key);
    int32_t was = slotOf(v);
    for (;;) {
      if (was == kNotFiled || was == code || (exact(was) && was < code))
        return;
      if constexpr (!shared) {
        setSlot(v, kNotFiled);
        --waiting;
        return;
      }
      if (slot[v].compare_exchange_weak(was, kNotFiled,
                                        std::memory_order_relaxed)) {
        --waiting;
        return;
      }
    }
  }
  /// Entries `vertices[0, count)` under `key`, whose slots say so already.
  void pushEntries(double key, const uint32_t *vertices, uint64_t count);
  void adjustQueued(int64_t waiting) { queued += uint64_t(waiting); }

  /// The waiting vertices.
  uint64_t size() const { return queued; }
  /// Takes the vertices of the lowest bucket that holds one (refiling those
  /// whose bucket changed unseen) into `out`, sorted; `out` stays empty
  /// only when no vertex waits. (`out` of the queue's memory resource
  /// trades buffers with it.)
  void takeLowest(std::pmr::vector<uint32_t> &out);
  /// The waiting vertices into `out` (room for size()), sorted.
  void members(uint32_t *out) const;

private:
  /// One thread's share of a take (a cache line apart from the others').
  struct alignas(64) Lane {
    explicit Lane(std::pmr::memory_resource *memory)
        : filed(memory), taken(memory) {}
    /// Vertices refiled (priorities changed unseen), with their keys.
    std::pmr::vector<std::pair<double, uint32_t>> filed;
    /// Vertices taken.
    std::pmr::vector<uint32_t> taken;
  };

  bool inWindow(double key) const {
    return haveWindow && key >= low && key < low + double(kWindow);
  }
  std::pmr::vector<uint32_t> &bucketAt(double key) {
    return ring[uint64_t(int64_t(key)) & (kWindow - 1)];
  }
  void push(uint32_t v, double key);
  /// The bucket entries of `key` go to (an empty ring moves to the first
  /// key it can hold), and whether it is in the ring (`inRing` counts its
  /// entries).
  std::pmr::vector<uint32_t> &bucketFor(double key, bool &inRingNow);
  /// file() of `v`, whose bucket is `key`.
  void fileUnder(uint32_t v, double key);
  /// Calls fn(lane, begin, end, shared) over shares of [0, count): on the
  /// pool's threads when there are many (`shared` true), else once on the
  /// caller (false).
  template <typename Fn> void forShares(uint64_t count, Fn fn);
  /// Takes or refiles the entries taking[begin, end) of bucket `key` into
  /// `lane`; `shared`: other threads claim entries of the bucket too.
  template <bool shared>
  void takeEntries(Lane &lane, double key, uint64_t begin, uint64_t end);
  /// Pushes the lanes' refiled entries into the buckets; empties them.
  void mergeLanes();
  /// The taken vertices of the lanes into `out`, sorted.
  void gatherTaken(std::pmr::vector<uint32_t> &out);
  /// A key as a slot holds it: itself when an int32 holds it exactly,
  /// else kBelow or kAbove (several keys under one code: a vertex may then
  /// wait under a key other than its slot says, which the take's test of
  /// its priority catches, as for a priority changed unseen).
  static int32_t codeOf(double key) {
    if (key <= double(kBelow))
      return kBelow;
    if (key >= double(kAbove))
      return kAbove;
    return int32_t(key);
  }
  static bool exact(int32_t code) { return code != kBelow && code != kAbove; }
  int32_t slotOf(uint32_t v) const {
    return slot[v].load(std::memory_order_relaxed);
  }
  void setSlot(uint32_t v, int32_t code) {
    slot[v].store(code, std::memory_order_relaxed);
  }

  const void *priority;
  int32_t type;
  double delta;
  uint64_t numVertices;
  AlgoThreadPool *pool;
  /// Slot codes: not waiting; keys below and above an int32's exact range.
  static constexpr int32_t kNotFiled = INT32_MIN;
  static constexpr int32_t kBelow = INT32_MIN + 1;
  static constexpr int32_t kAbove = INT32_MAX;
  /// Per vertex, the code of the key it waits under (4 bytes: half the
  /// cache lines of a double's); kNotFiled: it does not wait. Atomic: two
  /// entries of a vertex in one bucket race to claim it.
  ArenaArray<std::atomic<int32_t>> slot;
  uint64_t queued = 0;
  /// The ring's keys are [low, low + kWindow) (once a first key set it).
  bool haveWindow = false;
  double low = 0;
  std::pmr::vector<std::pmr::vector<uint32_t>> ring;
  uint64_t inRing = 0;
  /// Entries whose key is outside the ring, by key.
  std::pmr::map<double, std::pmr::vector<uint32_t>> far;
  /// A bucket being taken (its buffer reused).
  std::pmr::vector<uint32_t> taking;
  /// Buffers of taken buckets, empty, for the next buckets to fill.
  std::pmr::vector<std::pmr::vector<uint32_t>> spareBuckets;
  /// One lane per thread of the pool (one without).
  std::vector<Lane> lanes;
  /// Sorting a large taken bucket: its vertices' bits (cleared after).
  std::pmr::vector<uint64_t> sortBits;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_ALGO_BUCKETQUEUE_H
