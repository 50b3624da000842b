//===- TileTuner.h - The tile size of the aggregation kernels ---*- C++ -*-===//
//
// Chooses the columns per tile of each layer's aggregation (Aggregate.h),
// forward and backward separately, as the GCN tiling paper asks: the best
// tile depends on the data, so a fixed one is wrong somewhere.
//
// The model (modelTile) from the cache sizes read at run time, the block's
// shape and the thread count. A pass over one tile touches, per thread,
// the distinct src rows its edges reach, u = S (1 - exp(-a / S)) for `a`
// row reads spread over S src rows (forward: the thread's dst rows and
// their edges, (D + E) / P reads, whole rows of `in`; backward: every
// thread walks all D + E reads over its in / P columns), at `w` floats a
// row (w = in, resp. ceil(in / P)). With the budget half of the L2 cache
// (the rest for the dst rows streamed through and the edge lists):
//
//   - u w 4 <= budget: the untiled rows fit; one pass (tile = w);
//   - reads / u < 1.25: hardly any row is read twice, so there is nothing
//     for a tile to keep in cache; one pass;
//   - else tile = budget / (4 u), in whole cache lines (multiples of 16
//     floats, at least 16), one pass if that reaches w.
//
// The model is sure when the rows fit in half the budget or are hardly
// reused. Otherwise the rows beyond the L2 may still sit in the last-level
// cache, whose share per core is not reliably known (virtual machines
// report the host's), so the tuner probes: the first calls cycle through
// the candidates {model, model / 2, every doubling of the model below one
// pass, one pass, and one pass / 4 when the model says one pass} (whole
// cache lines, distinct, within [1, w]; halves only when at least a line),
// timing each call per (dst + edges) x width, in up to three rounds: after
// each round only the candidates whose fastest call is within 1.5x of the
// fastest one's stay, and the probe ends early when one is left; the
// chosen tile is the widest whose fastest call is within 5% of the
// fastest (fewer passes, and closer than single calls can tell apart). The tile
// never changes the bits of a result (Aggregate.h), only the time, so probing
// is invisible to the numerics.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_TILETUNER_H
#define SLUICE_RUNTIME_SRC_GNN_TILETUNER_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::rt::gnn {

/// Data cache sizes in bytes (0: unknown).
struct CacheSizes {
  uint64_t l1d = 0, l2 = 0;
};

/// The first cpu's L1d and L2 sizes from
/// /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}, else
/// sysconf, else 32 KiB and 1 MiB.
CacheSizes readCacheSizes();

/// The shape of one aggregation call.
struct AggregateShape {
  size_t numSrc = 0, numDst = 0, edges = 0, width = 0;
  unsigned threads = 1;
  bool backward = false;
};

struct TileModel {
  size_t tile = 0;  ///< columns per pass, in [1, passWidth]
  size_t width = 0; ///< the columns one thread walks (one pass)
  bool sure = true;
};

/// The model's tile (above).
TileModel modelTile(const CacheSizes &cache, const AggregateShape &shape);

class TileTuner {
public:
  /// `pinned`: columns per tile for every call (0: the model and the probe).
  TileTuner(CacheSizes cache, size_t pinned, size_t layers);

  /// The tile of the next call of layer `layer`'s aggregation (forward or
  /// backward) on `shape`.
  size_t tileFor(size_t layer, const AggregateShape &shape);
  /// Reports the call's time; `work` is its (dst + edges) x width.
  void record(size_t layer, bool backward, double seconds, double work);

  /// The tile in use now and the model's (0: the slot never ran).
  size_t tile(size_t layer, bool backward) const {
    return slots[index(layer, backward)].chosen;
  }
  size_t modelChoice(size_t layer, bool backward) const {
    return slots[index(layer, backward)].model;
  }
  bool probed(size_t layer, bool backward) const {
    return slots[index(layer, backward)].candidates.size() > 1;
  }
  /// Seconds spent in the aggregation kernels so far.
  double seconds() const { return totalSeconds; }
  const CacheSizes &cacheSizes() const { return cache; }

  static constexpr unsigned kProbeRounds = 3;
  /// After each round the probe keeps the candidates within this factor
  /// of the fastest.
  static constexpr double kKeepWithin = 1.5;
  /// The probe chooses the widest tile within this factor of the fastest.
  static constexpr double kPreferWider = 1.05;
  /// Probe calls recorded for a slot so far.
  size_t probeCalls(size_t layer, bool backward) const {
    return slots[index(layer, backward)].calls;
  }

private:
  struct Slot {
    bool started = false;
    size_t model = 0, chosen = 0;
    std::vector<size_t> candidates;
    std::vector<double> best; ///< seconds per unit of work
    std::vector<char> alive;  ///< still probed
    bool probing = false;
    size_t calls = 0;   ///< probe calls recorded
    size_t round = 0;   ///< probe rounds completed
    size_t current = 0; ///< candidate of the call in flight
  };
  static size_t index(size_t layer, bool backward) {
    return 2 * layer + (backward ? 1 : 0);
  }
  CacheSizes cache;
  size_t pinned;
  std::vector<Slot> slots;
  double totalSeconds = 0.0;
};

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_TILETUNER_H
