// The arc LP (path-lp-devices=64: small topologies); the default path LP
// is tested in test/Plan/path-lp-threshold.sluice.
// RUN: sluice-opt %s -split-input-file '--plan-schedule-flows=path-lp-devices=64' -verify-diagnostics | FileCheck %s

// Two disjoint paths from a to d (via b at 10 B/s, via c at 30 B/s) plus a
// direct link of 5 B/s: the optimum splits 90 bytes 10/30/5 over the three
// paths (makespan 2 s); a single widest path (via c) takes 3 s. The
// parallel links c -> d (10 + 20 B/s) count as one of 30 B/s. Chunks of
// 16 bytes: 20 bytes make 2 chunks, 60 bytes 4.
// Moment's greedy bisects its window down to a relative 1e-9.
// CHECK-LABEL: plan.schedule @copy on @m makespan(2.000000e+00) attributes {chunk_bytes = 1.600000e+01 : f64, direct_makespan = 3.000000e+00 : f64, lower_bound = 2.000000e+00 : f64, method = "single-commodity-parametric", moment_makespan = 2.00000000{{[0-9]*}} : f64} {
// CHECK-DAG:     plan.transfer "a" -> "d" bytes(6.000000e+01) via ["a", "c", "d"] rate(3.000000e+01) window(0.000000e+00, 2.000000e+00) chunks(4)
// CHECK-DAG:     plan.transfer "a" -> "d" bytes(2.000000e+01) via ["a", "b", "d"] rate(1.000000e+01) window(0.000000e+00, 2.000000e+00) chunks(2)
// CHECK-DAG:     plan.transfer "a" -> "d" bytes(1.000000e+01) via ["a", "d"] rate(5.000000e+00) window(0.000000e+00, 2.000000e+00) chunks(1)
// CHECK-NOT: plan.demands
topo.topology @m flat {
  topo.device @a kind(cpu)
  topo.device @b kind(switch)
  topo.device @c kind(switch)
  topo.device @d kind(gpu)
  topo.link a -> b {bandwidth = #topo.q<10 B/s>}
  topo.link b -> d {bandwidth = #topo.q<10 B/s>}
  topo.link a -> c {bandwidth = #topo.q<30 B/s>}
  topo.link c -> d {bandwidth = #topo.q<10 B/s>}
  topo.link c -> d {bandwidth = #topo.q<20 B/s>}
  topo.link a -> d {bandwidth = #topo.q<5 B/s>}
}
plan.demands @copy on @m attributes {chunk_bytes = 16.0 : f64} {
  plan.demand "transfer" 90.0 from ["a"] to ["d"]
}

// -----

// An all-to-all over an array pattern: 3 devices, 2 bytes per ordered pair
// (6 bytes each in total / 3), on a ring of 1 B/s links in both directions:
// the LP runs, and no moment baseline (every device sends and receives).
// CHECK-LABEL: plan.schedule @shuffle on @r makespan(
// CHECK-SAME:    method = "multi-commodity-lp"
// CHECK-NOT:     moment_makespan
// CHECK-COUNT-6: plan.transfer
topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.device @"g[2]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
  topo.link "g[1]" <-> "g[2]" {bandwidth = #topo.q<1 B/s>}
  topo.link "g[2]" <-> "g[0]" {bandwidth = #topo.q<1 B/s>}
}
plan.demands @shuffle on @r {
  plan.demand "alltoall" 6.0 from ["g[*]"] to ["g[*]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{no device of topology 'r' matches 'g[2..4]'}}
  plan.demand "transfer" 1.0 from ["g[0]"] to ["g[2..4]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{malformed device pattern 'g[x]'}}
  plan.demand "transfer" 1.0 from ["g[0]"] to ["g[x]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
// expected-error@+1 {{demand 'x' is on topology 'q', but the program was flattened around 'r' (choose it with --top=q)}}
plan.demands @x on @q {
  plan.demand "transfer" 1.0 from ["g[0]"] to ["g[1]"]
}

// -----

topo.topology @r {
  topo.device @g kind(gpu) count 2
}
// expected-error@+1 {{demand 'x' needs a flat topology; run topo-flatten first}}
plan.demands @x on @r {
  plan.demand "transfer" 1.0 from ["g[0]"] to ["g[1]"]
}
