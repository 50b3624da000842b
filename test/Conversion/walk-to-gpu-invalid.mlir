// RUN: sluice-opt %s -split-input-file -walk-to-gpu -verify-diagnostics

// List parameters (metapath schemas) are not on the device yet.

walk.graph @g "g.txt" format "snap" {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = ["schema"], param_types = [!walk.list], param_defaults = [array<i64: 0, 1, 2>], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    // expected-error @+1 {{walk-to-gpu: not supported yet: a list parameter in GPU code (parameter 'schema')}}
    %schema = walk.param "schema"[0] : !walk.list
    %zero = arith.constant 0 : i64
    %want = walk.list_get %schema[%zero] : i64
    %l = walk.label %next : i64
    %ok = arith.cmpi eq, %l, %want : i64
    %z = arith.constant 0.0 : f64
    %r = arith.select %ok, %w, %z : f64
    walk.yield %r : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
