// RUN: sluice-opt %s -split-input-file -walk-to-gpu | FileCheck %s

// node2vec: every walk becomes a kernel in one gpu.module of a
// gpu.container_module; the regions become private device functions that
// read the device frame (slot 10 prev, 11 cur, 7 params).

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @sluice_walks
// The device library: Philox4x32-10 (10 rounds of mulhi/xor, key bumps).
// CHECK:   func.func private @sluice_philox
// CHECK:     arith.constant -766435501 : i32
// CHECK:     arith.constant -845247145 : i32
// CHECK:     arith.mului_extended
// CHECK:   func.func private @sluice_next_u32
// CHECK:   func.func private @sluice_uniform_index
// CHECK:   func.func private @sluice_find_edge
// CHECK:   func.func private @sluice_random
// The driver: rejection against upper_bound, exact fallback.
// CHECK:   gpu.func @sluice_walk_node2vec(%[[ARGS:.*]]: !llvm.ptr) kernel
// CHECK:     %[[SEED:.*]] = arith.constant 13 : i32
// CHECK:     call @sluice_kernel_arg_i64(%[[ARGS]], %[[SEED]])
// CHECK:     gpu.block_id x
// CHECK:     gpu.thread_id x
// CHECK:     call @sluice_walk_node2vec_init
// CHECK:     call @sluice_rng_init
// CHECK:     call @sluice_walk_node2vec_stop
// CHECK:     call @sluice_walk_node2vec_sample
// CHECK:     call @sluice_walk_node2vec_update
// CHECK:     gpu.return
// CHECK:   func.func private @sluice_walk_node2vec_exact
// CHECK:   func.func private @sluice_walk_node2vec_sample
// CHECK:     arith.constant 64 : i64
// CHECK:     call @sluice_walk_node2vec_upper_bound
// CHECK:     call @sluice_uniform_index
// CHECK:     call @sluice_walk_node2vec_exact
// CHECK:   func.func private @sluice_walk_node2vec_weight(%[[F:.*]]: !llvm.ptr, %[[NEXT:.*]]: i32, %{{.*}}: i64, %[[W:.*]]: f64) -> f64
// CHECK:     %[[C10:.*]] = arith.constant 10 : i32
// CHECK:     %[[PREV:.*]] = call @sluice_frame_i32(%[[F]], %[[C10]])
// CHECK:     %[[C7:.*]] = arith.constant 7 : i32
// CHECK:     %[[PARAMS:.*]] = call @sluice_frame_ptr(%[[F]], %[[C7]])
// CHECK:     %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK:     arith.cmpi eq, %[[NEXT]], %[[PREV]] : i32
// CHECK:     arith.divf %[[W]], %[[P]] : f64
// CHECK:     call @sluice_has_edge(%[[F]], %[[PREV]], %[[NEXT]])
// CHECK:     return %{{.*}} : f64
// No stop rule: never stops; no update/init: nothing.
// CHECK:   func.func private @sluice_walk_node2vec_stop(%{{.*}}: !llvm.ptr) -> i1
// CHECK:     %[[FALSE:.*]] = arith.constant false
// CHECK:     return %[[FALSE]] : i1
// CHECK:   func.func private @sluice_walk_node2vec_update(%{{.*}}: !llvm.ptr, %{{.*}}: i32)
// CHECK:   func.func private @sluice_walk_node2vec_init(%{{.*}}: !llvm.ptr)
// CHECK:   func.func private @sluice_walk_node2vec_upper_bound(%[[FB:.*]]: !llvm.ptr) -> f64
// CHECK:     %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:     call @sluice_weight_stat(%[[FB]], %{{.*}}, %[[ZERO]])
// No walk op is left.
// CHECK-NOT: walk.
walk.graph @g "g.txt" format snap undirected
walk.walk @node2vec on @g attributes {order = 2 : i64, param_names = ["p", "q"], param_types = [f64, f64], param_defaults = [2.0, 0.5], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>, schedule = #walk.schedule<target = gpu, method = rejection>}
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
walk.job @embed walk @node2vec on "box" {seed = 42 : i64}

// -----

// -----

// State, random(), labels, edge weights, a bool parameter, stop and update.

// CHECK-LABEL: gpu.func @sluice_walk_misc(
// CHECK-LABEL: func.func private @sluice_walk_misc_weight
// CHECK:   %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:   arith.cmpi ne, %[[B]], %{{.*}} : i64
// CHECK:   call @sluice_edge_weight
// CHECK:   call @sluice_label
// CHECK:   call @sluice_degree
// CHECK:   call @sluice_random
// CHECK:   %[[C8:.*]] = arith.constant 8 : i32
// CHECK:   call @sluice_frame_ptr(%{{.*}}, %[[C8]])
// CHECK:   llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK-LABEL: func.func private @sluice_walk_misc_stop
// CHECK:   %[[C12:.*]] = arith.constant 12 : i32
// CHECK:   call @sluice_frame_i64(%{{.*}}, %[[C12]])
// CHECK-LABEL: func.func private @sluice_walk_misc_update
// CHECK:   %[[T:.*]] = arith.addf
// CHECK:   llvm.store %[[T]], %{{.*}} : f64, !llvm.ptr
// CHECK-LABEL: func.func private @sluice_walk_misc_init
// CHECK:   llvm.store %{{.*}}, %{{.*}} : f64, !llvm.ptr
walk.graph @g "g.txt" format snap weighted
walk.walk @misc on @g attributes {order = 1 : i64, param_names = ["flag"], param_types = [i1], param_defaults = [true], state_names = ["total"], state_types = [f64], schedule = #walk.schedule<target = gpu, method = rejection>}
  init {
    %z = arith.constant 0.0 : f64
    walk.yield %z : f64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %flag = walk.param "flag"[0] : i1
    %ew = walk.edge_weight %cur, %next : f64
    %l = walk.label %next : i64
    %d = walk.degree %next : i64
    %r0 = walk.random : f64
    %total = walk.state.get "total"[0] : f64
    %s1 = arith.addi %l, %d : i64
    %f = arith.sitofp %s1 : i64 to f64
    %a = arith.addf %ew, %f : f64
    %b = arith.addf %a, %total : f64
    %c = arith.addf %b, %r0 : f64
    %r = arith.select %flag, %c, %w : f64
    walk.yield %r : f64
  }
  stop {
  ^bb0(%cur: i32, %step: i64):
    %ten = arith.constant 10 : i64
    %c = arith.cmpi sge, %step, %ten : i64
    walk.yield %c : i1
  }
  update {
  ^bb0(%prev: i32, %cur: i32, %next: i32):
    %total = walk.state.get "total"[0] : f64
    %one = arith.constant 1.0 : f64
    %t = arith.addf %total, %one : f64
    walk.state.set "total"[0] = %t : f64
    walk.yield
  }
  upper_bound {
  ^bb0(%cur: i32):
    %m = walk.weight_sum %cur : f64
    walk.yield %m : f64
  }

