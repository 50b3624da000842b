//===- TiledCsc.cpp - The tiled in-edges of tiled pull loops --------------===//
//
// Builds the layout of sluice/algo_tile.h from the context's CSC, block by
// block (blocks in parallel): a first pass counts each block's (destination,
// tile) entries, so every array is sized before it is allocated; a second
// pass counts the block's entries and edges per tile (a counting sort on
// the tile: within a tile the destinations stay ascending) and copies
// each destination's run of sources in that tile to its place. A block's
// edges are the CSC's edges of its destinations, permuted, so they start
// where the CSC's do.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/TiledCsc.h"

#include <algorithm>
#include <atomic>
#include <new>

using namespace sluice::rt;

namespace {

/// fn(t, begin, end) for each run [begin, end) of sources[lo, hi) (sorted)
/// in one tile t: a division per run, not per edge.
template <typename Fn>
void forEachRun(const uint32_t *sources, uint64_t lo, uint64_t hi,
                uint64_t tile, Fn &&fn) {
  uint64_t begin = lo;
  while (begin < hi) {
    const uint64_t t = sources[begin] / tile;
    const uint64_t limit = (t + 1) * tile; // the next tile's first source
    uint64_t end = begin + 1;
    while (end < hi && sources[end] < limit)
      ++end;
    fn(t, begin, end);
    begin = end;
  }
}

} // namespace

std::vector<uint64_t> sluice::rt::destinationBlocks(uint64_t n,
                                                    const uint64_t *inOffsets,
                                                    uint64_t blocks) {
  blocks = std::max<uint64_t>(1, std::min(blocks, std::max<uint64_t>(n, 1)));
  std::vector<uint64_t> starts(blocks + 1, n);
  starts[0] = 0;
  // The cost of vertices [0, v): their in-edges plus one per vertex.
  const uint64_t total = inOffsets[n] + n;
  uint64_t v = 0;
  for (uint64_t b = 1; b < blocks; ++b) {
    const uint64_t target = total / blocks * b + total % blocks * b / blocks;
    while (v < n && inOffsets[v] + v < target)
      ++v;
    starts[b] = v;
  }
  return starts;
}

bool sluice::rt::buildTiledCsc(uint64_t n, const uint64_t *inOffsets,
                               const uint32_t *inSources,
                               const float *inWeights,
                               const std::vector<uint64_t> &blockStarts,
                               uint64_t tile, const ForEach &forEach,
                               TiledCsc &out, std::string &error) {
  const uint64_t m = inOffsets[n];
  const uint64_t blocks = blockStarts.size() - 1;
  const uint64_t tiles = n == 0 ? 0 : (n - 1) / tile + 1;
  // Pass 1: the entries of each block (runs of one tile in a
  // destination's sorted sources).
  std::vector<uint64_t> blockEntries(blocks + 1, 0);
  forEach(blocks, [&](uint64_t b) {
    uint64_t count = 0;
    for (uint64_t v = blockStarts[b]; v < blockStarts[b + 1]; ++v)
      forEachRun(inSources, inOffsets[v], inOffsets[v + 1], tile,
                 [&](uint64_t, uint64_t, uint64_t) { ++count; });
    blockEntries[b + 1] = count;
  });
  for (uint64_t b = 0; b < blocks; ++b)
    blockEntries[b + 1] += blockEntries[b];
  const uint64_t entries = blockEntries[blocks];
  // Entries never outnumber edges; the arrays are sized from counts.
  if (entries > m) {
    error = "tiled in-edges: " + std::to_string(entries) + " entries for " +
            std::to_string(m) + " edges";
    return false;
  }
  try {
    out.blockEntries = std::move(blockEntries);
    out.entryDst.resize(entries);
    out.entryEdges.resize(entries + 1);
    out.sources.resize(m);
    out.weights.resize(inWeights ? m : 0);
  } catch (const std::bad_alloc &) {
    error = "tiled in-edges with tiles of " + std::to_string(tile) +
            " sources do not fit in memory (" + std::to_string(entries) +
            " entries, " + std::to_string(m) + " edges)";
    return false;
  }
  out.entryEdges[entries] = m;
  // Pass 2: per block, a counting sort of its entries by tile (two
  // counters per tile and block being built: like the CSC's offsets).
  std::atomic<bool> outOfMemory{false};
  forEach(blocks, [&](uint64_t b) {
    const uint64_t first = blockStarts[b], last = blockStarts[b + 1];
    std::vector<uint64_t> entryAt, edgeAt;
    try {
      entryAt.assign(tiles + 1, 0);
      edgeAt.assign(tiles + 1, 0);
    } catch (const std::bad_alloc &) {
      outOfMemory = true;
      return;
    }
    for (uint64_t v = first; v < last; ++v)
      forEachRun(inSources, inOffsets[v], inOffsets[v + 1], tile,
                 [&](uint64_t t, uint64_t begin, uint64_t end) {
                   ++entryAt[t + 1];
                   edgeAt[t + 1] += end - begin;
                 });
    entryAt[0] = out.blockEntries[b];
    edgeAt[0] = inOffsets[first];
    for (uint64_t t = 0; t < tiles; ++t) {
      entryAt[t + 1] += entryAt[t];
      edgeAt[t + 1] += edgeAt[t];
    }
    for (uint64_t v = first; v < last; ++v)
      forEachRun(inSources, inOffsets[v], inOffsets[v + 1], tile,
                 [&](uint64_t t, uint64_t begin, uint64_t end) {
                   const uint64_t k = entryAt[t]++;
                   const uint64_t at = edgeAt[t];
                   out.entryDst[k] = static_cast<uint32_t>(v);
                   out.entryEdges[k] = at;
                   std::copy(inSources + begin, inSources + end,
                             out.sources.data() + at);
                   if (inWeights)
                     std::copy(inWeights + begin, inWeights + end,
                               out.weights.data() + at);
                   edgeAt[t] += end - begin;
                 });
  });
  if (outOfMemory) {
    error = "tiled in-edges with tiles of " + std::to_string(tile) +
            " sources: no memory for the counters of " + std::to_string(tiles) +
            " tiles";
    return false;
  }
  sluice_algo_tiled_t &view = out.view;
  view.tile = tile;
  view.num_tiles = tiles;
  view.num_blocks = blocks;
  view.num_entries = entries;
  view.block_entries = out.blockEntries.data();
  view.entry_dst = out.entryDst.data();
  view.entry_edges = out.entryEdges.data();
  view.sources = out.sources.data();
  view.weights = inWeights ? out.weights.data() : nullptr;
  return true;
}
