// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// Every verifier message of the graph ops, one case each.

// The graph of an algorithm is a walk.graph.
// expected-error@+1 {{'graph.algorithm' op graph 'nowhere' does not name a walk.graph}}
graph.algorithm @a on @nowhere attributes {param_names = [], param_defaults = [], outputs = []} {
}

// -----

// One default per parameter.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op needs as many param_defaults as param_names (1)}}
graph.algorithm @a on @g attributes {param_names = ["k"], param_defaults = [], outputs = []} {
^bb0(%k: i64):
}

// -----

// One block argument per parameter.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op needs one block argument per parameter: 1 param_names, 0 block arguments}}
graph.algorithm @a on @g attributes {param_names = ["k"], param_defaults = [unit], outputs = []} {
}

// -----

// Parameters are f64, i64 or i1.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op parameter 'v' has type 'i32'; expected f64, i64 or i1}}
graph.algorithm @a on @g attributes {param_names = ["v"], param_defaults = [unit], outputs = []} {
^bb0(%v: i32):
}

// -----

// A default fits its parameter's type.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op default of parameter 'alpha' does not fit its type 'f64'}}
graph.algorithm @a on @g attributes {param_names = ["alpha"], param_defaults = [1 : i64], outputs = []} {
^bb0(%alpha: f64):
}

// -----

// Outputs name properties of the algorithm.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op output 'rank' does not name a graph.property of the algorithm}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [@rank]} {
}

// -----

// Each output once.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op lists output 'x' twice}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [@x, @x]} {
  %z = arith.constant 0 : i64
  graph.property @x : i64 = %z
}

// -----

// Requested threads are positive.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op threads must be positive, got 0}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], threads = 0 : i64} {
}

// -----

// A label names one loop of an algorithm.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-note@+1 {{the other loop is here}}
  graph.vertices label "step" do {
  ^bb0(%v: i32):
    graph.yield
  }
  // expected-error@+1 {{'graph.edges' op label 'step' is used by another loop of algorithm 'a'}}
  graph.edges label "step" do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
}

// -----

// label_schedules holds schedules.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op label_schedules maps 'step' to 4 : i64, not a #graph.schedule}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], label_schedules = {step = 4 : i64}} {
  graph.vertices label "step" do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// A scheduled label exists.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op schedules label 'gather', which no loop of algorithm 'a' has}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], label_schedules = {gather = #graph.schedule<parallel = static>}} {
}

// -----

// The schedule of a vertices loop sets no edges-only key.
walk.graph @g "g.txt" format snap
// expected-error@+1 {{'graph.algorithm' op schedule of label 'apply' sets frontier, which applies to edges loops; 'apply' labels a vertices loop}}
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], label_schedules = {apply = #graph.schedule<frontier = dense>}} {
  graph.vertices label "apply" do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// Loops live in algorithms.
// expected-error@+1 {{'graph.vertices' op must be inside a graph.algorithm}}
graph.vertices do {
^bb0(%v: i32):
  graph.yield
}

// -----

// Loops do not nest.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  graph.vertices do {
  ^bb0(%v: i32):
    // expected-error@+1 {{'graph.edges' op cannot be nested in another loop over vertices or edges}}
    graph.edges do {
    ^bb0(%src: i32, %dst: i32):
      graph.yield
    }
    graph.yield
  }
}

// -----

// A vertices loop binds one vertex.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op body must have block arguments (i32), got (i32, i32)}}
  graph.vertices do {
  ^bb0(%v: i32, %u: i32):
    graph.yield
  }
}

// -----

// An edges loop binds src, dst and optionally the weight.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.edges' op body must have block arguments (i32, i32) or (i32, i32, f64), got (i32, i32, i64)}}
  graph.edges do {
  ^bb0(%src: i32, %dst: i32, %w: i64):
    graph.yield
  }
}

// -----

// A loop body ends in graph.yield.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op body must end in graph.yield}}
  graph.vertices do {
  ^bb0(%v: i32):
    llvm.unreachable
  }
}

// -----

// A loop body yields nothing.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  graph.vertices do {
  ^bb0(%v: i32):
    %t = arith.constant true
    // expected-error@+1 {{'graph.yield' op in a loop body must yield no values}}
    graph.yield %t : i1
  }
}

// -----

// The where region binds what the body binds.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.edges' op where region must have the block arguments of the body (i32, i32)}}
  graph.edges where {
  ^bb0(%v: i32):
    %t = arith.constant true
    graph.yield %t : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
}

// -----

// The where region ends in graph.yield.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op where region must end in graph.yield}}
  graph.vertices where {
  ^bb0(%v: i32):
    llvm.unreachable
  } do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// The where region yields the condition.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  graph.vertices where {
  ^bb0(%v: i32):
    // expected-error@+1 {{'graph.yield' op in a where region must yield one i1 (whether the iteration runs), got ()}}
    graph.yield
  } do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// Labels are not empty.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op label must not be empty}}
  graph.vertices label "" do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// A vertices loop has no direction, frontier or format.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op schedule sets direction, which applies to edges loops, not to a vertices loop}}
  graph.vertices attributes {schedule = #graph.schedule<direction = pull, parallel = static>} do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// Nor an order.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op schedule sets order, which applies to edges loops, not to a vertices loop}}
  graph.vertices attributes {schedule = #graph.schedule<parallel = static, order = degree>} do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// A loop's schedule gives parallel.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.vertices' op schedule must give parallel (graph-attach-schedule writes it on every loop)}}
  graph.vertices attributes {schedule = #graph.schedule<tile = auto>} do {
  ^bb0(%v: i32):
    graph.yield
  }
}

// -----

// An edges loop's schedule gives every key.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  // expected-error@+1 {{'graph.edges' op schedule of an edges loop must give direction, frontier and format; missing frontier}}
  graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = static, format = csr>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.yield
  }
}

// -----

// Property accesses name a property of the algorithm.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.prop.get' op 'rank' does not name a vertex property of algorithm 'a'}}
  %r = graph.prop.get @rank[%v] : f64
}

// -----

// Reads have the property's type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  graph.property @x : f64 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.prop.get' op reads 'i64' from property 'x' of type 'f64'}}
  %r = graph.prop.get @x[%v] : i64
}

// -----

// Writes have the property's type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  graph.property @x : f64 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.prop.set' op writes 'i64' to property 'x' of type 'f64'}}
  graph.prop.set @x[%v] = %id : i64
}

// -----

// Reductions have the property's type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  graph.property @x : f64 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.prop.reduce' op reduces 'i64' into property 'x' of type 'f64'}}
  graph.prop.reduce add @x[%v], %id : i64
}

// -----

// Reductions combine numbers.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %t = arith.constant true
  graph.property @seen : i1 = %t
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.prop.reduce' op 'max' reduces i64, f64 or f32 values or vertices (i32), not 'i1'}}
  graph.prop.reduce max @seen[%v], %t : i1
}

// -----

// Vertices have an order but no sum.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  graph.property @parent : i32 = %v
  // expected-error@+1 {{'graph.prop.reduce' op 'add' reduces i64, f64 or f32 values, not 'i32'}}
  graph.prop.reduce add @parent[%v], %v : i32
}

// -----

// Property accesses live in algorithms.
%id = arith.constant 0 : i32
// expected-error@+1 {{'graph.prop.set' op must be inside a graph.algorithm}}
graph.prop.set @x[%id] = %id : i32

// -----

// The graph ops live in algorithms.
// expected-error@+1 {{'graph.num_vertices' op must be inside a graph.algorithm}}
%n = graph.num_vertices : i64

// -----

// A job runs an algorithm.
// expected-error@+1 {{'graph.job' op algorithm 'pagerank' does not name a graph.algorithm}}
graph.job @j run @pagerank on "box"

// -----

// A job sets parameters of its algorithm.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = ["k"], param_defaults = [1], outputs = []} {
^bb0(%k: i64):
}
// expected-error@+1 {{'graph.job' op sets 'q', which is not a parameter of 'a'}}
graph.job @j run @a on "box" {params = {q = 1 : i64}}

// -----

// ... with values of their types.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = ["k"], param_defaults = [1], outputs = []} {
^bb0(%k: i64):
}
// expected-error@+1 {{'graph.job' op sets parameter 'k' of type 'i64' to 1.500000e+00 : f64}}
graph.job @j run @a on "box" {params = {k = 1.5 : f64}}

// -----

// A job's threads are positive.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
}
// expected-error@+1 {{'graph.job' op threads must be positive, got 0}}
graph.job @j run @a on "box" {threads = 0 : i64}

// -----

// A vertices loop's reductions give each local's result its type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  // expected-error@+1 {{'graph.vertices' op results must have the types of the reductions' initial values (f64), got (i64)}}
  %r = graph.vertices reduce(%z : f64) -> i64 attributes {reductions = [#graph<reduction add>]} do {
  ^bb0(%v: i32):
    graph.yield %z : f64
  }
}

// -----

// One reduction kind per local.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  // expected-error@+1 {{'graph.vertices' op needs one reduction kind per initial value: 1 initial values, 0 kinds}}
  %r = graph.vertices reduce(%z : f64) -> f64 do {
  ^bb0(%v: i32):
    graph.yield %z : f64
  }
}

// -----

// Locals combine by add, min or max.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 1.0 : f64
  // expected-error@+1 {{'graph.vertices' op reduces into a local with mul; a loop's reductions are add, min and max}}
  %r = graph.vertices reduce(%z : f64) -> f64 attributes {reductions = [#graph<reduction mul>]} do {
  ^bb0(%v: i32):
    graph.yield %z : f64
  }
}

// -----

// The body yields one contribution per reduction, of its type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  %r = graph.vertices reduce(%z : f64) -> f64 attributes {reductions = [#graph<reduction add>]} do {
  ^bb0(%v: i32):
    %i = arith.constant 1 : i64
    // expected-error@+1 {{'graph.yield' op in the body must yield the types of the loop's reductions (f64), got (i64)}}
    graph.yield %i : i64
  }
}

// -----

// An f32 property takes f32 values: an f64 is rounded (arith.truncf) first.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f32
  graph.property @x : f32 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  %d = arith.constant 1.0 : f64
  // expected-error@+1 {{'graph.prop.reduce' op reduces 'f64' into property 'x' of type 'f32'}}
  graph.prop.reduce add @x[%v], %d : f64
}

// -----

// Properties are f64, f32, i64, i1 or vertices: no f16.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f16
  // expected-error@+1 {{'graph.property' op operand #0 must be 64-bit float or 32-bit float or 64-bit signless integer or 1-bit signless integer or 32-bit signless integer, but got 'f16'}}
  graph.property @x : f16 = %z
}

// -----

// compare_swap compares and swaps values of one type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  graph.property @comp : i32 = %v
  // expected-error@+1 {{'graph.compare_swap' op expected value ('i32') and desired value ('i64') differ in type}}
  %ok = graph.compare_swap @comp[%v], %v, %id : i32, i64
}

// -----

// compare_swap swaps values of the property's type.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  graph.property @comp : i32 = %v
  // expected-error@+1 {{'graph.compare_swap' op swaps 'i64' in property 'comp' of type 'i32'}}
  %ok = graph.compare_swap @comp[%v], %id, %id : i64, i64
}

// -----

// compare_swap swaps integers: f64 values are no operand.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  graph.property @x : f64 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.compare_swap' op operand #1 must be 64-bit signless integer or 32-bit signless integer, but got 'f64'}}
  %ok = graph.compare_swap @x[%v], %z, %z : f64, f64
}

// -----

// compare_swap names a property of its algorithm.
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  // expected-error@+1 {{'graph.compare_swap' op 'nope' does not name a vertex property of algorithm 'a'}}
  %ok = graph.compare_swap @nope[%v], %id, %id : i64, i64
}
