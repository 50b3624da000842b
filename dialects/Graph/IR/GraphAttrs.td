//===- GraphAttrs.td - Attributes of the graph dialect -----*- tablegen -*-===//
//
// The graph enums as attributes, the schedule of a loop
// (`#graph.schedule<...>`, what the schedule language says about one loop,
// written on each loop by graph-attach-schedule) and of a whole algorithm
// (`#graph.algorithm_schedule<...>`).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_GRAPH_ATTRS
#define SLUICE_GRAPH_ATTRS

include "dialects/Graph/IR/GraphDialect.td"
include "dialects/Graph/IR/GraphEnums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// The enums ops hold directly; the loop-schedule enums (direction, parallel,
// frontier kind, edge format) are parameters of #graph.schedule.
def Graph_ReductionKindAttr
    : EnumAttr<Graph_Dialect, Graph_ReductionKind, "reduction">;
def Graph_TargetAttr : EnumAttr<Graph_Dialect, Graph_Target, "target">;

// An enum parameter that may be absent (struct(params) leaves it out).
class Graph_OptionalEnumParameter<EnumAttrInfo enumInfo>
    : OptionalParameter<"std::optional<" # enumInfo.cppType # ">",
                        enumInfo.summary>;

def Graph_ScheduleAttr : AttrDef<Graph_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "How one loop over vertices or edges runs";
  let description = [{
    The keys of section 12.1 of the language for one loop, each optional:

    - `direction` (edges loops): `push` (iterate over sources and their
      out-edges, updating destinations, atomically where needed), `pull`
      (over destinations and their in-edges, no atomics) or `hybrid` (per
      round, from the size of the frontier: direction-optimising, Beamer's
      rule with `alpha` and `beta`, both > 0: a round pulls once the
      frontier's out-edges pass 1/alpha of the edges not yet scanned, and
      goes back to push once the frontier holds fewer than 1/beta of the
      vertices); `alpha` and `beta` are given with `hybrid` and only with
      it;
    - `parallel`: `serial`, `static` (equal shares per thread) or `dynamic`
      with `chunk`, the vertices handed out at a time (> 0); `chunk` is
      given with `dynamic` and only with it;
    - `tile`: cache tiling, tiles of `N` vertices (> 0) or `auto` (the
      compiler picks the size for the graph and the target); absent: none;
    - `frontier` (edges loops): how the frontiers the loop reads and writes
      are stored, `sparse`, `dense`, `bitmap` or `auto`; or `buckets` with
      `delta` (> 0), the ordered frontier of delta-stepping: each round
      runs the frontier's vertices in its lowest bucket
      floor(priority / delta), the priority being the property the loop
      reduces into with `min=`, and passes the others on to the loop's
      result; `delta` is given with `buckets` and only with it;
    - `format` (edges loops): the edge format iterated over, `csr`, `coo`
      or `auto`;
    - `order` (edges loops; absent: `natural`): the vertex order the loop's
      comparisons of vertices (`v < u`) and `common_neighbors_below` use:
      the graph's (`natural`), by degree, highest first, ties by the graph's
      order (`degree`: the graph relabelled by degree, as GAPBS counts
      triangles), or `auto` (degree when the runtime finds the degrees
      skewed, GAPBS's heuristic). Per-vertex results that depend on the
      order (which vertex of a triangle counts it) change with it; sums do
      not;
    - `fusion` (edges loops with `frontier = buckets`; absent: `auto`):
      `auto` fuses the loop's rounds (GAPBS's bucket fusion: a thread runs
      the vertices it lowers into the round's bucket within the round)
      when graph-to-llvm finds that legal, `off` never does.

    As a request (the algorithm's `loop_defaults` and `label_schedules`,
    written by MLIRGen from the `schedule` declaration) any key may be
    absent. On a loop (written by `graph-attach-schedule`) the schedule is
    complete: `parallel` always, and on an edges loop `direction` (with
    `alpha` and `beta` when it is `hybrid`), `frontier` and `format`; on a vertices loop, which has no edges and no
    frontier, those three are errors.

    Example:

    ```mlir
    #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, frontier = auto, format = csr>
    #graph.schedule<parallel = static>
    #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 2.000000e+00 : f64, format = auto>
    #graph.schedule<direction = push, parallel = dynamic, chunk = 16, frontier = auto, format = auto, order = auto>
    #graph.schedule<direction = hybrid, parallel = static, frontier = auto, format = auto, alpha = 1.500000e+01 : f64, beta = 1.800000e+01 : f64>
    ```
  }];
  let parameters = (ins
      Graph_OptionalEnumParameter<Graph_Direction>:$direction,
      Graph_OptionalEnumParameter<Graph_Parallel>:$parallel,
      OptionalParameter<"std::optional<int64_t>",
                        "vertices per dynamic chunk">:$chunk,
      DefaultValuedParameter<"::sluice::graph::Tile",
                             "::sluice::graph::Tile()",
                             "cache tiling">:$tile,
      Graph_OptionalEnumParameter<Graph_FrontierKind>:$frontier,
      OptionalParameter<"::mlir::FloatAttr",
                        "bucket width of frontier = buckets">:$delta,
      Graph_OptionalEnumParameter<Graph_EdgeFormat>:$format,
      Graph_OptionalEnumParameter<Graph_VertexOrder>:$order,
      OptionalParameter<"::mlir::FloatAttr",
                        "Beamer's alpha of direction = hybrid">:$alpha,
      OptionalParameter<"::mlir::FloatAttr",
                        "Beamer's beta of direction = hybrid">:$beta,
      Graph_OptionalEnumParameter<Graph_Fusion>:$fusion);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether no key is given.
    bool isEmpty() {
      return !getDirection() && !getParallel() && !getChunk() &&
             getTile().isNone() && !getFrontier() && !getDelta() &&
             !getFormat() && !getOrder() && !getAlpha() && !getBeta() &&
             !getFusion();
    }
    /// Beamer's alpha and beta of a hybrid loop: the schedule's, else
    /// kDefaultHybridAlpha/Beta (GraphSchema.h).
    double hybridAlpha();
    /// Whether a `frontier: buckets` loop's rounds may be fused when that
    /// is legal (not `fusion = off`).
    bool fuses() { return getFusion().value_or(Fusion::Auto) != Fusion::Off; }
    double hybridBeta();
    /// The names of the edges-only keys this schedule gives (direction,
    /// frontier, format; then order, which an edges loop may leave out), in
    /// that order.
    ::llvm::SmallVector<::llvm::StringRef> edgesOnlyKeys();
  }];
}

def Graph_AlgorithmScheduleAttr : AttrDef<Graph_Dialect, "AlgorithmSchedule"> {
  let mnemonic = "algorithm_schedule";
  let summary = "Where an algorithm runs: target and threads";
  let description = [{
    Written on a `graph.algorithm` by `graph-attach-schedule` from the
    algorithm's requested `target` and `threads` (`cpu` and 0 when absent):

    - `target`: `cpu` or `gpu`, where the algorithm's kernels run;
    - `threads`: CPU threads (> 0), or 0 for the runtime's default (every
      core).

    Example: `#graph.algorithm_schedule<target = cpu, threads = 16>`.
  }];
  let parameters = (ins
      EnumParameter<Graph_Target>:$target,
      DefaultValuedParameter<"int64_t", "0">:$threads);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SLUICE_GRAPH_ATTRS
