// RUN: sluice-opt %s -split-input-file --graph-attach-schedule | FileCheck %s
// RUN: sluice-opt %s -split-input-file --graph-attach-schedule=remarks=1 -verify-diagnostics -o /dev/null

// Without any schedule every loop gets the defaults (push, static, no tile,
// frontier and format auto) and the algorithm runs on the CPU with the
// runtime's threads.
// CHECK-LABEL: graph.algorithm @plain
// CHECK-SAME:    schedule = #graph.algorithm_schedule<target = cpu>
// CHECK:         graph.edges from %{{.*}} -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
// CHECK:         graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'plain' runs on cpu (default) with the runtime's default threads (default)}}
graph.algorithm @plain on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %all = graph.frontier.all
  // expected-remark@+1 {{edges loop (unlabelled) gets direction = push (default), parallel = static (default), tile = none (default), frontier = auto (default), format = auto (default)}}
  %next = graph.edges from %all -> !graph.frontier do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  // expected-remark@+1 {{vertices loop (unlabelled) gets parallel = static (default), tile = none (default)}}
  graph.vertices do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// A label's entry overrides the algorithm's defaults key by key; unlabelled
// loops (and labelled ones without an entry) get the algorithm's defaults;
// a vertices loop takes no edges-only key from them; loops nested in scf
// are scheduled too.
// CHECK-LABEL: graph.algorithm @pagerank
// CHECK-SAME:    schedule = #graph.algorithm_schedule<target = gpu, threads = 16>
// CHECK:         scf.for
// CHECK:           graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, frontier = sparse, format = csr>} do {
// CHECK:           graph.vertices label "apply" attributes {schedule = #graph.schedule<parallel = serial, tile = 512>} do {
// CHECK:           graph.edges label "other" attributes {schedule = #graph.schedule<direction = push, parallel = serial, tile = 512, frontier = sparse, format = auto>} do {
// CHECK:           graph.vertices attributes {schedule = #graph.schedule<parallel = serial, tile = 512>} do {
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'pagerank' runs on gpu (algorithm schedule) with 16 threads (algorithm schedule)}}
graph.algorithm @pagerank on @g attributes {param_names = ["iterations"], param_defaults = [20], outputs = [], target = #graph<target gpu>, threads = 16 : i64, loop_defaults = #graph.schedule<parallel = serial, tile = 512, frontier = sparse>, label_schedules = {gather = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, format = csr>}} {
^bb0(%iterations: i64):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %iterations : i64 to index
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark@+1 {{edges loop @gather gets direction = pull (@gather), parallel = dynamic(64) (@gather), tile = auto (@gather), frontier = sparse (algorithm schedule), format = csr (@gather)}}
    graph.edges label "gather" do {
    ^bb0(%src: i32, %dst: i32):
      graph.yield
    }
    // expected-remark@+1 {{vertices loop @apply gets parallel = serial (algorithm schedule), tile = 512 (algorithm schedule)}}
    graph.vertices label "apply" do {
    ^bb0(%v: i32):
      graph.yield
    }
    // expected-remark@+1 {{edges loop @other gets direction = push (default), parallel = serial (algorithm schedule), tile = 512 (algorithm schedule), frontier = sparse (algorithm schedule), format = auto (default)}}
    graph.edges label "other" do {
    ^bb0(%src: i32, %dst: i32):
      graph.yield
    }
    // expected-remark@+1 {{vertices loop (unlabelled) gets parallel = serial (algorithm schedule), tile = 512 (algorithm schedule)}}
    graph.vertices do {
    ^bb0(%v: i32):
      graph.yield
    }
  }
}

// -----

// `parallel` and its chunk go together: a label that says `static` drops
// the defaults' chunk. A schedule already on a loop is replaced.
// CHECK-LABEL: graph.algorithm @chunks
// CHECK:         graph.vertices label "a" attributes {schedule = #graph.schedule<parallel = static>} do {
// CHECK:         graph.vertices label "b" attributes {schedule = #graph.schedule<parallel = dynamic, chunk = 8>} do {
// CHECK-NOT:     parallel = serial
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'chunks' runs on cpu (default) with 4 threads (algorithm schedule)}}
graph.algorithm @chunks on @g attributes {param_names = [], param_defaults = [], outputs = [], threads = 4 : i64, loop_defaults = #graph.schedule<parallel = dynamic, chunk = 8>, label_schedules = {a = #graph.schedule<parallel = static>}} {
  // expected-remark@+1 {{vertices loop @a gets parallel = static (@a), tile = none (default)}}
  graph.vertices label "a" do {
  ^bb0(%v: i32):
    graph.yield
  }
  // expected-remark@+1 {{vertices loop @b gets parallel = dynamic(8) (algorithm schedule), tile = none (default)}}
  graph.vertices label "b" attributes {schedule = #graph.schedule<parallel = serial>} do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// `frontier: buckets` carries its delta onto the loop (delta-stepping).
// CHECK-LABEL: graph.algorithm @delta
// CHECK:         graph.edges from %{{.*}} label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 2.500000e+00 : f64, format = auto>} do {
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'delta' runs on cpu (default) with the runtime's default threads (default)}}
graph.algorithm @delta on @g attributes {param_names = [], param_defaults = [], outputs = [], label_schedules = {relax = #graph.schedule<frontier = buckets, delta = 2.5 : f64>}} {
  %big = arith.constant 1.0e300 : f64
  graph.property @d : f64 = %big
  %all = graph.frontier.all
  // expected-remark@+1 {{edges loop @relax gets direction = push (default), parallel = static (default), tile = none (default), frontier = buckets(2.5) (@relax), format = auto (default)}}
  %f = graph.edges from %all label "relax" -> !graph.frontier do {
  ^bb0(%u: i32, %v: i32, %w: f64):
    %n = arith.addf %w, %w : f64
    graph.prop.reduce min @d[%v], %n : f64
    graph.yield
  }
}

// -----

// `order` from the algorithm's defaults and a label's entry, on edges loops
// only (a vertices loop takes none; an edges loop without one gives none:
// the natural order).
// CHECK-LABEL: graph.algorithm @tc
// CHECK:         graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = auto>} do {
// CHECK:         graph.edges label "rest" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = degree>} do {
// CHECK:         graph.vertices label "clear" attributes {schedule = #graph.schedule<parallel = static>} do {
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'tc' runs on cpu (default) with the runtime's default threads (default)}}
graph.algorithm @tc on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<order = degree>, label_schedules = {count = #graph.schedule<order = auto>}} {
  // expected-remark@+1 {{edges loop @count gets direction = push (default), parallel = static (default), tile = none (default), frontier = auto (default), format = auto (default), order = auto (@count)}}
  graph.edges label "count" do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  // expected-remark@+1 {{edges loop @rest gets direction = push (default), parallel = static (default), tile = none (default), frontier = auto (default), format = auto (default), order = degree (algorithm schedule)}}
  graph.edges label "rest" do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
  // expected-remark@+1 {{vertices loop @clear gets parallel = static (default), tile = none (default)}}
  graph.vertices label "clear" do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// `direction: hybrid(alpha, beta)` carries Beamer's thresholds onto the
// loop with its direction; a label's bare `hybrid` keeps none (the
// defaults), and a vertices loop takes neither.
// CHECK-LABEL: graph.algorithm @bfs
// CHECK:         graph.edges from %{{.*}} label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = static, frontier = auto, format = auto, alpha = 2.000000e+00 : f64, beta = 3.000000e+01 : f64>} do {
// CHECK:         graph.edges from %{{.*}} label "again" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = static, frontier = auto, format = auto>} do {
// CHECK:         graph.vertices label "clear" attributes {schedule = #graph.schedule<parallel = static>} do {
walk.graph @g "g.txt" format snap
// expected-remark@+1 {{algorithm 'bfs' runs on cpu (default) with the runtime's default threads (default)}}
graph.algorithm @bfs on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = hybrid, alpha = 2.0 : f64, beta = 30.0 : f64>, label_schedules = {again = #graph.schedule<direction = hybrid>}} {
  %all = graph.frontier.all
  // expected-remark@+1 {{edges loop @expand gets direction = hybrid(2, 30) (algorithm schedule), parallel = static (default), tile = none (default), frontier = auto (default), format = auto (default)}}
  %f = graph.edges from %all label "expand" -> !graph.frontier do {
  ^bb0(%u: i32, %v: i32):
    graph.yield
  }
  // expected-remark@+1 {{edges loop @again gets direction = hybrid (@again), parallel = static (default), tile = none (default), frontier = auto (default), format = auto (default)}}
  %h = graph.edges from %f label "again" -> !graph.frontier do {
  ^bb0(%u: i32, %v: i32):
    graph.yield
  }
  // expected-remark@+1 {{vertices loop @clear gets parallel = static (default), tile = none (default)}}
  graph.vertices label "clear" do {
  ^bb0(%v: i32):
    graph.yield
  }
}
