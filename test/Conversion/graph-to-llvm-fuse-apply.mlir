// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sluice-opt --graph-to-gpu=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: sluice-opt --graph-to-gpu --split-input-file %s | FileCheck %s --check-prefix=KERNELS

// PageRank's gather and apply: the vertices loop runs inside the pull's
// function, at each destination after its in-edges (after the sum in its
// slot is stored), owning the same vertex (plain stores); it has no
// function or launch of its own. The GPU's kernels fuse it the same way
// (the host code is graph-to-llvm's): no kernel for the vertices loop, the
// pull's kernels (a thread and a warp per destination) write `rank` too.
// CHECK-LABEL: llvm.func @sluice_algo_pr_gather_pull(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.addf
// CHECK:           }
// CHECK:           %[[SUM:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK:           llvm.store %[[SUM]], %{{.*}} {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK:           %[[IN:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[IN]], %{{.*}} : f64
// CHECK:           llvm.store %[[R]], %{{.*}} {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK-NEXT:    }
// CHECK-NOT:   llvm.func @sluice_algo_pr_apply_vertices
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// CHECK-COUNT-1: llvm.call @sluice_algo_parallel_for(
// CHECK-NOT:     llvm.call @sluice_algo_parallel_for(
// REMARK: remark: loop 'apply' of algorithm 'pr' runs inside loop 'gather' (fused: one pass instead of two)
// REMARK: remark: loop 'gather' of algorithm 'pr': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; no atomics; reductions into 'incoming' combined in a register across each destination's in-edges, stored once per destination; the next vertices loop 'apply' runs inside it, at each destination after its in-edges (it touches only its own vertex, and the pull reads what it writes only at the destination)
// GPU: remark: loop 'gather' of algorithm 'pr' on the GPU: sluice_algo_pr_gather_pull: a thread per destination, its in-edges in a loop; sluice_algo_pr_gather_pull_lanes: a warp per destination, {{.*}}; the next vertices loop runs in these kernels, at each destination after its in-edges (fused);
// GPU-NOT: loop 'apply' of algorithm 'pr' on the GPU
// KERNELS: gpu.func @sluice_algo_pr_gather_pull(
// KERNELS: gpu.func @sluice_algo_pr_gather_pull_lanes(
// KERNELS-NOT: gpu.func @sluice_algo_pr_apply_vertices(
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [8.500000e-01], param_names = ["damping"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%damping: f64):
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.property @contrib : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %c = graph.prop.get @contrib[%src] : f64
      graph.prop.reduce add @incoming[%dst], %c : f64
      graph.yield
    }
    graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %in = graph.prop.get @incoming[%v] : f64
      %r = arith.mulf %in, %damping : f64
      graph.prop.set @rank[%v] = %r : f64
      %zero = arith.constant 0.0 : f64
      graph.prop.set @incoming[%v] = %zero : f64
      graph.yield
    }
  }
}

// -----

// `fusion = off` on the pull: the vertices loop keeps its own pass.
// CHECK-LABEL: llvm.func @sluice_algo_off_apply_vertices(
// REMARK: remark: loop 'gather' of algorithm 'off': {{.*}}; the next vertices loop 'apply' runs on its own: fusion: off (schedule)
// KERNELS: gpu.func @sluice_algo_off_apply_vertices(
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @off on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0:
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr, fusion = off>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @incoming[%dst], %one : f64
      graph.yield
    }
    graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %in = graph.prop.get @incoming[%v] : f64
      graph.prop.set @rank[%v] = %in : f64
      graph.yield
    }
  }
}

// -----

// The pull reads at its source what the vertices loop writes: fused, a
// destination's sources would see some of the new values.
// CHECK-LABEL: llvm.func @sluice_algo_src_apply_vertices(
// REMARK: remark: loop 'gather' of algorithm 'src': {{.*}}; the next vertices loop 'apply' runs on its own: the pull reads 'rank' at its source, which the vertices loop writes
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @src on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0:
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      graph.prop.reduce add @incoming[%dst], %r : f64
      graph.yield
    }
    graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %in = graph.prop.get @incoming[%v] : f64
      graph.prop.set @rank[%v] = %in : f64
      graph.yield
    }
  }
}

// -----

// The vertices loop reads another vertex, reduces into a local, asks
// `id(v)`, or the pull is tiled: each runs on its own, and says why.
// REMARK: remark: loop 'g1' of algorithm 'why': {{.*}}; the next vertices loop 'other' runs on its own: the vertices loop accesses 'incoming' at another vertex than its own
// REMARK: remark: loop 'g2' of algorithm 'why': {{.*}}; the next vertices loop 'total' runs on its own: the vertices loop reduces into locals
// REMARK: remark: loop 'g3' of algorithm 'why': {{.*}}; the next vertices loop 'after' runs on its own: the pull is scheduled with a tile
// REMARK: remark: loop 'g4' of algorithm 'why': {{.*}}; the next vertices loop 'ids' runs on its own: the vertices loop uses a graph query other than its own vertex's degree and the counts
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @why on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0:
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "g1" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @incoming[%dst], %one : f64
      graph.yield
    }
    graph.vertices label "other" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %c0 = arith.constant 0 : i32
      %in = graph.prop.get @incoming[%c0] : f64
      graph.prop.set @rank[%v] = %in : f64
      graph.yield
    }
    graph.edges label "g2" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @incoming[%dst], %one : f64
      graph.yield
    }
    %t = graph.vertices label "total" reduce(%cst : f64) -> f64 attributes {reductions = [#graph<reduction add>], schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %in = graph.prop.get @incoming[%v] : f64
      graph.yield %in : f64
    }
    graph.edges label "g3" attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = 4096, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @incoming[%dst], %one : f64
      graph.yield
    }
    graph.vertices label "after" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %in = graph.prop.get @incoming[%v] : f64
      graph.prop.set @rank[%v] = %in : f64
      graph.yield
    }
    graph.edges label "g4" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1.0 : f64
      graph.prop.reduce add @incoming[%dst], %one : f64
      graph.yield
    }
    graph.vertices label "ids" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %id = graph.original_id %v : i64
      %x = arith.sitofp %id : i64 to f64
      graph.prop.set @rank[%v] = %x : f64
      graph.yield
    }
  }
}
