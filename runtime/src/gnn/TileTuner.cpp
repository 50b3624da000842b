//===- TileTuner.cpp - The tile size of the aggregation kernels -----------===//

#include "runtime/src/gnn/TileTuner.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <unistd.h>

namespace sluice::rt::gnn {

namespace {

constexpr size_t kLineFloats = 16; // a 64-byte cache line of floats

/// "48K", "1024K", "32M" or a plain byte count; 0 when unreadable.
uint64_t parseSize(const std::string &text) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    return 0;
  }
  const std::string unit = text.substr(used, 1);
  if (unit == "K")
    return v << 10;
  if (unit == "M")
    return v << 20;
  if (unit == "G")
    return v << 30;
  return v;
}

std::string readLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

CacheSizes readCacheSizes() {
  CacheSizes c;
  for (unsigned i = 0; i < 8; ++i) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = readLine(dir + "level");
    if (level.empty())
      break;
    const std::string type = readLine(dir + "type");
    if (type != "Data" && type != "Unified")
      continue;
    const uint64_t size = parseSize(readLine(dir + "size"));
    if (level == "1" && !c.l1d)
      c.l1d = size;
    else if (level == "2" && !c.l2)
      c.l2 = size;
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (!c.l1d)
    if (long v = sysconf(_SC_LEVEL1_DCACHE_SIZE); v > 0)
      c.l1d = static_cast<uint64_t>(v);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (!c.l2)
    if (long v = sysconf(_SC_LEVEL2_CACHE_SIZE); v > 0)
      c.l2 = static_cast<uint64_t>(v);
#endif
  if (!c.l1d)
    c.l1d = 32 << 10;
  if (!c.l2)
    c.l2 = 1 << 20;
  return c;
}

TileModel modelTile(const CacheSizes &cache, const AggregateShape &s) {
  TileModel m;
  const double threads = std::max(1u, s.threads);
  m.width =
      s.backward ? static_cast<size_t>(std::ceil(s.width / threads)) : s.width;
  m.width = std::max<size_t>(1, std::min(m.width, s.width));
  m.tile = m.width;
  if (s.numSrc == 0 || s.width == 0)
    return m;
  const double rowsTotal = static_cast<double>(s.numSrc);
  const double reads =
      static_cast<double>(s.numDst + s.edges) / (s.backward ? 1.0 : threads);
  const double distinct = rowsTotal * (1.0 - std::exp(-reads / rowsTotal));
  const double budget = 0.5 * static_cast<double>(cache.l2);
  const double bytes = distinct * static_cast<double>(m.width) * 4.0;
  const double reuse = distinct > 0 ? reads / distinct : 0.0;
  if (bytes <= budget || reuse < 1.25) {
    m.sure = bytes <= 0.5 * budget || reuse < 1.25;
    return m;
  }
  const double fit = budget / (4.0 * distinct);
  size_t tile = static_cast<size_t>(fit) / kLineFloats * kLineFloats;
  tile = std::max(tile, kLineFloats);
  m.tile = std::min(tile, m.width);
  // Rows beyond the L2 may still sit in the last-level cache, whose share
  // per core the machine does not tell reliably (virtual machines report
  // the host's): which tile between the L2 fit and one pass wins is for
  // the probe to find.
  m.sure = false;
  return m;
}

TileTuner::TileTuner(CacheSizes cache, size_t pinned, size_t layers)
    : cache(cache), pinned(pinned), slots(2 * layers) {}

size_t TileTuner::tileFor(size_t layer, const AggregateShape &shape) {
  Slot &s = slots[index(layer, shape.backward)];
  if (!s.started) {
    s.started = true;
    if (pinned) {
      s.model = s.chosen = pinned;
      s.candidates = {pinned};
    } else {
      const TileModel m = modelTile(cache, shape);
      s.model = s.chosen = m.tile;
      s.candidates = {m.tile};
      if (!m.sure) {
        auto add = [&](size_t t) {
          t = std::clamp<size_t>(t, 1, m.width);
          if (std::find(s.candidates.begin(), s.candidates.end(), t) ==
              s.candidates.end())
            s.candidates.push_back(t);
        };
        // The model's tile, half of it, every doubling up to one pass
        // (whole cache lines), and below one pass when the model says it.
        if (size_t half = m.tile / 2 / kLineFloats * kLineFloats; half)
          add(half);
        for (size_t t = 2 * m.tile; t < m.width; t *= 2)
          add(t);
        add(m.width);
        if (size_t quarter = m.width / 4 / kLineFloats * kLineFloats;
            quarter && m.tile == m.width)
          add(quarter);
      }
      s.best.assign(s.candidates.size(), INFINITY);
      s.alive.assign(s.candidates.size(), 1);
      s.probing = s.candidates.size() > 1;
    }
  }
  return s.probing ? s.candidates[s.current] : s.chosen;
}

void TileTuner::record(size_t layer, bool backward, double seconds,
                       double work) {
  totalSeconds += seconds;
  Slot &s = slots[index(layer, backward)];
  if (!s.probing)
    return;
  const double perWork = work > 0 ? seconds / work : seconds;
  s.best[s.current] = std::min(s.best[s.current], perWork);
  ++s.calls;
  size_t next = s.current + 1;
  while (next < s.candidates.size() && !s.alive[next])
    ++next;
  if (next < s.candidates.size()) {
    s.current = next;
    return;
  }
  // The end of a round: keep the fastest candidate and those within
  // kKeepWithin of it.
  size_t bestIndex = 0;
  for (size_t i = 1; i < s.best.size(); ++i)
    if (s.best[i] < s.best[bestIndex])
      bestIndex = i;
  size_t alive = 0;
  for (size_t i = 0; i < s.best.size(); ++i) {
    s.alive[i] = s.alive[i] && s.best[i] <= kKeepWithin * s.best[bestIndex];
    alive += s.alive[i];
  }
  if (++s.round == kProbeRounds || alive <= 1) {
    // The widest tile within kPreferWider of the fastest: fewer passes
    // cost less loop overhead, and a difference that small is within the
    // noise of single calls.
    size_t chosen = bestIndex;
    for (size_t i = 0; i < s.best.size(); ++i)
      if (s.best[i] <= kPreferWider * s.best[bestIndex] &&
          s.candidates[i] > s.candidates[chosen])
        chosen = i;
    s.chosen = s.candidates[chosen];
    s.probing = false;
    return;
  }
  s.current = 0;
  while (!s.alive[s.current])
    ++s.current;
}

} // namespace sluice::rt::gnn
