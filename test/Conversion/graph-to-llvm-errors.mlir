// RUN: sluice-opt --graph-to-llvm --split-input-file --verify-diagnostics %s

// A built-in without a CPU lowering yet.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    // expected-error @+1 {{not supported yet: 'graph.random' in the CPU lowering of algorithms}}
    %r = graph.random : f64
  }
}

// -----

// A product into the destination of a parallel push loop: no atomic.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %one = arith.constant 1.0 : f64
    graph.property @x : f64 = %one
    graph.edges label "scale" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      %two = arith.constant 2.0 : f64
      // expected-error @+1 {{not supported yet: a parallel '*=' into 'x' at a vertex the iteration does not own (push); schedule the loop `parallel: serial` or as pull}}
      graph.prop.reduce mul @x[%dst], %two : f64
      graph.yield
    }
  }
}

// -----

// A loop without a schedule: graph-attach-schedule has not run.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %one = arith.constant 1.0 : f64
    graph.property @x : f64 = %one
    // expected-error @+1 {{loop 'touch' of algorithm 'a' has no schedule (graph-attach-schedule has not run)}}
    graph.vertices label "touch" do {
    ^bb0(%v: i32):
      graph.prop.set @x[%v] = %one : f64
      graph.yield
    }
  }
}

// -----

// frontier: buckets orders a frontier: the loop must read one.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %big = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %big
    // expected-error @+1 {{loop 'relax' of algorithm 'a': frontier: buckets needs a loop over the edges of a frontier (`edges(...) from F`)}}
    %f = graph.edges label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 1.0 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      graph.prop.reduce min @d[%v], %w : f64
      graph.yield
    }
  }
}

// -----

// ... and have a result for the vertices of the other buckets.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %big = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %big
    %all = graph.frontier.all
    // expected-error @+1 {{loop 'relax' of algorithm 'a': frontier: buckets needs the loop's result frontier (`F = edges(...)`): the vertices of the other buckets pass on to it}}
    graph.edges from %all label "relax" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 1.0 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      graph.prop.reduce min @d[%v], %w : f64
      graph.yield
    }
  }
}

// -----

// ... run push ...
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %big = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %big
    %all = graph.frontier.all
    // expected-error @+1 {{loop 'relax' of algorithm 'a': frontier: buckets runs push, got direction pull}}
    %f = graph.edges from %all label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = buckets, delta = 1.0 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      graph.prop.reduce min @d[%v], %w : f64
      graph.yield
    }
  }
}

// -----

// ... and reduce into one property with min=, which orders the frontier.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %big = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %big
    %all = graph.frontier.all
    // expected-error @+1 {{loop 'relax' of algorithm 'a': frontier: buckets orders the frontier by the property the loop reduces into with min=, and the loop has no min=}}
    %f = graph.edges from %all label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 1.0 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      graph.prop.reduce add @d[%v], %w : f64
      graph.yield
    }
  }
}

// -----

module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %big = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %big
    graph.property @e : f64 = %big
    %all = graph.frontier.all
    // expected-error @+1 {{loop 'relax' of algorithm 'a': frontier: buckets orders the frontier by the one property the loop reduces into with min=, got two: 'd' and 'e'}}
    %f = graph.edges from %all label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 1.0 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      graph.prop.reduce min @d[%v], %w : f64
      graph.prop.reduce min @e[%v], %w : f64
      graph.yield
    }
  }
}

// -----

// `order: degree` runs push over every vertex: not pull.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @t : i64 = %c0
    // expected-error @+1 {{loop 'count' of algorithm 'a': order: degree runs push, got direction pull}}
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = auto, order = degree>} do {
    ^bb0(%src: i32, %dst: i32):
      %0 = graph.common_neighbors below %src, %dst : i64
      graph.prop.reduce add @t[%dst], %0 : i64
      graph.yield
    }
  }
}

// -----

// `order: auto` runs over every vertex: not over a frontier.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @t : i64 = %c0
    %all = graph.frontier.all
    // expected-error @+1 {{loop 'count' of algorithm 'a': order: auto runs over every vertex, not over a frontier}}
    %next = graph.edges from %all label "count" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      graph.prop.reduce add @t[%dst], %c0 : i64
      graph.yield
    }
  }
}

// -----

// A bad schedule is still a located error with `tile`: a parallel `*=`
// at the destination of a push (which binning does not take either; graph-to-llvm-bins.mlir).
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @mul on @g attributes {outputs = [@a], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %cst = arith.constant 1.0 : f64
    graph.property @a : f64 = %cst
    graph.edges label "mul" attributes {schedule = #graph.schedule<direction = push, parallel = static, tile = 64, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %x = graph.prop.get @a[%src] : f64
      // expected-error @+1 {{not supported yet: a parallel '*=' into 'a' at a vertex the iteration does not own (push); schedule the loop `parallel: serial` or as pull}}
      graph.prop.reduce mul @a[%dst], %x : f64
      graph.yield
    }
  }
}
