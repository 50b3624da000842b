// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// GAPBS's bucket fusion of a `frontier: buckets` loop (OutlineLoops.cpp,
// fusible): its queue handed on, its result read only by the next round
// and `size > 0`, its body only lowering the priority with min= at the
// destination. The bucket call gets consume | fuse (3) and the round runs
// on sluice_algo_bucket_for with the environment's size (7 slots, none
// captured) and its list slot (2), not on sluice_algo_parallel_for.
// CHECK-LABEL: llvm.func @sluice_algo_fused(
// CHECK:         scf.while
// CHECK:           %[[OUT:.*]] = llvm.call @sluice_algo_frontier_new(
// CHECK:           %[[FLAGS:.*]] = arith.constant 3 : i32
// CHECK-NEXT:      %[[LOW:.*]] = llvm.call @sluice_algo_frontier_bucket(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]], %[[FLAGS]]) : (!llvm.ptr, !llvm.ptr, i32, f64, !llvm.ptr, i32) -> !llvm.ptr
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_list(%[[LOW]])
// CHECK-NOT:       sluice_algo_parallel_for
// CHECK:           %[[SLOTS:.*]] = arith.constant 7 : i64
// CHECK-NEXT:      %[[LIST:.*]] = arith.constant 2 : i64
// CHECK-NEXT:      llvm.call @sluice_algo_bucket_for(%[[LOW]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SLOTS]], %[[LIST]]) : (!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_release(%[[LOW]])
// CHECK:           llvm.call @sluice_algo_frontier_seal(%[[OUT]])
// REMARK: remark: loop 'relax' of algorithm 'fused': push over the out-edges (CSR) of the frontier's vertices in its lowest bucket of width 2.5 {{.*}}; atomic updates of 'dist'; bucket fusion: within a round, a thread runs the vertices it lowers into the round's bucket while it holds fewer than 1000 of them (GAPBS's), as the loop only lowers 'dist' with min= at the destination and its result feeds only the next round
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @fused on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
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

// The body also writes another property (a parent per vertex): running a
// vertex again could change what it holds, so no fusion.
// CHECK-LABEL: llvm.func @sluice_algo_parents(
// CHECK:           llvm.call @sluice_algo_frontier_bucket(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32{{(_[0-9]+)?}})
// CHECK:           llvm.call @sluice_algo_parallel_for(
// REMARK: remark: loop 'relax' of algorithm 'parents': {{.*}}; no bucket fusion: its body does more than lower 'dist' with min= at the destination; relaxed vertices go straight into the inserting thread's bin of their bucket{{.*}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @parents on @g attributes {outputs = [@dist, @parent], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %m1 = arith.constant -1 : i64
    graph.property @parent : i64 = %m1
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
        %7 = arith.extui %src : i32 to i64
        graph.prop.set @parent[%dst] = %7 : i64
        graph.yield
      }
      scf.yield %4 : !graph.frontier
    }
  }
}

// -----

// The loop runs while its result holds more than 5 vertices: a fused
// round's result holds fewer, so the loop could stop at another round;
// no fusion.
// CHECK-LABEL: llvm.func @sluice_algo_many(
// CHECK:           llvm.call @sluice_algo_frontier_bucket(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32{{(_[0-9]+)?}})
// REMARK: remark: loop 'relax' of algorithm 'many': {{.*}}; no bucket fusion: its result is read by more than the next round and a test of its size against zero; relaxed vertices go straight into the inserting thread's bin of their bucket{{.*}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @many on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c5_i64 = arith.constant 5 : i64
    %0 = graph.vertex_of %source
    %2 = graph.frontier.of [%0]
    %3 = scf.while (%arg0 = %2) : (!graph.frontier) -> !graph.frontier {
      %4 = graph.frontier.size %arg0 : i64
      %5 = arith.cmpi sgt, %4, %c5_i64 : i64
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
