//===- TileChoice.cpp - Tile sizes of tiled pull loops, `tile: auto` ------===//
//
// A context keeps the tiled in-edges per tile size (built on first use) and
// per tiled loop what it ran with. `tile: auto` starts from a model:
//
//  - the source data a loop reads, n * source_bytes, fits in half the L2:
//    untiled (every read hits the cache already);
//  - tiles of T sources fill the L2 (the largest power of two, at least
//    256; PageRank on kron20 ran fastest with tiles of 1 to 4 times the
//    L2, the destination side costing more with smaller tiles, the
//    sources missing with larger ones: bench/RESULTS.md); when the
//    in-degrees say a destination's in-edges from one such tile are fewer
//    than 1.5 on average (uniform sources), the per-entry work outweighs
//    the cache: untiled;
//  - the source data exceeds the last-level cache four times over and
//    segments average 4 edges or more: T;
//  - otherwise the model is unsure (a large or unreliable last level, a
//    sparse graph), and the machine is asked first: random reads over as
//    much of the in-edge array as the source data takes, summed as the
//    loop sums them, against the same reads within a quarter of the L2
//    (a few ms, probeRandomReads). Below kCachedReadRatio the source data stays
//    in a cache where tiles cannot make its reads much cheaper: untiled, with
//    no layout built (on kron20 the layout and the timed runs of the
//    slower candidate cost 1.22x the untiled kernel: bench/RESULTS.md);
//  - else untiled runs first, twice (the first run is cold), and when the
//    faster took less than kCachedLoopRatio L2 reads of CPU per in-edge,
//    its source reads hit a cache after all (a skewed graph's hot sources:
//    uniform reads overstate its misses), so untiled, again with no layout
//    (settleByUntiledRuns);
//  - else untiled and T are timed on the loop's first runs, in
//    turn, twice each (kProbeRounds: a first run is cold, and one sample
//    on a shared machine is noise), and the faster by its fastest run is
//    kept for the runs after. One layout is built, as for a fixed size. A run's
//    time is the process's CPU time (all threads): on a shared machine the wall
//    time of one run also counts the time its threads waited for a core.
//
// Every candidate computes the same values, so the probe costs only time.
//
//===----------------------------------------------------------------------===//
#include "sluice/algo_tile.h"

#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/algo/TiledCsc.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

namespace sluice::rt {

/// One tiled loop of a context.
struct LoopTiling {
  std::string name;
  int64_t requested = 0; ///< the schedule's size; 0: auto
  uint64_t sourceBytes = 0;
  TileModel model;
  std::vector<double> best; ///< fastest run per candidate (seconds)
  uint64_t runs = 0;
  size_t current = 0;   ///< the candidate of the run in progress
  std::string fellBack; ///< why a tiled candidate ran untiled
  double start = 0;     ///< processCpuSeconds() when the run began
};

struct TileState {
  LayoutCache<TiledCsc> built;
  std::map<std::string, LoopTiling> loops;
  std::vector<std::string> order; ///< loops in the order of their first run
  std::vector<std::string> notes;
  CacheSizes caches;
  bool cachesRead = false;
};

} // namespace sluice::rt

using namespace sluice::rt;

namespace {

TileState &state(sluice_algo_ctx_t *ctx) {
  if (!ctx->tiles)
    ctx->tiles = std::make_shared<TileState>();
  return *ctx->tiles;
}

/// A size in /sys's notation ("1024K", "32M").
uint64_t parseCacheSize(const std::string &text) {
  char *end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end && (*end == 'K' || *end == 'k'))
    value *= 1024;
  else if (end && (*end == 'M' || *end == 'm'))
    value *= 1024 * 1024;
  return value;
}

/// The CPU time of the process (every thread): what a probe compares, as
/// it does not count the time the threads wait for a core on a busy
/// machine, only what they spend running (cache misses included).
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

std::string candidateName(uint64_t tile) {
  return tile ? std::to_string(tile) : std::string("untiled");
}

} // namespace

CacheSizes sluice::rt::hostCacheSizes() {
  CacheSizes caches;
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l2 > 0) {
    caches.l2 = static_cast<uint64_t>(l2);
    caches.l3 = l3 > 0 ? static_cast<uint64_t>(l3) : 0;
    caches.source = "sysconf";
    return caches;
  }
#endif
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" +
                      std::to_string(index) + "/";
    std::ifstream levelFile(dir + "level"), typeFile(dir + "type"),
        sizeFile(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(levelFile >> level) || !(typeFile >> type) || !(sizeFile >> size))
      continue;
    if (type == "Instruction")
      continue;
    if (level == 2)
      caches.l2 = parseCacheSize(size);
    else if (level == 3)
      caches.l3 = parseCacheSize(size);
  }
  if (caches.l2) {
    caches.source = "/sys/devices/system/cpu/cpu0/cache";
    return caches;
  }
  caches.l2 = 1 << 20;
  caches.source = "assumed (no cache sizes from sysconf or /sys)";
  return caches;
}

double sluice::rt::estimatedEntries(uint64_t n, const uint64_t *inOffsets,
                                    uint64_t tile) {
  const double tiles = n == 0 ? 0.0 : double((n - 1) / tile + 1);
  if (tiles <= 1.0)
    return double(n); // at most one entry per destination
  // k tiles, d uniform sources: k (1 - (1 - 1/k)^d) distinct tiles. By
  // in-degree (few distinct values on any graph) to spare the pow calls.
  std::map<uint64_t, uint64_t> degrees;
  for (uint64_t v = 0; v < n; ++v)
    ++degrees[inOffsets[v + 1] - inOffsets[v]];
  const double miss = std::log1p(-1.0 / tiles);
  double entries = 0.0;
  for (auto [d, count] : degrees)
    entries += double(count) * tiles * -std::expm1(double(d) * miss);
  return entries;
}

TileModel sluice::rt::modelTile(uint64_t n, const uint64_t *inOffsets,
                                uint64_t sourceBytes,
                                const CacheSizes &caches) {
  TileModel model;
  char text[512];
  const uint64_t m = inOffsets[n];
  if (sourceBytes == 0 || n == 0 || m == 0) {
    model.candidates = {0};
    model.reason = "untiled: the loop reads no source data";
    return model;
  }
  const double data = double(n) * double(sourceBytes);
  if (data <= caches.l2 / 2.0) {
    model.candidates = {0};
    std::snprintf(text, sizeof(text),
                  "untiled: the source data (%s: %llu B x %llu vertices) fits "
                  "in half the L2 (%s)",
                  bytesText(data).c_str(), (unsigned long long)sourceBytes,
                  (unsigned long long)n, bytesText(double(caches.l2)).c_str());
    model.reason = text;
    return model;
  }
  uint64_t t = 256;
  while (t * 2 * sourceBytes <= caches.l2)
    t *= 2;
  const double perEntry = double(m) / estimatedEntries(n, inOffsets, t);
  std::snprintf(text, sizeof(text),
                "source data %s (%llu B x %llu vertices), L2 %s, last level "
                "%s (%s); tiles of %llu fill the L2, ~%.1f edges per "
                "destination and tile",
                bytesText(data).c_str(), (unsigned long long)sourceBytes,
                (unsigned long long)n, bytesText(double(caches.l2)).c_str(),
                caches.l3 ? bytesText(double(caches.l3)).c_str() : "unknown",
                caches.source.c_str(), (unsigned long long)t, perEntry);
  if (perEntry < 1.5) {
    model.candidates = {0};
    model.reason = std::string("untiled: ") + text;
    return model;
  }
  if (caches.l3 && data > 4.0 * double(caches.l3) && perEntry >= 4.0) {
    model.candidates = {t};
    model.reason = std::string("tiled: ") + text;
    return model;
  }
  model.candidates = {t, 0};
  model.reason = std::string("unsure, timed: ") + text;
  return model;
}

namespace {

/// The calling thread's CPU time.
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// kReadProbeReads random indices below `words` (xorshift64 from `x`,
/// Lemire's multiply-shift to the range).
void probeIndices(uint64_t words, uint64_t &x, std::vector<uint32_t> &indices) {
  indices.resize(kReadProbeReads);
  for (uint32_t &index : indices) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    index = uint32_t(((x >> 32) * words) >> 32);
  }
}

/// Seconds of one pass of reads of `region` at `indices`, summed in a
/// double as a pull loop sums its sources' data; the sum goes to `sink`.
double timeReads(const uint32_t *region, const std::vector<uint32_t> &indices,
                 double &sink) {
  double sum = 0.0;
  const double start = threadCpuSeconds();
  for (uint32_t index : indices)
    sum += double(region[index]);
  const double seconds = threadCpuSeconds() - start;
  sink += sum;
  return seconds;
}

} // namespace

ReadProbe sluice::rt::probeRandomReads(const uint32_t *region,
                                       uint64_t regionWords, uint64_t bytes,
                                       uint64_t l2) {
  ReadProbe probe;
  const uint64_t words = std::min(bytes, kReadProbeMaxBytes) / 4;
  if (words == 0 || words > regionWords || !region)
    return probe;
  const uint64_t smallWords =
      std::max<uint64_t>(1, std::min(words, l2 / 4 / 4));
  const auto start = std::chrono::steady_clock::now();
  // Fresh indices every round: a round repeating the last one's would
  // find their lines in the cache whatever the footprint.
  std::vector<uint32_t> large, small;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  double sink = 0.0, bestLarge = std::numeric_limits<double>::infinity(),
         bestSmall = bestLarge;
  for (int round = 0; round < kReadProbeRounds; ++round) {
    probeIndices(smallWords, x, small);
    probeIndices(words, x, large);
    bestSmall = std::min(bestSmall, timeReads(region, small, sink));
    bestLarge = std::min(bestLarge, timeReads(region, large, sink));
  }
  probe.bytes = words * 4;
  probe.smallBytes = smallWords * 4;
  probe.nsPerRead = bestLarge * 1e9 / double(kReadProbeReads);
  probe.nsPerSmallRead = bestSmall * 1e9 / double(kReadProbeReads);
  probe.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  volatile double keep = sink; // the loads must happen
  (void)keep;
  return probe;
}

TileModel sluice::rt::refineByReads(TileModel model, const ReadProbe &probe) {
  if (model.candidates.size() < 2)
    return model;
  if (probe.nsPerSmallRead <= 0) {
    model.reason += "; no read probe (the in-edges take less memory than "
                    "the source data)";
    return model;
  }
  char text[256];
  std::snprintf(text, sizeof(text),
                "; random reads over %s of memory took %.2f ns, %.2fx a "
                "read within %s (%.1f ms to measure)",
                bytesText(double(probe.bytes)).c_str(), probe.nsPerRead,
                probe.ratio(), bytesText(double(probe.smallBytes)).c_str(),
                probe.seconds * 1e3);
  const std::string measured = text;
  // The reason starts "unsure, timed: "; say what decided instead.
  std::string facts = model.reason;
  if (auto colon = facts.find(": "); colon != std::string::npos)
    facts = facts.substr(colon + 2);
  if (probe.ratio() < kCachedReadRatio) {
    model.candidates = {0};
    model.reason =
        "untiled: " + facts + measured + ": the source data stays in a cache";
  } else {
    model.reason = "unsure, timed: " + facts + measured;
    std::stable_partition(model.candidates.begin(), model.candidates.end(),
                          [](uint64_t tile) { return tile == 0; });
    model.l2ReadNs = probe.nsPerSmallRead;
  }
  return model;
}

bool sluice::rt::settleByUntiledRuns(TileModel &model, double seconds,
                                     uint64_t edges) {
  if (model.candidates.size() < 2 || model.candidates.front() != 0 ||
      model.l2ReadNs <= 0 || edges == 0)
    return false;
  const double perEdge = seconds * 1e9 / double(edges);
  char text[192];
  std::snprintf(text, sizeof(text),
                "; the fastest of the first %llu untiled runs took %.2f ns "
                "of CPU an in-edge, %.2fx an L2 read",
                (unsigned long long)kSettleRuns, perEdge,
                perEdge / model.l2ReadNs);
  model.reason += text;
  if (perEdge >= kCachedLoopRatio * model.l2ReadNs)
    return false;
  model.reason += ": its source reads hit a cache, untiled";
  model.candidates = {0};
  return true;
}

size_t sluice::rt::probeCandidate(uint64_t runs,
                                  const std::vector<double> &best) {
  const size_t count = best.size();
  if (count > 1 && runs < kProbeRounds * count)
    return size_t(runs % count);
  return size_t(std::min_element(best.begin(), best.end()) - best.begin());
}

ForEach sluice::rt::poolForEach(sluice_algo_ctx_t *ctx) {
  return [ctx](uint64_t count, const std::function<void(uint64_t)> &fn) {
    std::atomic<uint64_t> next{0};
    ctx->pool->run([&](uint32_t) {
      for (uint64_t i = next++; i < count; i = next++)
        fn(i);
    });
  };
}

const sluice_algo_tiled_t *sluice_algo_tiled_csc(sluice_algo_ctx_t *ctx,
                                                 uint64_t tile) {
  if (tile == 0)
    return nullptr;
  TileState &s = state(ctx);
  TiledCsc *layout = s.built.get(
      tile, ctx->view.num_vertices, ctx->view.in_offsets, ctx->pool->size(),
      [&](const std::vector<uint64_t> &blocks, TiledCsc &out,
          std::string &error) {
        return buildTiledCsc(ctx->view.num_vertices, ctx->view.in_offsets,
                             ctx->view.in_sources, ctx->view.in_weights, blocks,
                             tile, poolForEach(ctx), out, error);
      });
  return layout ? &layout->view : nullptr;
}

const sluice_algo_tiled_t *sluice_algo_tile_begin(sluice_algo_ctx_t *ctx,
                                                  const char *name,
                                                  int64_t tile,
                                                  uint64_t source_bytes) {
  TileState &s = state(ctx);
  std::string key = name ? name : "";
  auto [it, created] = s.loops.try_emplace(key);
  LoopTiling &l = it->second;
  if (created) {
    s.order.push_back(key);
    l.name = key;
    l.requested = tile > 0 ? tile : 0;
    l.sourceBytes = source_bytes;
    if (tile > 0) {
      l.model.candidates = {uint64_t(tile)};
    } else {
      if (!s.cachesRead) {
        s.caches = hostCacheSizes();
        s.cachesRead = true;
      }
      l.model = modelTile(ctx->view.num_vertices, ctx->view.in_offsets,
                          source_bytes, s.caches);
      if (l.model.candidates.size() > 1 && !ctx->gpu)
        l.model = refineByReads(
            l.model, probeRandomReads(ctx->view.in_sources, ctx->view.num_edges,
                                      ctx->view.num_vertices * source_bytes,
                                      s.caches.l2));
    }
    l.best.assign(l.model.candidates.size(),
                  std::numeric_limits<double>::infinity());
  }
  // On a GPU the loop's untiled variant is the kernel (tiling is the
  // CPU's): no layout.
  if (ctx->gpu) {
    l.fellBack = "the loop runs on the GPU";
    l.start = processCpuSeconds();
    return nullptr;
  }
  // A timed model runs untiled first (settleByUntiledRuns), then probes.
  const bool settling = l.model.l2ReadNs > 0 && l.model.candidates.size() > 1;
  if (settling && l.runs < kSettleRuns)
    l.current = 0;
  else
    l.current =
        probeCandidate(settling ? l.runs - kSettleRuns : l.runs, l.best);
  const sluice_algo_tiled_t *layout =
      sluice_algo_tiled_csc(ctx, l.model.candidates[l.current]);
  if (!layout && l.model.candidates[l.current])
    l.fellBack = s.built.failures[l.model.candidates[l.current]];
  l.start = processCpuSeconds();
  return layout;
}

void sluice_algo_tile_end(sluice_algo_ctx_t *ctx, const char *name) {
  TileState &s = state(ctx);
  auto it = s.loops.find(name ? name : "");
  if (it == s.loops.end())
    return;
  LoopTiling &l = it->second;
  double seconds = processCpuSeconds() - l.start;
  l.best[l.current] = std::min(l.best[l.current], seconds);
  ++l.runs;
  if (l.runs == kSettleRuns && l.model.l2ReadNs > 0 && !ctx->gpu &&
      settleByUntiledRuns(l.model, l.best[0], ctx->view.num_edges)) {
    l.best.resize(1);
    l.current = 0;
  }
}

const char *sluice_algo_tile_note(sluice_algo_ctx_t *ctx, uint32_t index) {
  TileState &s = state(ctx);
  if (index >= s.order.size())
    return nullptr;
  s.notes.resize(s.order.size());
  const LoopTiling &l = s.loops.at(s.order[index]);
  std::string note = l.name + ": ";
  const uint64_t chosen = l.model.candidates[l.current];
  const sluice_algo_tiled_t *layout = nullptr;
  if (auto found = s.built.layouts.find(chosen); found != s.built.layouts.end())
    layout = &found->second->view;
  note += l.requested ? "tile: " + std::to_string(l.requested) + ": "
                      : std::string("tile: auto chose ");
  if (layout) {
    char text[160];
    std::snprintf(
        text, sizeof(text),
        "tiles of %llu sources (%llu tiles, %llu destination "
        "blocks, %.1f edges per entry)",
        (unsigned long long)layout->tile, (unsigned long long)layout->num_tiles,
        (unsigned long long)layout->num_blocks,
        layout->num_entries ? double(ctx->view.num_edges) / layout->num_entries
                            : 0.0);
    note += text;
  } else {
    note += "untiled";
  }
  note += ", " + std::to_string(l.runs) + " runs";
  if (!s.built.layouts.empty() &&
      l.model.candidates != std::vector<uint64_t>{0}) {
    char text[96];
    std::snprintf(text, sizeof(text),
                  "; the context's %zu layouts built in %.1f ms",
                  s.built.layouts.size(), s.built.buildSeconds * 1e3);
    note += text;
  }
  if (!l.fellBack.empty())
    note += "; " + l.fellBack + ": ran untiled";
  if (!l.requested) {
    note += "; model: " + l.model.reason;
    if (l.model.candidates.size() > 1) {
      note += "; fastest run of";
      char text[64];
      for (size_t i = 0; i < l.best.size(); ++i) {
        if (std::isinf(l.best[i]))
          std::snprintf(text, sizeof(text), " %s not run",
                        candidateName(l.model.candidates[i]).c_str());
        else
          std::snprintf(text, sizeof(text), " %s %.2f ms CPU",
                        candidateName(l.model.candidates[i]).c_str(),
                        l.best[i] * 1e3);
        note += text;
        if (i + 1 < l.best.size())
          note += ",";
      }
    }
  }
  s.notes[index] = std::move(note);
  return s.notes[index].c_str();
}
