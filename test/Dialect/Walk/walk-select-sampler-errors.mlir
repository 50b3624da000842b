// RUN: sluice-opt %s -split-input-file -walk-select-sampler -verify-diagnostics
// RUN: not sluice-opt %s -split-input-file -walk-select-sampler=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET

// What walk-select-sampler refuses: a walk walk-bounds has not classified,
// and requests the weight cannot serve (hand-written IR; from the language
// walk-bounds reports these first, with the reason, at the weight).

// TARGET: error: walk-select-sampler: target 'tpu' is not one of cpu, gpu

walk.graph @g "g.txt" format snap
// expected-error@+1 {{walk 'w' has no weight_class: run walk-bounds before walk-select-sampler}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
// -----

walk.graph @g "g.txt" format snap
// expected-error@+1 {{walk 'w' is scheduled with sampler 'alias', but its weight is dynamic; use 'auto', 'rejection' or 'reservoir'}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler alias>, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
// -----

walk.graph @g "g.txt" format snap
// expected-error@+1 {{walk 'w' is scheduled with sampler 'rejection', but its weight has no upper bound; use 'reservoir' or 'auto'}}
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler rejection>, unbounded, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
