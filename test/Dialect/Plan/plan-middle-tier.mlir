// RUN: sluice-opt %s -split-input-file '--plan-middle-tier=compress-rate=1000 compress-ratio=3' -verify-diagnostics | FileCheck %s
// RUN: sluice-opt %s -split-input-file --plan-middle-tier -verify-diagnostics | FileCheck %s --check-prefix=FALLBACK

// Two middle-tier servers, 100-byte blocks, 1 ms of host CPU per header,
// the host codec at 1000 B/s per core (ratio 3, given as options); each
// server splits its writes, a share x compressed on its SmartNIC:
//  - m[0] (4 cores, a 2000 B/s engine): host alone 4 / (0.001 + 0.1) =
//    39.60 /s, SmartNIC alone min(4 / 0.001, 2000 / 100, 10000 / 100) =
//    20 /s; split: the host, (0.001 + 0.1 (1 - x)) / 4 s per request, meets
//    the engine, 100 x / 2000, at x = 0.101 / 0.3 = 0.3367: 59.41 /s (the
//    line, 0.01 s, does not bind), ratio 1 / (x / 2 + (1 - x) / 3) = 2.568;
//  - m[1] (1 core, a 5000 B/s engine of ratio 4): host alone 9.901 /s,
//    SmartNIC alone min(1000, 50, 100) = 50 /s; split at
//    0.101 - 0.1 x = 100 x / 5000, x = 0.8417: 59.41 /s at ratio
//    min(4, 3) = 3.
// 100 requests/s: planned 118.8 /s, so 2 servers; CPU-only 49.50 /s, so
// 2 + ceil(50.50 / 9.901) = 8. The blockio demand is gone, and with it its
// plan.demands.
// CHECK-LABEL: plan.middle_tier "io.0" block_bytes(1.000000e+02) rate(1.000000e+02)
// CHECK-SAME: cpu_only = {bytes_in = 4950.49{{[0-9]*}} : f64, bytes_out = 1650.16{{[0-9]*}} : f64, extrapolated = true, requests = 49.50{{[0-9]*}} : f64, servers_needed = 8 : i64}
// CHECK-SAME: cpu_rate = 1.000000e+03 : f64, cpu_ratio = 3.000000e+00 : f64, cpu_source = "given"
// CHECK-SAME: planned = {bytes_in = 11881.18{{[0-9]*}} : f64, bytes_out = 4293.72{{[0-9]*}} : f64, extrapolated = false, requests = 118.81{{[0-9]*}} : f64, servers_needed = 2 : i64}
// CHECK-SAME: {bottleneck = "host cores and compression engine", compress_nic_share = 0.3366{{[0-9]*}} : f64, cores_busy = {{4.0*e\+00|3.99999[0-9]*}} : f64, decompress_nic_share = 0.000000e+00 : f64, decompress_site = "host", host_requests = 39.60{{[0-9]*}} : f64, name = "m[0]", ratio = 2.567{{[0-9]*}} : f64, requests = 59.40{{[0-9]*}} : f64, site = "split"}
// CHECK-SAME: {bottleneck = "host cores and compression engine", compress_nic_share = 0.8416{{[0-9]*}} : f64, cores_busy = 1.000000e+00 : f64, decompress_nic_share = 0.000000e+00 : f64, decompress_site = "host", host_requests = 9.90{{[0-9]*}} : f64, name = "m[1]", ratio = 3.000000e+00 : f64, requests = 59.40{{[0-9]*}} : f64, site = "split"}
// CHECK-SAME: speedup = 2.{{[34][0-9e+.]*}} : f64
// CHECK-NOT: plan.demands
// Without a measured or given rate: the fallback (zstd: 250 MB/s per core
// compressing, 3 GB/s decompressing, the ideal ratio 1 / (1 - 0.5)).
// FALLBACK-LABEL: plan.middle_tier "io.0"
// FALLBACK-SAME: codec = #plan<codec zstd>
// FALLBACK-SAME: cpu_decompress_rate = 3.000000e+09 : f64
// FALLBACK-SAME: cpu_rate = 2.500000e+08 : f64, cpu_ratio = 2.000000e+00 : f64, cpu_source = "fallback"
topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"st.ssd" kind(nvme)
  topo.device @"m[0].cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m[0].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<2000 B/s>, compress_ratio = 2.0 : f64}
  topo.device @"m[1].cpu" kind(cpu) props {cores = 1 : i64}
  topo.device @"m[1].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<5000 B/s>, compress_ratio = 4.0 : f64}
  topo.link "c.cpu" <-> "m[0].s" {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @io on @dc {
  plan.demand blockio 100.0 from ["c.cpu"] to ["st.ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.001 : f64, middle_tier = ["m[*].cpu"], rate = 100.0 : f64}}
}

// -----

// A blockio item beside a transfer: the transfer stays for
// plan-schedule-flows; a measured rate on the job wins over the options.
// CHECK-LABEL: plan.demands @mixed on @dc
// CHECK-NEXT: plan.demand transfer
// CHECK-NOT: blockio
// CHECK: plan.middle_tier "mixed.1"
// CHECK-SAME: cpu_rate = 5.000000e+02 : f64, cpu_ratio = 1.500000e+00 : f64, cpu_source = "measured"
topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.nic" kind(nic) props {bandwidth = #topo.q<10000 B/s>}
  topo.link "c.cpu" <-> "m.nic" {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @mixed on @dc {
  plan.demand transfer 10.0 from ["c.cpu"] to ["m.cpu"]
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {compressibility = 0.5 : f64, cpu_rate = 500.0 : f64, cpu_ratio = 1.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.nic" kind(nic) props {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{the middle tier names 'm.nic', a nic; expected the host cpu of each middle-tier server (SERVER[*].cpu)}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.nic"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu)
  topo.device @"n.cpu" kind(cpu) props {cores = 4 : i64}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{middle-tier cpu 'm.cpu' needs 'cores'}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"n.cpu" kind(cpu) props {cores = 4 : i64}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{middle-tier server 'n' has no nic or smartnic with a 'bandwidth'}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["n.cpu"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["n.cpu"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<2000 B/s>}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{smartnic 'm.s' has 'compress' but no 'compress_ratio'}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.nic" kind(nic) props {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{no device matches the middle tier 'mid[*].cpu'}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["mid[*].cpu"], rate = 1.0 : f64}}
}

// -----

topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.nic" kind(nic) props {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @bad on @dc {
  // expected-error @+1 {{no device matches 'storage[*].ssd'}}
  plan.demand blockio 100.0 from ["c.cpu"] to ["storage[*].ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}

// -----

// With lz4 as the host codec: its own fallback rates (400 MB/s per core
// compressing, 3 GB/s decompressing) unless given; given rates win.
// CHECK-LABEL: plan.middle_tier "fast.0"
// CHECK-SAME: codec = #plan<codec lz4>
// CHECK-SAME: cpu_rate = 1.000000e+03 : f64
// FALLBACK-LABEL: plan.middle_tier "fast.0"
// FALLBACK-SAME: codec = #plan<codec lz4>
// FALLBACK-SAME: cpu_decompress_rate = 3.000000e+09 : f64
// FALLBACK-SAME: cpu_rate = 4.000000e+08 : f64, cpu_ratio = 2.000000e+00 : f64, cpu_source = "fallback"
topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"m.cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m.nic" kind(nic) props {bandwidth = #topo.q<10000 B/s>}
}
plan.demands @fast on @dc {
  plan.demand blockio 100.0 from ["c.cpu"] to ["m.cpu"] {job = {codec = #plan<codec lz4>, compressibility = 0.5 : f64, header_cost = 0.0 : f64, middle_tier = ["m.cpu"], rate = 1.0 : f64}}
}
