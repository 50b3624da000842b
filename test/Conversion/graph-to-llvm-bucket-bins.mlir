// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// GAPBS's local bins (OutlineLoops.cpp, AlgoLowering::bucketBins): a push
// over a `frontier: buckets` frontier whose queue passes on to the result
// files each relaxed destination with sluice_algo_bucket_insert (into the
// thread's bin of its bucket), in both copies of the out-edges (weights
// or 1.0), never through the result's bitmap and list.
// CHECK-LABEL: llvm.func @sluice_algo_binned_relax_push(
// CHECK-NOT:     sluice_algo_frontier_insert
// CHECK:         llvm.call @sluice_algo_bucket_insert(%{{.*}}, %{{.*}}) : (!llvm.ptr, i32) -> i32
// CHECK-NOT:     sluice_algo_frontier_insert
// CHECK:         llvm.call @sluice_algo_bucket_insert(%{{.*}}, %{{.*}}) : (!llvm.ptr, i32) -> i32
// CHECK-NOT:     sluice_algo_frontier_insert
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @sluice_algo_binned(
// CHECK:           llvm.call @sluice_algo_bucket_for(
// CHECK:           llvm.call @sluice_algo_frontier_seal(
// REMARK: remark: loop 'relax' of algorithm 'binned': {{.*}}; bucket fusion: {{.*}}; relaxed vertices go straight into the inserting thread's bin of their bucket (GAPBS's local bins), handed whole to the bucket queue at the round's end (on graphs of at most 2^19 vertices; the runtime keeps the bitmap and list on larger ones){{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @binned on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c0_i64 = arith.constant 0 : i64
    %0 = graph.vertex_of %source
    %2 = graph.frontier.of [%0]
    %3 = scf.while (%arg0 = %2) : (!graph.frontier) -> !graph.frontier {
      %4 = graph.frontier.size %arg0 : i64
      %5 = arith.cmpi sgt, %4, %c0_i64 : i64
      scf.condition(%5) %arg0 : !graph.frontier
    } do {
    ^bb0(%arg0: !graph.frontier):
      %4 = graph.edges from %arg0 label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 4, frontier = buckets, delta = 2.5 : f64, format = auto>} do {
      ^bb0(%src: i32, %dst: i32, %w: f64):
        %5 = graph.prop.get @dist[%src] : f64
        %6 = arith.addf %5, %w : f64
        graph.prop.reduce min @dist[%dst], %6 : f64
        graph.yield
      }
      scf.yield %4 : !graph.frontier
    }
  }
}

// -----

// Unfused rounds (fusion = off) file into the bins too: the queue still
// passes on; the round runs on sluice_algo_parallel_for.
// CHECK-LABEL: llvm.func @sluice_algo_unfused_relax_push(
// CHECK-NOT:     sluice_algo_frontier_insert
// CHECK:         llvm.call @sluice_algo_bucket_insert(
// CHECK-LABEL: llvm.func @sluice_algo_unfused(
// CHECK:           llvm.call @sluice_algo_parallel_for(
// REMARK: remark: loop 'relax' of algorithm 'unfused': {{.*}}; no bucket fusion: fusion: off (schedule); relaxed vertices go straight into the inserting thread's bin of their bucket (GAPBS's local bins), handed whole to the bucket queue at the round's end (on graphs of at most 2^19 vertices; the runtime keeps the bitmap and list on larger ones){{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @unfused on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c0_i64 = arith.constant 0 : i64
    %0 = graph.vertex_of %source
    %2 = graph.frontier.of [%0]
    %3 = scf.while (%arg0 = %2) : (!graph.frontier) -> !graph.frontier {
      %4 = graph.frontier.size %arg0 : i64
      %5 = arith.cmpi sgt, %4, %c0_i64 : i64
      scf.condition(%5) %arg0 : !graph.frontier
    } do {
    ^bb0(%arg0: !graph.frontier):
      %4 = graph.edges from %arg0 label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 4, frontier = buckets, delta = 2.5 : f64, format = auto, fusion = off>} do {
      ^bb0(%src: i32, %dst: i32, %w: f64):
        %5 = graph.prop.get @dist[%src] : f64
        %6 = arith.addf %5, %w : f64
        graph.prop.reduce min @dist[%dst], %6 : f64
        graph.yield
      }
      scf.yield %4 : !graph.frontier
    }
  }
}

// -----

// The frontier is read again in the round (its size): no queue passes on,
// the bucket call scans it, and the relaxed vertices go through the
// result's bitmap and list (the remark says why).
// CHECK-LABEL: llvm.func @sluice_algo_again_relax_push(
// CHECK-NOT:     sluice_algo_bucket_insert
// CHECK:         llvm.call @sluice_algo_frontier_insert(
// CHECK-NOT:     sluice_algo_bucket_insert
// CHECK:         llvm.return
// REMARK: remark: loop 'relax' of algorithm 'again': {{.*}}; no bucket fusion: its frontier is read again; relaxed vertices go through the result's bitmap and list, not per-thread bins of their buckets: its frontier is read again (no bucket queue to file into){{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @again on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c0_i64 = arith.constant 0 : i64
    %0 = graph.vertex_of %source
    %2 = graph.frontier.of [%0]
    %3 = scf.while (%arg0 = %2) : (!graph.frontier) -> !graph.frontier {
      %4 = graph.frontier.size %arg0 : i64
      %5 = arith.cmpi sgt, %4, %c0_i64 : i64
      scf.condition(%5) %arg0 : !graph.frontier
    } do {
    ^bb0(%arg0: !graph.frontier):
      %waiting = graph.frontier.size %arg0 : i64
      %4 = graph.edges from %arg0 label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 4, frontier = buckets, delta = 2.5 : f64, format = auto>} do {
      ^bb0(%src: i32, %dst: i32, %w: f64):
        %5 = graph.prop.get @dist[%src] : f64
        %6 = arith.addf %5, %w : f64
        graph.prop.reduce min @dist[%dst], %6 : f64
        graph.yield
      }
      scf.yield %4 : !graph.frontier
    }
  }
}

// -----

// A push over a sparse frontier (BFS-like, no buckets): no bins, no
// remark about them.
// CHECK-LABEL: llvm.func @sluice_algo_sparse_relax_push(
// CHECK-NOT:     sluice_algo_bucket_insert
// CHECK:         llvm.call @sluice_algo_frontier_insert(
// CHECK-NOT:     sluice_algo_bucket_insert
// CHECK:         llvm.return
// REMARK: remark: loop 'relax' of algorithm 'sparse': push over the out-edges (CSR) of the frontier's list
// REMARK-NOT: bin of their bucket
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @sparse on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c0_i64 = arith.constant 0 : i64
    %0 = graph.vertex_of %source
    %2 = graph.frontier.of [%0]
    %3 = scf.while (%arg0 = %2) : (!graph.frontier) -> !graph.frontier {
      %4 = graph.frontier.size %arg0 : i64
      %5 = arith.cmpi sgt, %4, %c0_i64 : i64
      scf.condition(%5) %arg0 : !graph.frontier
    } do {
    ^bb0(%arg0: !graph.frontier):
      %4 = graph.edges from %arg0 label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 4, frontier = sparse, format = auto>} do {
      ^bb0(%src: i32, %dst: i32, %w: f64):
        %5 = graph.prop.get @dist[%src] : f64
        %6 = arith.addf %5, %w : f64
        graph.prop.reduce min @dist[%dst], %6 : f64
        graph.yield
      }
      scf.yield %4 : !graph.frontier
    }
  }
}
