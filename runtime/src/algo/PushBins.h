//===- PushBins.h - The bins of binned push loops ---------------*- C++ -*-===//
//
// The pieces of sluice/algo_bins.h that do not need a context, so they can
// be tested on their own: the size of the bins, the choice of `tile: auto`
// and the layout built from a CSR (PushBins.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALGO_PUSHBINS_H
#define SLUICE_RUNTIME_SRC_ALGO_PUSHBINS_H

#include "sluice/algo_bins.h"

#include "runtime/src/HugeArray.h"
#include "runtime/src/algo/TiledCsc.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::rt {

/// The bins of one size and the arrays their view points into (the large
/// ones on huge pages).
struct PushBins {
  sluice_algo_bins_t view{};
  std::vector<uint64_t> binPairs;
  HugeArray<uint32_t> slots;
  HugeArray<uint32_t> pairDst;
  HugeArray<uint64_t> values;
};

/// The most pairs (edges) bins hold: slots are 32 bits.
constexpr uint64_t kMaxPairs = UINT32_MAX;

/// The bytes the bins of a graph of `n` vertices and `m` edges take with
/// bins of `tile` (> 0) destinations, built over `sourceBlocks` blocks of
/// sources (their counters included); false when that overflows 64 bits.
bool pushBinsBytes(uint64_t n, uint64_t m, uint64_t tile, uint64_t sourceBlocks,
                   uint64_t &bytes);

/// Builds the bins of the CSR (`outOffsets`, `outTargets`) with bins of
/// `tile` (> 0) destinations, counting and filling over the source blocks
/// `blockStarts` (first vertex of each, then n) in parallel. Checks the
/// size (pushBinsBytes) against `limit` bytes, and the edges against
/// kMaxPairs, before allocating anything; false, with `error` set, when
/// they do not fit.
bool buildPushBins(uint64_t n, const uint64_t *outOffsets,
                   const uint32_t *outTargets,
                   const std::vector<uint64_t> &blockStarts, uint64_t tile,
                   uint64_t limit, const ForEach &forEach, PushBins &out,
                   std::string &error);

/// `tile: auto`'s bins for `n` destinations of `destBytes` each on
/// `threads` threads with an L2 of `l2` bytes: the largest power of two
/// whose destinations fill at most half the L2, halved while there are
/// fewer than 4 bins per thread and a bin keeps at least 256 destinations.
/// `reason` says so in numbers.
uint64_t chooseBinTile(uint64_t n, uint64_t destBytes, uint64_t l2,
                       uint32_t threads, std::string &reason);

/// The memory the bins may take: half the machine's physical memory
/// (sysconf), or 4 GiB when unknown.
uint64_t binMemoryLimit();

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_ALGO_PUSHBINS_H
