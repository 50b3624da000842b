// RUN: sluice-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op is first-order (order 1) but its weight uses prev}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %e = walk.has_edge %prev, %next
    %z = arith.constant 0.0 : f64
    %r = arith.select %e, %w, %z : f64
    walk.yield %r : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = ["n"], state_types = [i64]}
  init {
    %z = arith.constant 0 : i64
    walk.yield %z : i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %one = arith.constant 1 : i64
    // expected-error@+1 {{'walk.state.set' op is allowed only in update, not in weight}}
    walk.state.set "n"[0] = %one : i64
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  length {
    // expected-error@+1 {{'walk.random' op is allowed only in walk functions (weight, stop, update), not in length}}
    %r = walk.random : f64
    %c = arith.constant 3 : i64
    walk.yield %c : i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error@+1 {{'walk.weight_max' op is allowed only in bound regions (upper_bound, lower_bound, sum_upper_bound, sum_lower_bound), not in weight}}
    %m = walk.weight_max %cur : f64
    walk.yield %m : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [f64], param_defaults = [1.0], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error@+1 {{'walk.param' op parameter 0 is 'p', not 'q'}}
    %q = walk.param "q"[0] : f64
    walk.yield %q : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [f64], param_defaults = [1.0], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error@+1 {{'walk.param' op parameter 'p' has type 'f64', not 'i64'}}
    %p = walk.param "p"[0] : i64
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error@+1 {{'walk.state.get' op state variable index 0 is out of range (the walk has 0)}}
    %s = walk.state.get "n"[0] : i64
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %one = arith.constant 1 : i64
    // expected-error@+1 {{'walk.yield' op in region 'weight' must yield (f64)}}
    walk.yield %one : i64
  }

// -----

walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op region 'stop' must have block arguments (i32, i64)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  stop {
  ^bb0(%cur: i32):
    %t = arith.constant true
    walk.yield %t : i1
  }

// -----

walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op needs an 'init' region for its 1 state variable(s)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = ["n"], state_types = [i64]}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op default of parameter 'p' does not fit its type 'f64'}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [f64], param_defaults = [1 : i64], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

walk.graph @h "g.txt" format snap
// expected-error@+1 {{'walk.walk' op graph 'g' does not name a walk.graph}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [f64], param_defaults = [1.0], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
// expected-error@+1 {{'walk.job' op sets 'x', which is not a parameter of 'w'}}
walk.job @j walk @w on "box" {params = {x = 1.0 : f64}}

// -----

// walks_per_vertex above the runtime's uint32_t (it used to be cut to 1).
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
// expected-error@+1 {{'walk.job' op walks_per_vertex must be in [1, 4294967295], got 4294967297}}
walk.job @j walk @w on "box" {walks_per_vertex = 4294967297 : i64}

// -----

// A job's threads above SLUICE_WALK_MAX_THREADS.
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
// expected-error@+1 {{'walk.job' op threads must be in [1, 1024], got 4294967297}}
walk.job @j walk @w on "box" {threads = 4294967297 : i64}

// -----

// A schedule's threads above SLUICE_WALK_MAX_THREADS.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op threads must be in [1, 1024], got 0}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], threads = 0 : i64}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A schedule's walkers_per_thread above SLUICE_WALK_MAX_WALKERS_PER_THREAD.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op walkers_per_thread must be in [1, 65536], got 65537}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], walkers_per_thread = 65537 : i64}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

func.func @f() {
  // expected-error@+1 {{'walk.step' op must be inside a walk.walk}}
  %s = walk.step : i64
  return
}

// -----

// A parameter names a slot of its walk's parameters: outside a walk there
// is none.
func.func @f() {
  // expected-error@+1 {{'walk.param' op must be inside a walk.walk}}
  %p = walk.param "p"[0] : f64
  return
}

// -----

// A graph without a file.
// expected-error@+1 {{'walk.graph' op needs a non-empty path}}
walk.graph @g "" format snap

// -----

// Walks are first- or second-order only.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op order must be 1 or 2, got 3}}
walk.walk @w on @g attributes {order = 3 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A parameter without a type and a default.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op needs as many param_types and param_defaults as param_names (1)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A state variable without a type.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op needs as many state_types as state_names (1)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = ["n"], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A target as a string (the form before the walk enums).
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op attribute 'target' failed to satisfy constraint: where a walk runs (`target: ...`)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], target = "gpu"}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A uniform schedule for a weight that is not constant.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op is scheduled to draw uniformly, but its weight is static}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class static>, schedule = #walk.schedule<target = cpu, method = uniform>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// Alias tables for a dynamic weight.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op is scheduled to draw from alias tables, but its weight is dynamic}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>, schedule = #walk.schedule<target = cpu, method = alias>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// Rejection without an upper bound.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op is scheduled to draw by rejection, but its weight has no upper bound (no upper_bound region, unbounded)}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>, unbounded, schedule = #walk.schedule<target = gpu, method = rejection>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A GPU schedule with alias tables.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{a gpu schedule draws by rejection or reservoir, not alias}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = gpu, method = alias>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A GPU reservoir kernel is a warp per walker.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{threads_per_walker of a gpu reservoir schedule is 32, got 1}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 1>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// CPU threads out of range.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{threads must be in [0, 1024] (0: the engine's default), got 5000}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = cpu, method = cost_model, threads = 5000>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// Walkers per thread out of range.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{walkers_per_thread must be in [0, 65536] (0: the engine's default), got -1}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = cpu, method = cost_model, walkers_per_thread = -1>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// An init region with nothing to initialise.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op has an 'init' region but no state variables}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  init {
    walk.yield
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A start region yielding a float.
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  start {
    %s = arith.constant 1.0 : f64
    // expected-error@+1 {{'walk.yield' op in region 'start' must yield i64 vertex ids or one !walk.list}}
    walk.yield %s : f64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A label mass reduced with something other than min or max.
walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["schema"], param_types = [!walk.list], param_defaults = [array<i64: 0, 1>], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  sum_upper_bound {
  ^bb0(%cur: i32):
    %schema = walk.param "schema"[0] : !walk.list
    // expected-error@+1 {{'walk.label_mass' op reduces with 'min' or 'max', not 'avg'}}
    %m = walk.label_mass "avg" %cur, %schema : f64
    walk.yield %m : f64
  }

// -----

// A region ending in another terminator (an unregistered op may be one).
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op region 'length' must end in walk.yield}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  length {
    "test.end"() : () -> ()
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A parameter of a type the parameter block cannot hold.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op parameter 'p' has type 'i32'; expected f64, i64, i1 or !walk.list}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = ["p"], param_types = [i32], param_defaults = [1 : i32], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A state variable of a type its slot cannot hold.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.walk' op state variable 'n' has type 'f32'; expected f64, i64 or i1}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = ["n"], state_types = [f32]}
  init {
    %z = arith.constant 0.0 : f32
    walk.yield %z : f32
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A job of a walk that does not exist.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'walk.job' op walk 'nope' does not name a walk.walk}}
walk.job @j walk @nope on "box"
