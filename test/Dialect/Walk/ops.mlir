// RUN: sluice-opt %s -split-input-file | sluice-opt -split-input-file | FileCheck %s
// RUN: sluice-opt %s -split-input-file -mlir-print-op-generic | sluice-opt -split-input-file | FileCheck %s

// A second-order walk with parameters: node2vec.
// CHECK: walk.graph @g "g.txt" format snap undirected
// CHECK-LABEL: walk.walk @node2vec on @g attributes {order = 2 : i64, param_defaults = [2.000000e+00, 5.000000e-01], param_names = ["p", "q"], param_types = [f64, f64], sampler = #walk<sampler auto>, state_names = [], state_types = [], target = #walk<target gpu>} length {
// CHECK:         walk.yield %{{.*}} : i64
// CHECK:       } weight {
// CHECK-NEXT:  ^bb0(%[[PREV:.*]]: i32, %[[CUR:.*]]: i32, %[[NEXT:.*]]: i32, %{{.*}}: i64, %[[W:.*]]: f64):
// CHECK:         walk.param "p"[0] : f64
// CHECK:         walk.has_edge %[[PREV]], %[[NEXT]]
// CHECK:         scf.if
// CHECK:         walk.yield %{{.*}} : f64
// CHECK-NEXT:  } upper_bound {
// CHECK-NEXT:  ^bb0(%[[C:.*]]: i32):
// CHECK-NEXT:    walk.weight_max %[[C]] : f64
// CHECK:       lower_bound {
// CHECK:         walk.weight_min
// CHECK:       sum_upper_bound {
// CHECK:         walk.weight_sum
// CHECK:       sum_lower_bound {
// CHECK:         walk.degree
// CHECK: walk.job @embed walk @node2vec on "box" {output = "n2v.walks", params = {q = 2.500000e-01 : f64}, seed = 42 : i64, walks_per_vertex = 1 : i64}
walk.graph @g "g.txt" format snap undirected
walk.walk @node2vec on @g attributes {order = 2 : i64, param_names = ["p", "q"], param_types = [f64, f64], param_defaults = [2.0, 0.5], state_names = [], state_types = [], sampler = #walk<sampler auto>, target = #walk<target gpu>}
  length {
    %c = arith.constant 80 : i64
    walk.yield %c : i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %p = walk.param "p"[0] : f64
    %q = walk.param "q"[1] : f64
    %back = arith.cmpi eq, %next, %prev : i32
    %r = scf.if %back -> f64 {
      %a = arith.divf %w, %p : f64
      scf.yield %a : f64
    } else {
      %near = walk.has_edge %prev, %next
      %b = scf.if %near -> f64 {
        scf.yield %w : f64
      } else {
        %c = arith.divf %w, %q : f64
        scf.yield %c : f64
      }
      scf.yield %b : f64
    }
    walk.yield %r : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %m = walk.weight_max %cur : f64
    walk.yield %m : f64
  }
  lower_bound {
  ^bb0(%cur: i32):
    %m = walk.weight_min %cur : f64
    walk.yield %m : f64
  }
  sum_upper_bound {
  ^bb0(%cur: i32):
    %m = walk.weight_sum %cur : f64
    walk.yield %m : f64
  }
  sum_lower_bound {
  ^bb0(%cur: i32):
    %d = walk.degree %cur : i64
    %f = arith.sitofp %d : i64 to f64
    walk.yield %f : f64
  }
walk.job @embed walk @node2vec on "box" {walks_per_vertex = 1 : i64, seed = 42 : i64, output = "n2v.walks", params = {q = 0.25 : f64}}

// -----

// State, update, stop, a list parameter, start and stop probability.
// CHECK-LABEL: walk.walk @typed on @g
// CHECK-SAME:    param_types = [!walk.list, i64, f64]
// CHECK:       init {
// CHECK:         arith.constant 0 : i64
// CHECK:       start {
// CHECK:         walk.param "source"[1] : i64
// CHECK:       stop_probability {
// CHECK:       weight {
// CHECK:         walk.state.get "hop"[0] : i64
// CHECK:         walk.list_size %{{.*}} : i64
// CHECK:         walk.list_get %{{.*}}[%{{.*}}] : i64
// CHECK:         walk.label %{{.*}} : i64
// CHECK:         walk.vertex_of
// CHECK:       stop {
// CHECK:         walk.step : i64
// CHECK:         walk.random : f64
// CHECK:       update {
// CHECK:         walk.state.set "hop"[0] = %{{.*}} : i64
// CHECK-NEXT:    walk.yield
walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = ["schema", "source", "restart"], param_types = [!walk.list, i64, f64], param_defaults = [array<i64: 0, 1, 2>, 0, unit], state_names = ["hop"], state_types = [i64]}
  init {
    %z = arith.constant 0 : i64
    walk.yield %z : i64
  }
  start {
    %s = walk.param "source"[1] : i64
    walk.yield %s : i64
  }
  stop_probability {
    %r = walk.param "restart"[2] : f64
    walk.yield %r : f64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %hop = walk.state.get "hop"[0] : i64
    %schema = walk.param "schema"[0] : !walk.list
    %one = arith.constant 1 : i64
    %h1 = arith.addi %hop, %one : i64
    %n = walk.list_size %schema : i64
    %i = arith.remsi %h1, %n : i64
    %want = walk.list_get %schema[%i] : i64
    %l = walk.label %next : i64
    %ok = arith.cmpi eq, %l, %want : i64
    %zero = arith.constant 0.0 : f64
    %r = arith.select %ok, %w, %zero : f64
    %s = walk.param "source"[1] : i64
    %sv = walk.vertex_of %s
    walk.yield %r : f64
  }
  stop {
  ^bb0(%cur: i32, %step: i64):
    %s = walk.step : i64
    %r = walk.random : f64
    %h = arith.constant 5.0e-01 : f64
    %c = arith.cmpf olt, %r, %h : f64
    walk.yield %c : i1
  }
  update {
  ^bb0(%prev: i32, %cur: i32, %next: i32):
    %hop = walk.state.get "hop"[0] : i64
    %one = arith.constant 1 : i64
    %h1 = arith.addi %hop, %one : i64
    walk.state.set "hop"[0] = %h1 : i64
    walk.yield
  }

// -----

// Integer division and remainder that fault instead of trapping.
// CHECK-LABEL: walk.walk @divides on @g
// CHECK:         %[[Q:.*]] = walk.idiv %{{.*}}, %{{.*}} : i64
// CHECK:         walk.irem %[[Q]], %{{.*}} : i64
walk.graph @g "g.txt" format snap
walk.walk @divides on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %d = walk.degree %cur : i64
    %n = walk.degree %next : i64
    %q = walk.idiv %d, %n : i64
    %r = walk.irem %q, %n : i64
    %f = arith.sitofp %r : i64 to f64
    walk.yield %f : f64
  }

// -----

// What a load does with duplicate edges and self loops: the defaults
// (merge, drop) are not printed, the others are; the generic form holds
// both attributes.
// CHECK: walk.graph @simple "g.txt" format snap undirected{{$}}
// CHECK: walk.graph @multi "g.txt" format snap undirected duplicates keep self_loops keep{{$}}
// CHECK: walk.graph @summed "g.el" format edgelist weighted duplicates sum{{$}}
// CHECK: walk.graph @looped "g.txt" format snap self_loops keep{{$}}
// CHECK: walk.graph @spelled "g.txt" format snap{{$}}
walk.graph @simple "g.txt" format snap undirected
walk.graph @multi "g.txt" format snap undirected duplicates keep self_loops keep
walk.graph @summed "g.el" format edgelist weighted duplicates sum
walk.graph @looped "g.txt" format snap self_loops keep
walk.graph @spelled "g.txt" format snap duplicates merge self_loops drop
