//===- EdgeSets.h - Hash sets of the neighbours of high-degree vertices ---===//
//
// An O(1) answer to has_edge(u, v) for the vertices u whose adjacency is
// long, where the binary search of sluice_graph_find_edge costs log2(degree)
// dependent loads, most of them cache misses. Second-order walk weights
// (node2vec: "is the candidate a neighbour of the previous vertex?") ask it
// at nearly every step, and on a skewed graph the previous vertex is a hub
// far more often than its share of the vertices (a walk reaches a vertex in
// proportion to its degree). The walk engine builds the sets for a run of a
// second-order kernel and hands kernels a graph view that has them;
// docs/sampling.md ("Neighbour sets of the hubs") gives the memory bound.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_EDGESETS_H
#define SLUICE_RUNTIME_SRC_EDGESETS_H

#include "runtime/src/HugeArray.h"

#include <cstdint>
#include <vector>

namespace sluice::rt {

/// For each vertex of degree kMinDegree or more (largest degree first,
/// while the memory stays within the budget): an open-addressing table of
/// its distinct neighbour ids, 2^k slots of 4 bytes with 2^k the smallest
/// power of two >= 1.5 * degree (load factor at most 2/3), linear probing,
/// multiplicative (Fibonacci) hashing of v, a slot holding v + 1 (ids are
/// below UINT32_MAX) and 0 when empty, so that the slots are zeroed memory
/// fresh from the kernel, on transparent huge pages (rt::HugeArray: a
/// page fault per 2 MiB while building, fewer TLB misses while probing).
/// Duplicate edges are stored once, a self loop as the vertex itself:
/// membership is exactly "some edge u -> v exists".
class EdgeSets {
public:
  /// Below this degree the sorted list is searched (at most 6 probes over
  /// 4 cache lines, which the walk engine prefetches).
  static constexpr uint64_t kMinDegree = 64;

  /// Builds the sets of the graph with `numVertices` vertices and CSR
  /// arrays `offsets`, `targets` (sorted adjacency not required) with
  /// `threads` threads. Vertices are taken by decreasing degree while the
  /// slots stay within `maxBytes`; a vertex that does not fit is left to
  /// the binary search. Replaces any earlier sets.
  void build(uint64_t numVertices, const uint64_t *offsets,
             const uint32_t *targets, uint32_t threads, uint64_t maxBytes);

  /// 1 if u has a set and v is in it, 0 if u has a set and v is not in it,
  /// -1 if u has no set (or is out of range): ask the adjacency list.
  int find(uint32_t u, uint32_t v) const {
    if (u >= where.size()) // also when there are no sets
      return -1;
    uint64_t w = where[u];
    if (w == 0)
      return -1;
    const uint32_t *slots = table.data() + (w >> kShiftBits);
    const uint32_t shift = static_cast<uint32_t>(w & kShiftMask);
    const uint32_t mask = (UINT32_MAX >> shift);
    // v = UINT32_MAX (no vertex) looks for 0 and stops at the first
    // empty slot: not found.
    const uint32_t key = v + 1;
    for (uint32_t s = hash(v) >> shift;; s = (s + 1) & mask) {
      uint32_t held = slots[s];
      if (held == key)
        return held != 0;
      if (held == 0)
        return 0;
    }
  }

  /// The address find(u, v) reads first (a prefetch hint; NULL when u has
  /// no set). Only when !empty() and u is a vertex; the caller prefetches
  /// whereOf(u) first.
  const uint32_t *probeAddress(uint32_t u, uint32_t v) const {
    uint64_t w = where[u];
    if (w == 0)
      return nullptr;
    return table.data() + (w >> kShiftBits) +
           (hash(v) >> static_cast<uint32_t>(w & kShiftMask));
  }
  const uint64_t *whereOf(uint32_t u) const { return where.data() + u; }

  /// Vertices with a set, the edges (arcs) they hold, the bytes of the
  /// slots and of the per-vertex index.
  uint64_t vertices() const { return numSets; }
  uint64_t edges() const { return numEdges; }
  uint64_t bytes() const {
    return table.size() * sizeof(uint32_t) + where.size() * sizeof(uint64_t);
  }
  bool empty() const { return numSets == 0; }

private:
  /// where[u]: (first slot << kShiftBits) | (32 - log2 of the slot count);
  /// 0 when u has no set (a set has at least 128 slots, so the shift is
  /// at most 25 and never 0).
  static constexpr uint32_t kShiftBits = 6;
  static constexpr uint64_t kShiftMask = (1u << kShiftBits) - 1;

  static uint32_t hash(uint32_t v) { return v * 0x9E3779B1u; }

  uint64_t numSets = 0, numEdges = 0;
  std::vector<uint64_t> where;
  /// The slots of every set, set after set (largest first, so each set
  /// starts at a multiple of its size).
  HugeArray<uint32_t> table;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_EDGESETS_H
