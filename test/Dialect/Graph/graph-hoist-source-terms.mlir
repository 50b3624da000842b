// RUN: sluice-opt %s -split-input-file --graph-hoist-source-terms | FileCheck %s
// RUN: sluice-opt %s -split-input-file --graph-hoist-source-terms=remarks=1 -verify-diagnostics -o /dev/null

// PageRank pulled: `rank[src] / degree(src)` is computed once per vertex
// into a new property (after the last one) by a static vertices loop just
// before the edges loop, which reads it at the source.
// CHECK-LABEL: graph.algorithm @pagerank
// CHECK:         graph.property @rank : f64
// CHECK-NEXT:    graph.property @incoming : f64
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    graph.property @gather_src0 : f64 = %[[Z]]
// CHECK:         scf.for
// CHECK-NEXT:      graph.vertices label "gather_src" attributes {schedule = #graph.schedule<parallel = static>} do {
// CHECK-NEXT:      ^bb0(%[[V:.*]]: i32):
// CHECK-NEXT:        %[[R:.*]] = graph.prop.get @rank[%[[V]]] : f64
// CHECK-NEXT:        %[[D:.*]] = graph.degree %[[V]] : i64
// CHECK-NEXT:        %[[DF:.*]] = arith.sitofp %[[D]] : i64 to f64
// CHECK-NEXT:        %[[Q:.*]] = arith.divf %[[R]], %[[DF]] : f64
// CHECK-NEXT:        graph.prop.set @gather_src0[%[[V]]] = %[[Q]] : f64
// CHECK-NEXT:        graph.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
// CHECK-NEXT:      ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:        %[[T:.*]] = graph.prop.get @gather_src0[%[[SRC]]] : f64
// CHECK-NEXT:        graph.prop.reduce add @incoming[%[[DST]]], %[[T]] : f64
// CHECK-NEXT:        graph.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      graph.vertices label "apply"
walk.graph @g "g.txt" format snap
graph.algorithm @pagerank on @g attributes {param_names = ["iterations"], param_defaults = [20], outputs = [@rank]} {
^bb0(%iterations: i64):
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  graph.property @rank : f64 = %one
  graph.property @incoming : f64 = %zero
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %iterations : i64 to index
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark@+1 {{loop 'gather' of algorithm 'pagerank': hoisted rank[src] / degree(src) (it depends only on the source and reads no property the loop writes) into vertex property 'gather_src0', computed once per vertex by the new loop 'gather_src' (parallel: static) before this one; the body reads gather_src0[src]}}
    graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = csr>} do {
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
      graph.prop.set @rank[%v] = %x : f64
      graph.prop.set @incoming[%v] = %zero : f64
      graph.yield
    }
  }
}

// -----

// Pushed and unlabelled (the 2nd loop: "loop1"), with a parameter and a
// constant of the body in the term, and two terms sharing `rank[src] *
// damping`: each gets its property, both are computed by one vertices
// loop, the shared part once.
// CHECK-LABEL: graph.algorithm @push
// CHECK:         graph.property @b : f64
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    graph.property @loop1_src0 : f64 = %[[Z0]]
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    graph.property @loop1_src1 : f64 = %[[Z1]]
// CHECK:         graph.vertices label "other"
// CHECK:         graph.vertices label "loop1_src" attributes {schedule = #graph.schedule<parallel = static>} do {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: i32):
// CHECK-NEXT:      %[[R:.*]] = graph.prop.get @rank[%[[V]]] : f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[R]], %[[DAMPING:.*]] : f64
// CHECK-NEXT:      graph.prop.set @loop1_src0[%[[V]]] = %[[M]] : f64
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:      %[[M2:.*]] = arith.mulf %[[M]], %[[TWO]] : f64
// CHECK-NEXT:      graph.prop.set @loop1_src1[%[[V]]] = %[[M2]] : f64
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    graph.edges do {
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:      %[[T0:.*]] = graph.prop.get @loop1_src0[%[[SRC]]] : f64
// CHECK-NEXT:      %[[T1:.*]] = graph.prop.get @loop1_src1[%[[SRC]]] : f64
// CHECK-NEXT:      graph.prop.reduce add @a[%[[DST]]], %[[T0]] : f64
// CHECK-NEXT:      graph.prop.reduce add @b[%[[DST]]], %[[T1]] : f64
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
walk.graph @g "g.txt" format snap
graph.algorithm @push on @g attributes {param_names = ["damping"], param_defaults = [8.500000e-01], outputs = [@a]} {
^bb0(%damping: f64):
  %zero = arith.constant 0.0 : f64
  graph.property @rank : f64 = %zero
  graph.property @a : f64 = %zero
  graph.property @b : f64 = %zero
  graph.vertices label "other" do {
  ^bb0(%v: i32):
    graph.yield
  }
  // expected-remark@+2 {{loop 1 of algorithm 'push': hoisted rank[src] * damping (it depends only on the source and reads no property the loop writes) into vertex property 'loop1_src0', computed once per vertex by the new loop 'loop1_src' (parallel: static) before this one; the body reads loop1_src0[src]}}
  // expected-remark@+1 {{loop 1 of algorithm 'push': hoisted (rank[src] * damping) * 2 (it depends only on the source and reads no property the loop writes) into vertex property 'loop1_src1', computed once per vertex by the new loop 'loop1_src' (parallel: static) before this one; the body reads loop1_src1[src]}}
  graph.edges do {
  ^bb0(%src: i32, %dst: i32):
    %r = graph.prop.get @rank[%src] : f64
    %m = arith.mulf %r, %damping : f64
    %two = arith.constant 2.0 : f64
    %m2 = arith.mulf %m, %two : f64
    graph.prop.reduce add @a[%dst], %m : f64
    graph.prop.reduce add @b[%dst], %m2 : f64
    graph.yield
  }
}

// -----

// Not hoisted: the term reads `dist`, which the loop writes (a vertices
// loop before it would miss the loop's own updates).
// CHECK-LABEL: graph.algorithm @written
// CHECK-NOT:     graph.vertices
// CHECK:         graph.edges label "relax" do {
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32, %[[W:.*]]: f64):
// CHECK-NEXT:      %[[D:.*]] = graph.prop.get @dist[%[[SRC]]] : f64
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      %[[D1:.*]] = arith.addf %[[D]], %[[ONE]] : f64
// CHECK-NEXT:      graph.prop.reduce min @dist[%[[DST]]], %[[D1]] : f64
walk.graph @g "g.txt" format snap
graph.algorithm @written on @g attributes {param_names = [], param_defaults = [], outputs = [@dist]} {
  %inf = arith.constant 1.0e300 : f64
  graph.property @dist : f64 = %inf
  // expected-remark@+1 {{loop 'relax' of algorithm 'written': not hoisted: dist[src] + 1 reads 'dist', which this loop writes (computed before the loop it would miss the loop's writes)}}
  graph.edges label "relax" do {
  ^bb0(%src: i32, %dst: i32, %w: f64):
    %d = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %d1 = arith.addf %d, %one : f64
    graph.prop.reduce min @dist[%dst], %d1 : f64
    graph.yield
  }
}

// -----

// Not hoisted: a compare_swap is a write too (`owner[src] + 1` computed
// before the loop would miss the loop's swaps).
// CHECK-LABEL: graph.algorithm @swapped
// CHECK-NOT:     graph.vertices
// CHECK:         graph.edges label "claim" do {
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:      %[[O:.*]] = graph.prop.get @owner[%[[SRC]]] : i64
walk.graph @g "g.txt" format snap
graph.algorithm @swapped on @g attributes {param_names = [], param_defaults = [], outputs = [@owner]} {
  %none = arith.constant -1 : i64
  graph.property @owner : i64 = %none
  // expected-remark@+1 {{loop 'claim' of algorithm 'swapped': not hoisted: owner[src] + 1 reads 'owner', which this loop writes (computed before the loop it would miss the loop's writes)}}
  graph.edges label "claim" do {
  ^bb0(%src: i32, %dst: i32):
    %o = graph.prop.get @owner[%src] : i64
    %one = arith.constant 1 : i64
    %o1 = arith.addi %o, %one : i64
    %ok = graph.compare_swap @owner[%dst], %none, %o1 : i64, i64
    graph.yield
  }
}

// -----

// Not hoisted: a bare read of the source's data (and a cast of its degree)
// compute nothing; the division also reads the destination's degree, so it
// stays per edge.
// CHECK-LABEL: graph.algorithm @bare
// CHECK-NOT:     graph.property @gather_src
// CHECK-NOT:     graph.vertices
// CHECK:         graph.edges label "gather" do {
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:      %[[R:.*]] = graph.prop.get @rank[%[[SRC]]] : f64
// CHECK-NEXT:      graph.prop.reduce add @a[%[[DST]]], %[[R]] : f64
// CHECK-NEXT:      %[[DS:.*]] = graph.degree %[[SRC]] : i64
// CHECK-NEXT:      %[[DSF:.*]] = arith.sitofp %[[DS]] : i64 to f64
// CHECK-NEXT:      %[[DD:.*]] = graph.degree %[[DST]] : i64
// CHECK-NEXT:      %[[DDF:.*]] = arith.sitofp %[[DD]] : i64 to f64
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[DSF]], %[[DDF]] : f64
// CHECK-NEXT:      graph.prop.reduce add @a[%[[DST]]], %[[Q]] : f64
walk.graph @g "g.txt" format snap
graph.algorithm @bare on @g attributes {param_names = [], param_defaults = [], outputs = [@a]} {
  %zero = arith.constant 0.0 : f64
  graph.property @rank : f64 = %zero
  graph.property @a : f64 = %zero
  // expected-remark@+2 {{loop 'gather' of algorithm 'bare': not hoisted: rank[src] computes nothing (a read of the source's data: hoisting it would replace one read by another)}}
  // expected-remark@+1 {{loop 'gather' of algorithm 'bare': not hoisted: degree(src) computes nothing (a read of the source's data: hoisting it would replace one read by another)}}
  graph.edges label "gather" do {
  ^bb0(%src: i32, %dst: i32):
    %r = graph.prop.get @rank[%src] : f64
    graph.prop.reduce add @a[%dst], %r : f64
    %ds = graph.degree %src : i64
    %dsf = arith.sitofp %ds : i64 to f64
    %dd = graph.degree %dst : i64
    %ddf = arith.sitofp %dd : i64 to f64
    %q = arith.divf %dsf, %ddf : f64
    graph.prop.reduce add @a[%dst], %q : f64
    graph.yield
  }
}

// -----

// Nothing depends only on the source: the destination's data and the
// edge's weight.
// CHECK-LABEL: graph.algorithm @destination
// CHECK-NOT:     graph.vertices
// CHECK:         graph.edges do {
// CHECK-NEXT:    ^bb0(%{{.*}}: i32, %[[DST:.*]]: i32, %[[W:.*]]: f64):
// CHECK-NEXT:      %[[R:.*]] = graph.prop.get @rank[%[[DST]]] : f64
// CHECK-NEXT:      %[[X:.*]] = arith.mulf %[[R]], %[[W]] : f64
walk.graph @g "g.txt" format snap
graph.algorithm @destination on @g attributes {param_names = [], param_defaults = [], outputs = [@a]} {
  %zero = arith.constant 0.0 : f64
  graph.property @rank : f64 = %zero
  graph.property @a : f64 = %zero
  // expected-remark@+1 {{loop 0 of algorithm 'destination': nothing to hoist: no term of the body depends only on the source}}
  graph.edges do {
  ^bb0(%src: i32, %dst: i32, %w: f64):
    %r = graph.prop.get @rank[%dst] : f64
    %x = arith.mulf %r, %w : f64
    graph.prop.reduce add @a[%dst], %x : f64
    graph.yield
  }
}

// -----

// Over a frontier the term stays per edge (a vertices loop over the
// frontier's vertices is not built); an integer division (it may fault)
// and an impure op are no part of a term.
// CHECK-LABEL: graph.algorithm @frontier
// CHECK-NOT:     graph.vertices
// CHECK:         graph.edges from
// CHECK:           arith.mulf
// CHECK:         graph.edges label "div" do {
// CHECK-NEXT:    ^bb0(%[[SRC:.*]]: i32, %[[DST:.*]]: i32):
// CHECK-NEXT:      %[[K:.*]] = graph.prop.get @k[%[[SRC]]] : i64
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:      %[[Q:.*]] = graph.idiv %[[K]], %[[TWO]] : i64
walk.graph @g "g.txt" format snap
graph.algorithm @frontier on @g attributes {param_names = [], param_defaults = [], outputs = [@a]} {
  %zero = arith.constant 0.0 : f64
  %izero = arith.constant 0 : i64
  graph.property @rank : f64 = %zero
  graph.property @a : f64 = %zero
  graph.property @k : i64 = %izero
  graph.property @j : i64 = %izero
  %all = graph.frontier.all
  // expected-remark@+1 {{loop 0 of algorithm 'frontier': not hoisted: rank[src] * 3 depends only on the source, but the loop runs from a frontier (hoisting over a frontier's vertices is not built)}}
  %next = graph.edges from %all -> !graph.frontier do {
  ^bb0(%src: i32, %dst: i32):
    %r = graph.prop.get @rank[%src] : f64
    %three = arith.constant 3.0 : f64
    %x = arith.mulf %r, %three : f64
    graph.prop.reduce add @a[%dst], %x : f64
    graph.yield
  }
  // expected-remark@+1 {{loop 'div' of algorithm 'frontier': not hoisted: k[src] computes nothing (a read of the source's data: hoisting it would replace one read by another)}}
  graph.edges label "div" do {
  ^bb0(%src: i32, %dst: i32):
    %k = graph.prop.get @k[%src] : i64
    %two = arith.constant 2 : i64
    %q = graph.idiv %k, %two : i64
    graph.prop.reduce add @j[%dst], %q : i64
    graph.yield
  }
}
