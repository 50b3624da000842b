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
      `push`, parallel `static`, no tiling, frontier `auto`, format `auto`.
      `parallel` and its `chunk` go together. Unlabelled loops get the
      algorithm's defaults. A vertices loop takes `parallel`, `chunk` and
      `tile` only (direction, frontier and format apply to edges loops).

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

#endif // SLUICE_GRAPH_PASSES
