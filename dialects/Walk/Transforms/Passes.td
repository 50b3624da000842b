//===- Passes.td - Passes of the walk dialect --------------*- tablegen -*-===//

#ifndef SLUICE_WALK_PASSES
#define SLUICE_WALK_PASSES

include "mlir/Pass/PassBase.td"

def WalkBounds : Pass<"walk-bounds", "::mlir::ModuleOp"> {
  let summary = "Classify each walk's weight and derive per-vertex bounds";
  let description = [{
    Runs over the `weight` region of every `walk.walk` (interval arithmetic
    on its ops, symbolic in the parameters and in per-vertex aggregates of
    `cur`; `scf.if` and `arith.select` take the union of their branches) and
    records:

    - `weight_class`: `constant` (no inputs), `parameter` (only parameters
      and graph sizes), `static` (a function of cur, next, w, the edge and
      parameters: alias tables can be built once), or `dynamic` (reads
      prev, step, state or random(); `depends_on` lists which);
    - regions `upper_bound`, `lower_bound` (of one edge's weight) and
      `sum_upper_bound`, `sum_lower_bound` (of the sum over cur's edges),
      each `^bb0(%cur: i32)` yielding f64 from `walk.weight_max/min/sum`,
      `walk.degree` and `walk.param`; a bound that holds only under
      `assumptions` on parameters (e.g. `p > 0` for a division by p)
      checks them and yields +inf (upper) or 0 (lower) when they fail;
    - `may_be_zero` when the lower bound is not provably positive, and
      `unbounded` (no upper bound regions) when no upper bound exists: only
      reservoir sampling is sound then.

    Before: a walk.walk with a `weight` region. After: the same op with the
    attributes and bound regions above (previous ones are replaced). A
    schedule that asks for `alias` with a dynamic weight, or `rejection`
    with an unbounded one, is an error at the weight. With `remarks`, each
    walk gets a remark at its weight expression that states the class, the
    bounds and the sampler.

    Example: node2vec's weight `if next == prev then w / p else if
    has_edge(prev, next) then w else w / q` gets `weight_class = "dynamic"`,
    `depends_on = ["prev"]`, `assumptions = ["p > 0", "q > 0"]` and

    ```mlir
    upper_bound {
    ^bb0(%cur: i32):
      %0 = walk.weight_max %cur : f64
      ...   // max(1 / p, 1, 1 / q), guarded by p > 0 and q > 0
      walk.yield %r : f64
    }
    ```
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per walk explaining its class, bounds and sampler">
  ];
  let dependentDialects = ["::sluice::walk::WalkDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def WalkSelectSampler : Pass<"walk-select-sampler", "::mlir::ModuleOp"> {
  let summary = "Decide each walk's schedule: target, step method, threads";
  let description = [{
    Reads what a walk's schedule asks for (`sampler`, `target`, `threads`,
    `walkers_per_thread`; `auto` and `cpu` when absent) and what walk-bounds
    found (`weight_class`, `unbounded`), and writes the decision as
    `schedule = #walk.schedule<...>` (`selectStepMethod` in WalkSchema.h),
    which walk-to-gpu, the kernels' JSON description and the run read:

    | target | requested | weight | method |
    |---|---|---|---|
    | cpu | auto | constant, parameter | `uniform` |
    | cpu | auto | static | `alias` |
    | cpu | auto | dynamic, bounded | `cost_model` |
    | cpu | auto | dynamic, unbounded | `reservoir` |
    | cpu | alias | constant, parameter / static | `uniform` / `alias` |
    | cpu | rejection, reservoir | any | as asked |
    | gpu | reservoir, or any when unbounded | any | `reservoir` (a warp per walker) |
    | gpu | auto, rejection, alias | bounded | `rejection` (a thread per walker) |

    The `target` option overrides every walk's own target (`sluicec
    --target=gpu`), the `sampler` option every walk's requested sampler. A walk without `weight_class` (walk-bounds has not run),
    `alias` for a dynamic weight and `rejection` for an unbounded one are
    errors at the walk.

    Example: node2vec (dynamic, bounded) with `target: gpu` gets
    `schedule = #walk.schedule<target = gpu, method = rejection>`.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Schedule every walk for this target (cpu or gpu) instead of "
           "its own">,
    Option<"sampler", "sampler", "std::string", /*default=*/"\"\"",
           "Ask every walk for this sampler (auto, rejection, reservoir or "
           "alias) instead of its own">
  ];
  let dependentDialects = ["::sluice::walk::WalkDialect"];
}

#endif // SLUICE_WALK_PASSES
