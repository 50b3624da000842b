// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A binned push loop (PageRank's scatter, `tile: 4096`): `_push_bins` runs
// the sources, computes `rank[src] / degree(src)` once per source (it
// reads no weight) and stores it at each out-edge's slot of the bins, with
// no read of the destination and no atomics; `_bins_accumulate` runs the
// bins, reducing each pair into its destination with a plain
// read-modify-write. The launch asks the runtime for this run's bins (4096
// destinations a bin, 8 bytes per destination) and runs both passes, the
// sources under the loop's schedule and the bins one at a time (dynamic,
// a pass over blocks: 18), or the push with atomics when there are none.
// CHECK:       llvm.mlir.global internal constant @sluice_algo_pr_scatter_bins_name("loop 'scatter' of algorithm 'pr'\00")
// CHECK-LABEL: llvm.func @sluice_algo_pr_scatter_push(
// CHECK:         llvm.atomicrmw fadd
// CHECK-LABEL: llvm.func @sluice_algo_pr_scatter_push_bins(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %[[ENV:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         %[[BINSAT:.*]] = llvm.getelementptr inbounds %[[ENV]][6]
// CHECK-NEXT:    %[[BINS:.*]] = llvm.load %[[BINSAT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[SLOTSAT:.*]] = llvm.getelementptr inbounds %[[BINS]][4]
// CHECK-NEXT:    %[[SLOTS:.*]] = llvm.load %[[SLOTSAT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[VALUESAT:.*]] = llvm.getelementptr inbounds %[[BINS]][6]
// CHECK-NEXT:    %[[VALUES:.*]] = llvm.load %[[VALUESAT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[X:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:           scf.for %[[E:.*]] = %{{.*}} to %{{.*}}
// CHECK-NEXT:        %[[KAT:.*]] = llvm.getelementptr %[[SLOTS]][%[[E]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:        %[[K32:.*]] = llvm.load %[[KAT]] : !llvm.ptr -> i32
// CHECK-NEXT:        %[[K:.*]] = arith.extui %[[K32]] : i32 to i64
// CHECK-NEXT:        %[[AT:.*]] = llvm.getelementptr %[[VALUES]][%[[K]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:        llvm.store %[[X]], %[[AT]] : f64, !llvm.ptr
// CHECK-NEXT:      }
// CHECK-NOT:     llvm.atomicrmw
// CHECK-LABEL: llvm.func @sluice_algo_pr_scatter_bins_accumulate(
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %{{.*}}
// CHECK:           scf.for %[[P:.*]] = %{{.*}} to %{{.*}}
// CHECK-NEXT:        %[[DSTAT:.*]] = llvm.getelementptr %{{.*}}[%[[P]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:        %[[DST:.*]] = llvm.load %[[DSTAT]] : !llvm.ptr -> i32
// CHECK-NEXT:        %[[VAT:.*]] = llvm.getelementptr %{{.*}}[%[[P]]] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:        %[[V:.*]] = llvm.load %[[VAT]] : !llvm.ptr -> f64
// CHECK-NOT:         llvm.atomicrmw
// CHECK:             %[[OLD:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:        %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] : f64
// CHECK-NEXT:        llvm.store %[[NEW]]
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// CHECK:         %[[NAME:.*]] = llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<33 x i8>
// CHECK-DAG:     %[[TILE:.*]] = arith.constant 4096 : i64
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 8 : i64
// CHECK:         %[[RUNBINS:.*]] = llvm.call @sluice_algo_bins_begin(%{{.*}}, %[[NAME]], %[[TILE]], %[[BYTES]])
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[FILL:.*]] = llvm.mlir.addressof @sluice_algo_pr_scatter_push_bins
// CHECK:           llvm.call @sluice_algo_parallel_for(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FILL]], %{{.*}})
// CHECK:           %[[BLOCKS:.*]] = arith.constant 18 : i32
// CHECK:           %[[NBINSAT:.*]] = llvm.getelementptr inbounds %[[RUNBINS]][1]
// CHECK-NEXT:      %[[NBINS:.*]] = llvm.load %[[NBINSAT]] : !llvm.ptr -> i64
// CHECK:           %[[ACC:.*]] = llvm.mlir.addressof @sluice_algo_pr_scatter_bins_accumulate
// CHECK:           llvm.call @sluice_algo_parallel_for(%{{.*}}, %[[NBINS]], %[[BLOCKS]], %{{.*}}, %[[ACC]], %{{.*}})
// CHECK:         } else {
// CHECK:           llvm.mlir.addressof @sluice_algo_pr_scatter_push :
// CHECK:         }
// CHECK:         llvm.call @sluice_algo_bins_end(%{{.*}}, %[[NAME]])
// REMARK: remark: loop 'scatter' of algorithm 'pr': push over the out-edges (CSR) of every vertex; reads `rank[src]` once per source, not per edge; parallel, dynamic chunks of 64 vertices; without bins, atomic updates of 'incoming'; binned (propagation blocking): a pass over the sources writes each out-edge's value for `incoming[dst] +=` to the bin of its destination's range of 4096 vertices, then a pass over the bins reduces each bin on one thread, no atomics, each destination's values in source order (atomics when the runtime gives no bins)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.property @incoming : f64 = %cst
    graph.edges label "scatter" attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 64, tile = 4096, frontier = auto, format = csr>} do {
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

// `tile: auto`, weighted, `min=` on i64, serial: the size 0 asks the
// runtime to choose from the 8 bytes per destination; the value reads the
// weight, so it is computed per out-edge; serial passes over the bins.
// CHECK-LABEL: llvm.func @sluice_algo_w_low_push_bins(
// CHECK:         scf.for
// CHECK:           %[[XS:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK:           scf.for %[[E:.*]] = %{{.*}} to %{{.*}}
// CHECK:             llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:             arith.extf %{{.*}} : f32 to f64
// CHECK:             arith.fptosi
// CHECK:             %[[Y:.*]] = arith.addi %[[XS]], %{{.*}} : i64
// CHECK:             llvm.store %[[Y]], %{{.*}} : i64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_algo_w_low_bins_accumulate(
// CHECK:           arith.minsi
// CHECK-LABEL: llvm.func @sluice_algo_w(
// CHECK:         llvm.call @sluice_algo_bins_begin(%{{.*}}, %{{.*}}, %c0_i64{{.*}}, %c8_i64)
// CHECK:         llvm.call @sluice_algo_parallel_for(%{{.*}}, %{{.*}}, %c0_i32
// CHECK:         %[[SERIALBLOCKS:.*]] = arith.constant 16 : i32
// CHECK:         llvm.call @sluice_algo_parallel_for(%{{.*}}, %{{.*}}, %[[SERIALBLOCKS]],
// REMARK: remark: loop 'low' of algorithm 'w': push over the out-edges (CSR) of every vertex; reads `x[src]` once per source, not per edge; serial; binned (propagation blocking): a pass over the sources writes each out-edge's value for `best[dst] min=` to the bin of its destination's range of vertices chosen at run time (tile: auto: the 8 bytes per destination of a range fill at most half the L2), then a pass over the bins reduces each bin on one thread, no atomics, each destination's values in source order (atomics when the runtime gives no bins)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @w on @g attributes {outputs = [@best], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %zero = arith.constant 0 : i64
    graph.property @best : i64 = %zero
    graph.property @x : i64 = %zero
    graph.edges label "low" attributes {schedule = #graph.schedule<direction = push, parallel = serial, tile = auto, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32, %w: f64):
      %x = graph.prop.get @x[%src] : i64
      %wi = arith.fptosi %w : f64 to i64
      %y = arith.addi %x, %wi : i64
      graph.prop.reduce min @best[%dst], %y : i64
      graph.yield
    }
  }
}

// -----

// Where binning is not legal the push runs with atomics and the remark
// says why: a frontier, a result frontier, a `where` reading the
// destination, a `where` with a float min=, a plain write, an
// update at the source, a value that reads the destination, a read of
// what the loop updates, two updates, an update under `if`, compare_swap,
// order: degree; a hybrid loop is not tiled either.
// CHECK-LABEL: llvm.func @sluice_algo_no(
// CHECK-NOT:     sluice_algo_bins_begin
// CHECK-NOT:   _push_bins
// REMARK: remark: loop 'frontier' of algorithm 'no': {{.*}}; not binned (a loop over a frontier is not binned: bins hold every out-edge's pair); push with atomics
// REMARK: remark: loop 'result' of algorithm 'no': {{.*}}; not binned (it builds a frontier); push with atomics
// REMARK: remark: loop 'where' of algorithm 'no': {{.*}}; not binned (its `where` reads the destination); push with atomics
// REMARK: remark: loop 'wheremin' of algorithm 'no': {{.*}}; not binned (a `where` with a floating-point min= or max=: no identity leaves a NaN as it is); push with atomics
// REMARK: remark: loop 'plain' of algorithm 'no': {{.*}}; not binned (it writes 'a' (a plain write, not a reduction)); push with atomics
// REMARK: remark: loop 'atsource' of algorithm 'no': {{.*}}; not binned (it updates 'a' at a vertex other than the destination); push with atomics
// REMARK: remark: loop 'readsdst' of algorithm 'no': {{.*}}; not binned (its value depends on the destination); push with atomics
// REMARK: remark: loop 'readback' of algorithm 'no': {{.*}}; not binned (it reads 'a', which it updates); push with atomics
// REMARK: remark: loop 'two' of algorithm 'no': {{.*}}; not binned (it updates properties 2 times per edge (bins hold one value per edge)); push with atomics
// REMARK: remark: loop 'cond' of algorithm 'no': {{.*}}; not binned (its update of 'a' is conditional); push with atomics
// REMARK: remark: loop 'swap' of algorithm 'no': {{.*}}; not binned (it updates 'v' with compare_swap); push with atomics
// REMARK: remark: loop 'ordered' of algorithm 'no': {{.*}}; not binned (order: degree relabels the push); push with atomics
// REMARK: remark: loop 'hybrid' of algorithm 'no': {{.*}}; not tiled (a hybrid loop is not tiled: its rounds switch between push and pull)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @no on @g attributes {outputs = [@a], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 1.0 : f64
    %zero = arith.constant 0 : i64
    %true = arith.constant true
    %none = arith.constant 0 : i32
    graph.property @a : f64 = %cst
    graph.property @b : f64 = %cst
    graph.property @v : i32 = %none
    %v0 = graph.vertex_of %zero
    %f = graph.frontier.of [%v0]
    graph.edges from %f label "frontier" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = sparse, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    %r = graph.edges label "result" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce min @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "where" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32):
      %y = graph.prop.get @b[%dst] : f64
      %c = arith.cmpf olt, %y, %cst : f64
      graph.yield %c : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "wheremin" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32):
      %y = graph.prop.get @b[%src] : f64
      %c = arith.cmpf olt, %y, %cst : f64
      graph.yield %c : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce min @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "plain" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.set @a[%dst] = %x : f64
      graph.yield
    }
    graph.edges label "atsource" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%dst] : f64
      graph.prop.reduce add @a[%src], %x : f64
      graph.yield
    }
    graph.edges label "readsdst" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%dst] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "readback" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @a[%src] : f64
      graph.prop.reduce max @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "two" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges label "cond" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      scf.if %true {
        graph.prop.reduce add @a[%dst], %x : f64
      }
      graph.yield
    }
    graph.edges label "swap" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %old = graph.compare_swap @v[%dst], %none, %src : i32, i32
      graph.yield
    }
    graph.edges label "ordered" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr, order = degree>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
    graph.edges from %f label "hybrid" attributes {schedule = #graph.schedule<direction = hybrid, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
  }
}


// -----

// A `where` on the source is tested per edge in `_push_bins`; an edge it
// rejects stores the exact identity of `+=` on f64, -0.0 (-0.0 + -0.0
// stays -0.0), so the destination is left as it is.
// CHECK-LABEL: llvm.func @sluice_algo_bins_end(
// CHECK-LABEL: llvm.func @sluice_algo_wh_scatter_push_bins(
// CHECK-DAG:       %[[NZ:.*]] = arith.constant -0.000000e+00 : f64
// CHECK-DAG:       %[[KEEP:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f64
// CHECK:           %[[V:.*]] = arith.select %[[KEEP]], %{{.*}}, %[[NZ]] : f64
// CHECK:           llvm.store %[[V]], %{{.*}} : f64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_algo_wh_scatter_bins_accumulate(
// REMARK: remark: loop 'scatter' of algorithm 'wh': {{.*}}; binned (propagation blocking): {{.*}} (atomics when the runtime gives no bins); an edge whose `where` is false stores the reduction's identity, which leaves its destination as it is
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @wh on @g attributes {outputs = [@a], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 1.0 : f64
    graph.property @a : f64 = %cst
    graph.property @b : f64 = %cst
    graph.edges label "scatter" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} where {
    ^bb0(%src: i32, %dst: i32):
      %y = graph.prop.get @b[%src] : f64
      %c = arith.cmpf olt, %y, %cst : f64
      graph.yield %c : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @b[%src] : f64
      graph.prop.reduce add @a[%dst], %x : f64
      graph.yield
    }
  }
}
