//===- BinaryCsr.h - Sluice's binary CSR file format -----------*- C++ -*-===//
//
// Layout (little-endian; docs/runtime.md has the table):
//
//   [0, 128)   header: magic "SLUICSR\0", version, header size, flags,
//              vertex and edge counts, file size, one byte offset per
//              section (0 = absent), id base, CRC-32 of the header
//   sections   each starts at a multiple of 64 bytes, zero padding between:
//              offsets        (n + 1) x u64
//              targets        m x u32, sorted within each vertex
//              weights        m x f32               (flag WEIGHTS)
//              vertex labels  n x i32               (flag VERTEX_LABELS)
//              edge labels    m x i32               (flag EDGE_LABELS)
//              original ids   n x u64, increasing   (flag ORIGINAL_IDS)
//
// Loading maps the file read-only and points the graph's arrays into the
// mapping; one validating pass checks every invariant the queries rely on
// (so a corrupt file is an error, never a crash) and computes the weight
// aggregates.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_BINARYCSR_H
#define SLUICE_RUNTIME_SRC_BINARYCSR_H

#include "runtime/src/GraphImpl.h"

#include <cstdint>
#include <memory>
#include <string>

namespace sluice::rt {

class Progress;

namespace binary {
constexpr char kMagic[8] = {'S', 'L', 'U', 'I', 'C', 'S', 'R', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kHeaderBytes = 128;
constexpr uint64_t kSectionAlignment = 64;

// Header field offsets.
constexpr size_t kAtMagic = 0, kAtVersion = 8, kAtHeaderBytes = 12,
                 kAtFlags = 16, kAtVertices = 24, kAtEdges = 32,
                 kAtFileBytes = 40, kAtSections = 48, kAtIdBase = 96,
                 kAtChecksum = 100, kAtReserved = 104;

// Flags.
constexpr uint64_t kFlagDirected = 1u << 0;
constexpr uint64_t kFlagWeights = 1u << 1;
constexpr uint64_t kFlagVertexLabels = 1u << 2;
constexpr uint64_t kFlagEdgeLabels = 1u << 3;
constexpr uint64_t kFlagOriginalIds = 1u << 4;
constexpr uint64_t kKnownFlags = (1u << 5) - 1;

/// Sections in file order; kAtSections + 8 * index holds each offset.
enum Section : unsigned {
  Offsets,
  Targets,
  Weights,
  VertexLabels,
  EdgeLabels,
  OriginalIds,
  NumSections
};
} // namespace binary

/// Does `path` start with the binary CSR magic?
bool hasBinaryMagic(const std::string &path);

/// Maps and validates a binary CSR file.
sluice_status_t loadBinaryCsr(const std::string &path, Progress &progress,
                              std::unique_ptr<sluice_graph_t> &graph,
                              sluice_error_t *error);

/// Writes `graph` atomically (AtomicFile).
sluice_status_t writeBinaryCsr(const sluice_graph_t &graph,
                               const std::string &path, sluice_error_t *error);

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_BINARYCSR_H
