// RUN: sluice-opt %s '--plan-middle-tier=compress-rate=1000 compress-ratio=3 decompress-rate=4000' | FileCheck %s
// RUN: sluice-opt %s '--plan-middle-tier=remarks=true compress-rate=1000 compress-ratio=3 decompress-rate=4000' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Reads and writes, half each (read_fraction 0.5): 100-byte blocks, 1 ms
// of host CPU per header, the host codec compressing 1000 B/s and
// decompressing 4000 B/s per core (ratio 3). With shares x of the writes
// compressed and y of the reads decompressed on the SmartNIC, a request
// costs the host 0.001 + 0.05 (1 - x) + 0.0125 (1 - y) s, the compression
// engine 50 x / E, the decoder 50 y / D; the line (at most 75 bytes each
// way of 10000 B/s) does not bind.
//  - m[0] (4 cores; E = 2000 B/s at ratio 2, D = 1000 B/s): both sites
//    alone 4 / 0.0635 = 62.99 /s on the host (the best pure assignment);
//    the split balances all three, 0.025 x = 0.05 y = z and
//    (0.0635 - 2.25 z) / 4 = z: z = 0.01016, 98.43 /s at x = 0.4064,
//    y = 0.2032, ratio 1 / (x / 2 + (1 - x) / 3) = 2.493.
//  - m[1] (1 core; E = 5000 B/s at ratio 4, D = 20000 B/s): every read on
//    the NIC (0.0025 s of decoder), and 0.051 - 0.05 x = 0.01 x at
//    x = 0.85: 117.6 /s at ratio min(4, 3) = 3 (both on the NIC alone:
//    100 /s, bound by the engine).
// Planned 216.1 /s (bytes 98.43 x (50 + 50 / 2.493) + 117.6 x 66.67 =
// 14738 each way), CPU-only 78.74 /s (2.744x); 100 /s need m[1] alone,
// CPU-only 2 + ceil(21.26 / 15.75) = 4 servers.
// CHECK-LABEL: plan.middle_tier "io.0" block_bytes(1.000000e+02) rate(1.000000e+02)
// CHECK-SAME: cpu_decompress_rate = 4.000000e+03 : f64
// CHECK-SAME: cpu_only = {bytes_in = 5249.34{{[0-9]*}} : f64, bytes_out = 5249.34{{[0-9]*}} : f64, extrapolated = true, requests = 78.74{{[0-9]*}} : f64, servers_needed = 4 : i64}
// CHECK-SAME: cpu_source = "given"
// CHECK-SAME: planned = {bytes_in = 14738.1{{[0-9]*}} : f64, bytes_out = 14738.1{{[0-9]*}} : f64, extrapolated = false, requests = 216.07{{[0-9]*}} : f64, servers_needed = 1 : i64}
// CHECK-SAME: read_fraction = 5.000000e-01 : f64
// CHECK-SAME: {bottleneck = "host cores and compression engine and decompression engine", compress_nic_share = 0.4063{{[0-9]*}} : f64, cores_busy = 4.000000e+00 : f64, decompress_nic_share = 0.2031{{[0-9]*}} : f64, decompress_site = "split", host_requests = 62.99{{[0-9]*}} : f64, name = "m[0]", ratio = 2.493{{[0-9]*}} : f64, requests = 98.42{{[0-9]*}} : f64, site = "split"}
// CHECK-SAME: {bottleneck = "host cores and compression engine", compress_nic_share = 8.500000e-01 : f64, cores_busy = {{1.000000e\+00|0.9999[0-9]*}} : f64, decompress_nic_share = 1.000000e+00 : f64, decompress_site = "smartnic", host_requests = 15.74{{[0-9]*}} : f64, name = "m[1]", ratio = 3.000000e+00 : f64, requests = 117.64{{[0-9]*}} : f64, site = "split"}
// CHECK-SAME: speedup = 2.744{{[0-9]*}} : f64

// REMARK: remark: middle-tier server m[0]: split compression (40.64% on the smartnic), split decompression (20.32% on the smartnic), 98.43 requests/s (9.843e-06 GB/s), bound by host cores and compression engine and decompression engine, ratio 2.493, 4 host cores busy; host only 62.99 requests/s (bound by host cores)
// REMARK: remark: middle-tier server m[1]: split compression (85% on the smartnic), smartnic decompression, 117.6 requests/s (1.176e-05 GB/s), bound by host cores and compression engine, ratio 3, 1 host cores busy; host only 15.75 requests/s (bound by host cores)
// REMARK: remark: middle tier of 2 servers: 216.1 requests/s planned vs 78.74 CPU-only (2.744x); 100 requests/s need 1 servers vs 4 servers (more than the 2 declared) CPU-only; host codec zstd 0.001 MB/s per core, decompression 0.004 MB/s per core, ratio 3 (given)
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
