//===- GraphSchema.h - Words of graph algorithms and schedules --*- C++ -*-===//
//
// The single source of truth for the words an algorithm's reductions and its
// schedule accept (reduction kinds, directions, parallel kinds, frontier
// representations, edge formats, targets), which schedule keys apply to
// edges loops only, the tile of a loop, and the defaults graph-attach-schedule
// gives a loop the schedule says nothing about. Sema checks schedules against
// it; the graph dialect's attributes are these enums. Depends on LLVM Support
// and the enums generated from GraphEnums.td only (no MLIR library is needed
// to link it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_IR_GRAPHSCHEMA_H
#define SLUICE_DIALECTS_GRAPH_IR_GRAPHSCHEMA_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>

// ReductionKind, Direction, Parallel, FrontierKind, EdgeFormat, VertexOrder
// and Target
// with their stringify*/symbolize* functions.
#include "dialects/Graph/IR/GraphEnums.h.inc"

namespace sluice::graph {

/// The spellings of every value of each enum, in declaration order (for
/// Sema's "expected one of" lists).
llvm::ArrayRef<llvm::StringRef> reductionKindNames();
llvm::ArrayRef<llvm::StringRef> directionNames();
llvm::ArrayRef<llvm::StringRef> parallelNames();
llvm::ArrayRef<llvm::StringRef> frontierKindNames();
llvm::ArrayRef<llvm::StringRef> edgeFormatNames();
llvm::ArrayRef<llvm::StringRef> targetNames();
llvm::ArrayRef<llvm::StringRef> vertexOrderNames();
llvm::ArrayRef<llvm::StringRef> fusionNames();

/// The schedule keys of a loop, in the order #graph.schedule prints them.
inline constexpr llvm::StringLiteral kDirectionKey = "direction";
inline constexpr llvm::StringLiteral kParallelKey = "parallel";
inline constexpr llvm::StringLiteral kTileKey = "tile";
inline constexpr llvm::StringLiteral kFrontierKey = "frontier";
inline constexpr llvm::StringLiteral kFormatKey = "format";
inline constexpr llvm::StringLiteral kOrderKey = "order";
inline constexpr llvm::StringLiteral kFusionKey = "fusion";
/// The keys every edges loop's schedule gives (direction, frontier,
/// format), under the label of a vertices loop errors.
llvm::ArrayRef<llvm::StringRef> edgesOnlyScheduleKeys();
/// Those and `order` and `fusion`, which an edges loop may leave out (the
/// graph's order; fused when legal).
bool isEdgesOnlyScheduleKey(llvm::StringRef key);

/// The cache tiling of a loop: none, `auto` (the compiler picks the size for
/// the graph and the target) or tiles of `size` vertices (size > 0).
struct Tile {
  enum class Kind : uint8_t { None, Auto, Size };
  Kind kind = Kind::None;
  int64_t size = 0; ///< for Size

  static Tile none() { return Tile(); }
  static Tile automatic() { return Tile{Kind::Auto, 0}; }
  static Tile of(int64_t size) { return Tile{Kind::Size, size}; }
  bool isNone() const { return kind == Kind::None; }
  bool operator==(const Tile &o) const {
    return kind == o.kind && size == o.size;
  }
  bool operator!=(const Tile &o) const { return !(*this == o); }
  /// "auto", "64" or "none".
  std::string str() const;
};
llvm::hash_code hash_value(const Tile &tile);
/// "auto", "64" or "none".
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Tile &tile);

/// What graph-attach-schedule gives a loop whose schedule (and the
/// algorithm's) says nothing about a key: push over CSR, equal static
/// shares, no tiling, the frontier representation chosen at run time.
inline constexpr Direction kDefaultDirection = Direction::Push;
inline constexpr Parallel kDefaultParallel = Parallel::Static;
inline constexpr FrontierKind kDefaultFrontier = FrontierKind::Auto;
inline constexpr EdgeFormat kDefaultFormat = EdgeFormat::Auto;
inline constexpr Target kDefaultTarget = Target::Cpu;
/// Beamer et al.'s thresholds of a direction-optimising (hybrid) loop when
/// the schedule does not give `hybrid(alpha, beta)`, as in GAPBS: pull once
/// the frontier's out-edges pass 1/alpha of those not yet scanned, push
/// again once the frontier shrinks below 1/beta of the vertices.
inline constexpr double kDefaultHybridAlpha = 15.0;
inline constexpr double kDefaultHybridBeta = 18.0;

} // namespace sluice::graph

#endif // SLUICE_DIALECTS_GRAPH_IR_GRAPHSCHEMA_H
