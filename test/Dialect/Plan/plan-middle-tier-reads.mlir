// RUN: sluice-opt %s '--plan-middle-tier=compress-rate=1000 compress-ratio=3 decompress-rate=4000' | FileCheck %s
// RUN: sluice-opt %s '--plan-middle-tier=remarks=true compress-rate=1000 compress-ratio=3 decompress-rate=4000' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Reads and writes, half each (read_fraction 0.5): 100-byte blocks, 1 ms
// of host CPU per header, the host codec compressing 1000 B/s and
// decompressing 4000 B/s per core (ratio 3). Per request the host spends
// 0.001 + 0.5 x 100 / 1000 = 0.051 s compressing on the host and
// 0.5 x 100 / 4000 = 0.0125 s more decompressing there; ingress and egress
// carry 50 + 50 / ratio bytes each.
//  - m[0] (4 cores; engines: compression 2000 B/s at ratio 2,
//    decompression 1000 B/s): host/host 4 / 0.0635 = 62.99 /s; host
//    compression and NIC decompression min(4 / 0.051, 1000 / 50) = 20;
//    NIC compression and host decompression min(4 / 0.0135, 2000 / 50,
//    10000 / 75) = 40; both on the NIC min(40, 20) = 20: both on the host.
//  - m[1] (1 core; compression 5000 B/s at ratio 4, decompression
//    20000 B/s): host/host 15.75; host/NIC 1 / 0.051 = 19.61; NIC/host
//    1 / 0.0135 = 74.07; NIC/NIC min(1000, 5000 / 50, 20000 / 50,
//    10000 / (50 + 50 / 3)) = 100, bound by the compression engine, ratio
//    min(4, 3) = 3, 0.1 cores busy: both on the NIC.
// Planned 162.99 /s (bytes 62.99 x 66.67 + 100 x 66.67 = 10866.1 each way),
// CPU-only 78.74 /s; 100 /s need m[1] alone, CPU-only
// 2 + ceil(21.26 / 15.75) = 4 servers.
// CHECK-LABEL: plan.middle_tier "io.0" block_bytes(1.000000e+02) rate(1.000000e+02)
// CHECK-SAME: cpu_decompress_rate = 4.000000e+03 : f64
// CHECK-SAME: cpu_only = {bytes_in = 5249.34{{[0-9]*}} : f64, bytes_out = 5249.34{{[0-9]*}} : f64, extrapolated = true, requests = 78.74{{[0-9]*}} : f64, servers_needed = 4 : i64}
// CHECK-SAME: cpu_source = "given"
// CHECK-SAME: planned = {bytes_in = 10866.1{{[0-9]*}} : f64, bytes_out = 10866.1{{[0-9]*}} : f64, extrapolated = false, requests = 162.99{{[0-9]*}} : f64, servers_needed = 1 : i64}
// CHECK-SAME: read_fraction = 5.000000e-01 : f64
// CHECK-SAME: {bottleneck = "host cores", cores_busy = 4.000000e+00 : f64, decompress_site = "host", host_requests = 62.99{{[0-9]*}} : f64, name = "m[0]", ratio = 3.000000e+00 : f64, requests = 62.99{{[0-9]*}} : f64, site = "host"}
// CHECK-SAME: {bottleneck = "compression engine", cores_busy = 1.000000e-01 : f64, decompress_site = "smartnic", host_requests = 15.74{{[0-9]*}} : f64, name = "m[1]", ratio = 3.000000e+00 : f64, requests = 1.000000e+02 : f64, site = "smartnic"}
// CHECK-SAME: speedup = 2.07{{[0-9e+.]*}} : f64

// REMARK: remark: middle-tier server m[0]: host compression, host decompression, 62.99 requests/s (6.299e-06 GB/s), bound by host cores, ratio 3, 4 host cores busy; host only 62.99 requests/s (bound by host cores)
// REMARK: remark: middle-tier server m[1]: smartnic compression, smartnic decompression, 100 requests/s (1e-05 GB/s), bound by compression engine, ratio 3, 0.1 host cores busy; host only 15.75 requests/s (bound by host cores)
// REMARK: remark: middle tier of 2 servers: 163 requests/s planned vs 78.74 CPU-only (2.07x); 100 requests/s need 1 servers vs 4 servers (more than the 2 declared) CPU-only; host codec 0.001 MB/s per core, decompression 0.004 MB/s per core, ratio 3 (given)
topo.topology @dc flat {
  topo.device @"c.cpu" kind(cpu) props {cores = 8 : i64}
  topo.device @"st.ssd" kind(nvme)
  topo.device @"m[0].cpu" kind(cpu) props {cores = 4 : i64}
  topo.device @"m[0].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<2000 B/s>, compress_ratio = 2.0 : f64, decompress = #topo.q<1000 B/s>}
  topo.device @"m[1].cpu" kind(cpu) props {cores = 1 : i64}
  topo.device @"m[1].s" kind(smartnic) props {bandwidth = #topo.q<10000 B/s>, compress = #topo.q<5000 B/s>, compress_ratio = 4.0 : f64, decompress = #topo.q<20000 B/s>}
}
plan.demands @io on @dc {
  plan.demand blockio 100.0 from ["c.cpu"] to ["st.ssd"] {job = {compressibility = 0.5 : f64, header_cost = 0.001 : f64, middle_tier = ["m[*].cpu"], rate = 100.0 : f64, read_fraction = 0.5 : f64}}
}
