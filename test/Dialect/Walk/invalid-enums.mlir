// RUN: not sluice-opt %s -split-input-file 2>&1 | FileCheck %s

// A word that is not a value of the walk enums (WalkEnums.td) is a parse
// error at the word that names the accepted ones (the same lists Sema
// gives for the language, from WalkSchema.h).

// CHECK: error: expected ::sluice::walk::Sampler to be one of: auto, rejection, reservoir, alias
// CHECK: error: failed to parse Walk_SamplerAttr parameter 'value'
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler fast>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// CHECK: error: custom op 'walk.graph' expected ::sluice::walk::GraphFormat to be one of: snap, mtx, csr, edgelist
// CHECK: error: custom op 'walk.graph' failed to parse Walk_GraphFormatAttr parameter 'value'
walk.graph @g "g.txt" format tsv

// -----

// CHECK: error: expected ::sluice::walk::WeightClass to be one of: constant, parameter, static, dynamic
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class random>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// CHECK: error: expected ::sluice::walk::StepMethod to be one of: uniform, alias, rejection, reservoir, cost_model
walk.graph @g "g.txt" format snap
walk.walk @w on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = cpu, method = fastest>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// CHECK: error: custom op 'walk.graph' expected ::sluice::walk::Duplicates to be one of: merge, keep, sum
// CHECK: error: custom op 'walk.graph' failed to parse Walk_DuplicatesAttr parameter 'value'
walk.graph @g "g.txt" format snap duplicates first

// -----

// CHECK: error: custom op 'walk.graph' expected ::sluice::walk::SelfLoops to be one of: drop, keep
// CHECK: error: custom op 'walk.graph' failed to parse Walk_SelfLoopsAttr parameter 'value'
walk.graph @g "g.txt" format snap self_loops twice
