//===- WalkOps.td - Operations of the walk dialect ---------*- tablegen -*-===//
//
// walk.graph, walk.walk (with its regions), walk.job, walk.yield, and the
// expression ops used inside a walk's regions.
//
// Where an expression op may appear is checked by its verifier against the
// region of the enclosing walk.walk it is in (directly or nested in scf.if):
//   setup regions:     init, length, start, stop_probability
//   walk functions:    weight, stop, update
//   bound regions:     upper_bound, lower_bound, sum_upper_bound,
//                      sum_lower_bound (written by walk-bounds)
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_WALK_OPS
#define SLUICE_WALK_OPS

include "dialects/Walk/IR/WalkAttrs.td"
include "dialects/Walk/IR/WalkDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// CSR vertex ids are i32, edge indices i64.
defvar Walk_Vertex = I32;

//===----------------------------------------------------------------------===//
// walk.graph
//===----------------------------------------------------------------------===//

def Walk_GraphOp : Walk_Op<"graph", [Symbol]> {
  let summary = "A graph walks and algorithms run on (a `graph g = load(...)`)";
  let description = [{
    Names the graph file and how to read it (docs/language.md, section 9):
    `path` (relative paths were resolved against the declaring .sluice
    file's folder), `format` (`snap`, `edgelist`, `mtx` or `csr`),
    `undirected`, `weighted`, what becomes of duplicate edges
    (`duplicates`: `merge`, the default, keeps the first copy; `keep` stores
    parallel arcs; `sum` adds up their weights) and of self loops
    (`self_loops`: `drop`, the default, or `keep`), and the optional vertex
    and edge label files. The defaults (printed only when they are not the
    default) make the simple graph that node2vec and DeepWalk assume. The
    walks (`walk.walk`) and algorithms (`graph.algorithm`) on the graph name
    it.

    Example:

    ```mlir
    walk.graph @email "data/email-Eu-core.txt.gz" format snap {labels = "data/email.labels"}
    walk.graph @g "g.el" format edgelist undirected weighted
    walk.graph @multi "m.txt" format snap duplicates keep self_loops keep
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$path,
                       Walk_GraphFormatAttr:$format, UnitAttr:$undirected,
                       UnitAttr:$weighted,
                       DefaultValuedAttr<Walk_DuplicatesAttr,
                           "::sluice::walk::Duplicates::Merge">:$duplicates,
                       DefaultValuedAttr<Walk_SelfLoopsAttr,
                           "::sluice::walk::SelfLoops::Drop">:$self_loops,
                       OptionalAttr<StrAttr>:$labels,
                       OptionalAttr<StrAttr>:$edge_labels);
  let assemblyFormat = [{
    $sym_name $path `format` `` $format (`undirected` $undirected^)?
    (`weighted` $weighted^)? (`duplicates` `` $duplicates^)?
    (`self_loops` `` $self_loops^)? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// walk.walk
//===----------------------------------------------------------------------===//

def Walk_WalkOp : Walk_Op<"walk", [
    Symbol, IsolatedFromAbove,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A random walk over a graph";
  let description = [{
    A walk declaration (docs/language.md, section 10). Attributes:

    - `graph`: the `walk.graph` it runs on; `order`: 1, or 2 when the
      weight reads `prev` (a second-order walk).
    - `param_names`, `param_types`, `param_defaults`: the parameters in
      declaration order (the 8-byte slots of the kernel's parameter block).
      Types are `f64`, `i64`, `i1` or `!walk.list`; a default is a float,
      an integer, a bool, a `[i64]` array (`array<i64: ...>`) or `unit` for
      none.
    - `state_names`, `state_types`: the state variables (`f64`, `i64`,
      `i1`), one 8-byte slot each.
    - Schedule as written (optional): `sampler` (`auto`, `rejection`,
      `reservoir`, `alias`), `target` (`cpu`, `gpu`), `threads`,
      `walkers_per_thread`.
    - Written by `walk-select-sampler`: `schedule`, the decided
      `#walk.schedule<...>` that the lowerings and the run read.
    - Written by `walk-bounds`: `weight_class` (`constant`, `parameter`,
      `static`, `dynamic`), `depends_on` (what makes it dynamic: `prev`,
      `step`, `state`, `random`), `may_be_zero`, `unbounded`,
      `assumptions` (conditions on parameters under which the bound
      regions hold; the bound regions check them themselves).

    Regions (each a single block ending in `walk.yield`; the optional ones
    may be empty), with the ABI function each becomes:

    | region | block arguments | yields | ABI |
    |---|---|---|---|
    | `init` | none | one value per state variable | `init` |
    | `length` | none | `i64` | `options.max_length` |
    | `start` | none | `i64` ids, or one `!walk.list` | `options.starts` |
    | `stop_probability` | none | `f64` | `options.stop_probability` |
    | `weight` (required) | `prev, cur, next: i32, edge: i64, w: f64` | `f64` | `weight` |
    | `stop` | `cur: i32, step: i64` | `i1` | `stop` |
    | `update` | `prev, cur, next: i32` | nothing | `update` |
    | `upper_bound`, `lower_bound` | `cur: i32` | `f64` | same names |
    | `sum_upper_bound`, `sum_lower_bound` | `cur: i32` | `f64` | same names |

    Example:

    ```mlir
    walk.walk @node2vec on @slashdot attributes {order = 2 : i64,
        param_names = ["p", "q"], param_types = [f64, f64],
        param_defaults = [2.0, 5.0e-01], state_names = [], state_types = []}
      length {
        %c = arith.constant 80 : i64
        walk.yield %c : i64
      }
      weight {
      ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
        %p = walk.param "p"[0] : f64
        %r = arith.divf %w, %p : f64
        walk.yield %r : f64
      }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       FlatSymbolRefAttr:$graph,
                       I64Attr:$order,
                       StrArrayAttr:$param_names,
                       TypeArrayAttr:$param_types,
                       ArrayAttr:$param_defaults,
                       StrArrayAttr:$state_names,
                       TypeArrayAttr:$state_types,
                       OptionalAttr<Walk_SamplerAttr>:$sampler,
                       OptionalAttr<Walk_TargetAttr>:$target,
                       OptionalAttr<I64Attr>:$threads,
                       OptionalAttr<I64Attr>:$walkers_per_thread,
                       OptionalAttr<Walk_WeightClassAttr>:$weight_class,
                       OptionalAttr<StrArrayAttr>:$depends_on,
                       UnitAttr:$may_be_zero,
                       UnitAttr:$unbounded,
                       OptionalAttr<StrArrayAttr>:$assumptions,
                       OptionalAttr<Walk_ScheduleAttr>:$schedule);
  let regions = (region MaxSizedRegion<1>:$init,
                        MaxSizedRegion<1>:$length,
                        MaxSizedRegion<1>:$start,
                        MaxSizedRegion<1>:$stop_probability,
                        SizedRegion<1>:$weight,
                        MaxSizedRegion<1>:$stop,
                        MaxSizedRegion<1>:$update,
                        MaxSizedRegion<1>:$upper_bound,
                        MaxSizedRegion<1>:$lower_bound,
                        MaxSizedRegion<1>:$sum_upper_bound,
                        MaxSizedRegion<1>:$sum_lower_bound);
  let assemblyFormat = [{
    $sym_name `on` $graph attr-dict-with-keyword
    (`init` $init^)?
    (`length` $length^)?
    (`start` $start^)?
    (`stop_probability` $stop_probability^)?
    `weight` $weight
    (`stop` $stop^)?
    (`update` $update^)?
    (`upper_bound` $upper_bound^)?
    (`lower_bound` $lower_bound^)?
    (`sum_upper_bound` $sum_upper_bound^)?
    (`sum_lower_bound` $sum_lower_bound^)?
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The block arguments of the weight region.
    ::mlir::BlockArgument getWeightPrev() { return getWeight().getArgument(0); }
    ::mlir::BlockArgument getWeightCur() { return getWeight().getArgument(1); }
    ::mlir::BlockArgument getWeightNext() { return getWeight().getArgument(2); }
    ::mlir::BlockArgument getWeightEdge() { return getWeight().getArgument(3); }
    ::mlir::BlockArgument getWeightW() { return getWeight().getArgument(4); }
    /// The value the weight region yields.
    ::mlir::Value getWeightResult();
    /// The index of parameter / state variable `name`, or -1.
    int64_t lookupParam(::llvm::StringRef name);
    int64_t lookupState(::llvm::StringRef name);
    /// The ABI's sluice_walk_weight_class_t of `weight_class`
    /// (parameter -> CONSTANT); -1 when not analysed.
    int abiWeightClass();
    /// The ABI's kernel flags: SLUICE_WALK_SECOND_ORDER (1, order 2),
    /// SLUICE_WALK_MAY_BE_ZERO (2), SLUICE_WALK_UNBOUNDED (4).
    /// SLUICE_WALK_SECOND_ORDER is set when the weight reads prev, not for
    /// every order-2 walk: prev may be declared (or used by `update`) alone.
    uint32_t abiFlags() {
      bool readsPrev = getOrder() == 2 && !getWeightPrev().use_empty();
      return (readsPrev ? 1u : 0u) | (getMayBeZero() ? 2u : 0u) |
             (getUnbounded() ? 4u : 0u);
    }
  }];
}

//===----------------------------------------------------------------------===//
// walk.job
//===----------------------------------------------------------------------===//

def Walk_JobOp : Walk_Op<"job", [
    Symbol, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A run of a walk (a `job j = walk w on m { ... }` declaration)";
  let description = [{
    Runs walk `@walk` on the machine (topology or graph) named `machine`
    with the job's options: `walks_per_vertex`, `seed`, `threads`, `output`
    (the walk file, relative to the .sluice file's folder as written),
    `walks_dtype` (the integer type of a .npy output, int64 by default),
    `shuffle` (the walks written in an order drawn from the seed instead of
    the order of their start vertices) and `params`, the parameter values
    the job sets (the others keep their defaults).

    Example:

    ```mlir
    walk.job @embed_dfs walk @node2vec on "workstation" {output = "n2v.walks", params = {p = 1.0 : f64, q = 2.5e-01 : f64}, seed = 42 : i64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$walk,
                       StrAttr:$machine,
                       OptionalAttr<I64Attr>:$walks_per_vertex,
                       OptionalAttr<I64Attr>:$seed,
                       OptionalAttr<I64Attr>:$threads,
                       OptionalAttr<StrAttr>:$output,
                       OptionalAttr<Walk_WalksDtypeAttr>:$walks_dtype,
                       UnitAttr:$shuffle,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$params);
  let assemblyFormat = "$sym_name `walk` $walk `on` $machine attr-dict";
}

//===----------------------------------------------------------------------===//
// walk.yield
//===----------------------------------------------------------------------===//

def Walk_YieldOp : Walk_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"WalkOp">]> {
  let summary = "Ends a region of walk.walk with its values";
  let description = [{
    The terminator of every region of `walk.walk`; what it yields depends on
    the region (see `walk.walk`). Example: `walk.yield %weight : f64`.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Parameters and state
//===----------------------------------------------------------------------===//

def Walk_ParamOp : Walk_Op<"param", [Pure]> {
  let summary = "The value of a walk parameter";
  let description = [{
    Reads parameter `name`, slot `index` of the parameter block; the result
    type is the parameter's type. Allowed in every region.
    Example: `%p = walk.param "p"[0] : f64`.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$index);
  let results = (outs AnyTypeOf<[F64, I64, I1, Walk_ListType]>:$result);
  let assemblyFormat = "$name `[` $index `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Walk_StateGetOp : Walk_Op<"state.get", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Reads a state variable of the walker";
  let description = [{
    Reads state variable `name` (slot `index`). Allowed in `weight`, `stop`
    and `update`. Example: `%h = walk.state.get "hop"[0] : i64`.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$index);
  let results = (outs AnyTypeOf<[F64, I64, I1]>:$result);
  let assemblyFormat = "$name `[` $index `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Walk_StateSetOp : Walk_Op<"state.set", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Assigns a state variable of the walker";
  let description = [{
    Writes `value` to state variable `name` (slot `index`). Allowed only in
    `update`. Example: `walk.state.set "hop"[0] = %h1 : i64`.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$index,
                       AnyTypeOf<[F64, I64, I1]>:$value);
  let assemblyFormat =
      "$name `[` $index `]` `=` $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// The walker and the graph
//===----------------------------------------------------------------------===//

// An op reading the walker's frame or the graph.
class Walk_FrameOp<string mnemonic, list<Trait> traits = []>
    : Walk_Op<mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

def Walk_StepOp : Walk_FrameOp<"step"> {
  let summary = "Steps the walker has taken so far";
  let description = [{
    `step` of the language (0 before the first step). Walk functions only.
    Example: `%s = walk.step : i64`.
  }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Walk_RandomOp : Walk_Op<"random", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A uniform random number in [0, 1)";
  let description = [{
    `random()` (sluice_walk_random): each call draws the next number of the
    walker's stream for this step. Walk functions only.
    Example: `%r = walk.random : f64`.
  }];
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Walk_DegreeOp : Walk_FrameOp<"degree"> {
  let summary = "Out-degree of a vertex";
  let description = [{
    `degree(v)`. Walk functions and bound regions.
    Example: `%d = walk.degree %cur : i64`.
  }];
  let arguments = (ins Walk_Vertex:$vertex);
  let results = (outs I64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Walk_HasEdgeOp : Walk_FrameOp<"has_edge"> {
  let summary = "Whether the edge u -> v exists";
  let description = [{
    `has_edge(u, v)` (a binary search of u's sorted adjacency). Walk
    functions only. Example: `%e = walk.has_edge %prev, %next`.
  }];
  let arguments = (ins Walk_Vertex:$from, Walk_Vertex:$to);
  let results = (outs I1:$result);
  let assemblyFormat = "$from `,` $to attr-dict";
}

def Walk_EdgeWeightOp : Walk_FrameOp<"edge_weight"> {
  let summary = "Weight of the edge u -> v";
  let description = [{
    `weight(u, v)`: the stored weight of the first u -> v edge (1.0 on an
    unweighted graph), 0.0 when there is no such edge. Walk functions only.
    Example: `%w = walk.edge_weight %prev, %next : f64`.
  }];
  let arguments = (ins Walk_Vertex:$from, Walk_Vertex:$to);
  let results = (outs F64:$result);
  let assemblyFormat = "$from `,` $to attr-dict `:` type($result)";
}

def Walk_LabelOp : Walk_FrameOp<"label"> {
  let summary = "Label of a vertex";
  let description = [{
    `label(v)` (SLUICE_LABEL_NONE for an unlabelled vertex). Walk functions
    only. Example: `%l = walk.label %next : i64`.
  }];
  let arguments = (ins Walk_Vertex:$vertex);
  let results = (outs I64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Walk_EdgeLabelOp : Walk_FrameOp<"edge_label"> {
  let summary = "Label of the edge u -> v";
  let description = [{
    `edge_label(u, v)`: the label of the first u -> v edge, -1 when there is
    no such edge. Walk functions only.
    Example: `%l = walk.edge_label %cur, %next : i64`.
  }];
  let arguments = (ins Walk_Vertex:$from, Walk_Vertex:$to);
  let results = (outs I64:$result);
  let assemblyFormat = "$from `,` $to attr-dict `:` type($result)";
}

def Walk_NumVerticesOp : Walk_FrameOp<"num_vertices"> {
  let summary = "Vertices of the graph";
  let description = [{ Allowed everywhere. `%n = walk.num_vertices : i64`. }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Walk_NumEdgesOp : Walk_FrameOp<"num_edges"> {
  let summary = "Stored edges of the graph";
  let description = [{ Allowed everywhere. `%m = walk.num_edges : i64`. }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Walk_VertexOfOp : Walk_FrameOp<"vertex_of"> {
  let summary = "The vertex with an original id";
  let description = [{
    Maps an id as written in the graph file (what `i64` values used as
    vertices mean) to the CSR id (sluice_graph_vertex_of); 0xFFFFFFFF
    (SLUICE_VERTEX_NONE) when the graph has no such vertex. Allowed
    everywhere. Example: `%v = walk.vertex_of %source`.
  }];
  let arguments = (ins I64:$id);
  let results = (outs Walk_Vertex:$result);
  let assemblyFormat = "$id attr-dict";
}

def Walk_ListGetOp : Walk_FrameOp<"list_get"> {
  let summary = "An element of a list parameter";
  let description = [{
    `xs[i]` for a `[i64]` parameter (0-based; an index out of range is a
    run-time error of the kernel). Allowed everywhere.
    Example: `%x = walk.list_get %schema[%i] : i64`.
  }];
  let arguments = (ins Walk_ListType:$list, I64:$index);
  let results = (outs I64:$result);
  let assemblyFormat = "$list `[` $index `]` attr-dict `:` type($result)";
}

// Not Pure: a fault is a side effect that must not be speculated out of the
// branch that guards it (`if k != 0 then n / k else 0`).
class Walk_IntDivisionOp<string mnemonic, string what, string example>
    : Walk_Op<mnemonic, [NoMemoryEffect]> {
  let summary = "Integer " # what # " that faults instead of trapping";
  let description = !strconcat([{
    The integer }], what, [{ of a walk program, truncated toward zero as in C.
    A zero divisor (and -2^63 / -1, whose quotient is not an i64) is a
    run-time error of the kernel, recorded in the frame's fault slot like a
    list index out of range; the result is then 0 and the engine stops the
    run with a located message. -2^63 % -1 is 0. Allowed everywhere.
    Example: }], example, [{.
  }]);
  let arguments = (ins I64:$lhs, I64:$rhs);
  let results = (outs I64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Walk_IntDivOp : Walk_IntDivisionOp<"idiv", "quotient `a / b`",
                                        "`%q = walk.idiv %n, %k : i64`">;
def Walk_IntRemOp : Walk_IntDivisionOp<"irem", "remainder `a % b`",
                                        "`%r = walk.irem %n, %k : i64`">;

def Walk_ListSizeOp : Walk_FrameOp<"list_size"> {
  let summary = "Number of elements of a list parameter";
  let description = [{ `size(xs)`. `%n = walk.list_size %schema : i64`. }];
  let arguments = (ins Walk_ListType:$list);
  let results = (outs I64:$result);
  let assemblyFormat = "$list attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Per-vertex aggregates (bound regions)
//===----------------------------------------------------------------------===//

class Walk_AggOp<string mnemonic, string what> : Walk_FrameOp<mnemonic> {
  let summary = what # " of the stored weights of a vertex's out-edges";
  let description = [{
    A per-vertex aggregate computed when the graph is loaded
    (sluice_graph_weight_max / _min / _sum; 0 for a vertex without
    out-edges; every edge counts 1.0 on an unweighted graph). Allowed only in
    the bound regions that `walk-bounds` writes.
  }];
  let arguments = (ins Walk_Vertex:$vertex);
  let results = (outs F64:$result);
  let assemblyFormat = "$vertex attr-dict `:` type($result)";
}

def Walk_WeightMaxOp : Walk_AggOp<"weight_max", "Largest">;
def Walk_WeightMinOp : Walk_AggOp<"weight_min", "Smallest">;
def Walk_WeightSumOp : Walk_AggOp<"weight_sum", "Sum">;

def Walk_LabelMassOp : Walk_FrameOp<"label_mass"> {
  let summary = "Min or max over a list of labels of a vertex's label mass";
  let description = [{
    For each label l of the list, the sum of the stored weights of the
    vertex's out-edges whose target vertex has label l (with `edge`: whose
    edge label is l); the result is the smallest (`"min"`) or largest
    (`"max"`) of these sums over the list, 0 for an empty list
    (sluice_kernel_label_mass). `walk-bounds` writes it into the sum bounds
    of a label-filtered weight (`if label(next) == xs[i] then w * s else 0`):
    the mass the filter lets through lies between the two, whatever i is.
    Allowed only in bound regions.

    Example: `%m = walk.label_mass "max" %cur, %schema : f64`.
  }];
  let arguments = (ins StrAttr:$reduce, Walk_Vertex:$vertex,
                       Walk_ListType:$labels, UnitAttr:$edge);
  let results = (outs F64:$result);
  let assemblyFormat = [{
    $reduce $vertex `,` $labels (`edge` $edge^)? attr-dict `:` type($result)
  }];
}

#endif // SLUICE_WALK_OPS
