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
