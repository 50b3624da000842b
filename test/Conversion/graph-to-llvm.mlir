// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s --check-prefix=WEIGHTS

// A frontier-driven push loop (SSSP): the algorithm's function, a push
// variant over the frontier's list, atomics at the destination (not owned;
// a minimum read first, the atomic only when it would lower the value:
// one unordered compare, a NaN element counting as +inf; whether the
// atomic lowered it tested in its branch only),
// changed destinations inserted into the new frontier, sealed after the
// round; a vertices loop at its own vertex: plain read-modify-write.
// `dist[src]` is read once per source, before its out-edges (the loop
// writes `dist` only with min= at the destination and has a result).
// CHECK-LABEL: llvm.func @sluice_algo_relax_relax_push(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %[[ENV:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK:         scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[DU:.*]] = llvm.load %{{.*}} -> f64
// CHECK:           scf.for %[[E:.*]] = %{{.*}} to %{{.*}}
// CHECK-NOT:         llvm.load %{{.*}} -> f64
// CHECK:             %[[D:.*]] = arith.addf %[[DU]], %{{.*}} : f64
// CHECK:             %[[SEEN:.*]] = llvm.load %[[AT:.*]] atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> f64
// CHECK-NEXT:        %[[WINS:.*]] = arith.cmpf ult, %[[D]], %[[SEEN]] : f64
// CHECK-NEXT:        %[[OLD:.*]]:2 = scf.if %[[WINS]] -> (f64, i1) {
// CHECK-NEXT:          %[[RMW:.*]] = llvm.atomicrmw fmin %[[AT]], %[[D]] monotonic : !llvm.ptr, f64
// CHECK-NEXT:          %[[NEW:.*]] = arith.minnumf %[[RMW]], %[[D]] : f64
// CHECK-NEXT:          %[[LOWERED:.*]] = arith.cmpf une, %[[RMW]], %[[NEW]] : f64
// CHECK-NEXT:          scf.yield %[[RMW]], %[[LOWERED]] : f64, i1
// CHECK-NEXT:        } else {
// CHECK-NEXT:          %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:          scf.yield %[[SEEN]], %[[FALSE]] : f64, i1
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.if %[[OLD]]#1 {
// CHECK-NEXT:          llvm.call @sluice_algo_frontier_insert
// CHECK-LABEL: llvm.func @sluice_algo_relax_count_vertices(
// The graph's weights are tested once per source, not per edge: the
// out-edges in two copies, one loading the f32 weight, one adding 1.0,
// each inserting the destinations it lowered.
// WEIGHTS-LABEL: llvm.func @sluice_algo_relax_relax_push(
// WEIGHTS:         %[[WSLOT:.*]] = llvm.getelementptr inbounds %{{.*}}[4]
// WEIGHTS-NEXT:    %[[WS:.*]] = llvm.load %[[WSLOT]] : !llvm.ptr -> !llvm.ptr
// WEIGHTS:         %[[HAS:.*]] = llvm.icmp "ne" %[[WS]], %{{.*}} : !llvm.ptr
// WEIGHTS-NEXT:    scf.if %[[HAS]] {
// WEIGHTS:           scf.for
// WEIGHTS-NOT:         llvm.icmp "ne" %[[WS]]
// WEIGHTS:             %[[WE:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// WEIGHTS-NEXT:        %[[WD:.*]] = arith.extf %[[WE]] : f32 to f64
// WEIGHTS-NEXT:        arith.addf %{{.*}}, %[[WD]] : f64
// WEIGHTS:             llvm.call @sluice_algo_frontier_insert
// WEIGHTS:         } else {
// WEIGHTS:           scf.for
// WEIGHTS-NOT:         llvm.icmp "ne" %[[WS]]
// WEIGHTS:             %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// WEIGHTS-NEXT:        arith.addf %{{.*}}, %[[ONE]] : f64
// WEIGHTS:             llvm.call @sluice_algo_frontier_insert
// WEIGHTS-LABEL: llvm.func @sluice_algo_relax_count_vertices(
// CHECK:         %[[H:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[H1:.*]] = arith.addi %[[H]], %{{.*}} : i64
// CHECK-NEXT:    llvm.store %[[H1]], %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_algo_relax(
// CHECK-SAME:      %[[CTX:.*]]: !llvm.ptr, %[[PARAMS:.*]]: !llvm.ptr, %[[PROPS:.*]]: !llvm.ptr)
// CHECK:         llvm.call @sluice_algo_vertex_of(%[[CTX]], %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i32) -> i32
// CHECK:         scf.while
// CHECK:           %[[OUT:.*]] = llvm.call @sluice_algo_frontier_new(%[[CTX]])
// CHECK:           %[[LIST:.*]] = llvm.call @sluice_algo_frontier_list(
// CHECK-NEXT:      %[[COUNT:.*]] = llvm.call @sluice_algo_frontier_size(
// CHECK:           %[[FN:.*]] = llvm.mlir.addressof @sluice_algo_relax_relax_push : !llvm.ptr
// CHECK:           llvm.call @sluice_algo_parallel_for(%[[CTX]], %[[COUNT]], %{{.*}}, %{{.*}}, %[[FN]], %{{.*}})
// CHECK:           llvm.call @sluice_algo_frontier_seal(%[[OUT]])
// CHECK:         llvm.mlir.addressof @sluice_algo_relax_count_vertices
// CHECK-NOT:   graph.
// REMARK: remark: loop 'relax' of algorithm 'relax': push over the out-edges (CSR) of the frontier's list; reads `dist[src]` once per source, not per edge; parallel, dynamic chunks of 4 vertices; atomic updates of 'dist'
// REMARK: remark: loop 'count' of algorithm 'relax': over every vertex; parallel, static shares; no atomics
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @relax on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
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

// Pull (PageRank's gather): a pull variant over in-edges; the reduction at
// the destination, which the iteration owns, is plain; the value from
// outside the loop (damping) travels in the environment.
// CHECK-LABEL: llvm.func @sluice_algo_pr_gather_pull(
// CHECK:         %[[D:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:         llvm.atomicrmw
// CHECK:             arith.mulf %{{.*}}, %[[D]] : f64
// CHECK:             arith.addf
// CHECK-LABEL: llvm.func @sluice_algo_pr(
// CHECK:         llvm.mlir.addressof @sluice_algo_pr_gather_pull
// REMARK: remark: loop 'gather' of algorithm 'pr': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; no atomics; not tiled (it reads 'rank', which it updates, at a vertex other than the destination, and tiles would change which values it sees)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @pr on @g attributes {outputs = [@rank], param_defaults = [8.500000e-01], param_names = ["damping"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%damping: f64):
    %cst = arith.constant 0.0 : f64
    graph.property @rank : f64 = %cst
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      %x = arith.mulf %r, %damping : f64
      graph.prop.reduce add @rank[%dst], %x : f64
      graph.yield
    }
  }
}

// -----

// Hybrid over a frontier: both variants, chosen per round by
// sluice_algo_frontier_pull_next (Beamer's alpha 15 and beta 18; the
// result frontier remembers the choice). The `where` reads only the
// destination, so the pull variant tests it before a vertex's first
// in-edge and after each run of the body, and leaves the in-edges once it
// is false (BFS's early exit): a destination whose `where` is false reads
// no offsets, and a while loop over the in-edge index whose condition is
// "edges left" jumps the index to hi after a body that made the `where`
// false (an in-edge outside the frontier goes straight to the next: no
// flag carried);
// the source's bit is tested without a null check (a pull
// round always has the frontier's bitmap). The pull variant sets its new
// frontier's bits itself: the destinations of a word collect in two stack
// slots (the word, its bits so far), or'ed into the bitmap of
// sluice_algo_frontier_direct_bits once the word changes and on return
// (no insert call per vertex).
// CHECK-LABEL: llvm.func @sluice_algo_bfs_expand_push(
// CHECK:         llvm.call @sluice_algo_frontier_insert(
// CHECK-LABEL: llvm.func @sluice_algo_bfs_expand_pull(
// CHECK:         %[[WORD:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT:    %[[ACC:.*]] = llvm.alloca %{{.*}} x i64
// CHECK:         %[[BITS:.*]] = llvm.call @sluice_algo_frontier_direct_bits(
// CHECK:         scf.for
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:      scf.if %[[FIRST]] {
// CHECK:             %[[LO:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:             %[[HI:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT:        scf.while (%[[E:.*]] = %[[LO]]) : (i64) -> i64 {
// CHECK-NEXT:        %[[IN:.*]] = arith.cmpi ult, %[[E]], %[[HI]] : i64
// CHECK-NEXT:        scf.condition(%[[IN]]) %[[E]] : i64
// CHECK:           } do {
// CHECK-NEXT:      ^bb0(%[[E2:.*]]: i64):
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[E2]], %{{.*}} : i64
// CHECK-NOT:         llvm.mlir.zero
// CHECK:             %[[MEMBER:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:        %[[AFTER:.*]] = scf.if %[[MEMBER]] -> (i64) {
// CHECK-NOT:           @sluice_algo_frontier_insert
// CHECK:               %[[HELD:.*]] = llvm.load %[[WORD]] : !llvm.ptr -> i64
// CHECK-NEXT:          %[[OTHER:.*]] = arith.cmpi ne, %{{.*}}, %[[HELD]] : i64
// CHECK-NEXT:          scf.if %[[OTHER]] {
// CHECK:                 llvm.atomicrmw _or %{{.*}}, %{{.*}} monotonic
// CHECK:               %[[SO_FAR:.*]] = llvm.load %[[ACC]] : !llvm.ptr -> i64
// CHECK-NEXT:          %[[MORE:.*]] = arith.ori %[[SO_FAR]], %{{.*}} : i64
// CHECK-NEXT:          llvm.store %[[MORE]], %[[ACC]] : i64, !llvm.ptr
// CHECK:               %[[STILL:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:          %[[ON:.*]] = arith.select %[[STILL]], %[[NEXT]], %[[HI]] : i64
// CHECK-NEXT:          scf.yield %[[ON]] : i64
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[NEXT]] : i64
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield %[[AFTER]] : i64
// CHECK:         %[[LAST:.*]] = llvm.load %[[ACC]] : !llvm.ptr -> i64
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[AT:.*]] = llvm.getelementptr %[[BITS]][%{{.*}}]
// CHECK-NEXT:      llvm.atomicrmw _or %[[AT]], %[[LAST]] monotonic
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @sluice_algo_bfs(
// CHECK-DAG:     %[[ALPHA:.*]] = arith.constant 1.500000e+01 : f64
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 1.800000e+01 : f64
// CHECK:         %[[DENSE:.*]] = llvm.call @sluice_algo_frontier_pull_next(%[[FROM:.*]], %[[OUT:.*]], %[[ALPHA]], %[[BETA]])
// CHECK:         %[[IF:.*]] = arith.cmpi ne, %[[DENSE]], %{{.*}} : i32
// CHECK:         scf.if %[[IF]] {
// CHECK:           llvm.call @sluice_algo_frontier_bitmap(%[[FROM]])
// CHECK:           llvm.mlir.addressof @sluice_algo_bfs_expand_pull
// CHECK:         } else {
// CHECK:           llvm.call @sluice_algo_frontier_list(%[[FROM]])
// CHECK:           llvm.mlir.addressof @sluice_algo_bfs_expand_push
// CHECK:         }
// CHECK-NOT:     @sluice_algo_frontier_release
// CHECK:         llvm.call @sluice_algo_frontier_seal(%[[OUT]])
// REMARK: remark: loop 'expand' of algorithm 'bfs': push over the out-edges of the frontier's list while they are few, pull over in-edges against its bitmap once they pass 1/15 of the edges not yet scanned, until it shrinks below 1/18 of the vertices (chosen per round); a vertex's in-edges end once `where` is false; parallel, static shares; atomic updates of 'depth'
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @bfs on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %m1 = arith.constant -1 : i64
    graph.property @depth : i64 = %m1
    %0 = graph.vertex_of %source
    %f = graph.frontier.of [%0]
    %next = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = static, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %u = arith.cmpi eq, %d, %m1 : i64
      graph.yield %u : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%src] : i64
      graph.prop.set @depth[%dst] = %d : i64
      graph.yield
    }
  }
}

// -----

// The same loop scheduled `direction: hybrid(2, 30)`: the schedule's
// thresholds are what each round hands sluice_algo_frontier_pull_next.
// CHECK-LABEL: llvm.func @sluice_algo_bfs2(
// CHECK-DAG:     %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-DAG:     %[[BETA:.*]] = arith.constant 3.000000e+01 : f64
// CHECK:         llvm.call @sluice_algo_frontier_pull_next(%{{.*}}, %{{.*}}, %[[ALPHA]], %[[BETA]])
// REMARK: remark: loop 'expand' of algorithm 'bfs2': push over the out-edges of the frontier's list while they are few, pull over in-edges against its bitmap once they pass 1/2 of the edges not yet scanned, until it shrinks below 1/30 of the vertices (chosen per round, alpha and beta from the schedule); a vertex's in-edges end once `where` is false; parallel, static shares; atomic updates of 'depth'
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @bfs2 on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %m1 = arith.constant -1 : i64
    graph.property @depth : i64 = %m1
    %0 = graph.vertex_of %source
    %f = graph.frontier.of [%0]
    %next = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = static, frontier = auto, format = auto, alpha = 2.0 : f64, beta = 30.0 : f64>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %u = arith.cmpi eq, %d, %m1 : i64
      graph.yield %u : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%src] : i64
      graph.prop.set @depth[%dst] = %d : i64
      graph.yield
    }
  }
}

// -----

// Reductions into locals: the vertices function runs over blocks of 4096
// vertices, each combining its vertices' contributions (the identity where
// `where` is false) in vertex order and storing one partial per local;
// the launch runs over the blocks and combines the partials in block
// order with the values before the loop.
// CHECK-LABEL: llvm.func @sluice_algo_sum_total_vertices(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[LEAST:.*]] = arith.constant 9223372036854775807 : i64
// CHECK:         scf.for %[[B:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[LO:.*]] = arith.muli %[[B]], %{{.*}} : i64
// CHECK:           %[[PARTS:.*]]:2 = scf.for %{{.*}} = %[[LO]] to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[ZERO]], %[[M:.*]] = %[[LEAST]]) -> (f64, i64)
// CHECK:             %[[C:.*]]:2 = scf.if %{{.*}} -> (f64, i64) {
// CHECK:             } else {
// CHECK-NEXT:          scf.yield %[[ZERO]], %[[LEAST]] : f64, i64
// CHECK:             %[[S1:.*]] = arith.addf %[[S]], %[[C]]#0 : f64
// CHECK:             %[[M1:.*]] = arith.minsi %[[M]], %[[C]]#1 : i64
// CHECK:             scf.yield %[[S1]], %[[M1]] : f64, i64
// CHECK:           llvm.store %[[PARTS]]#0, %{{.*}} : f64, !llvm.ptr
// CHECK:           llvm.store %[[PARTS]]#1, %{{.*}} : i64, !llvm.ptr
// CHECK-LABEL: llvm.func @sluice_algo_sum(
// CHECK:         %[[PARTIALS:.*]] = llvm.call @sluice_algo_partials
// CHECK:         llvm.call @sluice_algo_parallel_for
// CHECK:         llvm.call @sluice_algo_reduce_f64
// CHECK:         llvm.call @sluice_algo_reduce_i64
// REMARK: remark: loop 'total' of algorithm 'sum': over every vertex; parallel, static shares; no atomics; reduces into 2 locals by blocks of 4096 vertices, their partials combined in block order
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @sum on @g attributes {outputs = [@x], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %one = arith.constant 1.0 : f64
    %big = arith.constant 100 : i64
    graph.property @x : f64 = %one
    %r:2 = graph.vertices label "total" reduce(%one, %big : f64, i64) -> f64, i64 attributes {reductions = [#graph<reduction add>, #graph<reduction min>], schedule = #graph.schedule<parallel = static>} where {
    ^bb0(%v: i32):
      %d = graph.degree %v : i64
      %zero = arith.constant 0 : i64
      %some = arith.cmpi sgt, %d, %zero : i64
      graph.yield %some : i1
    } do {
    ^bb0(%v: i32):
      %x = graph.prop.get @x[%v] : f64
      %d = graph.degree %v : i64
      graph.yield %x, %d : f64, i64
    }
    %s = arith.addf %r#0, %one : f64
  }
}

// -----

// Hooking (cc-sv.sluice): `min=` into a vertex property at a vertex read
// from it, unsigned (vertices are i32, 0xFFFFFFFF none): read first, then
// llvm.atomicrmw umin only when it would lower the label.
// CHECK-LABEL: llvm.func @sluice_algo_hook_hook_push(
// CHECK:           %[[CU:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:           %[[CV:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:           %[[SEEN:.*]] = llvm.load %[[AT:.*]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT:      %[[LOWER:.*]] = arith.minui %[[SEEN]], %[[CV]] : i32
// CHECK-NEXT:      %[[WINS:.*]] = arith.cmpi ne, %[[SEEN]], %[[LOWER]] : i32
// CHECK-NEXT:      scf.if %[[WINS]] -> (i32, i1) {
// CHECK-NEXT:        llvm.atomicrmw umin %[[AT]], %[[CV]] monotonic : !llvm.ptr, i32
// REMARK: remark: loop 'hook' of algorithm 'hook': push over the out-edges (CSR) of every vertex; parallel, dynamic chunks of 64 vertices; atomic updates of 'comp'
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @hook on @g attributes {outputs = [@comp], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %id = arith.constant 0 : i64
    %v0 = graph.vertex_of %id
    graph.property @comp : i32 = %v0
    graph.edges label "hook" attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
    ^bb0(%u: i32, %v: i32):
      %cu = graph.prop.get @comp[%u] : i32
      %cv = graph.prop.get @comp[%v] : i32
      graph.prop.reduce min @comp[%cu], %cv : i32
      graph.yield
    }
  }
}

// -----

// frontier: buckets, the frontier read only by the loop (a while body's
// argument): the round's bucket comes from sluice_algo_frontier_bucket
// with consume = 1 (its bucket queue passes on to the result), pushed from
// as a list; the result is sealed after the round. (`fusion = off`: the
// fused round is graph-to-llvm-bucket-fusion.mlir's.)
// CHECK-LABEL: llvm.func @sluice_algo_delta(
// CHECK:         scf.while
// CHECK:           %[[OUT:.*]] = llvm.call @sluice_algo_frontier_new(
// CHECK:           %[[DELTA:.*]] = arith.constant 2.500000e+00 : f64
// CHECK-NEXT:      %[[CONSUME:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[LOW:.*]] = llvm.call @sluice_algo_frontier_bucket(%{{.*}}, %{{.*}}, %{{.*}}, %[[DELTA]], %[[OUT]], %[[CONSUME]]) : (!llvm.ptr, !llvm.ptr, i32, f64, !llvm.ptr, i32) -> !llvm.ptr
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_list(%[[LOW]])
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_size(%[[LOW]])
// CHECK:           llvm.call @sluice_algo_parallel_for(
// CHECK:           llvm.call @sluice_algo_frontier_seal(%[[OUT]])
// REMARK: remark: loop 'relax' of algorithm 'delta': push over the out-edges (CSR) of the frontier's vertices in its lowest bucket of width 2.5 (ordered by the property reduced with min=; the others pass on to the result, waiting in a bucket queue); reads `dist[src]` once per source, not per edge; parallel, dynamic chunks of 4 vertices; atomic updates of 'dist'; no bucket fusion: fusion: off (schedule)
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @delta on @g attributes {outputs = [@dist], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
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

// frontier: buckets, the frontier read again in the round (its size): the
// bucket call scans it (consume = 0).
// CHECK-LABEL: llvm.func @sluice_algo_again(
// CHECK:         scf.while
// CHECK:           arith.constant 2.500000e+00 : f64
// CHECK-NEXT:      %[[CONSUME:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_bucket(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CONSUME]])
// REMARK: remark: loop 'relax' of algorithm 'again': {{.*}}the others pass on to the result, by a scan: the frontier is read again);{{.*}}; no bucket fusion: its frontier is read again; relaxed vertices go through the result's bitmap and list, not per-thread bins of their buckets: its frontier is read again (no bucket queue to file into){{$}}
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

// A round loop's frontier (a `while` body's argument read by nothing but
// the loop and, in the condition, frontier.size; made fresh each round and
// at the start) gives its buffers back once the round is done, before the
// result is sealed.
// CHECK-LABEL: llvm.func @sluice_algo_levels(
// CHECK:         scf.while
// CHECK:         } do {
// CHECK:           %[[OUT:.*]] = llvm.call @sluice_algo_frontier_new(
// CHECK:           llvm.call @sluice_algo_parallel_for(
// CHECK:           llvm.call @sluice_algo_frontier_release(%[[FROM:.*]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:      llvm.call @sluice_algo_frontier_seal(%[[OUT]]) : (!llvm.ptr) -> ()
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @levels on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %m1 = arith.constant -1 : i64
    %c0 = arith.constant 0 : i64
    graph.property @depth : i64 = %m1
    %0 = graph.vertex_of %source
    %f = graph.frontier.of [%0]
    %last = scf.while (%a = %f) : (!graph.frontier) -> !graph.frontier {
      %n = graph.frontier.size %a : i64
      %go = arith.cmpi sgt, %n, %c0 : i64
      scf.condition(%go) %a : !graph.frontier
    } do {
    ^bb0(%a: !graph.frontier):
      %next = graph.edges from %a label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
      ^bb0(%src: i32, %dst: i32):
        %d = graph.prop.get @depth[%dst] : i64
        %u = arith.cmpi eq, %d, %m1 : i64
        graph.yield %u : i1
      } do {
      ^bb0(%src: i32, %dst: i32):
        %d = graph.prop.get @depth[%src] : i64
        graph.prop.set @depth[%dst] = %d : i64
        graph.yield
      }
      scf.yield %next : !graph.frontier
    }
  }
}

// -----

// graph-uniform-source-reads' read of one vertex of the round's frontier
// before the loop (graph.frontier.any: the runtime's first vertex) keeps
// the release: nothing reads the frontier after the loop.
// CHECK-LABEL: llvm.func @sluice_algo_uniform(
// CHECK:         scf.while
// CHECK:         } do {
// CHECK:           llvm.call @sluice_algo_frontier_any(%{{.*}}) : (!llvm.ptr) -> i32
// CHECK:           llvm.call @sluice_algo_parallel_for(
// CHECK:           llvm.call @sluice_algo_frontier_release(%{{.*}}) : (!llvm.ptr) -> ()
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @uniform on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %m1 = arith.constant -1 : i64
    %c0 = arith.constant 0 : i64
    graph.property @depth : i64 = %m1
    %0 = graph.vertex_of %source
    %f = graph.frontier.of [%0]
    %last = scf.while (%a = %f) : (!graph.frontier) -> !graph.frontier {
      %n = graph.frontier.size %a : i64
      %go = arith.cmpi sgt, %n, %c0 : i64
      scf.condition(%go) %a : !graph.frontier
    } do {
    ^bb0(%a: !graph.frontier):
      %v = graph.frontier.any %a
      %ds = graph.prop.get @depth[%v] : i64
      %next = graph.edges from %a label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
      ^bb0(%src: i32, %dst: i32):
        %d = graph.prop.get @depth[%dst] : i64
        %u = arith.cmpi eq, %d, %m1 : i64
        graph.yield %u : i1
      } do {
      ^bb0(%src: i32, %dst: i32):
        graph.prop.set @depth[%dst] = %ds : i64
        graph.yield
      }
      scf.yield %next : !graph.frontier
    }
  }
}

// -----

// The frontier the loop starts from is read again after it (its size), so
// no round gives a frontier back.
// CHECK-LABEL: llvm.func @sluice_algo_kept(
// CHECK-NOT:     @sluice_algo_frontier_release
// CHECK:         llvm.return
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @kept on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%source: i64):
    %m1 = arith.constant -1 : i64
    %c0 = arith.constant 0 : i64
    graph.property @depth : i64 = %m1
    %0 = graph.vertex_of %source
    %f = graph.frontier.of [%0]
    %last = scf.while (%a = %f) : (!graph.frontier) -> !graph.frontier {
      %n = graph.frontier.size %a : i64
      %go = arith.cmpi sgt, %n, %c0 : i64
      scf.condition(%go) %a : !graph.frontier
    } do {
    ^bb0(%a: !graph.frontier):
      %next = graph.edges from %a label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
      ^bb0(%src: i32, %dst: i32):
        %d = graph.prop.get @depth[%dst] : i64
        %u = arith.cmpi eq, %d, %m1 : i64
        graph.yield %u : i1
      } do {
      ^bb0(%src: i32, %dst: i32):
        %d = graph.prop.get @depth[%src] : i64
        graph.prop.set @depth[%dst] = %d : i64
        graph.yield
      }
      scf.yield %next : !graph.frontier
    }
    %again = graph.frontier.size %f : i64
    graph.prop.set @depth[%0] = %again : i64
  }
}

// -----

// Division by a constant other than 0 and -1 cannot fault: arith's
// remsi and divsi inline (Afforest's `id(v) % 64` is then no call a
// vertex); by a variable, 0 or -1 the runtime's, which faults. `id(v)`
// itself reads the context's ids once at the function's entry: the
// table's entry, or base + v (-1 past the graph's vertices).
// CHECK-LABEL: llvm.func @sluice_algo_divide_sample_vertices(
// CHECK:         %[[VIEW:.*]] = llvm.call @sluice_algo_view(%arg0)
// CHECK-NEXT:    %[[IDS:.*]] = llvm.call @sluice_algo_id_table(%arg0)
// CHECK-NEXT:    %[[TSLOT:.*]] = llvm.getelementptr inbounds %[[IDS]][0]
// CHECK-NEXT:    %[[TABLE:.*]] = llvm.load %[[TSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[BSLOT:.*]] = llvm.getelementptr inbounds %[[IDS]][1]
// CHECK-NEXT:    %[[BASE:.*]] = llvm.load %[[BSLOT]] : !llvm.ptr -> i64
// The loop's own vertex needs no range test.
// CHECK:         scf.for
// CHECK:           %[[V:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:      %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:      %[[HAS:.*]] = llvm.icmp "ne" %[[TABLE]], %[[NULL]] : !llvm.ptr
// CHECK-NEXT:      %[[ID:.*]] = scf.if %[[HAS]] -> (i64) {
// CHECK-NEXT:        %[[AT:.*]] = llvm.getelementptr %[[TABLE]][%[[V]]]
// CHECK-NEXT:        %[[ENTRY:.*]] = llvm.load %[[AT]] : !llvm.ptr -> i64
// CHECK-NEXT:        scf.yield %[[ENTRY]] : i64
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[SUM:.*]] = arith.addi %[[BASE]], %[[V]] : i64
// CHECK-NEXT:        scf.yield %[[SUM]] : i64
// CHECK-NEXT:      }
// CHECK:         %{{.*}} = arith.remsi %[[ID]], %{{.*}} : i64
// CHECK:         %{{.*}} = arith.divsi %[[ID]], %{{.*}} : i64
// CHECK-NOT:     llvm.call @sluice_algo_irem
// CHECK-NOT:     llvm.call @sluice_algo_idiv
// CHECK-NOT:     llvm.call @sluice_algo_original_id
// CHECK-LABEL: llvm.func @sluice_algo_divide(
// CHECK:         llvm.call @sluice_algo_irem(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, i32) -> i64
// CHECK:         llvm.call @sluice_algo_idiv(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, i32) -> i64
// CHECK:         llvm.call @sluice_algo_idiv(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64, i32) -> i64
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @divide on @g attributes {outputs = [@hits], param_defaults = [3], param_names = ["k"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%k: i64):
    %c0_i64 = arith.constant 0 : i64
    %cm1 = arith.constant -1 : i64
    graph.property @hits : i64 = %c0_i64
    graph.vertices label "sample" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %c64 = arith.constant 64 : i64
      %id = graph.original_id %v : i64
      %r = graph.irem %id, %c64 : i64
      %q = graph.idiv %id, %c64 : i64
      %s = arith.addi %r, %q : i64
      graph.prop.set @hits[%v] = %s : i64
      graph.yield
    }
    %m = graph.num_edges : i64
    %a = graph.irem %m, %k : i64
    %b = graph.idiv %m, %c0_i64 : i64
    %c = graph.idiv %m, %cm1 : i64
  }
}

// -----

// A push loop whose `where` reads only the source (bc.sluice's backward
// levels): the condition is tested at the source before its out-edges,
// which are skipped when it is false, and again at each edge (the body
// may change it). A `where` that reads the destination is not, nor one
// that may fault (an integer division: a source without out-edges never
// evaluated it).
// CHECK-LABEL: llvm.func @sluice_algo_level_fold_push(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK:           %[[D0:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:      %[[AT0:.*]] = arith.cmpi eq, %[[D0]], %[[K:.*]] : i64
// CHECK-NEXT:      scf.if %[[AT0]] {
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK:               %[[D1:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:          %[[AT1:.*]] = arith.cmpi eq, %[[D1]], %[[K]] : i64
// CHECK-NEXT:          scf.if %[[AT1]] {
// CHECK-LABEL: llvm.func @sluice_algo_level_other_push(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}}
// CHECK-NOT:       arith.cmpi eq
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}}
// REMARK: remark: loop 'fold' of algorithm 'level': push over the out-edges (CSR) of every vertex; a source's out-edges are skipped when `where` (it reads only the source) is false; parallel, static shares; no atomics
// REMARK: remark: loop 'other' of algorithm 'level': push over the out-edges (CSR) of every vertex; parallel, static shares; no atomics{{$}}
// REMARK: remark: loop 'divided' of algorithm 'level': push over the out-edges (CSR) of every vertex; parallel, static shares; no atomics{{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @level on @g attributes {outputs = [@delta], param_defaults = [2], param_names = ["k"], schedule = #graph.algorithm_schedule<target = cpu>} {
  ^bb0(%k: i64):
    %zero = arith.constant 0.000000e+00 : f64
    %m1 = arith.constant -1 : i64
    graph.property @depth : i64 = %m1
    graph.property @delta : f64 = %zero
    graph.edges label "fold" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
    ^bb0(%v: i32, %w: i32):
      %d = graph.prop.get @depth[%v] : i64
      %at = arith.cmpi eq, %d, %k : i64
      graph.yield %at : i1
    } do {
    ^bb0(%v: i32, %w: i32):
      %one = arith.constant 1.000000e+00 : f64
      graph.prop.reduce add @delta[%v], %one : f64
      graph.yield
    }
    graph.edges label "other" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
    ^bb0(%v: i32, %w: i32):
      %d = graph.prop.get @depth[%w] : i64
      %at = arith.cmpi eq, %d, %k : i64
      graph.yield %at : i1
    } do {
    ^bb0(%v: i32, %w: i32):
      %one = arith.constant 1.000000e+00 : f64
      graph.prop.reduce add @delta[%v], %one : f64
      graph.yield
    }
    graph.edges label "divided" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = sparse, format = auto>} where {
    ^bb0(%v: i32, %w: i32):
      %d = graph.prop.get @depth[%v] : i64
      %q = graph.idiv %d, %k : i64
      %at = arith.cmpi eq, %q, %k : i64
      graph.yield %at : i1
    } do {
    ^bb0(%v: i32, %w: i32):
      %one = arith.constant 1.000000e+00 : f64
      graph.prop.reduce add @delta[%v], %one : f64
      graph.yield
    }
  }
}

// -----

// Several `id()` in one function (the source's, the destination's and
// that of a vertex read from a property, in a push loop) share one
// sluice_algo_id_table call at its entry; no runtime call per edge. Only the
// vertex read from a property is tested against the vertex count (-1 past
// it, as sluice_algo_original_id).
// CHECK-LABEL: llvm.func @sluice_algo_ids_twice_both_push(
// CHECK:         %[[VIEW:.*]] = llvm.call @sluice_algo_view(%arg0)
// CHECK-NEXT:    llvm.call @sluice_algo_id_table(%arg0)
// CHECK:         %[[NSLOT:.*]] = llvm.getelementptr inbounds %[[VIEW]][0]
// CHECK-NEXT:    %[[N:.*]] = llvm.load %[[NSLOT]] : !llvm.ptr -> i64
// CHECK-NOT:     llvm.call @sluice_algo_id_table
// CHECK-NOT:     arith.cmpi ult, %{{.*}}, %[[N]] : i64
// CHECK:         %[[P:.*]] = llvm.load %{{.*}} atomic monotonic {{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[P]] : i32 to i64
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[W]], %[[N]] : i64
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[HAS:.*]] = llvm.icmp "ne" %{{.*}}, %[[NULL]] : !llvm.ptr
// CHECK-NEXT:    %[[LISTED:.*]] = arith.andi %[[IN]], %[[HAS]] : i1
// CHECK-NEXT:    scf.if %[[LISTED]] -> (i64) {
// CHECK:         } else {
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %{{.*}}, %[[W]] : i64
// CHECK-NEXT:      %[[NONE:.*]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[OR:.*]] = arith.select %[[IN]], %[[SUM]], %[[NONE]] : i64
// CHECK-NEXT:      scf.yield %[[OR]] : i64
// CHECK-NEXT:    }
// CHECK-NOT:     llvm.call @sluice_algo_original_id
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @sluice_algo_ids_twice(
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @ids_twice on @g attributes {outputs = [@sum], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0_i64 = arith.constant 0 : i64
    %v0 = graph.vertex_of %c0_i64
    graph.property @sum : i64 = %c0_i64
    graph.property @parent : i32 = %v0
    graph.edges label "both" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = csr>} do {
    ^bb0(%u: i32, %v: i32):
      %a = graph.original_id %u : i64
      %b = graph.original_id %v : i64
      %p = graph.prop.get @parent[%v] : i32
      %c = graph.original_id %p : i64
      %ab = arith.addi %a, %b : i64
      %s = arith.addi %ab, %c : i64
      graph.prop.reduce add @sum[%v], %s : i64
      graph.yield
    }
  }
}
