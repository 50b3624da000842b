//===- LevelProof.h - Level-synchronous writes of graph loops ---*- C++ -*-===//
//
// What graph-check-parallel-writes and graph-uniform-source-reads share:
// which binder a value is, whether a value is fixed for a loop, and the
// proof of the level-synchronous rule (Passes.td,
// graph-check-parallel-writes): BFS's `where p[dst] == K { p[dst] =
// E(p[src]) }` over a frontier whose vertices provably share one value of
// `p` that no such loop writes again.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_GRAPH_TRANSFORMS_LEVELPROOF_H
#define SLUICE_DIALECTS_GRAPH_TRANSFORMS_LEVELPROOF_H

#include "dialects/Graph/IR/GraphOps.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace sluice::graph {

/// The binder `v` is in `loop` (0: the vertex of a vertices loop or the
/// source, 1: the destination, 2: the weight), if it is one.
std::optional<unsigned> binderOf(mlir::Value v, mlir::Operation *loop);

/// An op whose result depends on its operands only.
bool isPureLeaf(mlir::Operation *op);

/// Whether `v` has the same value in every iteration of `loop`: defined
/// outside it, or computed from such values by pure ops.
bool isFixed(mlir::Value v, mlir::Operation *loop);

/// Whether two values are the same: one value, equal constants, or the same
/// pure op of the same operands (two `graph.vertex_of %source`).
bool sameValue(mlir::Value a, mlir::Value b);

/// The level-synchronous shape of an edges loop in property `p`: `where
/// p[dst] == K`, one write `p[dst] = E` with E from fixed values and
/// `p[src]`, and no other write.
struct LevelShape {
  PropGetOp guard;   ///< the read of p[dst] in `where`
  mlir::Value bound; ///< K
  PropSetOp write;
};

/// Whether `v` is computed from values fixed for the loop and reads of `p`
/// at the source only.
bool fromFixedAndSource(mlir::Value v, llvm::StringRef p,
                        mlir::Operation *loop);

/// The shape of `edges` in `p`, if it has it. With `others`, the loop may
/// also write other properties (to tell the user that those are what
/// spoils the shape).
std::optional<LevelShape> levelShape(EdgesOp edges, llvm::StringRef p,
                                     bool others = false);

/// The op directly in the algorithm's body that holds `op`.
mlir::Operation *topLevel(mlir::Operation *op, AlgorithmOp algo);

/// Proves the level-synchronous rule for one loop and property.
class LevelProof {
public:
  LevelProof(AlgorithmOp algo, llvm::StringRef p, mlir::Value bound,
             mlir::Operation *top)
      : algo(algo), p(p), bound(bound), top(top) {}

  /// Every write of `p` in the algorithm is a level-synchronous loop with
  /// the same K, or lies outside `top` (before it: the writes a frontier of
  /// one vertex may rely on are checked by uniformFrontier; after it: they
  /// run after every round).
  bool writesAgree();

  /// Every vertex of frontier `f` has one value of `p`, not K, that no
  /// level-synchronous loop writes again.
  bool uniformFrontier(mlir::Value f);

private:
  /// Before `top`, `p[x]` was set to a constant other than K, and every
  /// later write of `p` before `top` is a plain write (in the algorithm's
  /// body) of such a constant.
  bool vertexSetBefore(mlir::Value x);

  AlgorithmOp algo;
  llvm::StringRef p;
  mlir::Value bound;
  mlir::Operation *top;
  llvm::SmallPtrSet<void *, 8> visited;
};

} // namespace sluice::graph

#endif // SLUICE_DIALECTS_GRAPH_TRANSFORMS_LEVELPROOF_H
