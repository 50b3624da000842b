// RUN: sluice-opt --walk-bounds %s -split-input-file -verify-diagnostics
// A schedule that the weight cannot support is an error at the weight.

walk.graph @g "g.txt" format snap
walk.walk @n2v on @g attributes {order = 2 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler alias>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %back = arith.cmpi eq, %next, %prev : i32
    %two = arith.constant 2.0 : f64
    %r = arith.select %back, %two, %w : f64
    // expected-error@+1 {{walk 'n2v' is scheduled with sampler 'alias', but its weight depends on prev; alias tables need a weight that depends only on cur, next, w and parameters (use 'auto', 'rejection' or 'reservoir')}}
    walk.yield %r : f64
  }

// -----

walk.graph @g "g.txt" format snap
walk.walk @noisy on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler rejection>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %r = walk.random : f64
    %x = arith.divf %w, %r : f64
    // expected-error@+1 {{walk 'noisy' is scheduled with sampler 'rejection', but no upper bound of its weight can be derived (division by a value that may be zero or negative); use 'reservoir' or 'auto'}}
    walk.yield %x : f64
  }
