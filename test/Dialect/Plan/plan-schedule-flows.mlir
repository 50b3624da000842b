// The arc LP (path-lp-devices=64: small topologies); the default path LP
// is tested in test/Plan/path-lp-threshold.sluice.
// RUN: sluice-opt %s -split-input-file '--plan-schedule-flows=path-lp-devices=64' -verify-diagnostics | FileCheck %s

// Two disjoint paths from a to d (via b at 10 B/s, via c at 30 B/s) plus a
// direct link of 5 B/s: the optimum splits 90 bytes 10/30/5 over the three
// paths (makespan 2 s); a single widest path (via c) takes 3 s. The
// parallel links c -> d (10 + 20 B/s) count as one of 30 B/s. Chunks of
// 16 bytes: 20 bytes make 2 chunks, 60 bytes 4.
// Moment's greedy bisects its window down to a relative 1e-9.
// CHECK-LABEL: plan.schedule @copy on @m makespan(2.000000e+00) method "single-commodity-parametric" attributes {chunk_bytes = 1.600000e+01 : f64, direct_makespan = 3.000000e+00 : f64, lower_bound = 2.000000e+00 : f64, moment_makespan = 2.00000000{{[0-9]*}} : f64} {
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
  plan.demand transfer 90.0 from ["a"] to ["d"]
}

// -----

// An all-to-all over an array pattern: 3 devices, 2 bytes per ordered pair
// (6 bytes each in total / 3), on a ring of 1 B/s links in both directions:
// the LP runs, and no moment baseline (every device sends and receives).
// CHECK-LABEL: plan.schedule @shuffle on @r makespan(
// CHECK-SAME:    method "multi-commodity-lp"
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
  plan.demand alltoall 6.0 from ["g[*]"] to ["g[*]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{no device of topology 'r' matches 'g[2..4]'}}
  plan.demand transfer 1.0 from ["g[0]"] to ["g[2..4]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{malformed device pattern 'g[x]'}}
  plan.demand transfer 1.0 from ["g[0]"] to ["g[x]"]
}

// -----

topo.topology @r flat {
  topo.device @"g[0]" kind(gpu)
  topo.device @"g[1]" kind(gpu)
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 B/s>}
}
// expected-error@+1 {{demand 'x' is on topology 'q', but the program was flattened around 'r' (choose it with --top=q)}}
plan.demands @x on @q {
  plan.demand transfer 1.0 from ["g[0]"] to ["g[1]"]
}

// -----

topo.topology @r {
  topo.device @g kind(gpu) count 2
}
// expected-error@+1 {{demand 'x' needs a flat topology; run topo-flatten first}}
plan.demands @x on @r {
  plan.demand transfer 1.0 from ["g[0]"] to ["g[1]"]
}

// -----

// A sampled gather job reads the access counts attached before the pass
// (attachSampledAccessCounts), never its graph: here the counts of
// test/Plan/gather-job-file.sluice, and the graph file does not exist. The
// placement is that test's (GPUs 2 items, host 5, SSDs 1).
// CHECK-LABEL: plan.schedule @feats on @box
// CHECK:         plan.placement "feats.0" "integral-mip" items(8 x {{.*}}) tiers ["gpu[*]", "host", "ssd[*]"] counts [2.000000e+00, 5.000000e+00, 1.000000e+00]
// CHECK-SAME:    {accesses = 2.600000e+02 : f64, classes = 8 : i64, proved_optimal = true}
// CHECK-NOT: plan.demands
topo.topology @box flat {
  topo.device @"gpu[0]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.device @"gpu[1]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.device @host kind(cpu) props {memory = #topo.q<64 GiB>}
  topo.device @"ssd[0]" kind(nvme) props {capacity = #topo.q<1 TB>}
  topo.device @"ssd[1]" kind(nvme) props {capacity = #topo.q<1 TB>}
  topo.device @sw kind(switch)
  topo.link host <-> "gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link host <-> "gpu[1]" {bandwidth = #topo.q<25 GB/s>}
  topo.link sw <-> "gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link sw <-> "gpu[1]" {bandwidth = #topo.q<25 GB/s>}
  topo.link sw <-> "ssd[0]" {bandwidth = #topo.q<6 GB/s>}
  topo.link sw <-> "ssd[1]" {bandwidth = #topo.q<6 GB/s>}
  topo.link "gpu[0]" <-> "gpu[1]" {bandwidth = #topo.q<100 GB/s>}
}
plan.demands @feats on @box {
  plan.demand gather 0x4200000000000000 from ["gpu[*]", "host", "ssd[*]"] to ["gpu[*]"] {job = {graph = "no-such-graph.txt", graph_format = "snap", fanout = array<i64: 2>, access_counts = dense<[[40.0, 38.0], [35.0, 36.0], [20.0, 22.0], [18.0, 15.0], [10.0, 11.0], [6.0, 4.0], [2.0, 3.0], [0.0, 0.0]]> : tensor<8x2xf64>, capacity = [0x41D0000000000000 : f64, 0x41F8000000000000 : f64, 1.000000e+12], classes = 8 : i64, item_bytes = 0x41D0000000000000 : f64, items = 8 : i64}}
}

// -----

// A sampled gather job without its counts: the pass loads no graph.
topo.topology @r flat {
  topo.device @"g[0]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.device @"g[1]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 GB/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{the sampled gather job has no 'access_counts': they are computed from its graph before plan-schedule-flows (attachSampledAccessCounts; sluicec --emit=plan does it)}}
  plan.demand gather 4.0 from ["g[*]"] to ["g[*]"] {job = {graph = "g.txt", graph_format = "snap", fanout = array<i64: 2>, item_bytes = 1.0 : f64, items = 4 : i64}}
}

// -----

// Counts for one destination, but the job has two.
topo.topology @r flat {
  topo.device @"g[0]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.device @"g[1]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 GB/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{the gather job's 'access_counts' have 1 columns but it has 2 destinations}}
  plan.demand gather 2.0 from ["g[*]"] to ["g[*]"] {job = {graph = "g.txt", graph_format = "snap", fanout = array<i64: 2>, access_counts = dense<[[1.0], [2.0]]> : tensor<2x1xf64>, item_bytes = 1.0 : f64, items = 2 : i64}}
}

// -----

// A negative count.
topo.topology @r flat {
  topo.device @"g[0]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.device @"g[1]" kind(gpu) props {memory = #topo.q<16 GiB>}
  topo.link "g[0]" <-> "g[1]" {bandwidth = #topo.q<1 GB/s>}
}
plan.demands @x on @r {
  // expected-error@+1 {{the gather job's 'access_counts' hold -1 for item 1 and destination 0; counts are finite and non-negative}}
  plan.demand gather 2.0 from ["g[*]"] to ["g[*]"] {job = {graph = "g.txt", graph_format = "snap", fanout = array<i64: 2>, access_counts = dense<[[1.0, 0.0], [-1.0, 2.0]]> : tensor<2x2xf64>, item_bytes = 1.0 : f64, items = 2 : i64}}
}
