//===- GraphOps.td - Operations of the graph dialect -------*- tablegen -*-===//
//
// graph.algorithm (with its body), graph.property, the loops graph.vertices
// and graph.edges with graph.yield, the vertex-property accesses, the
// frontier ops and graph.job. The expression ops over the graph (degree,
// weights, labels, ...) are in GraphQueryOps.td.
//
// Every op but graph.job lives in the body of a graph.algorithm (directly,
// in a loop, or nested in scf); the verifiers say so where the parent is not
// fixed by a trait.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_GRAPH_OPS
#define SLUICE_GRAPH_OPS

include "dialects/Graph/IR/GraphAttrs.td"
include "dialects/Graph/IR/GraphDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// CSR vertex ids are i32, as in the walk dialect; i64 values used as
// vertices are ids as written in the graph file (graph.vertex_of).
defvar Graph_Vertex = I32;
// The values a vertex property holds: f64, f32, i64, bool (i1) or a vertex.
defvar Graph_PropValue = AnyTypeOf<[F64, F32, I64, I1, I32]>;

//===----------------------------------------------------------------------===//
// graph.algorithm
//===----------------------------------------------------------------------===//

def Graph_AlgorithmOp : Graph_Op<"algorithm", [
    Symbol, SymbolTable, IsolatedFromAbove, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "A graph algorithm (an `algorithm A(...) on g { ... }`)";
  let description = [{
    An algorithm declaration (docs/language.md, section 11) over the graph
    `graph` (a `walk.graph`: the `graph g = load(...)` declaration walks and
    algorithms share). Its body is one block, run once:

    - the block arguments are the parameters, in declaration order, of
      type `f64`, `i64` or `i1`; `param_names` names them and
      `param_defaults` gives each default (a float, an integer, a bool, or
      `unit` for none);
    - `graph.property` ops (directly in the body) declare the vertex
      properties, symbols of the algorithm; `outputs` lists the ones the
      algorithm returns, each once;
    - the statements: `arith`, `math` and `scf` for locals and control flow
      (`repeat` is an `scf.for`, `while` an `scf.while`, `if` an `scf.if`;
      locals and frontiers a loop changes are its loop-carried values), the
      frontier ops, property accesses and the loops `graph.vertices` and
      `graph.edges`. Loop labels are unique within the algorithm.

    The schedule, as the `schedule` declaration writes it (all optional):
    `target` and `threads` for the whole algorithm, `loop_defaults` (the
    loop keys at its top level, for every loop) and `label_schedules`
    (label -> `#graph.schedule`, for the loop with that label; the label
    must exist, and a vertices loop's schedule sets no edges-only key).
    `graph-attach-schedule` turns them into `schedule`
    (`#graph.algorithm_schedule`) here and a `#graph.schedule` on each loop.

    Example:

    ```mlir
    graph.algorithm @pagerank on @slashdot attributes {
        param_names = ["damping", "iterations"],
        param_defaults = [8.500000e-01, 20], outputs = [@rank],
        threads = 16 : i64,
        label_schedules = {apply = #graph.schedule<parallel = static>}} {
    ^bb0(%damping: f64, %iterations: i64):
      %n = graph.num_vertices : i64
      %one = arith.constant 1.0 : f64
      %nf = arith.sitofp %n : i64 to f64
      %r0 = arith.divf %one, %nf : f64
      graph.property @rank : f64 = %r0
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$graph,
                       StrArrayAttr:$param_names,
                       ArrayAttr:$param_defaults,
                       FlatSymbolRefArrayAttr:$outputs,
                       OptionalAttr<Graph_TargetAttr>:$target,
                       OptionalAttr<I64Attr>:$threads,
                       OptionalAttr<Graph_ScheduleAttr>:$loop_defaults,
                       OptionalAttr<DictionaryAttr>:$label_schedules,
                       OptionalAttr<Graph_AlgorithmScheduleAttr>:$schedule);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `on` $graph attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The index of parameter `name`, or -1.
    int64_t lookupParam(::llvm::StringRef name);
    /// The graph.property `name` of this algorithm, or null.
    PropertyOp lookupProperty(::llvm::StringRef name);
    /// The requested schedule of the loop labelled `label` (from
    /// label_schedules), or null.
    ScheduleAttr getLabelSchedule(::llvm::StringRef label);
  }];
}

//===----------------------------------------------------------------------===//
// graph.property
//===----------------------------------------------------------------------===//

def Graph_PropertyOp : Graph_Op<"property", [
    Symbol, HasParent<"AlgorithmOp">]> {
  let summary = "A vertex property (a `vertex NAME: T = INIT` statement)";
  let description = [{
    Declares the vertex property `sym_name` of the enclosing algorithm: one
    value of the type of `init` (`f64`, `f32`, `i64`, `i1`, or `i32` for a
    vertex)
    per vertex of the graph, each set to `init` where the statement stands.
    Read and written with `graph.prop.get`, `graph.prop.set` and
    `graph.prop.reduce`. Only directly in the body of a `graph.algorithm`.

    Example: `graph.property @depth : i64 = %minus_one`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Graph_PropValue:$init);
  let assemblyFormat = "$sym_name `:` type($init) `=` $init attr-dict";
  let extraClassDeclaration = [{
    /// The type of the property's values.
    ::mlir::Type getElementType() { return getInit().getType(); }
  }];
}

//===----------------------------------------------------------------------===//
// Loops over vertices and edges
//===----------------------------------------------------------------------===//

// The block arguments of a loop's regions print as %v, or %src, %dst, %w.
defvar Graph_LoopArgNames =
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>;

def Graph_VerticesOp : Graph_Op<"vertices", [
    RecursiveMemoryEffects, Graph_LoopArgNames]> {
  let summary = "A loop over every vertex (`[@label] vertices(v) [where C]`)";
  let description = [{
    Runs `body` once for every vertex `v` of the graph (for which the
    optional `where` region yields true), the iterations in parallel: each
    sees the vertex properties as they were when the loop started, except
    through reductions (docs/language.md, section 11.2). Both regions take
    the vertex as their block argument (`^bb0(%v: i32)`); `where` ends in
    `graph.yield %cond : i1`, `body` in `graph.yield`.

    `label` (unique in the algorithm) is what the schedule refers to;
    `schedule`, written by `graph-attach-schedule`, says how the loop runs:
    `parallel` (with `chunk` for `dynamic`) and `tile` only, since a
    vertices loop has no edges and no frontier.

    Loops over vertices and edges do not nest; they stand in the
    algorithm's body or in `scf` ops there.

    Reductions into locals declared before the loop (`change += E`,
    `x min= E`, `x max= E`; docs/language.md, section 11.2): `inits` are
    the locals' values before the loop (`f64` or `i64`) and `reductions`
    says how each combines (`add`, `min` or `max`; `-=` is an `add` of the
    negated value). Each iteration's body yields its contribution to each
    (the identity, 0, +inf or the largest i64, -inf or the smallest i64,
    when it makes none); the results are the inits combined with the
    contributions of every iteration that runs. The combination is
    deterministic: the vertices are split into fixed blocks of 4096, each
    block's contributions are combined in vertex order, then the blocks'
    partials in block order after `inits` (so the results do not depend
    on the number of threads).

    Example:

    ```mlir
    graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %x = graph.prop.get @incoming[%v] : f64
      graph.prop.set @rank[%v] = %x : f64
      graph.yield
    }
    %sum = graph.vertices reduce(%zero : f64) -> f64 attributes {reductions = [#graph<reduction add>]} do {
    ^bb0(%v: i32):
      %r = graph.prop.get @rank[%v] : f64
      graph.yield %r : f64
    }
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[F64, I64]>>:$inits,
                       OptionalAttr<StrAttr>:$label,
                       DefaultValuedAttr<TypedArrayAttrBase<
                           Graph_ReductionKindAttr, "reduction kinds">,
                           "{}">:$reductions,
                       OptionalAttr<Graph_ScheduleAttr>:$schedule);
  let results = (outs Variadic<AnyTypeOf<[F64, I64]>>:$results);
  let regions = (region MaxSizedRegion<1>:$where, SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`label` $label^)? (`reduce` `(` $inits^ `:` type($inits) `)` `->`
    type($results))? attr-dict-with-keyword (`where` $where^)? `do` $body
  }];
  let hasRegionVerifier = 1;
}

def Graph_EdgesOp : Graph_Op<"edges", [
    RecursiveMemoryEffects, Graph_LoopArgNames]> {
  let summary = "A loop over edges (`[@label] [F =] edges(src, dst[, w]) "
                "[from F] [where C]`)";
  let description = [{
    Runs `body` once for every edge `src -> dst` of the graph (with `from`:
    only the out-edges of the vertices of that frontier; with `where`: only
    the edges for which it yields true), the iterations in parallel with the
    meaning of `graph.vertices`. Both regions take the binders as block
    arguments: `^bb0(%src: i32, %dst: i32)`, or with the edge weight
    `^bb0(%src: i32, %dst: i32, %w: f64)`.

    With a result, the loop also returns the frontier of the destinations
    whose vertex properties the body changed (`F = edges ...`).

    `label` and `schedule` as for `graph.vertices`; an edges loop's schedule
    gives every key: `direction`, `parallel` (and `chunk`), `tile`,
    `frontier` and `format`.

    Example (a BFS step):

    ```mlir
    %next = graph.edges from %active label "expand" -> !graph.frontier where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %unseen = arith.cmpi eq, %d, %minus_one : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    ```
  }];
  let arguments = (ins Optional<Graph_FrontierType>:$from,
                       OptionalAttr<StrAttr>:$label,
                       OptionalAttr<Graph_ScheduleAttr>:$schedule);
  let results = (outs Optional<Graph_FrontierType>:$changed);
  let regions = (region MaxSizedRegion<1>:$where, SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`from` $from^)? (`label` $label^)? (`->` type($changed)^)?
    attr-dict-with-keyword (`where` $where^)? `do` $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the binders include the edge weight (three block
    /// arguments).
    bool isWeighted() { return getBody().getNumArguments() == 3; }
  }];
}

def Graph_YieldOp : Graph_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["VerticesOp", "EdgesOp"]>]> {
  let summary = "Ends a region of a loop over vertices or edges";
  let description = [{
    The terminator of the `where` region (one `i1`: whether the iteration
    runs) and of the `body` region of `graph.vertices` and `graph.edges`
    (no values, or a vertices loop's contributions to its reductions).
    Example: `graph.yield %keep : i1`.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Vertex properties
//===----------------------------------------------------------------------===//

// An access to a vertex property of the enclosing algorithm, by symbol.
class Graph_PropOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([
          DeclareOpInterfaceMethods<SymbolUserOpInterface>,
          DeclareOpInterfaceMethods<MemoryEffectsOpInterface>], traits)>;

def Graph_PropGetOp : Graph_PropOp<"prop.get"> {
  let summary = "Reads a vertex property at a vertex (`x[v]`)";
  let description = [{
    The value of property `property` at `vertex`; the result has the
    property's type. Example: `%r = graph.prop.get @rank[%src] : f64`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$property, Graph_Vertex:$vertex);
  let results = (outs Graph_PropValue:$result);
  let assemblyFormat = "$property `[` $vertex `]` attr-dict `:` type($result)";
}

def Graph_PropSetOp : Graph_PropOp<"prop.set"> {
  let summary = "Writes a vertex property at a vertex (`x[v] = E`)";
  let description = [{
    A plain write of `value` (of the property's type) to property
    `property` at `vertex`. Iterations of a loop that write one element
    must write the same value (docs/language.md, section 11.2;
    `graph-check-parallel-writes` checks it).
    Example: `graph.prop.set @depth[%dst] = %d : i64`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$property, Graph_Vertex:$vertex,
                       Graph_PropValue:$value);
  let assemblyFormat =
      "$property `[` $vertex `]` `=` $value attr-dict `:` type($value)";
}

def Graph_PropReduceOp : Graph_PropOp<"prop.reduce"> {
  let summary = "A reduction into a vertex property (`x[v] += E`, ...)";
  let description = [{
    Combines `value` into property `property` at `vertex`: `add` (`+=`),
    `sub` (`-=`), `mul` (`*=`), `min` (`min=`), `max` (`max=`). The
    iterations of a loop may reduce into one element in any order, and
    the result is the reduction of all of them. Reductions apply to `i64`,
    `f64` and `f32` properties, with a value of the property's type (an
    `f32` one combines in f32, atomically where the loop shares the
    element: `atomicrmw` on the 32-bit word); `min` and
    `max` also to vertex (`i32`) properties, in the graph's vertex order
    (unsigned; e.g. the label of a connected component).
    Example: `graph.prop.reduce min @dist[%v], %d : f64`.
  }];
  let arguments = (ins Graph_ReductionKindAttr:$kind,
                       FlatSymbolRefAttr:$property, Graph_Vertex:$vertex,
                       Graph_PropValue:$value);
  let assemblyFormat = [{
    custom<ReductionKind>($kind) $property `[` $vertex `]` `,` $value
    attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Graph_CompareSwapOp : Graph_PropOp<"compare_swap"> {
  let summary = "Atomic compare-and-swap of a vertex property element "
                "(`compare_swap(x[v], expected, desired)`)";
  let description = [{
    Atomically: if property `property` at `vertex` equals `expected`,
    replaces it with `desired`; the result says whether it did. The
    read, compare and write are one indivisible step for every other
    iteration of a parallel loop (and for their reductions and reads of
    the element), so it is legal at any vertex of a parallel loop
    (`graph-check-parallel-writes`); which of several iterations swapping
    one element wins depends on timing. Applies to `i64` and vertex
    (`i32`) properties, compared bit for bit. On the CPU it orders like a
    lock handover (acquire and release: what the swapping iteration wrote
    before it is visible to an iteration that sees the swapped value);
    LLVM 19's NVPTX backend makes it a relaxed `atom.cas` (gpu scope).
    Example (a union-find link):
    `%ok = graph.compare_swap @comp[%high], %high, %low : i32`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$property, Graph_Vertex:$vertex,
                       AnyTypeOf<[I64, I32]>:$expected,
                       AnyTypeOf<[I64, I32]>:$desired);
  let results = (outs I1:$swapped);
  let assemblyFormat = [{
    $property `[` $vertex `]` `,` $expected `,` $desired attr-dict `:`
    type($expected) `,` type($desired)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Frontiers
//===----------------------------------------------------------------------===//

// A frontier op: pure, inside a graph.algorithm.
class Graph_FrontierOp<string mnemonic>
    : Graph_Op<mnemonic, [Pure]> {
  let hasVerifier = 1;
}

def Graph_FrontierAllOp : Graph_FrontierOp<"frontier.all"> {
  let summary = "The frontier of every vertex (`all`)";
  let description = [{ Example: `%f = graph.frontier.all`. }];
  let results = (outs Graph_FrontierType:$result);
  let assemblyFormat = "attr-dict";
}

def Graph_FrontierOfOp : Graph_FrontierOp<"frontier.of"> {
  let summary = "The frontier of some vertices (`[a, b]`, `v`, `[]`)";
  let description = [{
    The set of the given vertices (duplicates count once; none: the empty
    frontier). Example: `%f = graph.frontier.of [%source]`.
  }];
  let arguments = (ins Variadic<Graph_Vertex>:$vertices);
  let results = (outs Graph_FrontierType:$result);
  let assemblyFormat = "` ` `[` $vertices `]` attr-dict";
}

def Graph_FrontierSizeOp : Graph_FrontierOp<"frontier.size"> {
  let summary = "Vertices in a frontier (`size(f)`)";
  let description = [{
    `size(f)`; `empty(f)` compares it with 0.
    Example: `%n = graph.frontier.size %active : i64`.
  }];
  let arguments = (ins Graph_FrontierType:$frontier);
  let results = (outs I64:$result);
  let assemblyFormat = "$frontier attr-dict `:` type($result)";
}

def Graph_FrontierAnyOp : Graph_FrontierOp<"frontier.any"> {
  let summary = "One vertex of a frontier";
  let description = [{
    The frontier's first vertex in vertex order; vertex 0 when the frontier
    is empty (a graph without vertices has no vertex 0: guard a read at it
    with `graph.frontier.size`). graph-uniform-source-reads reads a property
    that every vertex of a frontier provably shares at this vertex, once
    per round. Example: `%v = graph.frontier.any %active`.
  }];
  let arguments = (ins Graph_FrontierType:$frontier);
  let results = (outs Graph_Vertex:$result);
  let assemblyFormat = "$frontier attr-dict";
}

//===----------------------------------------------------------------------===//
// graph.job
//===----------------------------------------------------------------------===//

def Graph_JobOp : Graph_Op<"job", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A run of an algorithm (a `job j = run A on m { ... }`)";
  let description = [{
    Runs algorithm `@algorithm` on the machine `machine` with the job's
    options: `seed`, `threads` (> 0), `output` (the file the outputs are
    written to, as written) and `params`, the parameter values the job sets
    (each a parameter of the algorithm, of its type; the others keep their
    defaults).

    Example:

    ```mlir
    graph.job @levels run @bfs on "workstation" {output = "bfs-depth.txt", params = {source = 0 : i64}}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$algorithm,
                       StrAttr:$machine,
                       OptionalAttr<I64Attr>:$seed,
                       OptionalAttr<I64Attr>:$threads,
                       OptionalAttr<StrAttr>:$output,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$params);
  let assemblyFormat = "$sym_name `run` $algorithm `on` $machine attr-dict";
}

include "dialects/Graph/IR/GraphQueryOps.td"

#endif // SLUICE_GRAPH_OPS
