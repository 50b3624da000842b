//===- GraphBuilder.h - From edge lists to sorted CSR ----------*- C++ -*-===//
//
// Every in-memory graph goes through the same two steps:
//
//   EdgeCollector   edges one by one, as parsed: counts and drops self
//                   loops, renumbers ids (compact ids) or tracks the largest
//                   id, keeps ids asked for without an edge, and stores the
//                   edges in flat arrays (8 bytes per edge, +4 with
//                   weights, +4 with edge labels);
//   buildCsr        counting sort by source (adding reverse edges for
//                   undirected graphs), a stable sort of each adjacency by
//                   target, duplicates kept, merged (first copy wins) or
//                   summed, the load statistics, and the per-vertex weight
//                   aggregates.
//
// Before: edges in input order, ids < numVertices. After: a graph whose
// adjacency lists are sorted, with properties NO_DUPLICATES/NO_SELF_LOOPS
// set from what the final arrays hold and loadStats from what was read.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GRAPHBUILDER_H
#define SLUICE_RUNTIME_SRC_GRAPHBUILDER_H

#include "runtime/src/GraphImpl.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sluice::rt {

class Progress;

/// Edges in input order, with ids already final (0 .. numVertices-1).
struct EdgeStaging {
  uint64_t numVertices = 0;
  uint32_t idBase = 0;
  std::vector<uint32_t> sources, targets;
  std::vector<float> weights;        // empty when unweighted
  std::vector<int32_t> edgeLabels;   // empty without edge labels
  std::vector<uint64_t> originalIds; // sorted; empty unless compacted
  bool hasWeights = false;
  bool hasEdgeLabels = false;
  bool compacted = false;  // originalIds is the id mapping
  uint64_t inputEdges = 0; // edges added, dropped self loops included
  uint64_t selfLoops = 0;  // of them u -> u, dropped or not
};

/// Collects parsed edges. With compaction, ids are arbitrary 64-bit
/// original ids, renumbered at finish() in increasing order; without, they
/// are vertex ids (already checked to be < kMaxVertices).
///
/// Compaction keeps the ids seen in a bitmap while every id is below
/// kDenseIdLimit (the edges hold the ids themselves; finish() ranks them by
/// the bitmap's prefix counts), and in a hash map of ids once one is not
/// (the ids seen so far move there, numbered in increasing order, and the
/// edges are renumbered to match). Both give the same graph; the bitmap
/// costs an L1/L2 hit per id where the map cost a cache miss (SNAP files
/// number their vertices densely: bench/RESULTS.md, "Loading text").
class EdgeCollector {
public:
  EdgeCollector(bool compactIds, bool dropSelfLoops, bool weights,
                bool edgeLabels);

  /// Ids below this are kept in a bitmap (32 MiB at most).
  static constexpr uint64_t kDenseIdLimit = uint64_t(1) << 28;

  /// Adds u -> v. Returns false when compaction runs out of 32-bit ids
  /// (more than kMaxVertices distinct ids).
  bool add(uint64_t u, uint64_t v, float weight, int32_t label) {
    ++staging.inputEdges;
    if (u == v) {
      ++staging.selfLoops;
      if (dropSelfLoops) {
        noteId(u);
        return true;
      }
    }
    uint32_t su, sv;
    if (compactIds) {
      // Both ends are numbered the same way (a move to the hash map
      // renumbers the edges stored, not an id this call holds).
      if (dense && (u >= kDenseIdLimit || v >= kDenseIdLimit))
        leaveDense();
      // Edge lists are usually grouped by source: remember the last one.
      if (u == lastSource && haveLastSource) {
        su = lastSourceId;
      } else {
        if (!intern(u, su))
          return false;
        lastSource = u;
        lastSourceId = su;
        haveLastSource = true;
      }
      if (!intern(v, sv))
        return false;
    } else {
      noteId(u);
      noteId(v);
      su = static_cast<uint32_t>(u);
      sv = static_cast<uint32_t>(v);
    }
    staging.sources.push_back(su);
    staging.targets.push_back(sv);
    if (staging.hasWeights)
      staging.weights.push_back(weight);
    if (staging.hasEdgeLabels)
      staging.edgeLabels.push_back(label);
    return true;
  }

  /// Room for `edges` more edges (an estimate: more still fit).
  void reserve(uint64_t edges) {
    edges += staging.sources.size();
    staging.sources.reserve(edges);
    staging.targets.reserve(edges);
    if (staging.hasWeights)
      staging.weights.reserve(edges);
    if (staging.hasEdgeLabels)
      staging.edgeLabels.reserve(edges);
  }

  /// Makes `id` a vertex even if no edge names it: an original id with
  /// compaction, a vertex id (< kMaxVertices, checked by the caller)
  /// without. Returns false when compaction runs out of 32-bit ids.
  bool keep(uint64_t id) {
    if (!compactIds) {
      noteId(id);
      return true;
    }
    if (dense && id >= kDenseIdLimit)
      leaveDense();
    uint32_t ignored;
    return intern(id, ignored);
  }

  /// Ends collection. `declaredVertices` (Matrix Market rows) is a lower
  /// bound on numVertices without compaction. With compaction, numVertices
  /// is the number of distinct ids in the kept edges, and the mapping is
  /// dropped when it is the identity (ids idBase .. idBase + n - 1).
  EdgeStaging finish(uint64_t declaredVertices, uint32_t idBase);

private:
  void noteId(uint64_t id) {
    if (!compactIds && id + 1 > idLimit)
      idLimit = id + 1;
  }
  /// While dense, `id` is below kDenseIdLimit (the callers leave the
  /// bitmap first otherwise).
  bool intern(uint64_t id, uint32_t &out) {
    if (!dense)
      return internHashed(id, out);
    if (id / 64 >= present.size())
      present.resize(std::max<size_t>(id / 64 + 1, 2 * present.size()));
    present[id / 64] |= uint64_t(1) << (id % 64);
    out = static_cast<uint32_t>(id);
    return true;
  }
  bool internHashed(uint64_t id, uint32_t &out);
  /// Renumbers the edges (and the remembered source) from the bitmap's
  /// ids to their ranks; the ids, in increasing order. Empties the bitmap.
  std::vector<uint64_t> rankBitmap();
  /// Moves the bitmap's ids into the hash map and renumbers the edges.
  void leaveDense();
  /// finish() of the hash map: ids ranked by sorting.
  void rankHashed();
  void grow();

  bool compactIds, dropSelfLoops;
  uint64_t idLimit = 0; // largest vertex id + 1 (no compaction)
  // Open-addressing map original id -> provisional id (first appearance);
  // value UINT32_MAX marks an empty slot.
  struct Slot {
    uint64_t key;
    uint32_t value;
  };
  std::vector<Slot> slots;
  std::vector<uint64_t> firstSeen; // provisional id -> original id
  // While dense: one bit per id seen; the edges hold the ids.
  bool dense = true;
  std::vector<uint64_t> present;
  uint64_t mask = 0;
  uint64_t lastSource = 0;
  uint32_t lastSourceId = 0;
  bool haveLastSource = false;
  EdgeStaging staging;
};

/// What buildCsr() does with the copies of an edge.
enum class Duplicates {
  Keep,  ///< parallel arcs, in input order
  First, ///< one arc, the first copy's weight and label
  Sum,   ///< one arc, the sum of the copies' weights, the first's label
};

/// The Duplicates a load's or an edge array's flags ask for.
inline Duplicates duplicatesOf(uint32_t flags) {
  if (flags & SLUICE_GRAPH_LOAD_SUM_DUPLICATES)
    return Duplicates::Sum;
  if (flags & SLUICE_GRAPH_LOAD_DEDUPLICATE)
    return Duplicates::First;
  return Duplicates::Keep;
}

/// Options of buildCsr().
struct BuildOptions {
  bool undirected = false;
  Duplicates duplicates = Duplicates::Keep;
};

/// Builds `graph`'s storage from `edges` (consumed: its arrays are freed as
/// soon as they are no longer needed) and binds the views.
void buildCsr(EdgeStaging &edges, const BuildOptions &options,
              Progress *progress, sluice_graph_t &graph);

/// The duplicate edges behind `duplicateArcs` arcs that repeat the one
/// before them in a sorted adjacency, `duplicateLoopArcs` of them self
/// loops (an undirected duplicate u v, u != v, repeats two arcs).
uint64_t duplicateEdges(uint64_t duplicateArcs, uint64_t duplicateLoopArcs,
                        bool undirected);

/// The vertices of `graph` without any arc, in or out.
uint64_t countIsolatedVertices(const sluice_graph_t &graph);

/// Computes the per-vertex aggregates of a weighted graph into
/// graph.storage and binds them. Also used after mapping a binary file.
void computeAggregates(sluice_graph_t &graph, Progress *progress);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_GRAPHBUILDER_H
