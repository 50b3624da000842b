// RUN: sluice-opt --graph-to-gpu --split-input-file --verify-diagnostics %s

// A graph op whose CPU code is a runtime call, in a loop: no device code.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %zero = arith.constant 0 : i64
    graph.property @x : i64 = %zero
    graph.edges label "tri" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
    ^bb0(%src: i32, %dst: i32):
      // expected-error @+1 {{not supported yet with --target=gpu: 'graph.has_edge' in loop 'tri' of algorithm 'a' (the CPU code calls the runtime for it; compile with --target=cpu)}}
      %e = graph.has_edge %dst, %src
      graph.yield
    }
  }
}

// -----

// Delta-stepping's buckets are found on the host only.
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %inf = arith.constant 1.0e300 : f64
    graph.property @d : f64 = %inf
    %f = graph.frontier.all
    // expected-error @+1 {{not supported yet with --target=gpu: frontier: buckets in loop 'relax' of algorithm 'a' (delta-stepping's buckets are found on the host only; schedule `frontier: sparse` or compile with --target=cpu)}}
    %g = graph.edges from %f label "relax" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = buckets, delta = 2.5 : f64, format = auto>} do {
    ^bb0(%u: i32, %v: i32, %w: f64):
      %du = graph.prop.get @d[%u] : f64
      %n = arith.addf %du, %w : f64
      graph.prop.reduce min @d[%v], %n : f64
      graph.yield
    }
  }
}

// -----

// vertex_of in a loop (a binary search and a fault on the CPU).
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @a on @g attributes {outputs = [], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = gpu>} {
    %zero = arith.constant 0 : i64
    graph.property @x : i64 = %zero
    graph.vertices label "hop" attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      %x = graph.prop.get @x[%v] : i64
      // expected-error @+1 {{not supported yet with --target=gpu: 'graph.vertex_of' in loop 'hop' of algorithm 'a'}}
      %u = graph.vertex_of %x
      graph.prop.set @x[%u] = %x : i64
      graph.yield
    }
  }
}
