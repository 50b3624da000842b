// RUN: not sluice-opt %s -split-input-file 2>&1 | FileCheck %s
// The words and numbers of #graph.schedule, #graph.algorithm_schedule and
// the reduction kinds: a word that is not one of the language's (the lists
// GraphSchema.h gives Sema) or a number out of range is an error at it.

// CHECK: error: expected one of: push, pull, hybrid; got 'sideways'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = sideways>} {
}

// -----

// CHECK: error: expected one of: serial, static, dynamic; got 'sometimes'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<parallel = sometimes>} {
}

// -----

// CHECK: error: expected one of: sparse, dense, bitmap, auto, buckets; got 'list'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<frontier = list>} {
}

// -----

// CHECK: error: expected one of: csr, coo, auto; got 'csc'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<format = csc>} {
}

// -----

// CHECK: error: expected one of: natural, degree, auto; got 'sorted'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<order = sorted>} {
}

// -----

// CHECK: error: expected 'auto' or a tile size
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<tile = large>} {
}

// -----

// `dynamic` comes with its chunk ...
// CHECK: error: parallel = dynamic needs a chunk (the vertices handed out at a time)
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<parallel = dynamic>} {
}

// -----

// ... and a chunk with `dynamic` only.
// CHECK: error: chunk 64 needs parallel = dynamic, got static
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<parallel = static, chunk = 64>} {
}

// -----

// CHECK: error: chunk 8 needs parallel = dynamic, got no parallel
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<chunk = 8>} {
}

// -----

// CHECK: error: chunk must be positive, got 0
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<parallel = dynamic, chunk = 0>} {
}

// -----

// CHECK: error: tile must be positive or auto, got -4
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<tile = -4>} {
}

// -----

// CHECK: error: threads must be positive, or 0 for the runtime's default, got -1
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], schedule = #graph.algorithm_schedule<target = cpu, threads = -1>} {
}

// -----

// CHECK: error: struct is missing required parameter: target
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], schedule = #graph.algorithm_schedule<threads = 4>} {
}

// -----

// CHECK: error: expected ::sluice::graph::Target to be one of: cpu, gpu
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], target = #graph<target tpu>} {
}

// -----

// CHECK: error: custom op 'graph.prop.reduce' expected a reduction (add, sub, mul, min, max), got 'avg'
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %z = arith.constant 0.0 : f64
  graph.property @x : f64 = %z
  %id = arith.constant 0 : i64
  %v = graph.vertex_of %id
  graph.prop.reduce avg @x[%v], %z : f64
}

// -----

// `buckets` comes with its delta ...
// CHECK: error: frontier = buckets needs a delta (the width of a bucket)
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<frontier = buckets>} {
}

// -----

// ... a delta with `buckets` only ...
// CHECK: error: delta needs frontier = buckets, got sparse
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<frontier = sparse, delta = 1.0 : f64>} {
}

// -----

// ... and positive.
// CHECK: error: delta must be positive, got 0
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<frontier = buckets, delta = 0.0 : f64>} {
}

// -----

// CHECK: error: delta needs frontier = buckets, got no frontier
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<delta = 1.0 : f64>} {
}

// -----

// CHECK: error: alpha and beta go together (Beamer's rule of direction = hybrid), got only alpha
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = hybrid, alpha = 2.0 : f64>} {
}

// -----

// CHECK: error: alpha and beta need direction = hybrid, got push
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = push, alpha = 2.0 : f64, beta = 3.0 : f64>} {
}

// -----

// CHECK: error: beta must be positive, got -1
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<direction = hybrid, alpha = 2.0 : f64, beta = -1.0 : f64>} {
}

// -----

// CHECK: error: alpha and beta need direction = hybrid, got no direction
walk.graph @g "g.txt" format snap
graph.algorithm @a on @g attributes {param_names = [], param_defaults = [], outputs = [], loop_defaults = #graph.schedule<alpha = 2.0 : f64, beta = 3.0 : f64>} {
}
