//===- TiledCsc.h - Tiled in-edges and the choice of a tile size -*- C++
//-*-===//
//
// The pieces of sluice/algo_tile.h that do not need a context, so they can
// be tested on their own: the destination blocks, the tiled CSC built from
// a CSC (TiledCsc.cpp), and the model of `tile: auto` (TileChoice.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALGO_TILEDCSC_H
#define SLUICE_RUNTIME_SRC_ALGO_TILEDCSC_H

#include "sluice/algo_tile.h"

#include "runtime/src/HugeArray.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sluice::rt {

/// A tiled CSC and the arrays its view points into (the large ones on
/// huge pages: written once, by the threads that build them).
struct TiledCsc {
  sluice_algo_tiled_t view{};
  std::vector<uint64_t> blockEntries;
  HugeArray<uint64_t> entryEdges;
  HugeArray<uint32_t> entryDst, sources;
  HugeArray<float> weights;
};

/// Runs fn(i) for every i in [0, count), in any order and on any threads.
using ForEach =
    std::function<void(uint64_t count, const std::function<void(uint64_t)> &)>;
/// A ForEach on the threads of `ctx`'s pool, each taking the next i
/// (TileChoice.cpp): what the layouts of a context are built with.
ForEach poolForEach(sluice_algo_ctx_t *ctx);

/// The first vertex of each of `blocks` destination blocks and then n:
/// blocks of about equal in-edges plus vertices (some may be empty).
std::vector<uint64_t> destinationBlocks(uint64_t n, const uint64_t *inOffsets,
                                        uint64_t blocks);

/// A context's layouts of one kind (tiled CSCs, push bins) by tile size,
/// each built once over the same destination blocks; a size whose build
/// failed is not tried again.
template <typename Layout> struct LayoutCache {
  std::map<uint64_t, std::unique_ptr<Layout>> layouts;
  std::map<uint64_t, std::string> failures; ///< why a size has none
  double buildSeconds = 0;                  ///< building every layout so far
  std::vector<uint64_t> blockStarts;

  /// The layout of `tile`, built on first use by `build(blockStarts,
  /// layout, error)` (the blocks: destinationBlocks over `offsets`, four
  /// per thread); null when that failed.
  template <typename Build>
  Layout *get(uint64_t tile, uint64_t n, const uint64_t *offsets,
              uint32_t threads, Build &&build) {
    if (auto found = layouts.find(tile); found != layouts.end())
      return found->second.get();
    if (failures.count(tile))
      return nullptr;
    if (blockStarts.empty())
      blockStarts = destinationBlocks(n, offsets, 4 * uint64_t(threads));
    auto layout = std::make_unique<Layout>();
    std::string error;
    const auto start = std::chrono::steady_clock::now();
    if (!build(blockStarts, *layout, error)) {
      failures[tile] = error;
      return nullptr;
    }
    buildSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return layouts.emplace(tile, std::move(layout)).first->second.get();
  }
};

/// Builds the tiled CSC of the CSC (`inOffsets`, `inSources`, `inWeights`
/// or null; sources sorted per destination) with tiles of `tile` (> 0)
/// sources over the destination blocks `blockStarts`. False, with `error`
/// set, when it does not fit in memory.
bool buildTiledCsc(uint64_t n, const uint64_t *inOffsets,
                   const uint32_t *inSources, const float *inWeights,
                   const std::vector<uint64_t> &blockStarts, uint64_t tile,
                   const ForEach &forEach, TiledCsc &out, std::string &error);

/// The caches `tile: auto` sizes tiles for: the per-core L2 and the last
/// level (0: unknown), and where the sizes came from.
struct CacheSizes {
  uint64_t l2 = 0, l3 = 0;
  std::string source;
};
/// sysconf(_SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE), else
/// /sys/devices/system/cpu/cpu0/cache, else 1 MiB of L2 (assumed).
CacheSizes hostCacheSizes();

/// What the model of `tile: auto` says: the sizes worth running (0:
/// untiled), best guess first; one when it is sure, several to time.
struct TileModel {
  std::vector<uint64_t> candidates;
  std::string reason;
  /// A read within the L2, ns (the read probe's; 0: not probed): what the
  /// loop's first untiled runs are compared with (settleByUntiledRuns).
  double l2ReadNs = 0;
};
/// The model for a loop reading `sourceBytes` per source vertex on a graph
/// of `n` vertices with in-edges `inOffsets`.
TileModel modelTile(uint64_t n, const uint64_t *inOffsets, uint64_t sourceBytes,
                    const CacheSizes &caches);

/// What `probeRandomReads` measured: random reads summed in a double, as
/// an untiled pull loop sums its sources' data, over `bytes` of memory and
/// over `smallBytes` of it (a quarter of the L2), the fastest of
/// kReadProbeRounds runs of each.
struct ReadProbe {
  uint64_t bytes = 0, smallBytes = 0;
  double nsPerRead = 0, nsPerSmallRead = 0;
  double seconds = 0; ///< the probe's own time (wall)
  /// nsPerRead / nsPerSmallRead: how much slower a read of the source
  /// data is than one that hits the L2; 0 when nothing was read.
  double ratio() const {
    return nsPerSmallRead > 0 ? nsPerRead / nsPerSmallRead : 0.0;
  }
};
/// Reads per run of the probe and runs of each block (alternating).
constexpr uint64_t kReadProbeReads = 1 << 16;
constexpr int kReadProbeRounds = 8;
/// The largest footprint the probe reads (source data beyond it reads
/// alike).
constexpr uint64_t kReadProbeMaxBytes = uint64_t(256) << 20;
/// Times random reads over the first `bytes` (at most kReadProbeMaxBytes)
/// of `region` (`regionWords` 4-byte words of memory already in use: fresh
/// pages would time their faults, which cost 10-40 us each on a VM) and
/// over its first L2 / 4 bytes, on the calling thread by its CPU time.
/// Nothing is read (ratio() 0) when the region is smaller than `bytes`.
ReadProbe probeRandomReads(const uint32_t *region, uint64_t regionWords,
                           uint64_t bytes, uint64_t l2);
/// Below this ratio the untiled loop's source reads cost about what tiles
/// would make them cost (the data stays in a cache), so `tile: auto` runs
/// untiled without building a layout or timing one.
constexpr double kCachedReadRatio = 3.0;
/// The model `model` (several candidates: unsure) after a read probe:
/// untiled when `probe.ratio()` is below kCachedReadRatio; else timed, with
/// untiled first (so that its first runs can settle it before a layout is
/// built: settleByUntiledRuns) and `l2ReadNs` set. The reason says what was
/// measured.
TileModel refineByReads(TileModel model, const ReadProbe &probe);

/// Below this many L2 reads' time per in-edge, untiled runs show that the
/// loop's source reads hit a cache (a skewed graph's hot sources stay there
/// even when uniform reads of its data would not): tiles cannot pay for
/// their layout. On this machine, idle, the faster of the first two
/// untiled runs: kron22 1.2-2.4x, kron20 1.2x (untiled ran 1.3-1.8x
/// faster than any tile size on both); the best untiled runs under load:
/// kron22 2.3-4.3x (where tiles ran 1.8x faster per run); bench/RESULTS.md.
constexpr double kCachedLoopRatio = 3.0;
/// Untiled runs of a timed model before it may settle: the first run is
/// cold (it faults in the pages of properties written for the first time).
constexpr uint64_t kSettleRuns = 2;
/// After the first kSettleRuns runs of a timed model (untiled first):
/// true, with the model settled on untiled and its reason extended, when
/// the fastest took less than kCachedLoopRatio L2 reads per in-edge
/// (`seconds` of CPU over `edges`).
bool settleByUntiledRuns(TileModel &model, double seconds, uint64_t edges);

/// Runs of each candidate `tile: auto` times before it settles.
constexpr uint64_t kProbeRounds = 2;
/// The candidate of a loop's run `runs` (0-based) when the fastest run of
/// each so far took `best` seconds (infinity: not run): the candidates in
/// turn for kProbeRounds rounds, then the fastest.
size_t probeCandidate(uint64_t runs, const std::vector<double> &best);

/// The (destination, tile) pairs with in-edges for tiles of `tile`
/// sources, estimated from the in-degrees as if sources were uniform.
double estimatedEntries(uint64_t n, const uint64_t *inOffsets, uint64_t tile);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_ALGO_TILEDCSC_H
