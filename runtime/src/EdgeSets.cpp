//===- EdgeSets.cpp - Hash sets of the neighbours of high-degree vertices -===//
//
// See EdgeSets.h and docs/sampling.md ("Neighbour sets of the hubs").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/EdgeSets.h"

#include <algorithm>
#include <system_error>
#include <thread>

namespace sluice::rt {

void EdgeSets::build(uint64_t n, const uint64_t *offsets,
                     const uint32_t *targets, uint32_t threads,
                     uint64_t maxBytes) {
  numSets = numEdges = 0;
  std::vector<uint64_t>().swap(where);
  table.resize(0);
  std::vector<uint32_t> hubs;
  for (uint64_t v = 0; v < n; ++v)
    if (offsets[v + 1] - offsets[v] >= kMinDegree)
      hubs.push_back(static_cast<uint32_t>(v));
  if (hubs.empty() || n * sizeof(uint64_t) >= maxBytes)
    return;
  auto degree = [&](uint32_t v) { return offsets[v + 1] - offsets[v]; };
  std::sort(hubs.begin(), hubs.end(), [&](uint32_t a, uint32_t b) {
    uint64_t da = degree(a), db = degree(b);
    return da != db ? da > db : a < b;
  });
  // Slot ranges, largest degree first, within the budget.
  uint64_t budget = (maxBytes - n * sizeof(uint64_t)) / sizeof(uint32_t);
  std::vector<uint32_t> chosen;
  std::vector<uint64_t> first;
  std::vector<uint32_t> shifts;
  uint64_t slots = 0;
  for (uint32_t v : hubs) {
    uint64_t d = degree(v);
    uint32_t log2Size = 1;
    while ((uint64_t(1) << log2Size) * 2 < 3 * d)
      ++log2Size;
    if (log2Size > 32 || slots + (uint64_t(1) << log2Size) > budget)
      continue;
    chosen.push_back(v);
    first.push_back(slots);
    shifts.push_back(32 - log2Size);
    slots += uint64_t(1) << log2Size;
    numEdges += d;
  }
  if (chosen.empty())
    return;
  numSets = chosen.size();
  where.assign(n, 0);
  table.resize(slots); // zeroed: every slot empty
  for (size_t i = 0; i < chosen.size(); ++i)
    where[chosen[i]] = first[i] << kShiftBits | shifts[i];
  // Degrees fall along the list, so taking every T-th set gives each
  // thread a like share of the work.
  auto fill = [&](uint32_t t, uint32_t numThreads) {
    for (size_t i = t; i < chosen.size(); i += numThreads) {
      uint32_t v = chosen[i];
      uint32_t *s = table.data() + first[i];
      const uint32_t shift = shifts[i];
      const uint32_t mask = UINT32_MAX >> shift;
      for (uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
        uint32_t x = targets[e];
        uint32_t k = hash(x) >> shift;
        while (s[k] != 0 && s[k] != x + 1)
          k = (k + 1) & mask;
        s[k] = x + 1;
      }
    }
  };
  threads = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(threads, chosen.size() / 64)));
  // Thread t fills sets t, t + T, ...; a thread that cannot be started
  // leaves its share to the calling thread.
  std::vector<std::thread> pool;
  uint32_t started = 0;
  for (uint32_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(fill, t, threads);
      ++started;
    } catch (const std::system_error &) {
      break;
    }
  }
  for (uint32_t t = 0; t < threads; ++t)
    if (t == 0 || t > started)
      fill(t, threads);
  for (std::thread &th : pool)
    th.join();
}

} // namespace sluice::rt
