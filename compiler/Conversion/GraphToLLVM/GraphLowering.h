//===- GraphLowering.h - graph-to-llvm's two steps --------------*- C++ -*-===//
//
// graph-to-llvm works in two steps that share what this header declares:
//
//  1. outlineAlgorithm (AlgorithmOutline.cpp): the structure. The
//     algorithm's body moves into its function; every loop over vertices
//     or edges becomes one function per way it runs (GraphAbi.h), with
//     the iteration over vertices, out-edges or in-edges built around a
//     copy of its `where` and body regions, and its place in the algorithm
//     becomes the launch: the loop's environment, the choice of variant
//     (per round for `hybrid` and `frontier: auto`) and
//     sluice_algo_parallel_for. Each function's FunctionInfo records what
//     the op patterns need.
//  2. lowerGraphOps (GraphOpLowering.cpp): conversion patterns for the
//     graph ops left in those functions (properties, frontiers, queries),
//     !graph.frontier becoming !llvm.ptr.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHLOWERING_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHLOWERING_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace sluice::conversion {

/// What the op patterns need to know about the function an op is in.
struct FunctionInfo {
  mlir::Value ctx;                    ///< the sluice_algo_ctx_t *
  mlir::Value view;                   ///< the sluice_algo_view_t *
  llvm::StringMap<mlir::Value> bases; ///< property name -> its values
  mlir::Value numVertices, numEdges;  ///< i64
  mlir::Value outOffsets;             ///< const u64 *
  /// Loop functions: whether iterations run on several threads, the vertex
  /// whose properties one iteration owns (no atomics needed there), the
  /// destination binder, and the frontier the loop builds (null: none).
  bool parallel = false;
  mlir::Value owned, dst, out;
  /// The context's ids (sluice_algo_ids_t: table, or null and the base)
  /// when the function reads them in its own code (AlgoLowering::inlineIds).
  mlir::Value idTable, idBase;
  /// The destination binder of a second copy of the out-edges (a push
  /// variant's, versioned on whether the graph has weights).
  mlir::Value otherDst;
  /// A push over a `frontier: buckets` frontier whose result takes the
  /// bucket queue (AlgoLowering::bucketBins): inserts into `out` go
  /// straight into the thread's bin of the destination's bucket
  /// (sluice_algo_bucket_insert).
  bool bucketInserts = false;
  /// Whether `v` is the destination binder (of either copy).
  bool isDst(mlir::Value v) const { return v && (v == dst || v == otherDst); }
  /// The properties a parallel loop updates with graph.compare_swap: every
  /// access to them is atomic, at the owned vertex too (another
  /// iteration may swap that element).
  llvm::StringSet<> swapped;
  /// A pull variant's direct inserts into `out` (AlgoLowering::
  /// directInserts): its bitmap (sluice_algo_frontier_direct_bits) and two
  /// i64 stack slots, the word being collected and its bits so far, or'ed
  /// into the bitmap when the word changes and when the function returns.
  mlir::Value outBits, accWord, accBits;
};

/// The state of one run of graph-to-llvm.
struct AlgoLowering {
  /// llvm.func (an algorithm's or a loop's) -> what it holds.
  llvm::DenseMap<mlir::Operation *, FunctionInfo> functions;
  /// Whether pull variants set their new frontier's bits themselves, a
  /// word at a time (the CPU), rather than calling
  /// sluice_algo_frontier_insert per vertex (the GPU's device copies,
  /// whose inserts the host replays).
  bool directInserts = false;
  /// Whether parallel push and pull variants whose edges may be split
  /// among a warp's lanes (pushSplitsAcrossLanes, pullSplitsAcrossLanes)
  /// also get a copy `<name>_lanes` taking (ctx, env, begin, end, lane,
  /// lanes) that runs the edges lo + lane, lo + lane + lanes, ... of each
  /// item (the GPU's); a pull copy combines its lanes' partials with
  /// warpCombineFunction's calls and lane 0 reduces the total.
  bool edgeLanes = false;
  /// Whether push variants merge the lists of common_neighbors in their
  /// own code (the CPU's) rather than calling the runtime per edge.
  bool inlineMerges = false;
  /// Whether `id(v)` reads the context's sluice_algo_ids_t in the
  /// function's own code (the CPU's) rather than calling
  /// sluice_algo_original_id per use (the GPU's device copies have their
  /// own).
  bool inlineIds = false;
  /// Whether a weighted push variant tests the graph's weights once per
  /// source and runs its out-edges in one of two copies, with the weights
  /// or with 1.0 (the CPU's; LLVM keeps the test on every edge otherwise).
  bool unswitchWeights = false;
  /// Whether a push over a `frontier: buckets` frontier that hands its
  /// bucket queue on to its result files each relaxed destination straight
  /// into the inserting thread's bin of its bucket
  /// (sluice_algo_bucket_insert, GAPBS's local bins) instead of the result's
  /// bitmap and list, filed into the queue at the seal (the CPU's; the
  /// GPU's inserts are replayed on the host).
  bool bucketBins = false;
};

/// Why push loop `loop` scheduled `format: coo` (`s`) keeps the CSR, or ""
/// when it runs over its edges as coordinates (CooEdges.cpp): a push over
/// every vertex in the graph's order, untiled, writing nothing at its
/// source.
std::string cooRefusal(mlir::Operation *loop, graph::ScheduleAttr s);

/// Whether a push variant of edges loop `loop` may split each source's
/// out-edges among several threads (EdgeLanes.cpp): parallel, in the
/// graph's order, not ended at a sorted prefix, nothing written at the
/// source.
bool pushSplitsAcrossLanes(mlir::Operation *loop);

/// A reduction a pull variant split among a warp's lanes combines across
/// them: the property, how, and its values' type.
struct LaneReduction {
  llvm::StringRef property;
  graph::ReductionKind kind;
  mlir::Type type;
};
/// The reductions of a pull variant of edges loop `loop` that may split
/// each destination's in-edges among a warp's lanes (EdgeLanes.cpp):
/// parallel, in the graph's order, no early exit, every write a +=, min=
/// or max= at the destination, none read there, a sum read nowhere. A
/// failure says why not in `why`.
mlir::FailureOr<llvm::SmallVector<LaneReduction>>
pullLaneReductions(mlir::Operation *loop, std::string &why);
bool pullSplitsAcrossLanes(mlir::Operation *loop);

/// The function `T f(T partial)` that returns the combination (`kind`) of
/// a warp's partials on values of `type` (f64, f32, i64, or a vertex u32):
/// `sluice_algo_warp_<kind>_<type>`, defined on the device by graph-to-gpu
/// (a shuffle butterfly); every lane gets the total.
std::string warpCombineFunction(graph::ReductionKind kind, mlir::Type type);

/// Or's the word `info`'s direct inserts have collected (if any) into the
/// frontier's bitmap.
void flushDirectInserts(mlir::OpBuilder &b, mlir::Location loc,
                        const FunctionInfo &info);

/// `x kind y` for a reduction on f64 or i64 (min and max of f64: minnum
/// and maxnum, as the runtime's fmin and fmax).
mlir::Value combineReduction(mlir::OpBuilder &b, mlir::Location loc,
                             graph::ReductionKind kind, mlir::Value x,
                             mlir::Value y);
/// The identity of add, min or max on `type` (f64, f32, i64, or a vertex:
/// an unsigned i32).
mlir::Value reductionIdentity(mlir::OpBuilder &b, mlir::Location loc,
                              graph::ReductionKind kind, mlir::Type type);

/// Step 1 for `algo` (erased when done); remarks say how each loop runs.
mlir::LogicalResult outlineAlgorithm(graph::AlgorithmOp algo,
                                     AlgoLowering &state, bool remarks);

/// Step 2: every graph op left in `module`'s functions.
mlir::LogicalResult lowerGraphOps(mlir::ModuleOp module,
                                  const AlgoLowering &state);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_GRAPHLOWERING_H
