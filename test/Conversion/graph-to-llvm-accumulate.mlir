// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A pull loop's reduction at its destination into a property nothing else
// in the loop touches (PageRank's gather): a slot allocated once per call,
// set from the property before the destination's in-edges, updated by
// each in-edge (no access to the property's array inside), stored back
// once after them. The in-edge arrays are read once per call.
// CHECK-LABEL: llvm.func @sluice_algo_pr_gather_pull(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         %[[VIEW:.*]] = llvm.call @sluice_algo_view(
// CHECK:         %[[OFFSETS_AT:.*]] = llvm.getelementptr inbounds %[[VIEW]][5]
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x f64 : (i64) -> !llvm.ptr
// CHECK-NEXT:    scf.for %{{.*}} = %[[BEGIN]] to %[[END]]
// CHECK-NOT:       llvm.call @sluice_algo_view
// CHECK-NOT:       llvm.getelementptr inbounds %[[VIEW]]
// CHECK:           %[[AT:.*]] = llvm.getelementptr %[[INCOMING:.*]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:      %[[INIT:.*]] = llvm.load %[[AT]] {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:      llvm.store %[[INIT]], %[[SLOT]] : f64, !llvm.ptr
// CHECK:           scf.for
// CHECK:             %[[X:.*]] = arith.mulf
// CHECK-NEXT:        %[[OLD:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> f64
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f64
// CHECK-NEXT:        llvm.store %[[NEW]], %[[SLOT]] : f64, !llvm.ptr
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[SUM:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> f64
// CHECK-NEXT:      arith.extui
// CHECK-NEXT:      %[[BACK:.*]] = llvm.getelementptr %[[INCOMING]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:      llvm.store %[[SUM]], %[[BACK]] {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK-NEXT:    }
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// REMARK: remark: loop 'gather' of algorithm 'pr': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; no atomics; reductions into 'incoming' combined in a register across each destination's in-edges, stored once per destination
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [8.500000e-01], param_names = ["damping"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%damping: f64):
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      %x = arith.mulf %r, %damping : f64
      graph.prop.reduce add @incoming[%dst], %x : f64
      graph.yield
    }
  }
}

// -----

// Under a `where` on the source (max= into an i64): the slot's update is
// inside the condition's scf.if; the property the `where` reads at the
// source stays an array read.
// CHECK-LABEL: llvm.func @sluice_algo_far_reach_pull(
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               %[[L:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:          %[[OLD:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i64
// CHECK-NEXT:          %[[NEW:.*]] = arith.maxsi %[[OLD]], %[[L]] : i64
// CHECK-NEXT:          llvm.store %[[NEW]], %[[SLOT]] : i64, !llvm.ptr
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.load %[[SLOT]] : !llvm.ptr -> i64
// REMARK: remark: loop 'reach' of algorithm 'far': pull over in-edges (CSC); parallel, static shares; no atomics; reductions into 'hops' combined in a register across each destination's in-edges, stored once per destination
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @far on @g attributes {outputs = [@hops], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0:
    %zero = arith.constant 0 : i64
    graph.property @label : i64 = %zero
    graph.property @hops : i64 = %zero
    graph.edges label "reach" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32):
      %l = graph.prop.get @label[%src] : i64
      %p = arith.cmpi sgt, %l, %zero : i64
      graph.yield %p : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %l = graph.prop.get @label[%src] : i64
      graph.prop.reduce max @hops[%dst], %l : i64
      graph.yield
    }
  }
}

// -----

// Not accumulated: the body also reads the property (at the destination),
// so each in-edge reads and writes its array.
// CHECK-LABEL: llvm.func @sluice_algo_seen_gather_pull(
// CHECK-NOT:     llvm.alloca
// CHECK:           scf.for
// CHECK:             %[[X:.*]] = llvm.load %[[AT:.*]] {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK:             %[[OLD:.*]] = llvm.load %[[AT2:.*]] {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f64
// CHECK-NEXT:        llvm.store %[[NEW]], %[[AT2]] {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_algo_seen(
// REMARK: remark: loop 'gather' of algorithm 'seen': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; no atomics{{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @seen on @g attributes {outputs = [@incoming], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0:
    %cst = arith.constant 0.0 : f64
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @incoming[%dst] : f64
      graph.prop.reduce add @incoming[%dst], %x : f64
      graph.yield
    }
  }
}

// -----

// Not accumulated: the loop builds a frontier, and each update that
// changes the destination inserts it (the two i64 slots are the new
// frontier's bit word and its index, graph-to-llvm.mlir; no f64 slot).
// CHECK-LABEL: llvm.func @sluice_algo_relax_relax_pull(
// CHECK-NOT:     llvm.alloca %{{.*}} x f64
// CHECK:           scf.for
// CHECK:             arith.minnumf
// CHECK:             llvm.store
// REMARK: remark: loop 'relax' of algorithm 'relax': pull over in-edges (CSC), sources tested against the frontier's bitmap; parallel, static shares; no atomics{{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @relax on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %inf = arith.constant 1.0e300 : f64
    graph.property @dist : f64 = %inf
    %s = graph.vertex_of %source
    %f = graph.frontier.of [%s]
    %next = graph.edges from %f label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce min @dist[%dst], %one : f64
      graph.yield
    }
  }
}
