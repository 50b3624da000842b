//===- PushBins.cpp - The bins of binned push loops -----------------------===//
//
// Builds the layout of sluice/algo_bins.h from the context's CSR over
// blocks of sources (blocks in parallel): a first pass counts each
// block's out-edges per bin; the counts, summed bin by bin and within a
// bin block by block, give each block its place in every bin, so a
// second pass writes each out-edge's pair (its slot and destination)
// without atomics, and a bin's pairs come by source, ascending. Every
// size is computed, and checked against the memory limit, before anything
// is allocated. Also the context's side: the bins per size (kept with the
// context), `tile: auto`'s choice and the notes.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/PushBins.h"

#include "runtime/src/algo/AlgoInternal.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <new>

using namespace sluice::rt;

bool sluice::rt::pushBinsBytes(uint64_t n, uint64_t m, uint64_t tile,
                               uint64_t sourceBlocks, uint64_t &bytes) {
  const uint64_t bins = n == 0 ? 0 : (n - 1) / tile + 1;
  uint64_t pairs, offsets, counters;
  // A pair: its slot (4), its destination (4) and its value (8).
  return !__builtin_mul_overflow(m, uint64_t(16), &pairs) &&
         !__builtin_mul_overflow(bins + 1, uint64_t(8), &offsets) &&
         !__builtin_mul_overflow(sourceBlocks, bins, &counters) &&
         !__builtin_mul_overflow(counters, uint64_t(8), &counters) &&
         !__builtin_add_overflow(pairs, offsets, &bytes) &&
         !__builtin_add_overflow(bytes, counters, &bytes);
}

bool sluice::rt::buildPushBins(uint64_t n, const uint64_t *outOffsets,
                               const uint32_t *outTargets,
                               const std::vector<uint64_t> &blockStarts,
                               uint64_t tile, uint64_t limit,
                               const ForEach &forEach, PushBins &out,
                               std::string &error) {
  const uint64_t m = outOffsets[n];
  const uint64_t blocks = blockStarts.size() - 1;
  const uint64_t bins = n == 0 ? 0 : (n - 1) / tile + 1;
  uint64_t bytes = 0;
  const std::string what = "the bins of " + std::to_string(tile) +
                           " destinations (" + std::to_string(bins) +
                           " bins, " + std::to_string(m) + " pairs)";
  if (m > kMaxPairs) {
    error = what + ": more than " + std::to_string(kMaxPairs) +
            " pairs, which 32-bit slots cannot index";
    return false;
  }
  if (!pushBinsBytes(n, m, tile, blocks, bytes) || bytes > limit) {
    error = what + " need " +
            (bytes ? bytesText(double(bytes)) : std::string("over 2^64 B")) +
            ", over the " + bytesText(double(limit)) +
            " they may take: they do not fit in memory";
    return false;
  }
  std::vector<uint64_t> counts;
  try {
    counts.assign(blocks * bins, 0);
    out.binPairs.assign(bins + 1, 0);
    out.slots.resize(m);
    out.pairDst.resize(m);
    out.values.resize(m);
  } catch (const std::bad_alloc &) {
    error = what + ": no memory for their " + bytesText(double(bytes));
    return false;
  }
  // Pass 1: each block's out-edges per bin.
  forEach(blocks, [&](uint64_t s) {
    uint64_t *count = counts.data() + s * bins;
    for (uint64_t e = outOffsets[blockStarts[s]];
         e < outOffsets[blockStarts[s + 1]]; ++e)
      ++count[outTargets[e] / tile];
  });
  // Bin-major sums: block s's pairs of bin t start at counts[s * bins + t].
  uint64_t at = 0;
  for (uint64_t t = 0; t < bins; ++t) {
    for (uint64_t s = 0; s < blocks; ++s) {
      const uint64_t c = counts[s * bins + t];
      counts[s * bins + t] = at;
      at += c;
    }
    out.binPairs[t + 1] = at;
  }
  // Pass 2: each out-edge's pair, at its block's next place in its bin.
  forEach(blocks, [&](uint64_t s) {
    uint64_t *next = counts.data() + s * bins;
    for (uint64_t e = outOffsets[blockStarts[s]];
         e < outOffsets[blockStarts[s + 1]]; ++e) {
      const uint32_t dst = outTargets[e];
      const uint64_t k = next[dst / tile]++;
      out.slots[e] = static_cast<uint32_t>(k);
      out.pairDst[k] = dst;
    }
  });
  sluice_algo_bins_t &view = out.view;
  view.tile = tile;
  view.num_bins = bins;
  view.num_pairs = m;
  view.bin_pairs = out.binPairs.data();
  view.slots = out.slots.data();
  view.pair_dst = out.pairDst.data();
  view.values = out.values.data();
  return true;
}

uint64_t sluice::rt::chooseBinTile(uint64_t n, uint64_t destBytes, uint64_t l2,
                                   uint32_t threads, std::string &reason) {
  constexpr uint64_t kMinTile = 256;
  destBytes = std::max<uint64_t>(destBytes, 1);
  const uint64_t budget = std::max<uint64_t>(l2 / 2, 1);
  uint64_t tile = 1;
  while (tile * 2 * destBytes <= budget)
    tile *= 2;
  tile = std::max(tile, kMinTile);
  reason = "bins of " + std::to_string(tile) + " destinations of " +
           std::to_string(destBytes) + " B fill " +
           bytesText(double(tile * destBytes)) + ", at most half the L2 (" +
           bytesText(double(l2)) + ")";
  const uint64_t wanted = 4 * uint64_t(std::max<uint32_t>(threads, 1));
  const uint64_t fitted = tile;
  while (tile > kMinTile && (n + tile - 1) / tile < wanted)
    tile /= 2;
  if (tile != fitted)
    reason += "; halved to " + std::to_string(tile) + " for " +
              std::to_string(wanted) + " bins (4 per thread)";
  return tile;
}

uint64_t sluice::rt::binMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return uint64_t(4) << 30;
  return uint64_t(pages) / 2 * uint64_t(page);
}

namespace sluice::rt {

/// One binned loop of a context.
struct BinLoop {
  std::string name;
  int64_t requested = 0; ///< the schedule's size; 0: auto
  uint64_t tile = 0;     ///< what it runs with
  std::string reason;    ///< auto's
  std::string fellBack;  ///< why it ran with atomics
  uint64_t runs = 0;
};

struct BinState {
  LayoutCache<PushBins> built;
  std::map<std::string, BinLoop> loops;
  std::vector<std::string> order; ///< loops in the order of their first run
  std::vector<std::string> notes;
};

} // namespace sluice::rt

namespace {

BinState &binState(sluice_algo_ctx_t *ctx) {
  if (!ctx->bins)
    ctx->bins = std::make_shared<BinState>();
  return *ctx->bins;
}

/// The bins of `tile` destinations, built on first use; null when they
/// do not fit (s.built.failures says why).
const sluice_algo_bins_t *binsOf(sluice_algo_ctx_t *ctx, BinState &s,
                                 uint64_t tile) {
  PushBins *layout = s.built.get(
      tile, ctx->view.num_vertices, ctx->view.out_offsets, ctx->pool->size(),
      [&](const std::vector<uint64_t> &blocks, PushBins &out,
          std::string &error) {
        return buildPushBins(ctx->view.num_vertices, ctx->view.out_offsets,
                             ctx->view.out_targets, blocks, tile,
                             binMemoryLimit(), poolForEach(ctx), out, error);
      });
  return layout ? &layout->view : nullptr;
}

} // namespace

const sluice_algo_bins_t *sluice_algo_bins_begin(sluice_algo_ctx_t *ctx,
                                                 const char *name, int64_t tile,
                                                 uint64_t dest_bytes) {
  BinState &s = binState(ctx);
  std::string key = name ? name : "";
  auto [it, created] = s.loops.try_emplace(key);
  BinLoop &l = it->second;
  if (created) {
    s.order.push_back(key);
    l.name = key;
    l.requested = tile > 0 ? tile : 0;
    if (tile > 0)
      l.tile = uint64_t(tile);
    else
      l.tile = chooseBinTile(ctx->view.num_vertices, dest_bytes,
                             hostCacheSizes().l2, ctx->pool->size(), l.reason);
  }
  ++l.runs;
  // On a GPU the loop's push variant is the kernel (bins are the CPU's).
  if (ctx->gpu) {
    l.fellBack = "the loop runs on the GPU";
    return nullptr;
  }
  const sluice_algo_bins_t *bins = binsOf(ctx, s, l.tile);
  if (!bins)
    l.fellBack = s.built.failures[l.tile];
  return bins;
}

void sluice_algo_bins_end(sluice_algo_ctx_t *, const char *) {
  // Nothing to release: the bins stay with the context for the next run.
}

const char *sluice_algo_bins_note(sluice_algo_ctx_t *ctx, uint32_t index) {
  BinState &s = binState(ctx);
  if (index >= s.order.size())
    return nullptr;
  s.notes.resize(s.order.size());
  const BinLoop &l = s.loops.at(s.order[index]);
  std::string note = l.name + ": ";
  note += l.requested ? "tile: " + std::to_string(l.requested) + ": "
                      : std::string("tile: auto chose ");
  auto found = s.built.layouts.find(l.tile);
  if (found != s.built.layouts.end()) {
    const sluice_algo_bins_t &v = found->second->view;
    char text[192];
    std::snprintf(text, sizeof(text),
                  "bins of %llu destinations (%llu bins, %llu pairs, %s of "
                  "bins built in %.1f ms)",
                  (unsigned long long)v.tile, (unsigned long long)v.num_bins,
                  (unsigned long long)v.num_pairs,
                  bytesText(double(v.num_pairs) * 16).c_str(),
                  s.built.buildSeconds * 1e3);
    note += text;
  } else {
    note += "bins of " + std::to_string(l.tile) + " destinations";
  }
  note += ", " + std::to_string(l.runs) + " runs";
  if (!l.fellBack.empty())
    note += "; " + l.fellBack + ": ran with atomics";
  if (!l.requested)
    note += "; model: " + l.reason;
  s.notes[index] = std::move(note);
  return s.notes[index].c_str();
}
