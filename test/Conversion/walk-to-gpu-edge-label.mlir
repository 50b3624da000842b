// RUN: sluice-opt %s -walk-to-gpu | FileCheck %s

// edge_label(u, v) on the device: the field edge_labels of the kernel's
// argument (i32 per edge, NULL without edge labels) goes to frame slot 17; the label of the
// first u -> v edge by the binary search, -1 without edge or labels.

// CHECK: func.func private @sluice_edge_label
// CHECK:   arith.constant 17 : i32
// CHECK:   llvm.icmp "eq"
// CHECK:   call @sluice_find_edge
// CHECK:   arith.extsi %{{.*}} : i32 to i64
// CHECK: gpu.func @sluice_walk_el(%[[ARGS:.*]]: !llvm.ptr) kernel
// CHECK:   %[[C18:.*]] = arith.constant 18 : i32
// CHECK:   %[[EL:.*]] = func.call @sluice_kernel_arg_ptr(%[[ARGS]], %[[C18]])
// CHECK:   llvm.store %[[EL]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: func.func private @sluice_walk_el_weight
// CHECK:   call @sluice_edge_label(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32) -> i64

walk.graph @g "g.txt" format snap
walk.walk @el on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], schedule = #walk.schedule<target = gpu, method = rejection>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %l = walk.edge_label %cur, %next : i64
    %f = arith.sitofp %l : i64 to f64
    walk.yield %f : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
