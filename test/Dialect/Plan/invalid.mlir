// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{holds no plan.demand}}
plan.demands @d on @t {
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{unknown demand kind 'broadcast'; expected one of 'transfer' 'gather' 'alltoall' 'allgather' 'reducescatter' 'allreduce'}}
  plan.demand "broadcast" 1.0e9 from ["gpu[0]"] to ["gpu[*]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{bytes must be finite and positive, got 0}}
  plan.demand "transfer" 0.0 from ["gpu[0]"] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{needs at least one source and one destination}}
  plan.demand "transfer" 1.0 from [] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{has an empty device pattern}}
  plan.demand "transfer" 1.0 from [""] to ["gpu[1]"]
}

// -----

plan.demands @d on @t {
  // expected-error@+1 {{'allreduce' runs over one group: sources and destinations must be equal}}
  plan.demand "allreduce" 1.0 from ["gpu[*]"] to ["gpu[0]"]
}

// -----

// expected-error@+1 {{chunk_bytes must be finite and non-negative, got -1}}
plan.demands @d on @t attributes {chunk_bytes = -1.0 : f64} {
  plan.demand "transfer" 1.0 from ["gpu[0]"] to ["gpu[1]"]
}

// -----

// expected-error@+1 {{makespan must be finite and non-negative, got -1}}
plan.schedule @s on @t makespan(-1.0) {
}

// -----

// expected-error@+1 {{lower_bound 3 must lie in [0, makespan = 2]}}
plan.schedule @s on @t makespan(2.0) attributes {lower_bound = 3.0 : f64} {
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{ends at 2 s, after the schedule's makespan 1 s}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{rate must be finite and positive, got 0}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(0.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{window [1.5, 1] must satisfy 0 <= start <= end (finite)}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(1.5, 1.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{moves 1 bytes at rate 1 during [1, 2], not its 2 bytes}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(1.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{needs at least one chunk, got 0}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(0)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{has 2000000 chunks; at most 1000000 are allowed}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(2000000)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path must start at 'a' and end at 'b'}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "c"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path must name at least the source and the destination}}
  plan.transfer "a" -> "a" bytes(2.0) via ["a"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{path visits 'c' twice}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "c", "d", "c", "b"] rate(1.0) window(0.0, 2.0) chunks(1)
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{demand index must be non-negative}}
  plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1) {demand = -1 : i64}
}

// -----

plan.schedule @s on @t makespan(2.0) {
  // expected-error@+1 {{ends at 3 s, after the schedule's makespan 2 s}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 3.0)
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{window [3, 1] must satisfy 0 <= start <= end (finite)}}
  plan.compute "k" on "gpu" stream "s" window(3.0, 1.0)
}

// -----

// expected-error@+1 {{'plan.transfer' op expects parent op 'plan.schedule'}}
plan.transfer "a" -> "b" bytes(2.0) via ["a", "b"] rate(1.0) window(0.0, 2.0) chunks(1)

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{unknown collective kind 'broadcast'; expected 'all-reduce', 'all-gather' or 'reduce-scatter'}}
  plan.collective "c" "broadcast" "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{group must hold at least two devices}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{times has no entry for its algorithm 'in-network'}}
  plan.collective "c" "all-reduce" "in-network" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{window [0, 2] does not last the time of 'ring' (1 s)}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(0.0, 2.0) times {ring = 1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{time of 'tree' must be a finite non-negative float}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64, tree = -1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(4.0) {
  // expected-error@+1 {{ends at 5 s, after the schedule's makespan 4 s}}
  plan.collective "c" "all-reduce" "ring" bytes(1.0) over ["a", "b"] window(4.0, 5.0) times {ring = 1.0 : f64}
}

// -----

// expected-error@+1 {{tflops must be finite and non-negative, got -1}}
plan.schedule @s on @t makespan(1.0) attributes {tflops = -1.0 : f64} {
}

// -----

// expected-error@+1 {{peak_bytes entry 'gpu' must be a finite non-negative float}}
plan.schedule @s on @t makespan(1.0) attributes {peak_bytes = {gpu = -2.0 : f64}} {
}

// -----

// expected-error@+1 {{link_bytes entry 'h2d' must be a finite non-negative float}}
plan.schedule @s on @t makespan(1.0) attributes {link_bytes = {h2d = 5 : i64}} {
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{flops must be finite and non-negative, got -5}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 1.0) {flops = -5.0 : f64}
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{bytes must be finite and non-negative, got -1}}
  plan.compute "k" on "gpu" stream "s" window(0.0, 1.0) {bytes = -1.0 : f64}
}

// -----

plan.schedule @s on @t makespan(1.0) {
  // expected-error@+1 {{attribute 'tensor' failed to satisfy constraint: string attribute}}
  plan.transfer "a" -> "b" bytes(1.0) via ["a", "b"] rate(1.0) window(0.0, 1.0) chunks(1) {tensor = 3 : i64}
}
