// RUN: sluice-opt %s '--plan-middle-tier=remarks=true compress-rate=1000 compress-ratio=3' 2>&1 >/dev/null | FileCheck %s
// With remarks: one per server (sites with their SmartNIC share,
// throughput, the bounds that bind, host cores busy, the host site for
// comparison) and one for the tier. The instance of plan-middle-tier.mlir:
// both servers split their writes between host and SmartNIC.

// CHECK: remark: middle-tier server m[0]: split compression (33.67% on the smartnic), 59.41 requests/s (5.941e-06 GB/s), bound by host cores and compression engine, ratio 2.568, 4 host cores busy; host compression 39.6 requests/s (bound by host cores)
// CHECK: remark: middle-tier server m[1]: split compression (84.17% on the smartnic), 59.41 requests/s (5.941e-06 GB/s), bound by host cores and compression engine, ratio 3, 1 host cores busy; host compression 9.901 requests/s (bound by host cores)
// CHECK: remark: middle tier of 2 servers: 118.8 requests/s planned vs 49.5 CPU-only (2.4x); 100 requests/s need 2 servers vs 8 servers (more than the 2 declared) CPU-only; host codec zstd 0.001 MB/s per core, ratio 3 (given)
topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"st.ssd" kind(nvme)
  topo.device @"m[0].cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m[0].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<2000 B/s>, compress_ratio = 2.0 : f64}
  topo.device @"m[1].cpu" kind(cpu) props {cores = 1 : i64}
  topo.device @"m[1].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<5000 B/s>, compress_ratio = 4.0 : f64}
}
plan.demands @io on @dc {
  plan.demand blockio 100.0 from ["c.cpu"] to ["st.ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.001 : f64, middle_tier = ["m[*].cpu"], rate = 100.0 : f64}}
}
