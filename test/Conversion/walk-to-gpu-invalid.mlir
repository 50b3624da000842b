// RUN: sluice-opt %s -split-input-file -walk-to-gpu -verify-diagnostics

// Edge labels are not on the device yet.

walk.graph @g "g.txt" format "snap"
walk.walk @el on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error @+1 {{walk-to-gpu: not supported yet: 'walk.edge_label' in GPU code}}
    %l = walk.edge_label %cur, %next : i64
    %f = arith.sitofp %l : i64 to f64
    walk.yield %f : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
