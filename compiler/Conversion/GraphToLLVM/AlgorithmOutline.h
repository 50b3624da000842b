//===- AlgorithmOutline.h - The outliner of graph-to-llvm -------*- C++ -*-===//
//
// Internal to graph-to-llvm: the Outliner that turns one graph.algorithm
// into functions (AlgorithmOutline.cpp: the algorithm's function and each
// loop variant's; OutlineLoops.cpp: a loop's schedule, its variants, the
// runtime calls around them and its remark). See AlgorithmOutline.cpp for
// the variants.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_ALGORITHMOUTLINE_H
#define SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_ALGORITHMOUTLINE_H

#include "compiler/Conversion/GraphToLLVM/GraphAbi.h"
#include "compiler/Conversion/GraphToLLVM/GraphLowering.h"
#include "compiler/Conversion/GraphToLLVM/TiledLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <string>

namespace sluice::conversion::outline {

// The outliner is written against MLIR throughout (as the .cpp files of
// this directory are); the directive stays inside this namespace.
using namespace mlir;

/// Whether a pull variant of `loop` leaves a destination's in-edges once
/// its `where` is false: the condition reads the destination only (not the
/// source binder, not the weight), so the body's writes at the owned
/// destination are what can make it false, for good.
bool pullExitsEarly(Operation *loop);

/// Whether a push variant of edges loop `loop` tests its `where` once per
/// source before the source's out-edges, skipping them all when it is
/// false: the condition reads the source only (not the destination binder,
/// not the weight) and cannot fault (no vertex_of, integer / or %: a
/// source without out-edges never tested it before). Each edge still
/// tests it (the body may change it).
bool pushTestsSourceFirst(Operation *loop);

/// The reads `p[src]` at the top level of push edges loop `loop`'s body
/// that its variant reads once per source, before the source's out-edges,
/// instead of once per edge (stores into properties could alias for all
/// LLVM knows, so it reloads them). Legal when the loop builds a result
/// frontier and writes `p` only with `min=` / `max=` at the destination: a
/// value of `p[src]` may then only move one way while src's out-edges
/// run, a change inserts src into the result (it is that write's
/// destination), and the next round relaxes src's out-edges again with
/// the new value; the fixed point (SSSP's distances) is the same. Reads of
/// a property the loop does not write are hoisted too.
SmallVector<graph::PropGetOp> pushSourceReads(Operation *loop);

/// Whether the `where` of push edges loop `loop` holds for a prefix of a
/// source's out-edges sorted by destination: it is one comparison
/// `dst < x` or `dst <= x` (or `x > dst`, `x >= dst`) with x the source, a
/// constant or a value from outside the loop. The edge loop ends at its
/// first false (SortedPush.cpp).
bool pushWhereIsPrefix(Operation *loop);

/// Whether the destination of edges loop `loop` (unweighted) is only
/// compared with vertices and counted with common_neighbors: in a degree
/// order the loop can run over the relabelled graph, each destination as
/// its position there (SortedPush.cpp).
bool destinationOnlyOrdered(Operation *loop);

/// Whether a push variant of `loop` ends a source's out-edges at the first
/// false `where` (pushWhereIsPrefix): in the graph's order, or in a degree
/// order (`ordered`) when it runs over the relabelled graph
/// (destinationOnlyOrdered); over the CSR in a degree order the out-edges
/// are not sorted by the positions its comparisons use.
bool pushEndsEarly(Operation *loop, bool ordered);

/// `PushBins` and `BinsAccumulate`: the two passes of a binned push loop
/// (BinnedPush.h), over sources and over bins. `Coo`: a push over edges
/// (`format: coo`, CooEdges.cpp).
enum class Variant {
  Vertices,
  Push,
  Pull,
  TiledPull,
  PushBins,
  BinsAccumulate,
  Coo
};

/// The variants loop `loop` runs as under schedule `s`: `vertices` for a
/// vertices loop; for an edges loop its direction's (hybrid: push and pull
/// over a frontier, else pull), or `coo` for a push that `format: coo`
/// runs over its edges (cooRefusal). graph-to-llvm builds them, graph-to-gpu
/// a kernel of each.
SmallVector<Variant> loopVariants(Operation *loop, graph::ScheduleAttr s);

/// A property a pull variant combines in `slot` (an alloca of its element
/// type) across a destination's in-edges (PullAccumulators.cpp).
struct PullAccumulator {
  graph::PropertyOp property;
  Value slot;
};

/// The vertices loop right after `pull` (a pull over every vertex) that
/// can run inside it, each iteration after its vertex's in-edges, with the
/// same results (PullApplyFusion.cpp); null otherwise, with `why` said
/// when the next op is a vertices loop. graph-to-llvm and graph-to-gpu
/// both ask it, so the host code and the kernels agree.
graph::VerticesOp pullApplyPartner(graph::EdgesOp pull,
                                   graph::ScheduleAttr schedule,
                                   std::string &why);

/// The properties of `props` that a pull variant of `loop` can accumulate
/// per destination: the loop builds no frontier, and every access to them
/// in its `where` and body is a graph.prop.reduce at the destination
/// binder (nothing reads them, nothing writes them elsewhere).
SmallVector<graph::PropertyOp>
pullAccumulators(Operation *loop, ArrayRef<graph::PropertyOp> props);

/// Replaces each graph.prop.reduce at `v` under `root` into a property of
/// `accumulators` by the same combination on its slot.
void accumulateInSlots(Operation *root, Value v,
                       ArrayRef<PullAccumulator> accumulators);

StringRef variantName(Variant v);

/// The binder of an edges loop's body whose vertex an iteration of variant
/// `v` owns (no atomics there): the destination for a pull, the source for
/// a push; none for a pass over edges (kNoBinder).
inline constexpr unsigned kNoBinder = ~0u;
inline unsigned ownedBinder(Variant v) {
  return v == Variant::Pull ? 1 : v == Variant::Coo ? kNoBinder : 0;
}

/// Whether a buckets loop may hand its frontier's bucket queue on to its
/// result: nothing else reads the frontier, and the loop runs once per
/// value of it (the value is defined in the loop's block, e.g. the
/// `while` body's argument, not captured from around a loop).
inline bool consumesFrontier(graph::EdgesOp edges) {
  Value from = edges.getFrom();
  return from && from.hasOneUse() && from.getParentBlock() == edges->getBlock();
}

/// A field of the view.
Value viewField(OpBuilder &b, Location loc, Value view, ViewField field,
                Type type);

/// buildCountCommon merges two lists in the code when both are shorter
/// than this; longer ones are the runtime's (its C++ loop runs long lists
/// in fewer instructions, and it gallops through a much longer one).
inline constexpr int64_t kInlineMergeBelow = 16;

/// What a push loop knows of u's list when u is its source: its bounds
/// [lo, hi) in the merge's `offsets` (loaded for the out-edges), and
/// whether it holds an element at or above the merge's bound (v is the
/// edge's destination, so in u's list, and common_neighbors_below bounds
/// the merge by min(u, v) <= v).
struct SourceList {
  Value lo, hi;
  bool reachesBound = false;
};

/// The common elements below `bound` (i64; 2^32: all) of the sorted lists
/// of u and v (i32 vertices, or positions of a relabelled graph) in the CSR
/// (`offsets`, `targets`), each paired with at most one equal element of
/// the other list, as the runtime's sluice_algo_count_common counts them:
/// a merge in the code at b when both lists are shorter than
/// kInlineMergeBelow, else that call (InlineMerge.cpp). With `uList`, u's
/// bounds are not loaded again, and when it reaches the bound the walk
/// along u's list tests neither its end nor its last element.
Value buildCountCommon(OpBuilder &b, Location loc, ModuleOp module,
                       Value offsets, Value targets, Value u, Value v,
                       Value bound,
                       std::optional<SourceList> uList = std::nullopt);
/// The bound of common_neighbors(u, v) (`below`: min(u, v)) for
/// buildCountCommon.
Value countBound(OpBuilder &b, Location loc, bool below, Value u, Value v);

/// Turns one algorithm into functions.
class Outliner {
public:
  Outliner(graph::AlgorithmOp algo, AlgoLowering &state, bool remarks)
      : algo(algo), module(algo->getParentOfType<ModuleOp>()), state(state),
        remarks(remarks), ptr(LLVM::LLVMPointerType::get(algo.getContext())) {}

  LogicalResult run();

private:
  /// A function's entry: its property bases, view and view fields, and
  /// with `readsIds` (it has an `id()`) on the CPU the context's ids.
  FunctionInfo prologue(OpBuilder &b, Location loc, Value ctx, Value props,
                        bool readsIds);
  LogicalResult lowerLoop(Operation *loop, int64_t index);
  /// A located error at `loc` (`what` cannot be compiled, `fix`) when
  /// function `name` would take a runtime function's name or one already
  /// in the module (another algorithm's).
  LogicalResult claimName(StringRef name, Location loc, const std::string &what,
                          StringRef fix);
  /// `lanes`: the `_lanes` copy of a push or pull variant
  /// (AlgoLowering::edgeLanes).
  LLVM::LLVMFuncOp buildVariant(Operation *loop, StringRef name, Variant v,
                                ArrayRef<Value> captured, bool parallel,
                                bool lanes = false);
  /// The in-edges of destination v in a pull variant's `_lanes` copy
  /// (EdgeLanes.cpp): `inEdgeLoop` builds the loop over this lane's
  /// in-edges, `atEdge` the body at one; each reduction combines in a slot
  /// from its identity (the slots allocated before `outer`), the warp's
  /// partials combine, lane 0 reduces the totals into v.
  /// The body of `_push_bins` at source index `i` (BinnedPush.cpp):
  /// each out-edge's value stored at its slot of the bins (`fn`'s
  /// environment, EnvSlot::Bins).
  void emitPushBins(OpBuilder &b, Location loc, Operation *loop, Value i,
                    FunctionInfo &info, LLVM::LLVMFuncOp fn, IRMapping &map,
                    bool weighted);
  /// The body of `_coo` over edges [begin, end) (CooEdges.cpp): each
  /// edge's iteration, the source of `begin` found by a binary search,
  /// the next ones by walking the offsets.
  void emitCooRange(OpBuilder &b, Location loc, Operation *loop, Value begin,
                    Value end, FunctionInfo &info, LLVM::LLVMFuncOp fn,
                    IRMapping &map, bool weighted);
  /// The body of `_bins_accumulate` at bin `i`: its pairs reduced into
  /// their destinations, which the iteration owns.
  void emitBinsAccumulate(OpBuilder &b, Location loc, Operation *loop, Value i,
                          FunctionInfo &info, LLVM::LLVMFuncOp fn);
  void emitPullLanes(OpBuilder &b, Location loc, Operation *loop, Value v,
                     Operation *outer, Value lane,
                     function_ref<void(Value)> atEdge,
                     function_ref<Value()> inEdgeLoop);
  /// The loop's where and body for `binders`; the body's contributions to
  /// the loop's reductions (`identities` where `where` is false).
  /// Makes a copied comparison of two vertices compare their positions in
  /// `ranks` (the version in the degree order: not null at run time).
  void compareRanks(arith::CmpIOp cmp);
  /// Makes the comparisons of vertices and the common_neighbors in a
  /// copied op use positions in the degree order: positionOf's, or loaded
  /// from `ranks` (SortedPush.cpp). The call that replaced `copy`, when it
  /// was a common_neighbors.
  Value atPositions(Operation *copy, Value ctx);
  /// Replaces the graph.common_neighbors in `copy` (a clone of `original`)
  /// by buildCountCommon over mergeOffsets and mergeTargets, mapping
  /// `original`'s result when `copy` itself was one (InlineMerge.cpp).
  void inlineCounts(Operation *copy, IRMapping &map, Operation *original);
  /// sourceList for a count of u's and v's common neighbours (`below`:
  /// under min(u, v)) when u is the edge loop's source; else none.
  std::optional<SourceList> knownList(Value u, Value v, bool below) const;
  Value positionOfVertex(OpBuilder &b, Location loc, Value vertex);
  SmallVector<Value> emitIteration(OpBuilder &b, Location loc, Operation *loop,
                                   ValueRange binders, IRMapping &map,
                                   ValueRange identities = {});
  /// The ops of `region`'s block but its graph.yield, at b, its arguments
  /// mapped to `binders` (as many as there are; the others must be
  /// unused); the yield's values.
  SmallVector<Value> inlineRegion(OpBuilder &b, Region &region,
                                  ValueRange binders, IRMapping &map);
  /// The loop's `where` (which must exist) for `binders`, at b: its i1.
  Value emitCondition(OpBuilder &b, Operation *loop, ValueRange binders,
                      IRMapping &map);
  /// `binned`: the loop is binned (its atomics are the fallback).
  std::string describe(Operation *loop, graph::ScheduleAttr s,
                       ArrayRef<Variant> variants, const TilePlan &tiling,
                       bool binned);
  /// The property whose values order the frontier of `edges` under
  /// `frontier: buckets` (the one it reduces into with min=); a located
  /// error when the loop cannot run so.
  LogicalResult bucketPriority(graph::EdgesOp edges, StringRef what,
                               graph::ScheduleAttr s,
                               graph::PropertyOp &priority);

  graph::AlgorithmOp algo;
  ModuleOp module;
  AlgoLowering &state;
  bool remarks;
  Type ptr;
  /// While a loop scheduled `order: degree | auto` is built: whether it is,
  /// and in its push variant's version in the degree order the vertices'
  /// positions in it, which its comparisons of vertices compare instead.
  bool ordered = false;
  /// While a loop with `ordered` is built: whether this version of it runs
  /// in the degree order (the launch runs it when the runtime's ranks are
  /// not null; the other version runs in the graph's order). Neither tests
  /// the ranks or the list per vertex.
  bool relabelled = false;
  Value ranks;
  /// While a push over a `frontier: buckets` frontier is built: whether
  /// its inserts go into the threads' bins of their buckets
  /// (AlgoLowering::bucketBins).
  bool bucketBins = false;
  /// While a pull loop is built: the vertices loop fused into it (run at
  /// each destination after its in-edges), or null; and the loops fused
  /// into the loop before them, which are not lowered on their own.
  graph::VerticesOp fusedApply;
  llvm::SmallPtrSet<Operation *, 4> fusedAway;
  /// In a push over the relabelled graph: the positions of the source and
  /// destination binders (atPositions), and the context for its calls.
  llvm::DenseMap<Value, Value> positionOf;
  Value positionsCtx;
  /// In a CPU push variant (AlgoLowering::inlineMerges) whose copied ops
  /// see the graph those arrays hold (the relabelled graph with
  /// positions, or the CSR with no ranks in play): common_neighbors merges
  /// over them inline (InlineMerge.cpp); null otherwise.
  Value mergeOffsets, mergeTargets;
  /// In such a variant, the edge loop's source (its vertex, or its
  /// position over the relabelled graph), destination and the source's
  /// list: a count of the source's and destination's common neighbours
  /// merges with what the loop knows of that list.
  Value edgeSource, edgeDestination;
  SourceList sourceList;
  /// Body ops already emitted before the edge loop (pushSourceReads):
  /// inlineRegion maps them, it does not clone them again.
  llvm::SmallPtrSet<Operation *, 4> hoisted;
  SmallVector<graph::PropertyOp> props;
  LLVM::LLVMFuncOp main;
  Value mainProps;
};

} // namespace sluice::conversion::outline

#endif // SLUICE_COMPILER_CONVERSION_GRAPHTOLLVM_ALGORITHMOUTLINE_H
