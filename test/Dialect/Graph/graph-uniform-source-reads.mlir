// RUN: sluice-opt %s -split-input-file --graph-uniform-source-reads | FileCheck %s
// RUN: sluice-opt %s -split-input-file --graph-uniform-source-reads=remarks=1 -verify-diagnostics -o /dev/null

// BFS, direction-optimising: every vertex of the frontier has one depth,
// so `depth[src]` is read once per round, before the loop, at one vertex
// of the frontier (guarded by the graph having a vertex), and the body
// adds one to that value. The guard `depth[dst]` stays per edge.
// CHECK-LABEL: graph.algorithm @bfs
// CHECK:         ^bb0(%[[F:.*]]: !graph.frontier):
// CHECK-NEXT:      %[[N:.*]] = graph.num_vertices : i64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[ANY:.*]] = arith.cmpi sgt, %[[N]], %[[Z]] : i64
// CHECK-NEXT:      %[[DS:.*]] = scf.if %[[ANY]] -> (i64) {
// CHECK-NEXT:        %[[V:.*]] = graph.frontier.any %[[F]]
// CHECK-NEXT:        %[[X:.*]] = graph.prop.get @depth[%[[V]]] : i64
// CHECK-NEXT:        scf.yield %[[X]] : i64
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[C:.*]] = arith.constant 0 : i64
// CHECK-NEXT:        scf.yield %[[C]] : i64
// CHECK-NEXT:      }
// CHECK-NEXT:      graph.edges from %[[F]] label "expand"
// CHECK:             graph.prop.get @depth[%{{.*}}] : i64
// CHECK:           } do {
// CHECK-NEXT:      ^bb0(%{{.*}}: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:        %[[D1:.*]] = arith.addi %[[DS]], %[[ONE]] : i64
// CHECK-NEXT:        graph.prop.set @depth[%[[DST]]] = %[[D1]] : i64
walk.graph @g "g.txt" format snap
graph.algorithm @bfs on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %1 = graph.vertex_of %source
  %2 = graph.frontier.of [%1]
  %3 = scf.while (%f = %2) : (!graph.frontier) -> !graph.frontier {
    %n = graph.frontier.size %f : i64
    %z = arith.constant 0 : i64
    %more = arith.cmpi sgt, %n, %z : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    // expected-remark @+1 {{loop 'expand' of algorithm 'bfs': 'depth[src]' is read once per round, at one vertex of the frontier: every vertex of the frontier has one value of 'depth' (level-synchronous; 1 read per edge removed)}}
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %k = arith.constant -1 : i64
      %unseen = arith.cmpi eq, %d, %k : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    scf.yield %4 : !graph.frontier
  }
}

// -----

// BFS from every vertex at once: the frontier's depths differ, so the
// reads stay per edge.
// CHECK-LABEL: graph.algorithm @bfsAll
// CHECK-NOT:     graph.frontier.any
// CHECK:         graph.prop.get @depth[%{{.*}}] : i64
// CHECK:         graph.prop.get @depth[%{{.*}}] : i64
walk.graph @g "g.txt" format snap
graph.algorithm @bfsAll on @g attributes {param_names = [], param_defaults = [], outputs = [@depth]} {
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %all = graph.frontier.all
  %3 = scf.while (%f = %all) : (!graph.frontier) -> !graph.frontier {
    %n = graph.frontier.size %f : i64
    %z = arith.constant 0 : i64
    %more = arith.cmpi sgt, %n, %z : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    // expected-remark @+1 {{loop 'expand' of algorithm 'bfsAll': 'depth[src]' is read per edge: the vertices of the frontier are not shown to share one value of 'depth' (docs/algorithms.md, "Legality of parallel updates")}}
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %k = arith.constant -1 : i64
      %unseen = arith.cmpi eq, %d, %k : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    scf.yield %4 : !graph.frontier
  }
}

// -----

// A round counter written at the destination reads nothing at the source:
// nothing to replace. (graph-check-parallel-writes gives its guard no
// warning either.)
// CHECK-LABEL: graph.algorithm @levels
// CHECK-NOT:     graph.frontier.any
walk.graph @g "g.txt" format snap
graph.algorithm @levels on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %2 = graph.frontier.of [%0]
  %3:2 = scf.while (%f = %2, %l = %c0) : (!graph.frontier, i64) -> (!graph.frontier, i64) {
    %n = graph.frontier.size %f : i64
    %more = arith.cmpi sgt, %n, %c0 : i64
    scf.condition(%more) %f, %l : !graph.frontier, i64
  } do {
  ^bb0(%f: !graph.frontier, %l: i64):
    %one = arith.constant 1 : i64
    %next = arith.addi %l, %one : i64
    // expected-remark @+1 {{loop 'expand' of algorithm 'levels': 'depth' is not read at the source: nothing to read once per round}}
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %unseen = arith.cmpi eq, %d, %m1 : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      graph.prop.set @depth[%dst] = %next : i64
      graph.yield
    }
    scf.yield %4, %next : !graph.frontier, i64
  }
}
