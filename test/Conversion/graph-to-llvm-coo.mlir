// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sluice-opt --graph-to-gpu=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU

// `format: coo` (CooEdges.cpp): the push over every vertex becomes `_coo`,
// a function over a range [begin, end) of edges: nothing for an empty
// range, else the source of edge `begin` by a binary search of the
// out-offsets (a while loop over lo < hi, the largest lo with offsets[lo]
// <= begin), then a walk over the sources, each one's edges clamped to the
// range, with the body per edge and the sum at the destination atomic.
// The launch runs the pass over every edge, dynamic(64) as chunks of 64 *
// edges / vertices (at least 1). No `_push` is built.
// CHECK-NOT:   llvm.func @sluice_algo_pr_scatter_push(
// CHECK-LABEL: llvm.func @sluice_algo_pr_scatter_coo(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK-NOT:     scf.for
// CHECK:         %[[ANY:.*]] = arith.cmpi ult, %[[BEGIN]], %[[END]] : i64
// CHECK-NEXT:    scf.if %[[ANY]] {
// CHECK:           %[[SEARCH:.*]]:2 = scf.while (%[[LO:.*]] = %{{.*}}, %[[HI:.*]] = %{{.*}}) : (i64, i64) -> (i64, i64) {
// CHECK-NEXT:        %[[MORE:.*]] = arith.cmpi ult, %[[LO]], %[[HI]] : i64
// CHECK-NEXT:        scf.condition(%[[MORE]])
// CHECK:             arith.cmpi ule, %{{.*}}, %[[BEGIN]] : i64
// CHECK:           scf.while (%[[U:.*]] = %[[SEARCH]]#0, %[[E:.*]] = %[[BEGIN]]) : (i64, i64) -> (i64, i64) {
// CHECK-NEXT:        %[[LEFT:.*]] = arith.cmpi ult, %[[E]], %[[END]] : i64
// CHECK:             %[[UEND:.*]] = arith.minui %{{.*}}, %[[END]] : i64
// CHECK-NEXT:        scf.for %[[AT:.*]] = %[[E]] to %[[UEND]]
// CHECK:               llvm.atomicrmw fadd
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// CHECK:         llvm.getelementptr inbounds %{{.*}}[5]
// CHECK-NEXT:    llvm.store
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[NV:.*]] = arith.maxui %{{.*}}, %[[ONE]] : i64
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[M:.*]] : i64
// CHECK-NEXT:    %[[PER:.*]] = arith.divui %[[TOTAL]], %[[NV]] : i64
// CHECK-NEXT:    %[[CHUNK:.*]] = arith.maxui %[[PER]], %[[ONE]] : i64
// CHECK:         %[[FN:.*]] = llvm.mlir.addressof @sluice_algo_pr_scatter_coo
// CHECK:         llvm.call @sluice_algo_parallel_for(%{{.*}}, %[[M]], %{{.*}}, %[[CHUNK]], %[[FN]], %{{.*}})
// REMARK: remark: loop 'scatter' of algorithm 'pr': push over the edges as coordinates (format coo), in the CSR's order: each range of edges a thread runs finds its first source by a binary search of the out-offsets, the next ones by walking them; parallel, dynamic chunks of as many edges as 64 sources have on average; atomic updates of 'incoming'{{$}}
// GPU: remark: loop 'scatter' of algorithm 'pr' on the GPU: sluice_algo_pr_scatter_coo: a thread per edge (format coo), its source found by a binary search of the out-offsets; 256 threads a block
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "scatter" attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 64, frontier = auto, format = coo>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      graph.prop.reduce add @incoming[%dst], %r : f64
      graph.yield
    }
  }
}

// -----

// Loops that keep the CSR say why: a pull, a write at the source, a tile.
// CHECK-LABEL: llvm.func @sluice_algo_keep_gather_pull(
// CHECK-LABEL: llvm.func @sluice_algo_keep_count_push(
// CHECK-LABEL: llvm.func @sluice_algo_keep_binned_push(
// CHECK-NOT:   _coo
// REMARK: remark: loop 'gather' of algorithm 'keep': pull over in-edges (CSC); parallel, static shares; no atomics; reductions into 'incoming' combined in a register across each destination's in-edges, stored once per destination; format coo not used (the CSR is): format coo is for push loops (a pull loop reads each destination's in-edges from the CSC){{$}}
// REMARK: remark: loop 'count' of algorithm 'keep': {{.*}}; format coo not used (the CSR is): the loop writes at its source, whose out-edges a pass over edges splits between threads{{$}}
// REMARK: remark: loop 'binned' of algorithm 'keep': {{.*}}; format coo not used (the CSR is): `tile` bins the loop's out-edges by destination{{$}}
// GPU: remark: loop 'gather' of algorithm 'keep' on the GPU: {{.*}}; format coo not used (the CSR is): format coo is for push loops
// GPU: remark: loop 'count' of algorithm 'keep' on the GPU: sluice_algo_keep_count_push: a thread per source, its out-edges in a loop; format coo not used (the CSR is): the loop writes at its source
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @keep on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = coo>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      graph.prop.reduce add @incoming[%dst], %r : f64
      graph.yield
    }
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = coo>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @rank[%src], %one : f64
      graph.yield
    }
    graph.edges label "binned" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = coo>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      graph.prop.reduce add @incoming[%dst], %r : f64
      graph.yield
    }
  }
}

// -----

// Over a frontier, the push keeps the frontier's sources.
// REMARK: remark: loop 'relax' of algorithm 'relax': {{.*}}; format coo not used (the CSR is): the loop runs over a frontier (its sources are the frontier's){{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @relax on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %inf = arith.constant 1.0e300 : f64
    graph.property @dist : f64 = %inf
    %s = graph.vertex_of %source
    %f = graph.frontier.of [%s]
    %next = graph.edges from %f label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = coo>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce min @dist[%dst], %one : f64
      graph.yield
    }
  }
}
