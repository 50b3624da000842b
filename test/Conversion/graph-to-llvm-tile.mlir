// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A tiled pull loop (PageRank's gather, `tile: 4096`): the variant
// `_pull_tiled` runs destination blocks, per block its entries (tile, then
// destination) and their edges, with a plain read-modify-write at the
// destination; the launch asks the runtime for this run's layout (4096
// sources a tile, 16 bytes per source: rank and an out-offset) and runs
// the tiled variant over its blocks (dynamic, one block at a time, a pass
// over blocks), or the untiled `_pull` when there is none.
// CHECK:       llvm.mlir.global internal constant @sluice_algo_pr_gather_tile_name("loop 'gather' of algorithm 'pr'\00")
// CHECK-LABEL: llvm.func @sluice_algo_pr_gather_pull(
// CHECK-LABEL: llvm.func @sluice_algo_pr_gather_pull_tiled(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %[[ENV:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         scf.for %[[B:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}}
// CHECK:             %[[DSTAT:.*]] = llvm.getelementptr %{{.*}}[%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:        %[[DST:.*]] = llvm.load %[[DSTAT]] : !llvm.ptr -> i32
// CHECK:             scf.for %[[E:.*]] = %{{.*}} to %{{.*}}
// CHECK:               %[[SRCAT:.*]] = llvm.getelementptr %{{.*}}[%[[E]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:          %[[SRC:.*]] = llvm.load %[[SRCAT]] : !llvm.ptr -> i32
// CHECK-NOT:           llvm.atomicrmw
// CHECK:               arith.addf
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// CHECK:         %[[NAME:.*]] = llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<32 x i8>
// CHECK-DAG:     %[[TILE:.*]] = arith.constant 4096 : i64
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 16 : i64
// CHECK:         %[[LAYOUT:.*]] = llvm.call @sluice_algo_tile_begin(%{{.*}}, %[[NAME]], %[[TILE]], %[[BYTES]])
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[BLOCKS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:           %[[TILED:.*]] = llvm.mlir.addressof @sluice_algo_pr_gather_pull_tiled
// CHECK:           llvm.call @sluice_algo_parallel_for(%{{.*}}, %[[BLOCKS]], %{{.*}}, %{{.*}}, %[[TILED]], %{{.*}})
// CHECK:         } else {
// CHECK:           llvm.mlir.addressof @sluice_algo_pr_gather_pull :
// CHECK:         }
// CHECK:         llvm.call @sluice_algo_tile_end(%{{.*}}, %[[NAME]])
// REMARK: remark: loop 'gather' of algorithm 'pr': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; no atomics; reductions into 'incoming' combined in a register across each destination's in-edges, stored once per destination (untiled runs); tiled: sources in tiles of 4096 vertices; destination blocks run tile by tile, each destination's in-edges in the untiled order (reads 16 bytes per source vertex)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [8.500000e-01], param_names = ["damping"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%damping: f64):
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = 4096, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      %d = graph.degree %src : i64
      %df = arith.sitofp %d : i64 to f64
      %x = arith.divf %r, %df : f64
      graph.prop.reduce add @incoming[%dst], %x : f64
      graph.yield
    }
  }
}

// -----

// `tile: auto`, weighted, serial: the size 0 asks the runtime to choose;
// the tiled variant reads the layout's weights; serial blocks. (The
// loop's name is a string global before the functions.)
// CHECK-LABEL: llvm.func @sluice_algo_w_sum_pull_tiled(
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         arith.extf %{{.*}} : f32 to f64
// CHECK-LABEL: llvm.func @sluice_algo_w(
// CHECK:         llvm.call @sluice_algo_tile_begin(%{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c9_i64)
// CHECK:         %[[SERIALBLOCKS:.*]] = arith.constant 16 : i32
// CHECK:         llvm.call @sluice_algo_parallel_for(%{{.*}}, %{{.*}}, %[[SERIALBLOCKS]],
// REMARK: remark: loop 'sum' of algorithm 'w': pull over in-edges (CSC); serial; reductions into 'acc' combined in a register across each destination's in-edges, stored once per destination (untiled runs); tiled: tile: auto, the size chosen at run time from the caches, the in-degrees and the 9 bytes per source vertex; destination blocks run tile by tile, each destination's in-edges in the untiled order
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @w on @g attributes {outputs = [@acc], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 0.0 : f64
    %false = arith.constant false
    graph.property @acc : f64 = %cst
    graph.property @x : f64 = %cst
    graph.property @on : i1 = %false
    graph.edges label "sum" attributes {schedule = #graph.schedule<direction = pull, parallel = serial, tile = auto, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32, %w: f64):
      %on = graph.prop.get @on[%src] : i1
      graph.yield %on : i1
    } do {
    ^bb0(%src: i32, %dst: i32, %w: f64):
      %x = graph.prop.get @x[%src] : f64
      %y = arith.mulf %x, %w : f64
      graph.prop.reduce add @acc[%dst], %y : f64
      graph.yield
    }
  }
}

// -----

// Where tiling is not legal or not useful the loop runs untiled and the
// remark says why: push (binned instead: graph-to-llvm-bins.mlir), a frontier, an early exit, an update at the
// source, a read at the source of what the loop updates, a vertices loop.
// CHECK-LABEL: llvm.func @sluice_algo_no(
// CHECK-NOT:     sluice_algo_tile_begin
// CHECK-NOT:   _pull_tiled
// REMARK: remark: loop 'push' of algorithm 'no': {{.*}}; binned (propagation blocking): {{.*}}
// REMARK: remark: loop 'frontier' of algorithm 'no': {{.*}}; not tiled (a loop over a frontier is not tiled: it tests each source against the frontier's bitmap)
// REMARK: remark: loop 'exit' of algorithm 'no': {{.*}}; not tiled (a vertex's in-edges end once `where` is false; tiles would test `where` once per tile)
// REMARK: remark: loop 'atsource' of algorithm 'no': {{.*}}; not tiled (it updates 'a' at a vertex other than the destination, and tiles would change the order of those updates)
// REMARK: remark: loop 'readback' of algorithm 'no': {{.*}}; not tiled (it reads 'a', which it updates, at a vertex other than the destination, and tiles would change which values it sees)
// REMARK: remark: loop 'apply' of algorithm 'no': {{.*}}; not tiled (tile has no effect on a vertices loop: it reads no edges)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @no on @g attributes {outputs = [@a], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 1.0 : f64
    %zero = arith.constant 0 : i64
    graph.property @a : f64 = %cst
    graph.property @b : f64 = %cst
    graph.edges label "push" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    %v0 = graph.vertex_of %zero
    %f = graph.frontier.of [%v0]
    graph.edges from %f label "frontier" attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "exit" attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = 64, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32):
      %y = graph.prop.get @a[%dst] : f64
      %c = arith.cmpf olt, %y, %cst : f64
      graph.yield %c : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "atsource" attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%dst] : f64
      graph.prop.reduce add @a[%src], %x : f64
      graph.yield
    }
    graph.edges label "readback" attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @a[%src] : f64
      graph.prop.set @a[%dst] = %x : f64
      graph.yield
    }
    graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = static, tile = 64>} do {
    ^bb0(%v: i32):
      graph.prop.set @b[%v] = %cst : f64
      graph.yield
    }
  }
}
