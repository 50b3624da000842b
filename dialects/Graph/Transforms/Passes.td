//===- Passes.td - Passes of the graph dialect -------------*- tablegen -*-===//

#ifndef SLUICE_GRAPH_PASSES
#define SLUICE_GRAPH_PASSES

include "mlir/Pass/PassBase.td"

def GraphAttachSchedule : Pass<"graph-attach-schedule", "::mlir::ModuleOp"> {
  let summary = "Write each loop's schedule from the algorithm's schedule";
  let description = [{
    Reads what the `schedule` declaration of each `graph.algorithm` asks for
    (as MLIRGen carries it on the op: `target`, `threads`, `loop_defaults`
    and `label_schedules`) and writes the decisions:

    - on the algorithm, `schedule = #graph.algorithm_schedule<target = ...,
      threads = ...>`: the requested target (default `cpu`) and threads
      (default 0: the runtime's default);
    - on every `graph.vertices` and `graph.edges` loop, a complete
      `schedule = #graph.schedule<...>`. Each key comes from the first of:
      the entry of the loop's label in `label_schedules`, the algorithm's
      `loop_defaults`, and the built-in default (GraphSchema.h): direction
      `push`, parallel `static`, no tiling, frontier `auto`, format `auto`;
      `order` is written only when requested (absent: the natural order).
      `parallel` and its `chunk` go together. Unlabelled loops get the
      algorithm's defaults. A vertices loop takes `parallel`, `chunk` and
      `tile` only (direction, frontier, format and order apply to edges
      loops).

    Before: loops without a schedule (or with one, which is replaced).
    After: every loop has a complete schedule, which the lowering of
    algorithms to kernels reads; the requests stay on the algorithm. The
    verifiers have already checked the requests (labels exist, no edges-only
    key under the label of a vertices loop), so the pass cannot fail.

    With `remarks`, each algorithm gets a remark with its target and
    threads, and each loop one with every key and where it came from (the
    label, the algorithm's schedule, or the default).

    Example: with `loop_defaults = #graph.schedule<parallel = static>` and
    `label_schedules = {gather = #graph.schedule<direction = pull, parallel
    = dynamic, chunk = 64>}`, the loop labelled `gather` gets

    ```mlir
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = auto>} do { ... }
    ```

    and an unlabelled vertices loop `#graph.schedule<parallel = static>`.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per algorithm and loop saying what it got and "
           "where each key came from">
  ];
  let dependentDialects = ["::sluice::graph::GraphDialect"];
}

def GraphCheckParallelWrites
    : Pass<"graph-check-parallel-writes", "::mlir::ModuleOp"> {
  let summary = "Reject plain writes that parallel iterations may make with "
                "different values; warn about reads racing with them";
  let description = [{
    The legality of parallel updates (docs/language.md, section 11.2;
    docs/algorithms.md, "Legality of parallel updates"). Runs after
    `graph-attach-schedule`, on every `graph.vertices` and `graph.edges`
    loop whose schedule is not `parallel = serial`. An iteration *owns* a
    vertex: a vertices loop its vertex, a push loop the source, a pull loop
    the destination; a `hybrid` loop with `from` runs push and pull rounds,
    so it owns neither binder (without `from` it runs pull).

    A plain write `graph.prop.set @p[%x] = %e` at the owned vertex is
    legal. At any other vertex several iterations may write one element,
    and it is legal only when they provably write the same value:

    - *fixed value*: `%e` is computed by pure ops from values fixed for the
      loop, `%x` itself and reads at `%x`-determined vertices of properties
      the loop does not write (`visited[dst] = 1`, `p[source] = 0`), and
      the write is the loop's only write to `p`;
    - *level-synchronous* (BFS): in an edges loop `from F`, the write is
      `p[dst] = %e` with `%e` computed from values fixed for the loop and
      `p[src]` only, under `where p[dst] == K` (`K` fixed), the loop writes
      nothing else, and every vertex of `F` provably has one value of `p`
      that is not `K`: `F` is `[x]` (or `[]`) and, in the algorithm's body
      before the op holding the loop, `p[x]` is set to a constant other
      than `K` with only such constant writes of `p` after it; or `F` is
      the result of a level-synchronous loop of `p` with the same `K` in
      the same op of the body (through `scf.while` and `scf.for` iteration
      values); and every other write of `p` in that op is such a loop.

    Any other plain write at a vertex the iteration does not own, and a
    plain write mixed with a reduction into the same property in one loop
    (unless both are at the owned vertex), is an error located at the
    write, suggesting a reduction or `parallel: serial`. A read of a
    property the loop writes plainly, at a vertex that is not the owned
    one (or any read when a write is not at the owned vertex), gets a
    warning at the read: its value depends on timing. The reads that the
    level-synchronous rule covers (the guard `p[dst]` and `p[src]`) get
    none, and neither does the guard `p[dst] == K` of a loop whose only
    write of `p` is a fixed value at the destination (`where depth[dst] ==
    -1 { depth[dst] = level }`): an iteration that reads `K` writes the
    value, one that reads the value skips, and the result is the same.

    A read of `p` at a vertex the iteration does not own, in a loop that
    also reduces into `p` at a vertex it does not own, gets a warning too
    (with a note at the reduction): which iterations see which partial
    reduction depends on timing. A relaxation filter is exempt: the read
    is one side of a `where` comparison (`<`, `<=`, `!=`; mirrored for
    `max=`) whose other side is structurally the reduction's value, so the
    guard only skips reductions that could not change `p`.

    `graph.compare_swap @p[%x]` is an atomic write: legal at any vertex,
    with reductions into `p` too (both are atomic read-modify-writes of
    the element), and reads of `p` get no warning for it (a loop that
    swaps reads to find out what to swap; the swap checks what it read).
    A plain write of `p` in a loop that swaps `p` is an error at the write
    (with a note at the swap), at the owned vertex too: other iterations
    swap wherever they like, and the write is not atomic with them.

    Before and after: the IR is unchanged; the pass only reports.
  }];
  let dependentDialects = ["::sluice::graph::GraphDialect"];
}

def GraphUniformSourceReads
    : Pass<"graph-uniform-source-reads", "::mlir::ModuleOp"> {
  let summary = "Read a property that a frontier's vertices share once per "
                "round";
  let description = [{
    In a `graph.edges` loop `from F` of the level-synchronous shape of
    `graph-check-parallel-writes` (`where p[dst] == K`, the loop's only
    write `p[dst] = E` with `E` from values fixed for the loop and `p[src]`,
    and the proof that every vertex of `F` has one value of `p`, not `K`,
    that no such loop writes again), every read `graph.prop.get @p[%src]`
    in the loop (either region) reads that one value. The pass reads it
    once, just before the loop, at `graph.frontier.any %F` (the frontier's
    first vertex), and replaces the reads by that value: a pulled round no
    longer loads `p[src]` for each vertex it reaches (a load that misses
    the cache and shares cache lines with other threads' writes of
    `p[dst]`), a pushed one no longer per source.

    The read sits in an `scf.if` on `graph.num_vertices > 0` (a graph
    without vertices has no vertex 0 to read; the frontier is empty then
    and the value unused), yielding zero otherwise. Loops scheduled
    `frontier: buckets` are left alone (their rounds are buckets, not
    levels), and so are properties of a type without a zero (`vertex`).

    Runs after `graph-check-parallel-writes`, before
    `graph-hoist-source-terms`. With `remarks`, each loop of the shape gets
    a remark: the reads replaced, or why not (the proof failed, the type,
    the schedule).

    Before (BFS):

    ```mlir
    %4 = graph.edges from %f label "expand" -> !graph.frontier ... where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %unseen = arith.cmpi eq, %d, %m1 : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    ```

    After:

    ```mlir
    %n = graph.num_vertices : i64
    %c0 = arith.constant 0 : i64
    %any = arith.cmpi sgt, %n, %c0 : i64
    %ds = scf.if %any -> (i64) {
      %v = graph.frontier.any %f
      %x = graph.prop.get @depth[%v] : i64
      scf.yield %x : i64
    } else {
      %c0_i64 = arith.constant 0 : i64
      scf.yield %c0_i64 : i64
    }
    %4 = graph.edges from %f label "expand" -> !graph.frontier ... where {
      ...
    } do {
    ^bb0(%src: i32, %dst: i32):
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per level-synchronous loop: the reads replaced, "
           "or why not">
  ];
  let dependentDialects = ["::sluice::graph::GraphDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def GraphHoistSourceTerms
    : Pass<"graph-hoist-source-terms", "::mlir::ModuleOp"> {
  let summary = "Compute the source-only terms of edges loops once per vertex";
  let description = [{
    In the body of every `graph.edges` loop, finds the maximal terms that
    depend only on the source vertex: pure, speculatable ops (no
    `graph.idiv`, `graph.irem`, `graph.random`, no ops with regions) over
    property reads at the source (`graph.prop.get @p[%src]`),
    `graph.degree %src` and other graph queries of the source, and values
    the iteration does not bind (parameters, locals, constants). A term is
    maximal when an op outside every such term (a reduction, a write, an
    op that also reads the destination or the weight) uses it.

    A term is hoisted when

    - it computes something: at least one `arith` or `math` op that is not
      a constant or a cast (a bare `rank[src]` or `degree(src)` would only
      trade one read for another);
    - its type is one a vertex property holds (`f64`, `i64`, `i1`, `i32`);
    - the loop writes (`graph.prop.set`, `graph.prop.reduce`, in either
      region) no property the term reads: computed before the loop, the
      term would miss the loop's own writes;
    - the loop has no `from` frontier (a vertices loop over a frontier's
      vertices is not built; the loop keeps the term per edge).

    Hoisting a term adds a vertex property `<loop>_src<N>` (`<loop>` the
    loop's label, or `loop<I>` for the I-th loop of the algorithm when it
    has none) after the algorithm's last property, so the others keep
    their places in the property table, and a `graph.vertices` loop
    labelled `<loop>_src` just before the edges loop, scheduled
    `#graph.schedule<parallel = static>`, that writes each term's value
    at every vertex. The edges loop's body reads the property at the
    source instead (`graph.prop.get @<loop>_src<N>[%src]`). The ops are
    the same, so each vertex's value is the same bits as the value the
    body computed per edge.

    Runs after `graph-attach-schedule` (the loops it inserts are
    scheduled), before the lowerings. With `remarks`, each edges loop
    gets a remark per term (hoisted, and into what; or not hoisted, and
    why) or one saying there is nothing to hoist.

    Before (PageRank pulled):

    ```mlir
    graph.property @rank : f64 = %r0
    graph.property @incoming : f64 = %zero
    ...
    graph.edges label "gather" attributes {schedule = ...} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      %d = graph.degree %src : i64
      %df = arith.sitofp %d : i64 to f64
      %c = arith.divf %r, %df : f64
      graph.prop.reduce add @incoming[%dst], %c : f64
      graph.yield
    }
    ```

    After:

    ```mlir
    graph.property @rank : f64 = %r0
    graph.property @incoming : f64 = %zero
    %cst = arith.constant 0.000000e+00 : f64
    graph.property @gather_src0 : f64 = %cst
    ...
    graph.vertices label "gather_src" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %r = graph.prop.get @rank[%v] : f64
      %d = graph.degree %v : i64
      %df = arith.sitofp %d : i64 to f64
      %c = arith.divf %r, %df : f64
      graph.prop.set @gather_src0[%v] = %c : f64
      graph.yield
    }
    graph.edges label "gather" attributes {schedule = ...} do {
    ^bb0(%src: i32, %dst: i32):
      %c = graph.prop.get @gather_src0[%src] : f64
      graph.prop.reduce add @incoming[%dst], %c : f64
      graph.yield
    }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per term of each edges loop: hoisted into what, "
           "or why not">
  ];
  let dependentDialects = ["::sluice::graph::GraphDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // SLUICE_GRAPH_PASSES
