// RUN: sluice-opt %s -split-input-file | sluice-opt -split-input-file | FileCheck %s
// RUN: sluice-opt %s -split-input-file -mlir-print-op-generic | sluice-opt -split-input-file | FileCheck %s

// PageRank: parameters as block arguments, properties, scf.for, an edges
// loop with a reduction and a vertices loop; the requested schedule
// (target, threads, loop defaults, label schedules) on the algorithm.
// CHECK-LABEL: graph.algorithm @pagerank on @g attributes {label_schedules = {apply = #graph.schedule<parallel = static>, gather = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, format = csr>}, loop_defaults = #graph.schedule<tile = 512>, outputs = [@rank], param_defaults = [8.500000e-01, 20], param_names = ["damping", "iterations"], target = #graph<target gpu>, threads = 16 : i64} {
// CHECK-NEXT:  ^bb0(%[[DAMP:.*]]: f64, %[[IT:.*]]: i64):
// CHECK:         %[[N:.*]] = graph.num_vertices : i64
// CHECK:         graph.property @rank : f64 = %{{.*}}
// CHECK:         graph.property @incoming : f64 = %[[ZERO:.*]]
// CHECK:         scf.for
// CHECK-NEXT:      graph.edges label "gather" do {
// CHECK-NEXT:      ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:        %[[R:.*]] = graph.prop.get @rank[%[[SRC]]] : f64
// CHECK-NEXT:        %[[D:.*]] = graph.degree %[[SRC]] : i64
// CHECK:             graph.prop.reduce add @incoming[%[[DST]]], %{{.*}} : f64
// CHECK-NEXT:        graph.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      graph.vertices label "apply" do {
// CHECK-NEXT:      ^bb0(%[[V:.*]]: i32):
// CHECK-NEXT:        %[[X:.*]] = graph.prop.get @incoming[%[[V]]] : f64
// CHECK-NEXT:        %[[Y:.*]] = arith.mulf %[[DAMP]], %[[X]] : f64
// CHECK-NEXT:        graph.prop.set @rank[%[[V]]] = %[[Y]] : f64
// CHECK-NEXT:        graph.prop.set @incoming[%[[V]]] = %[[ZERO]] : f64
// CHECK-NEXT:        graph.yield
// CHECK-NEXT:      }
walk.graph @g "g.txt" format snap
graph.algorithm @pagerank on @g attributes {param_names = ["damping", "iterations"], param_defaults = [0.85, 20], outputs = [@rank], target = #graph<target gpu>, threads = 16 : i64, loop_defaults = #graph.schedule<tile = 512>, label_schedules = {gather = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, format = csr>, apply = #graph.schedule<parallel = static>}} {
^bb0(%damping: f64, %iterations: i64):
  %n = graph.num_vertices : i64
  %one = arith.constant 1.0 : f64
  %nf = arith.sitofp %n : i64 to f64
  %r0 = arith.divf %one, %nf : f64
  graph.property @rank : f64 = %r0
  %zero = arith.constant 0.0 : f64
  graph.property @incoming : f64 = %zero
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %it = arith.index_cast %iterations : i64 to index
  scf.for %i = %c0 to %it step %c1 {
    graph.edges label "gather" do {
    ^bb0(%src: i32, %dst: i32):
      %r = graph.prop.get @rank[%src] : f64
      %d = graph.degree %src : i64
      %df = arith.sitofp %d : i64 to f64
      %q = arith.divf %r, %df : f64
      graph.prop.reduce add @incoming[%dst], %q : f64
      graph.yield
    }
    graph.vertices label "apply" do {
    ^bb0(%v: i32):
      %x = graph.prop.get @incoming[%v] : f64
      %y = arith.mulf %damping, %x : f64
      graph.prop.set @rank[%v] = %y : f64
      graph.prop.set @incoming[%v] = %zero : f64
      graph.yield
    }
  }
}

// -----

// BFS: a frontier of one vertex carried by scf.while, an edges loop from it
// with a where region and a result frontier, frontier.size; graph.job.
// CHECK-LABEL: graph.algorithm @bfs on @g attributes {outputs = [@depth], param_defaults = [0], param_names = ["source"]} {
// CHECK-NEXT:  ^bb0(%[[S:.*]]: i64):
// CHECK:         %[[SV:.*]] = graph.vertex_of %[[S]]
// CHECK:         %[[F0:.*]] = graph.frontier.of [%[[SV]]]
// CHECK:         scf.while (%[[F:.*]] = %[[F0]]) : (!graph.frontier) -> !graph.frontier {
// CHECK-NEXT:      %[[SZ:.*]] = graph.frontier.size %[[F]] : i64
// CHECK:           %[[NEXT:.*]] = graph.edges from %[[FF:.*]] label "expand" -> !graph.frontier where {
// CHECK-NEXT:      ^bb0(%{{.*}}: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:        %[[D:.*]] = graph.prop.get @depth[%[[DST]]] : i64
// CHECK:             graph.yield %{{.*}} : i1
// CHECK-NEXT:      } do {
// CHECK:             graph.prop.set @depth[%{{.*}}] = %{{.*}} : i64
// CHECK:           scf.yield %[[NEXT]] : !graph.frontier
// CHECK: graph.job @levels run @bfs on "box" {output = "d.txt", params = {source = 3 : i64}, seed = 7 : i64, threads = 4 : i64}
walk.graph @g "g.txt" format snap undirected
graph.algorithm @bfs on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %sv = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%sv] = %c0 : i64
  %f0 = graph.frontier.of [%sv]
  %res = scf.while (%f = %f0) : (!graph.frontier) -> !graph.frontier {
    %s = graph.frontier.size %f : i64
    %more = arith.cmpi sgt, %s, %c0 : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    %next = graph.edges from %f label "expand" -> !graph.frontier where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %u = arith.cmpi eq, %d, %m1 : i64
      graph.yield %u : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    scf.yield %next : !graph.frontier
  }
}
graph.job @levels run @bfs on "box" {output = "d.txt", params = {source = 3 : i64}, seed = 7 : i64, threads = 4 : i64}

// -----

// The decided schedules graph-attach-schedule writes: on the algorithm and
// on loops of both kinds, with every key and tile sizes.
// CHECK-LABEL: graph.algorithm @scheduled on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu, threads = 8>} {
// CHECK:         graph.edges attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, tile = 4096, frontier = bitmap, format = coo>} do {
// CHECK:         graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = serial, frontier = sparse, format = auto>} do {
// CHECK:         graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 16, frontier = auto, format = auto, order = auto>} do {
// CHECK:         graph.edges attributes {schedule = #graph.schedule<direction = pull, parallel = static, tile = auto, frontier = dense, format = csr>} do {
// CHECK:         graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
// CHECK:         graph.vertices attributes {schedule = #graph.schedule<parallel = dynamic, chunk = 1, tile = auto>} do {
walk.graph @g "g.txt" format snap
graph.algorithm @scheduled on @g attributes {param_names = [], param_defaults = [], outputs = [], schedule = #graph.algorithm_schedule<target = gpu, threads = 8>} {
  graph.edges attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, tile = 4096, frontier = bitmap, format = coo>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = serial, frontier = sparse, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  graph.edges attributes {schedule = #graph.schedule<order = auto, direction = push, parallel = dynamic, chunk = 16, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  graph.edges attributes {schedule = #graph.schedule<format = csr, frontier = dense, tile = auto, parallel = static, direction = pull>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
  ^bb0(%v: i32):
    graph.yield
  }
  graph.vertices attributes {schedule = #graph.schedule<parallel = dynamic, chunk = 1, tile = auto>} do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// Every reduction kind, a weighted edges loop (three binders) without a
// frontier, a vertices loop with a where region, and the graph queries.
// CHECK-LABEL: graph.algorithm @everything on @g
// CHECK-NEXT:  ^bb0(%[[K:.*]]: i64, %[[ON:.*]]: i1):
// CHECK:         graph.property @x : f64 = %{{.*}}
// CHECK:         graph.property @n : i64 = %[[K]]
// CHECK:         graph.property @flag : i1 = %[[ON]]
// CHECK:         graph.property @parent : i32 = %{{.*}}
// CHECK:         graph.edges do {
// CHECK-NEXT:    ^bb0(%[[U:.*]]: i32, %[[V:.*]]: i32, %[[W:.*]]: f64):
// CHECK-NEXT:      graph.prop.reduce add @x[%[[V]]], %[[W]] : f64
// CHECK-NEXT:      graph.prop.reduce sub @x[%[[V]]], %[[W]] : f64
// CHECK-NEXT:      graph.prop.reduce mul @x[%[[V]]], %[[W]] : f64
// CHECK-NEXT:      graph.prop.reduce min @x[%[[V]]], %[[W]] : f64
// CHECK-NEXT:      graph.prop.reduce max @n[%[[V]]], %[[K]] : i64
// CHECK-NEXT:      %{{.*}} = graph.has_edge %[[V]], %[[U]]
// CHECK-NEXT:      %{{.*}} = graph.edge_weight %[[V]], %[[U]] : f64
// CHECK-NEXT:      %{{.*}} = graph.edge_label %[[U]], %[[V]] : i64
// CHECK-NEXT:      %{{.*}} = graph.label %[[V]] : i64
// CHECK-NEXT:      %{{.*}} = graph.original_id %[[V]] : i64
// CHECK-NEXT:      %{{.*}} = graph.common_neighbors %[[U]], %[[V]] : i64
// CHECK-NEXT:      %{{.*}} = graph.common_neighbors below %[[U]], %[[V]] : i64
// CHECK-NEXT:      %{{.*}} = graph.random : f64
// CHECK-NEXT:      graph.prop.set @parent[%[[V]]] = %[[U]] : i32
// CHECK-NEXT:      graph.yield
// CHECK:         graph.vertices where {
// CHECK-NEXT:    ^bb0(%[[V2:.*]]: i32):
// CHECK-NEXT:      %[[FL:.*]] = graph.prop.get @flag[%[[V2]]] : i1
// CHECK-NEXT:      graph.yield %[[FL]] : i1
// CHECK-NEXT:    } do {
// CHECK:         %[[M:.*]] = graph.num_edges : i64
// CHECK-NEXT:    %{{.*}} = graph.idiv %[[M]], %[[K]] : i64
// CHECK-NEXT:    %{{.*}} = graph.irem %[[M]], %[[K]] : i64
// CHECK-NEXT:    %[[ALL:.*]] = graph.frontier.all
// CHECK-NEXT:    %[[NONE:.*]] = graph.frontier.of []
// CHECK-NEXT:    %[[TWO:.*]] = graph.frontier.of [%{{.*}}, %{{.*}}]
// CHECK-NEXT:    %{{.*}} = graph.frontier.size %[[ALL]] : i64
walk.graph @g "g.txt" format edgelist weighted {edge_labels = "g.el", labels = "g.l"}
graph.algorithm @everything on @g attributes {param_names = ["k", "on"], param_defaults = [unit, true], outputs = [@x, @n]} {
^bb0(%k: i64, %on: i1):
  %zero = arith.constant 0.0 : f64
  graph.property @x : f64 = %zero
  graph.property @n : i64 = %k
  graph.property @flag : i1 = %on
  %id = arith.constant 0 : i64
  %v0 = graph.vertex_of %id
  graph.property @parent : i32 = %v0
  graph.edges do {
  ^bb0(%u: i32, %v: i32, %w: f64):
    graph.prop.reduce add @x[%v], %w : f64
    graph.prop.reduce sub @x[%v], %w : f64
    graph.prop.reduce mul @x[%v], %w : f64
    graph.prop.reduce min @x[%v], %w : f64
    graph.prop.reduce max @n[%v], %k : i64
    %e = graph.has_edge %v, %u
    %ew = graph.edge_weight %v, %u : f64
    %el = graph.edge_label %u, %v : i64
    %l = graph.label %v : i64
    %oid = graph.original_id %v : i64
    %cn = graph.common_neighbors %u, %v : i64
    %cnb = graph.common_neighbors below %u, %v : i64
    %r = graph.random : f64
    graph.prop.set @parent[%v] = %u : i32
    graph.yield
  }
  graph.vertices where {
  ^bb0(%v: i32):
    %f = graph.prop.get @flag[%v] : i1
    graph.yield %f : i1
  } do {
  ^bb0(%v: i32):
    graph.yield
  }
  %m = graph.num_edges : i64
  %q = graph.idiv %m, %k : i64
  %rem = graph.irem %m, %k : i64
  %all = graph.frontier.all
  %none = graph.frontier.of []
  %two = graph.frontier.of [%v0, %v0]
  %size = graph.frontier.size %all : i64
}

// -----

// Reductions into locals: a vertices loop with inits, kinds and results,
// the body yielding each iteration's contributions; and the schedule of
// delta-stepping's ordered frontier.
// CHECK-LABEL: graph.algorithm @reduce on @g
// CHECK:         %[[SUM:.*]]:2 = graph.vertices label "sum" reduce(%{{.*}}, %{{.*}} : f64, i64) -> f64, i64 attributes {reductions = [#graph<reduction add>, #graph<reduction max>]} do {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: i32):
// CHECK-NEXT:      %[[X:.*]] = graph.prop.get @x[%[[V]]] : f64
// CHECK-NEXT:      %[[D:.*]] = graph.degree %[[V]] : i64
// CHECK-NEXT:      graph.yield %[[X]], %[[D]] : f64, i64
// CHECK:         graph.algorithm @delta on @g attributes {loop_defaults = #graph.schedule<direction = push, frontier = buckets, delta = 2.500000e+00 : f64>
walk.graph @g "g.txt" format snap
graph.algorithm @reduce on @g attributes {param_names = [], param_defaults = [], outputs = [@x]} {
  %zero = arith.constant 0.0 : f64
  %none = arith.constant 0 : i64
  graph.property @x : f64 = %zero
  %sum:2 = graph.vertices label "sum" reduce(%zero, %none : f64, i64) -> f64, i64 attributes {reductions = [#graph<reduction add>, #graph<reduction max>]} do {
  ^bb0(%v: i32):
    %x = graph.prop.get @x[%v] : f64
    %d = graph.degree %v : i64
    graph.yield %x, %d : f64, i64
  }
}
graph.algorithm @delta on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = push, frontier = buckets, delta = 2.5 : f64>} {
}

// -----

// f32 properties: read, written and reduced with f32 values.
// CHECK-LABEL: graph.algorithm @scores
// CHECK:         graph.property @score : f32 = %{{.*}}
// CHECK:         graph.edges do {
// CHECK-NEXT:    ^bb0(%[[S:.*]]: i32, %[[D:.*]]: i32):
// CHECK-NEXT:      %[[X:.*]] = graph.prop.get @score[%[[S]]] : f32
// CHECK-NEXT:      graph.prop.reduce max @score[%[[D]]], %[[X]] : f32
// CHECK-NEXT:      graph.prop.set @score[%[[S]]] = %[[X]] : f32
walk.graph @g "g.txt" format snap
graph.algorithm @scores on @g attributes {param_names = [], param_defaults = [], outputs = [@score]} {
  %z = arith.constant 0.5 : f32
  graph.property @score : f32 = %z
  graph.edges do {
  ^bb0(%s: i32, %d: i32):
    %x = graph.prop.get @score[%s] : f32
    graph.prop.reduce max @score[%d], %x : f32
    graph.prop.set @score[%s] = %x : f32
    graph.yield
  }
}

// -----

// compare_swap on a vertex (i32) and an i64 property: the swapped flag.
// CHECK-LABEL: graph.algorithm @link
// CHECK:         graph.edges do {
// CHECK-NEXT:    ^bb0(%[[S:.*]]: i32, %[[D:.*]]: i32):
// CHECK-NEXT:      %[[P:.*]] = graph.prop.get @comp[%[[S]]] : i32
// CHECK-NEXT:      %{{.*}} = graph.compare_swap @comp[%[[P]]], %[[P]], %[[D]] : i32, i32
// CHECK:           %{{.*}} = graph.compare_swap @owner[%[[D]]], %{{.*}}, %{{.*}} : i64, i64
walk.graph @g "g.txt" format snap
graph.algorithm @link on @g attributes {param_names = [], param_defaults = [], outputs = [@comp]} {
  %id = arith.constant 0 : i64
  %v0 = graph.vertex_of %id
  graph.property @comp : i32 = %v0
  %none = arith.constant -1 : i64
  graph.property @owner : i64 = %none
  graph.edges do {
  ^bb0(%s: i32, %d: i32):
    %p = graph.prop.get @comp[%s] : i32
    %ok = graph.compare_swap @comp[%p], %p, %d : i32, i32
    %mine = graph.original_id %s : i64
    %won = graph.compare_swap @owner[%d], %none, %mine : i64, i64
    graph.yield
  }
}
