//===- GraphLoadOptions.h - A `load(...)` as sluice_graph_load options -*- C++
//-*-===//
//
// What a graph declaration asks the runtime for, in one place: the walks of
// `sluicec --run` (WalkRun.cpp) and the sampled gather jobs
// (compiler/Pipelines/GatherAccessCounts.cpp) load the same graph from the
// same `load(...)`. Text files are compacted (their ids stay queryable
// while the CSR is dense) but keep the vertices a Matrix Market size line
// declares; duplicates and self loops follow the declaration
// (docs/language.md, section 9).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TARGET_WALK_GRAPHLOADOPTIONS_H
#define SLUICE_COMPILER_TARGET_WALK_GRAPHLOADOPTIONS_H

#include "dialects/Walk/IR/WalkSchema.h"
#include "sluice/graph.h"

#include "llvm/Support/ErrorHandling.h"

namespace sluice::target {

/// The runtime format of `format:` (`edgelist` is read as a SNAP list).
inline sluice_graph_format_t runtimeGraphFormat(walk::GraphFormat format) {
  switch (format) {
  case walk::GraphFormat::Snap:
  case walk::GraphFormat::Edgelist:
    return SLUICE_GRAPH_FORMAT_SNAP;
  case walk::GraphFormat::Mtx:
    return SLUICE_GRAPH_FORMAT_MTX;
  case walk::GraphFormat::MtxBody:
    return SLUICE_GRAPH_FORMAT_MTX_BODY;
  case walk::GraphFormat::Csv:
    return SLUICE_GRAPH_FORMAT_CSV;
  case walk::GraphFormat::Npy:
    return SLUICE_GRAPH_FORMAT_NPY;
  case walk::GraphFormat::Npz:
    return SLUICE_GRAPH_FORMAT_NPZ;
  case walk::GraphFormat::Csr:
    return SLUICE_GRAPH_FORMAT_BINARY;
  }
  llvm_unreachable("unknown graph format");
}

/// The load flags of a declaration: direction, duplicates (merge: the
/// first copy; sum: the weights added up; keep: parallel arcs), self loops,
/// and for text formats compact ids that keep declared vertices.
inline uint32_t runtimeLoadFlags(walk::GraphFormat format, bool undirected,
                                 walk::Duplicates duplicates,
                                 walk::SelfLoops selfLoops) {
  uint32_t flags = undirected ? SLUICE_GRAPH_LOAD_UNDIRECTED : 0;
  switch (duplicates) {
  case walk::Duplicates::Merge:
    flags |= SLUICE_GRAPH_LOAD_DEDUPLICATE;
    break;
  case walk::Duplicates::Sum:
    flags |= SLUICE_GRAPH_LOAD_SUM_DUPLICATES;
    break;
  case walk::Duplicates::Keep:
    break;
  }
  if (selfLoops == walk::SelfLoops::Drop)
    flags |= SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS;
  if (format != walk::GraphFormat::Csr)
    flags |= SLUICE_GRAPH_LOAD_COMPACT_IDS |
             SLUICE_GRAPH_LOAD_KEEP_DECLARED_VERTICES;
  return flags;
}

} // namespace sluice::target

#endif // SLUICE_COMPILER_TARGET_WALK_GRAPHLOADOPTIONS_H
