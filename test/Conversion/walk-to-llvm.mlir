// RUN: sluice-opt %s -split-input-file -sluice-walk-to-llvm | FileCheck %s

// node2vec: a second-order weight with parameters and bound regions.
// Region arguments become frame loads (prev = field 4, cur = field 5) or
// function arguments (next, edge, w); parameters are 8-byte slots of the
// parameter block (field 1); graph queries call libsluicert.

// CHECK-DAG: llvm.func @sluice_graph_has_edge(!llvm.ptr, i32, i32) -> i32
// CHECK-DAG: llvm.func @sluice_graph_weight_max(!llvm.ptr, i32) -> f32
// CHECK: llvm.func @sluice_walk_node2vec_weight(%[[F:.*]]: !llvm.ptr, %[[NEXT:.*]]: i32, %{{.*}}: i64, %[[W:.*]]: f64) -> f64
// CHECK:   %[[PREVP:.*]] = llvm.getelementptr inbounds %[[F]][0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, i64, i32, i32, i64, i64, ptr, ptr)>
// CHECK:   %[[PREV:.*]] = llvm.load %[[PREVP]] : !llvm.ptr -> i32
// CHECK:   llvm.getelementptr inbounds %[[F]][0, 1]
// CHECK:   %[[PARAMS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[P:.*]] = llvm.load %[[PARAMS]] : !llvm.ptr -> f64
// CHECK:   %[[QP:.*]] = llvm.getelementptr inbounds %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:   %[[Q:.*]] = llvm.load %[[QP]] : !llvm.ptr -> f64
// CHECK:   llvm.icmp "eq" %[[NEXT]], %[[PREV]] : i32
// CHECK:   llvm.fdiv %[[W]], %[[P]] : f64
// CHECK:   %[[G:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[E:.*]] = llvm.call @sluice_graph_has_edge(%[[G]], %[[PREV]], %[[NEXT]]) : (!llvm.ptr, i32, i32) -> i32
// CHECK:   llvm.icmp "ne" %[[E]]
// CHECK:   llvm.fdiv %[[W]], %[[Q]] : f64
// CHECK:   llvm.return %{{.*}} : f64
// CHECK-LABEL: llvm.func @sluice_walk_node2vec_upper_bound(%{{.*}}: !llvm.ptr) -> f64
// CHECK:   %[[M:.*]] = llvm.call @sluice_graph_weight_max
// CHECK:   %[[MD:.*]] = llvm.fpext %[[M]] : f32 to f64
// CHECK:   llvm.return %[[MD]] : f64
// CHECK-LABEL: llvm.func @sluice_walk_node2vec_length(%{{.*}}: !llvm.ptr) -> i64
// CHECK:   llvm.mlir.constant(80 : i64)
// CHECK: llvm.mlir.global private constant @sluice_walk_kernel_node2vec.name("node2vec\00")
// CHECK-LABEL: llvm.mlir.global external constant @sluice_walk_kernel_node2vec()
// CHECK-SAME: !llvm.struct<(i32, i32, ptr, i32, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr)>
// abi_version 2, flags SECOND_ORDER | PURE_WEIGHT (no random(), no list
// element in the weight), weight_class DYNAMIC,
// 2 parameters, no state; weight, no stop/update/init, one bound.
// CHECK:   %[[ABI:.*]] = llvm.mlir.constant(2 : i32)
// CHECK:   llvm.insertvalue %[[ABI]], %{{.*}}[0]
// CHECK:   %[[FL:.*]] = llvm.mlir.constant(9 : i32)
// CHECK:   llvm.insertvalue %[[FL]], %{{.*}}[1]
// CHECK:   llvm.mlir.addressof @sluice_walk_kernel_node2vec.name
// CHECK:   %[[WC:.*]] = llvm.mlir.constant(2 : i32)
// CHECK:   llvm.insertvalue %[[WC]], %{{.*}}[3]
// CHECK:   %[[NP:.*]] = llvm.mlir.constant(2 : i32)
// CHECK:   llvm.insertvalue %[[NP]], %{{.*}}[4]
// CHECK:   %[[NS:.*]] = llvm.mlir.constant(0 : i32)
// CHECK:   llvm.insertvalue %[[NS]], %{{.*}}[5]
// CHECK:   llvm.mlir.addressof @sluice_walk_node2vec_weight
// CHECK:   llvm.insertvalue %{{.*}}[6]
// CHECK:   llvm.mlir.zero : !llvm.ptr
// CHECK:   llvm.insertvalue %{{.*}}[7]
// CHECK:   llvm.mlir.addressof @sluice_walk_node2vec_upper_bound
// CHECK:   llvm.insertvalue %{{.*}}[10]
// CHECK:   llvm.mlir.zero : !llvm.ptr
// CHECK:   llvm.insertvalue %{{.*}}[11]
// CHECK:   llvm.return
// No walk op is left.
// CHECK-NOT: walk.
walk.graph @g "g.txt" format snap undirected
walk.walk @node2vec on @g attributes {order = 2 : i64, param_names = ["p", "q"], param_types = [f64, f64], param_defaults = [2.0, 0.5], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>}
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

// State (slot 0 of field 2), a list parameter, label(), stop with step and
// random(), init and update storing state, start yielding a list.

// CHECK-LABEL: llvm.func @sluice_walk_typed_weight
// CHECK:   llvm.getelementptr inbounds %{{.*}}[0, 2]
// CHECK:   %[[STATE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[HOP:.*]] = llvm.load %[[STATE]] : !llvm.ptr -> i64
// CHECK:   %[[PARAMS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[LIST:.*]] = llvm.load %[[PARAMS]] : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[SIZEP:.*]] = llvm.getelementptr inbounds %[[LIST]][0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, i64)>
// CHECK:   %[[SIZE:.*]] = llvm.load %[[SIZEP]] : !llvm.ptr -> i64
// CHECK:   %[[I:.*]] = llvm.srem %{{.*}}, %[[SIZE]] : i64
// CHECK:   llvm.call @sluice_kernel_list_get(%{{.*}}, %[[LIST]], %[[I]]) : (!llvm.ptr, !llvm.ptr, i64) -> i64
// CHECK:   %[[L:.*]] = llvm.call @sluice_graph_vertex_label(%{{.*}}, %{{.*}}) : (!llvm.ptr, i32) -> i32
// CHECK:   llvm.sext %[[L]] : i32 to i64
// CHECK:   llvm.select
// CHECK: llvm.func @sluice_walk_typed_stop(%[[F:.*]]: !llvm.ptr) -> i32
// CHECK:   llvm.getelementptr inbounds %[[F]][0, 6]
// CHECK:   %[[R:.*]] = llvm.call @sluice_walk_random(%[[F]]) : (!llvm.ptr) -> f64
// CHECK:   %[[C:.*]] = llvm.fcmp "olt" %[[R]]
// CHECK:   %[[CI:.*]] = llvm.zext %[[C]] : i1 to i32
// CHECK:   llvm.return %[[CI]] : i32
// CHECK-LABEL: llvm.func @sluice_walk_typed_update(%{{.*}}: !llvm.ptr, %{{.*}}: i32)
// CHECK:   %[[H1:.*]] = llvm.add
// CHECK:   llvm.store %[[H1]], %{{.*}} : i64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_walk_typed_init(%{{.*}}: !llvm.ptr)
// CHECK:   %[[Z:.*]] = llvm.mlir.constant(0 : i64)
// CHECK:   llvm.store %[[Z]], %{{.*}} : i64, !llvm.ptr
// CHECK: llvm.func @sluice_walk_typed_start(%{{.*}}: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[CAP:.*]]: i64) -> i64
// CHECK:   llvm.call @sluice_kernel_list_get
// CHECK:   llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr
// CHECK:   llvm.return %{{.*}} : i64
// flags: UNBOUNDED (no upper_bound) | MAY_BE_ZERO, not PURE_WEIGHT (its
// weight reads a list element and draws random()); weight class STATIC.
// CHECK-LABEL: llvm.mlir.global external constant @sluice_walk_kernel_typed()
// CHECK:   %[[FL:.*]] = llvm.mlir.constant(6 : i32)
// CHECK:   llvm.insertvalue %[[FL]], %{{.*}}[1]
// CHECK:   %[[WC:.*]] = llvm.mlir.constant(1 : i32)
// CHECK:   llvm.insertvalue %[[WC]], %{{.*}}[3]
// CHECK:   %[[NP:.*]] = llvm.mlir.constant(1 : i32)
// CHECK:   llvm.insertvalue %[[NP]], %{{.*}}[4]
// CHECK:   %[[NS:.*]] = llvm.mlir.constant(1 : i32)
// CHECK:   llvm.insertvalue %[[NS]], %{{.*}}[5]
// CHECK:   llvm.mlir.addressof @sluice_walk_typed_stop
// CHECK:   llvm.insertvalue %{{.*}}[7]
// CHECK:   llvm.mlir.addressof @sluice_walk_typed_update
// CHECK:   llvm.insertvalue %{{.*}}[8]
// CHECK:   llvm.mlir.addressof @sluice_walk_typed_init
// CHECK:   llvm.insertvalue %{{.*}}[9]
walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = ["schema"], param_types = [!walk.list], param_defaults = [array<i64: 0, 1, 2>], state_names = ["hop"], state_types = [i64], weight_class = #walk<weight_class static>, may_be_zero}
  init {
    %z = arith.constant 0 : i64
    walk.yield %z : i64
  }
  start {
    %s = walk.param "schema"[0] : !walk.list
    walk.yield %s : !walk.list
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
    walk.yield %r : f64
  }
  stop {
  ^bb0(%cur: i32, %step: i64):
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

// The other graph queries, a bool parameter, an f64 state variable, a stop
// region, and start yielding ids (written while they fit the capacity).

// CHECK-LABEL: llvm.func @sluice_walk_misc_weight
// CHECK:   %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:   llvm.icmp "ne" %[[B]], %[[ZERO]] : i64
// CHECK:   llvm.call @sluice_kernel_edge_weight(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32) -> f64
// CHECK:   llvm.call @sluice_kernel_edge_label(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32) -> i64
// CHECK:   llvm.call @sluice_graph_degree(%{{.*}}, %{{.*}}) : (!llvm.ptr, i32) -> i64
// CHECK:   llvm.call @sluice_graph_num_vertices(%{{.*}}) : (!llvm.ptr) -> i64
// CHECK:   llvm.call @sluice_graph_num_edges(%{{.*}}) : (!llvm.ptr) -> i64
// CHECK:   %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK-LABEL: llvm.func @sluice_walk_misc_stop
// CHECK:   llvm.call @sluice_graph_vertex_of(%{{.*}}, %{{.*}}) : (!llvm.ptr, i64) -> i32
// CHECK-LABEL: llvm.func @sluice_walk_misc_update
// CHECK:   %[[T:.*]] = llvm.fadd
// CHECK:   llvm.store %[[T]], %{{.*}} : f64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_walk_misc_lower_bound
// CHECK:   llvm.call @sluice_graph_weight_min
// CHECK-LABEL: llvm.func @sluice_walk_misc_sum_upper_bound
// CHECK:   llvm.call @sluice_graph_weight_sum
// CHECK: llvm.func @sluice_walk_misc_start(%{{.*}}: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[CAP:.*]]: i64) -> i64
// CHECK:   llvm.icmp "sgt" %[[CAP]], %{{.*}} : i64
// CHECK:   llvm.store %{{.*}}, %[[OUT]] : i64, !llvm.ptr
// CHECK:   llvm.icmp "sgt" %[[CAP]], %{{.*}} : i64
// CHECK:   %[[SECOND:.*]] = llvm.getelementptr inbounds %[[OUT]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:   llvm.store %{{.*}}, %[[SECOND]] : i64, !llvm.ptr
// CHECK:   %[[N:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:   llvm.return %[[N]] : i64
walk.graph @g "g.txt" format snap weighted
walk.walk @misc on @g attributes {order = 1 : i64, param_names = ["flag", "source"], param_types = [i1, i64], param_defaults = [true, 3], state_names = ["total"], state_types = [f64]}
  init {
    %z = arith.constant 0.0 : f64
    walk.yield %z : f64
  }
  start {
    %s = walk.param "source"[1] : i64
    %one = arith.constant 1 : i64
    %t = arith.addi %s, %one : i64
    walk.yield %s, %t : i64, i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %flag = walk.param "flag"[0] : i1
    %ew = walk.edge_weight %cur, %next : f64
    %el = walk.edge_label %cur, %next : i64
    %d = walk.degree %next : i64
    %n = walk.num_vertices : i64
    %m = walk.num_edges : i64
    %total = walk.state.get "total"[0] : f64
    %s1 = arith.addi %el, %d : i64
    %s2 = arith.addi %s1, %n : i64
    %s3 = arith.addi %s2, %m : i64
    %f = arith.sitofp %s3 : i64 to f64
    %a = arith.addf %ew, %f : f64
    %b = arith.addf %a, %total : f64
    %r = arith.select %flag, %b, %w : f64
    walk.yield %r : f64
  }
  stop {
  ^bb0(%cur: i32, %step: i64):
    %s = walk.param "source"[1] : i64
    %v = walk.vertex_of %s
    %c = arith.cmpi eq, %v, %cur : i32
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
