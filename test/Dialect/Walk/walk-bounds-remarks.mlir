// RUN: sluice-opt --walk-bounds=remarks=1 %s -split-input-file -verify-diagnostics
// With `remarks`, each walk gets a remark at its weight: the class, the
// bounds and the sampler.

walk.graph @g "g.txt" format snap
walk.walk @deepwalk on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler alias>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-remark@+1 {{weight of 'deepwalk' is static (a function of cur, next, w and parameters): bounds [weight_min(cur), weight_max(cur)], sum over cur's edges [weight_sum(cur), weight_sum(cur)]; sampler: alias}}
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @uniform on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %c = arith.constant 1.0 : f64
    // expected-remark@+1 {{weight of 'uniform' is constant (the same for every edge): bounds [1, 1], sum over cur's edges [degree(cur), degree(cur)]; sampler: auto (uniform: every edge of a vertex weighs the same)}}
    walk.yield %c : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @scaled on @g attributes {order = 1 : i64, param_names = ["k"], param_types = [f64], param_defaults = [1.0], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %k = walk.param "k"[0] : f64
    // expected-remark@+1 {{weight of 'scaled' is parameter (the same for every edge, set by parameters): bounds [max(k, 0), max(k, 0)], sum over cur's edges [degree(cur) * max(k, 0), degree(cur) * max(k, 0)]; may be zero; sampler: auto (uniform: every edge of a vertex weighs the same)}}
    walk.yield %k : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @node2vec on @g attributes {order = 2 : i64, param_names = ["p", "q"], param_types = [f64, f64], param_defaults = [2.0, 0.5], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %back = arith.cmpi eq, %next, %prev : i32
    %p = walk.param "p"[0] : f64
    %q = walk.param "q"[1] : f64
    %a = arith.divf %w, %p : f64
    %near = walk.has_edge %prev, %next
    %c = arith.divf %w, %q : f64
    %b = arith.select %near, %w, %c : f64
    %r = arith.select %back, %a, %b : f64
    // expected-remark@+1 {{weight of 'node2vec' is dynamic (depends on prev): bounds [weight_min(cur) * min(1 / p, 1 / q, 1), weight_max(cur) * max(1 / p, 1 / q, 1)], sum over cur's edges [weight_sum(cur) * min(1 / p, 1 / q, 1), weight_sum(cur) * max(1 / p, 1 / q, 1)], assuming p > 0 and q > 0 (checked at run time); sampler: auto (cost model: rejection or reservoir per vertex); on the GPU: rejection sampling, one thread per walker}}
    walk.yield %r : f64
  }

// -----

walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @expo on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %l = walk.label %next : i64
    %lf = arith.sitofp %l : i64 to f64
    %ww = arith.mulf %w, %w : f64
    %x = arith.mulf %ww, %lf : f64
    %e = math.exp %x : f64
    // expected-remark@+1 {{weight of 'expo' is static (a function of cur, next, w and parameters): no upper bound (labels have no bound): no rejection sampling, reservoir sampling only (or alias tables: the weight is static); lower bound 0; may be zero; sampler: auto (alias or reservoir)}}
    walk.yield %e : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @noisy on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %r = walk.random : f64
    %x = arith.divf %w, %r : f64
    // expected-remark@+1 {{weight of 'noisy' is dynamic (depends on random): no upper bound (division by a value that may be zero or negative): no rejection sampling, reservoir sampling only; lower bound 0; may be zero; sampler: auto (reservoir: the only sound choice)}}
    walk.yield %x : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @stepped on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %s = walk.step : i64
    %sf = arith.sitofp %s : i64 to f64
    %x = arith.mulf %w, %sf : f64
    // expected-remark@+1 {{weight of 'stepped' is dynamic (depends on step): no upper bound ('step' has no upper bound): no rejection sampling, reservoir sampling only; lower bound 0; may be zero; sampler: auto (reservoir: the only sound choice); on the GPU: reservoir sampling, a warp (32 threads) per walker}}
    walk.yield %x : f64
  }
