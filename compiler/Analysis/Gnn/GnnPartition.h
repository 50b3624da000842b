//===- GnnPartition.h - Seed-balanced edge-cut partitioning ---*- C++ -*-===//
//
// Splits a graph's vertices (training seeds and feature rows) over the
// servers of a multi-server GNN plan (docs/gnn.md, "Several servers"), over
// a plain CSR (no IR):
//
//  1. Region growing (METIS's graph-growing partitioning, run one part at a
//     time): part p starts at the lowest-numbered unassigned vertex and
//     takes vertices in breadth-first order (over unassigned vertices only,
//     restarting at the next unassigned vertex when its region is
//     exhausted) until it holds its share of the remaining seed weight; the
//     last part takes the rest. A BFS region keeps neighbourhoods together,
//     which is what a sampled mini-batch reads.
//  2. Refinement (Fiduccia-Mattheyses-style greedy boundary moves): in
//     vertex order, a vertex moves to the part holding most of its
//     neighbours when that cuts strictly fewer arcs and keeps both
//     balances within their caps; passes repeat until none moves.
//
// Balance is in training seeds (the work of a synchronous data-parallel
// step): growth leaves every part within a vertex of its share, and
// refinement moves no vertex into a part above (1 + seedImbalance) x the
// mean plus one vertex's weight, nor out of a part below (1 -
// seedImbalance) x the mean minus one vertex's weight. The vertices (feature
// rows) are kept within (1 + vertexImbalance) x the mean plus one by refinement
// (it never moves a vertex into a part at that cap); growth does not balance
// them. Without seed weight the vertices themselves are the weight. Everything
// is in index order: the same input gives the same partition.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_GNN_GNNPARTITION_H
#define SLUICE_COMPILER_ANALYSIS_GNN_GNNPARTITION_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace sluice::gnn {

struct PartitionOptions {
  /// Seed weight a part may hold above the mean, as a share of the mean
  /// (plus the heaviest vertex's weight).
  double seedImbalance = 0.05;
  /// Vertices a part may hold above the mean, as a share (plus one).
  double vertexImbalance = 0.25;
  /// Refinement passes at most.
  unsigned maxPasses = 16;
};

struct GraphPartition {
  unsigned parts = 0;
  std::vector<uint32_t> partOf; ///< per vertex
  std::vector<double> seeds;    ///< per part: seed weight
  std::vector<uint64_t> vertices;
  uint64_t cutArcs = 0;  ///< arcs whose ends lie in different parts
  uint64_t grownCut = 0; ///< the cut after growth, before refinement
  unsigned moves = 0;    ///< refinement moves
  unsigned passes = 0;   ///< refinement passes run
  /// Largest part over the mean (1: perfect), of seeds and of vertices.
  double seedBalance() const;
  double vertexBalance() const;
};

/// Arcs u -> v of the CSR with partOf[u] != partOf[v].
uint64_t countCutArcs(llvm::ArrayRef<uint64_t> offsets,
                      llvm::ArrayRef<uint32_t> targets,
                      llvm::ArrayRef<uint32_t> partOf);

/// Partitions the vertices of the CSR into `parts` (at least 1, at most the
/// vertex count) with seed weights `seedWeight` (per vertex, >= 0; missing
/// entries 0).
GraphPartition partitionGraph(llvm::ArrayRef<uint64_t> offsets,
                              llvm::ArrayRef<uint32_t> targets,
                              llvm::ArrayRef<double> seedWeight, unsigned parts,
                              const PartitionOptions &options = {});

} // namespace sluice::gnn

#endif // SLUICE_COMPILER_ANALYSIS_GNN_GNNPARTITION_H
