// RUN: sluice-opt %s -split-input-file -walk-to-gpu -verify-diagnostics

// label_mass is not on the device yet (walk-bounds writes it into the sum
// bounds only, which the kernels do not use; here in upper_bound).

walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = ["schema"], param_types = [!walk.list], param_defaults = [array<i64: 0, 1, 2>], state_names = [], state_types = [], schedule = #walk.schedule<target = gpu, method = rejection>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %schema = walk.param "schema"[0] : !walk.list
    // expected-error @+1 {{walk-to-gpu: not supported yet: 'walk.label_mass' in GPU code}}
    %m = walk.label_mass "max" %cur, %schema : f64
    walk.yield %m : f64
  }
