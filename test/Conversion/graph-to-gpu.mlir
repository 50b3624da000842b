// RUN: sluice-opt --graph-to-gpu --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-gpu=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sluice-opt --sluice-graph-to-nvvm --split-input-file %s | FileCheck %s --check-prefix=NVVM

// A frontier-driven push loop (SSSP): the host code is graph-to-llvm's
// (the launch through sluice_algo_parallel_for stays); it writes only at
// the destination, so it has two kernels: a thread per source, and its
// `_lanes` twin with a warp per source (the runtime picks one per launch):
// item i / 32 and lane i % 32 call the `_lanes` copy of the push variant,
// which walks the source's out-edges lo + lane, lo + lane + 32, ...; the
// device's frontier insert is an atomic or on the bitmap and an atomic add
// on the list's count; the kernels' `_info` globals: version 3, 7
// environment slots (8 for `count`, which captures the infinity), no
// locals, 1 thread per item (32 for the twin), two properties of 8 bytes
// with what the loop does to them: `dist` read and written (8 | 0x100 |
// 0x200 = 776), `hits` untouched (8); `count` reads `dist` (264) and
// reduces into `hits` (776).
// CHECK-LABEL: llvm.func @sluice_algo_relax_relax_push(
// CHECK:         llvm.atomicrmw fmin
// CHECK-LABEL: llvm.func @sluice_algo_relax_relax_push_lanes(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %[[LANE0:.*]]: i64, %[[LANES0:.*]]: i64)
// CHECK:         %[[LO:.*]] = arith.addi %{{.*}}, %[[LANE0]] : i64
// CHECK:         scf.for %{{.*}} = %[[LO]] to %{{.*}} step %[[LANES0]]
// CHECK:           llvm.atomicrmw fmin
// The host code tells the runtime where it touches the properties itself
// (sluice_algo_gpu_sync: BEGIN = 0 first, HOST = 1 before its own
// accesses, END = 2 before it returns), so that what the passes write can
// stay on the device in between.
// CHECK-LABEL: llvm.func @sluice_algo_relax(
// CHECK:         %[[BEGIN:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    llvm.call @sluice_algo_gpu_sync(%[[CTX0:.*]], %[[BEGIN]]) : (!llvm.ptr, i32) -> ()
// CHECK:         %[[HOST:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    llvm.call @sluice_algo_gpu_sync(%[[CTX0]], %[[HOST]])
// CHECK:         llvm.call @sluice_algo_parallel_for
// CHECK:         %[[END:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    llvm.call @sluice_algo_gpu_sync(%[[CTX0]], %[[END]])
// CHECK-NEXT:    llvm.return
// CHECK-LABEL: gpu.module @sluice_algos
// CHECK-LABEL:   llvm.func @sluice_algo_view(%{{.*}}: !llvm.ptr) -> !llvm.ptr
// CHECK-LABEL:   llvm.func @sluice_algo_frontier_insert(
// CHECK:           llvm.atomicrmw _or
// CHECK:           llvm.atomicrmw add
// CHECK-LABEL:   llvm.func @sluice_algo_original_id(
// The merges of common_neighbors on the device: a while loop over both
// sorted lists, below min(u, v) for `_below`.
// CHECK-LABEL:   llvm.func @sluice_algo_common_neighbors(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32) -> i64
// CHECK:           scf.while
// CHECK-LABEL:   llvm.func @sluice_algo_common_neighbors_below(
// CHECK:           arith.minui
// CHECK:           scf.while
// CHECK-LABEL:   llvm.func @sluice_algo_relax_relax_push_range(
// CHECK:           llvm.atomicrmw fmin
// CHECK:           llvm.call @sluice_algo_frontier_insert
// CHECK:         gpu.func @sluice_algo_relax_relax_push(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64) kernel
// CHECK-SAME:        sluice.algo_kernel = {algorithm = "relax", env_slots = 7 : i64, host_function = "sluice_algo_relax_relax_push", locals = 0 : i64, loop = "relax", shape = "a thread per source (an entry of the frontier's list, or a vertex tested against its bitmap), its out-edges in a loop", threads_per_item = 1 : i64
// CHECK-NOT:         arith.divui
// CHECK:             llvm.call @sluice_algo_relax_relax_push_range(
// CHECK:   llvm.mlir.global external constant @sluice_algo_relax_relax_push_info(dense<[3, 7, 0, 1, 2, 776, 8]> : tensor<7xi64>) {addr_space = 1 : i32
// CHECK-LABEL:   llvm.func @sluice_algo_relax_relax_push_lanes_range(
// CHECK:         gpu.func @sluice_algo_relax_relax_push_lanes(%[[CTX:.*]]: !llvm.ptr, %[[ENV:.*]]: !llvm.ptr, %[[N:.*]]: i64) kernel
// CHECK-SAME:        sluice.algo_kernel = {algorithm = "relax", env_slots = 7 : i64, host_function = "sluice_algo_relax_relax_push", locals = 0 : i64, loop = "relax", shape = "a warp per source (an entry of the frontier's list, or a vertex tested against its bitmap), its out-edges split among the warp's 32 lanes", threads_per_item = 32 : i64
// CHECK:             %[[B:.*]] = gpu.block_id  x
// CHECK:             %[[D:.*]] = gpu.block_dim  x
// CHECK:             %[[T:.*]] = gpu.thread_id  x
// CHECK:             %[[I:.*]] = arith.index_castui %{{.*}} : index to i64
// CHECK:             %[[LANE:.*]] = arith.remui %[[I]], %[[W:.*]] : i64
// CHECK:             %[[ITEM:.*]] = arith.divui %[[I]], %[[W]] : i64
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[ITEM]], %[[N]] : i64
// CHECK:             scf.if %[[IN]] {
// CHECK:               llvm.call @sluice_algo_relax_relax_push_lanes_range(%[[CTX]], %[[ENV]], %[[ITEM]], %{{.*}}, %[[LANE]], %{{.*}})
// CHECK:   llvm.mlir.global external constant @sluice_algo_relax_relax_push_lanes_info(dense<[3, 7, 0, 32, 2, 776, 8]> : tensor<7xi64>) {addr_space = 1 : i32
// CHECK-LABEL:   gpu.func @sluice_algo_relax_count_vertices(
// CHECK:   llvm.mlir.global external constant @sluice_algo_relax_count_vertices_info(dense<[3, 8, 0, 1, 2, 264, 776]>
// REMARK: remark: loop 'relax' of algorithm 'relax' on the GPU: sluice_algo_relax_relax_push: a thread per source (an entry of the frontier's list, or a vertex tested against its bitmap), its out-edges in a loop; sluice_algo_relax_relax_push_lanes: a warp per source (an entry of the frontier's list, or a vertex tested against its bitmap), its out-edges split among the warp's 32 lanes (the runtime runs the warp when the items' average degree is at least the lanes threshold); 256 threads a block; atomics where the CPU code has them; the host code runs the rounds
// REMARK: remark: loop 'count' of algorithm 'relax' on the GPU: sluice_algo_relax_count_vertices: a thread per vertex;
// In the gpu.module, only LLVM and NVVM ops: the loops became branches.
// NVVM-LABEL: gpu.module @sluice_algos
// NVVM:         llvm.func @sluice_algo_relax_relax_push_range(
// NVVM-NOT:     scf.
// NVVM:         llvm.func @sluice_algo_relax_relax_push(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64) attributes {gpu.kernel, nvvm.kernel
// NVVM-NOT:     scf.
// NVVM:         llvm.mlir.global external constant @sluice_algo_relax_relax_push_info
// NVVM:         llvm.func @sluice_algo_relax_relax_push_lanes(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64) attributes {gpu.kernel, nvvm.kernel
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @relax on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = gpu>} {
  ^bb0(%source: i64):
    %cst = arith.constant 1.000000e+300 : f64
    graph.property @dist : f64 = %cst
    %c0_i64 = arith.constant 0 : i64
    graph.property @hits : i64 = %c0_i64
    %0 = graph.vertex_of %source
    %cst_0 = arith.constant 0.000000e+00 : f64
    graph.prop.set @dist[%0] = %cst_0 : f64
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
    graph.vertices label "count" attributes {schedule = #graph.schedule<parallel = static>} where {
    ^bb0(%v: i32):
      %4 = graph.prop.get @dist[%v] : f64
      %5 = arith.cmpf olt, %4, %cst : f64
      graph.yield %5 : i1
    } do {
    ^bb0(%v: i32):
      %c1_i64 = arith.constant 1 : i64
      graph.prop.reduce add @hits[%v], %c1_i64 : i64
      graph.yield
    }
  }
}

// -----

// A vertices loop reducing into two locals: a thread per block of 4096
// vertices writes its partials (the host combines them); `id(v)` reads
// the device's table of original ids.
// CHECK-LABEL: gpu.module @sluice_algos
// CHECK-LABEL:   llvm.func @sluice_algo_sum_total_vertices_range(
// CHECK:           llvm.call @sluice_algo_original_id
// CHECK-LABEL:   gpu.func @sluice_algo_sum_total_vertices(
// CHECK-SAME:        locals = 2 : i64, loop = "total", shape = "a thread per block of 4096 vertices (its partials combined on the host)", threads_per_item = 1 : i64, variant = "vertices"
// CHECK:   llvm.mlir.global external constant @sluice_algo_sum_total_vertices_info(dense<[3, 7, 2, 1, 1, 264]>
// REMARK: remark: loop 'total' of algorithm 'sum' on the GPU: sluice_algo_sum_total_vertices: a thread per block of 4096 vertices (its partials combined on the host);
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @sum on @g attributes {outputs = [@x], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %one = arith.constant 1.0 : f64
    %big = arith.constant 100 : i64
    graph.property @x : f64 = %one
    %r:2 = graph.vertices label "total" reduce(%one, %big : f64, i64) -> f64, i64 attributes {reductions = [#graph<reduction add>, #graph<reduction min>], schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %x = graph.prop.get @x[%v] : f64
      %id = graph.original_id %v : i64
      graph.yield %x, %id : f64, i64
    }
    %s = arith.addf %r#0, %one : f64
  }
}

// -----

// A serial loop: thread 0 runs the whole pass in order (the CPU code has no
// atomics for it).
// CHECK-LABEL: gpu.module @sluice_algos
// CHECK:         gpu.func @sluice_algo_chain_link_vertices(%[[CTX:.*]]: !llvm.ptr, %[[ENV:.*]]: !llvm.ptr, %[[N:.*]]: i64) kernel
// CHECK-SAME:        shape = "one thread for the whole pass (parallel: serial)"
// CHECK:           %[[I:.*]] = arith.index_castui
// CHECK:           %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[ZERO]] : i64
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK:             llvm.call @sluice_algo_chain_link_vertices_range(%[[CTX]], %[[ENV]], %[[ZERO]], %[[N]])
// REMARK: remark: loop 'link' of algorithm 'chain' on the GPU: sluice_algo_chain_link_vertices: one thread for the whole pass (parallel: serial);
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @chain on @g attributes {outputs = [@x], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %zero = arith.constant 0 : i64
    graph.property @x : i64 = %zero
    graph.vertices label "link" attributes {schedule = #graph.schedule<parallel = serial>} do {
    ^bb0(%v: i32):
      %x = graph.prop.get @x[%v] : i64
      %one = arith.constant 1 : i64
      %y = arith.addi %x, %one : i64
      graph.prop.set @x[%v] = %y : i64
      graph.yield
    }
  }
}

// -----

// A push loop that writes at its source (the thread owns it: a plain
// add): its out-edges cannot be split, a thread per source walks them, and
// graph-to-llvm makes no `_lanes` copy.
// CHECK-LABEL: llvm.func @sluice_algo_degrees_tally_push(
// CHECK-NOT:   llvm.func @sluice_algo_degrees_tally_push_lanes
// CHECK-LABEL: gpu.module @sluice_algos
// CHECK:         gpu.func @sluice_algo_degrees_tally_push(
// CHECK-SAME:        shape = "a thread per source, its out-edges in a loop", threads_per_item = 1 : i64
// CHECK-NOT:       arith.divui
// CHECK:   llvm.mlir.global external constant @sluice_algo_degrees_tally_push_info(dense<[3, 7, 0, 1, 1, 776]>
// REMARK: remark: loop 'tally' of algorithm 'degrees' on the GPU: sluice_algo_degrees_tally_push: a thread per source, its out-edges in a loop;
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @degrees on @g attributes {outputs = [@d], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %zero = arith.constant 0 : i64
    graph.property @d : i64 = %zero
    graph.edges label "tally" attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 4, frontier = sparse, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      %one = arith.constant 1 : i64
      graph.prop.reduce add @d[%src], %one : i64
      graph.yield
    }
  }
}

// -----

// A pull loop whose writes are a sum and a minimum at the destination
// (PageRank's gather; label propagation pulled): a thread per destination,
// and the `_lanes` twin with a warp per destination. The `_lanes` copy
// starts each lane's slots at the identities (0.0, INT64_MAX), walks the
// in-edges lo + lane, lo + lane + lanes, ..., combines the lanes' partials
// (sluice_algo_warp_*, every lane) and lets lane 0 alone reduce the totals
// into the destination, one plain read-modify-write each. The device's
// warp combinations: a butterfly of `gpu.shuffle xor` 16, 8, 4, 2, 1, each
// 64-bit value as two 32-bit halves, lowered to `nvvm.shfl.sync bfly`.
// CHECK-LABEL: llvm.func @sluice_algo_rank_gather_pull_lanes(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %[[LANE:.*]]: i64, %[[LANES:.*]]: i64)
// CHECK:         %[[SUM:.*]] = llvm.alloca %{{.*}} x f64
// CHECK:         %[[LOW:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         scf.for
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      llvm.store %[[ZERO]], %[[SUM]] : f64, !llvm.ptr
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-NEXT:      llvm.store %[[MAX]], %[[LOW]] : i64, !llvm.ptr
// CHECK:           %[[LO:.*]] = arith.addi %{{.*}}, %[[LANE]] : i64
// CHECK:           scf.for %{{.*}} = %[[LO]] to %{{.*}} step %[[LANES]]
// CHECK:             arith.addf
// CHECK:             llvm.store %{{.*}}, %[[SUM]] : f64, !llvm.ptr
// CHECK:             arith.minsi
// CHECK:             llvm.store %{{.*}}, %[[LOW]] : i64, !llvm.ptr
// CHECK:           %[[P0:.*]] = llvm.load %[[SUM]] : !llvm.ptr -> f64
// CHECK-NEXT:      %[[T0:.*]] = llvm.call @sluice_algo_warp_add_f64(%[[P0]]) : (f64) -> f64
// CHECK-NEXT:      %[[P1:.*]] = llvm.load %[[LOW]] : !llvm.ptr -> i64
// CHECK-NEXT:      %[[T1:.*]] = llvm.call @sluice_algo_warp_min_i64(%[[P1]]) : (i64) -> i64
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}} : i64
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK:             arith.addf %{{.*}}, %[[T0]] : f64
// CHECK-NOT:         llvm.atomicrmw
// CHECK:             arith.minsi %{{.*}}, %[[T1]] : i64
// CHECK-NOT:       llvm.atomicrmw
// CHECK-LABEL: llvm.func @sluice_algo_rank(
// CHECK-LABEL: gpu.module @sluice_algos
// CHECK:         gpu.func @sluice_algo_rank_gather_pull(
// CHECK-SAME:        shape = "a thread per destination, its in-edges in a loop", threads_per_item = 1 : i64
// CHECK:         gpu.func @sluice_algo_rank_gather_pull_lanes(
// CHECK-SAME:        host_function = "sluice_algo_rank_gather_pull"
// CHECK-SAME:        shape = "a warp per destination, its in-edges split among the warp's 32 lanes, their partials combined by shuffles and reduced into the destination by lane 0", threads_per_item = 32 : i64
// CHECK:             arith.remui
// CHECK:             arith.divui
// CHECK:   llvm.mlir.global external constant @sluice_algo_rank_gather_pull_lanes_info(dense<[3, 7, 0, 32, 3, 264, 776, 776]>
// CHECK-LABEL:   llvm.func @sluice_algo_warp_add_f64(%{{.*}}: f64) -> f64
// CHECK:           gpu.shuffle  xor %{{.*}}, %{{.*}}, %[[W:.*]] : i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %{{.*}}, %[[W]] : i32
// CHECK:           arith.addf
// CHECK-COUNT-8:   gpu.shuffle  xor
// CHECK:           llvm.return
// CHECK-LABEL:   llvm.func @sluice_algo_warp_min_i64(%{{.*}}: i64) -> i64
// CHECK-COUNT-2:   gpu.shuffle  xor
// CHECK:           arith.minsi
// REMARK: remark: loop 'gather' of algorithm 'rank' on the GPU: sluice_algo_rank_gather_pull: a thread per destination, its in-edges in a loop; sluice_algo_rank_gather_pull_lanes: a warp per destination, its in-edges split among the warp's 32 lanes, their partials combined by shuffles and reduced into the destination by lane 0 (the runtime runs the warp when the items' average degree is at least the lanes threshold);
// NVVM-LABEL:   llvm.func @sluice_algo_warp_add_f64(%{{.*}}: f64) -> f64
// NVVM-COUNT-10:  nvvm.shfl.sync  bfly
// NVVM-NOT:       gpu.shuffle
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @rank on @g attributes {outputs = [@sum], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %z = arith.constant 0.0 : f64
    graph.property @x : f64 = %z
    graph.property @sum : f64 = %z
    %c0 = arith.constant 0 : i64
    graph.property @low : i64 = %c0
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = sparse, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      %v = graph.prop.get @x[%src] : f64
      graph.prop.reduce add @sum[%dst], %v : f64
      %l = graph.prop.get @low[%src] : i64
      graph.prop.reduce min @low[%dst], %l : i64
      graph.yield
    }
  }
}

// -----

// Pull loops that keep a thread per destination, the remark says why: one
// reads the sum it adds to at the destination, one writes plainly, one
// ends its in-edges early (BFS's bottom-up step). graph-to-llvm makes no
// `_lanes` copy.
// CHECK-LABEL: llvm.func @sluice_algo_keep_reread_pull(
// CHECK-NOT:   llvm.func @sluice_algo_keep_{{.*}}_lanes
// CHECK-NOT:   sluice_algo_warp_
// REMARK: remark: loop 'reread' of algorithm 'keep' on the GPU: sluice_algo_keep_reread_pull: a thread per destination, its in-edges in a loop (no warp per destination: it reads 's' at the destination it reduces into (the CPU reads the total so far));
// REMARK: remark: loop 'plain' of algorithm 'keep' on the GPU: sluice_algo_keep_plain_pull: a thread per destination, its in-edges in a loop (no warp per destination: it writes 'p' other than by +=, min= or max= at the destination);
// REMARK: remark: loop 'early' of algorithm 'keep' on the GPU: sluice_algo_keep_early_pull: a thread per destination, its in-edges in a loop (no warp per destination: its in-edges end at the first that makes its `where` on the destination false, as on the CPU; a warp would need a ballot per round of 32 in-edges);
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @keep on @g attributes {outputs = [@s], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %z = arith.constant 0.0 : f64
    graph.property @s : f64 = %z
    %m1 = arith.constant -1 : i64
    graph.property @p : i64 = %m1
    graph.edges label "reread" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = sparse, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      %v = graph.prop.get @s[%dst] : f64
      graph.prop.reduce add @s[%dst], %v : f64
      graph.yield
    }
    graph.edges label "plain" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = sparse, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      %u = arith.extui %src : i32 to i64
      graph.prop.set @p[%dst] = %u : i64
      graph.yield
    }
    graph.edges label "early" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = sparse, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @p[%dst] : i64
      %none = arith.cmpi eq, %d, %m1 : i64
      graph.yield %none : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %u = arith.extui %src : i32 to i64
      graph.prop.set @p[%dst] = %u : i64
      graph.yield
    }
  }
}
