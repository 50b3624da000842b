// RUN: sluice-opt %s | FileCheck %s
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// Round trip of every plan op (printed, parsed back, printed again).

// CHECK-LABEL: plan.demands @d on @t attributes {chunk_bytes = 1.024000e+03 : f64} {
// CHECK-NEXT:    plan.demand transfer 1.000000e+09 from ["host"] to ["gpu[*]", "gpu[0..2]"]
// CHECK-NEXT:    plan.demand allreduce 2.000000e+09 from ["server[*].gpu[0]"] to ["server[*].gpu[0]"]
// CHECK-NEXT:    plan.demand gather 5.000000e+08 from ["ssd[*]", "host"] to ["gpu[1]"]
// CHECK-NEXT:  }
plan.demands @d on @t attributes {chunk_bytes = 1024.0 : f64} {
  plan.demand transfer 1.0e9 from ["host"] to ["gpu[*]", "gpu[0..2]"]
  plan.demand allreduce 2.0e9 from ["server[*].gpu[0]"] to ["server[*].gpu[0]"]
  plan.demand gather 5.0e8 from ["ssd[*]", "host"] to ["gpu[1]"]
}

// CHECK-LABEL: plan.schedule @s on @t makespan(2.000000e+00) method "multi-commodity-lp" attributes {direct_makespan = 4.000000e+00 : f64, lower_bound = 2.000000e+00 : f64} {
// CHECK-NEXT:    plan.transfer "host" -> "gpu[0]" bytes(1.000000e+09) via ["host", "pcie", "gpu[0]"] rate(5.000000e+08) window(0.000000e+00, 2.000000e+00) chunks(4) {demand = 1 : i64, stream = "copy0"}
// CHECK-NEXT:    plan.transfer "host" -> "gpu[0]" bytes(5.000000e+08) via ["host", "gpu[0]"] rate(5.000000e+08) window(1.000000e+00, 2.000000e+00) chunks(1) {demand = 1 : i64}
// CHECK-NEXT:    plan.compute "layer0.fwd" on "gpu[0]" stream "compute" window(0.000000e+00, 1.500000e+00)
// CHECK-NEXT:  }
plan.schedule @s on @t makespan(2.0) method "multi-commodity-lp" attributes {lower_bound = 2.0 : f64, direct_makespan = 4.0 : f64} {
  plan.transfer "host" -> "gpu[0]" bytes(1.0e9) via ["host", "pcie", "gpu[0]"] rate(5.0e8) window(0.0, 2.0) chunks(4) {demand = 1 : i64, stream = "copy0"}
  plan.transfer "host" -> "gpu[0]" bytes(5.0e8) via ["host", "gpu[0]"] rate(5.0e8) window(1.0, 2.0) chunks(1) {demand = 1 : i64}
  plan.compute "layer0.fwd" on "gpu[0]" stream "compute" window(0.0, 1.5)
}

// An empty schedule (nothing to move) is valid.
// CHECK-LABEL: plan.schedule @empty on @t makespan(0.000000e+00) {
plan.schedule @empty on @t makespan(0.0) {
}

// CHECK-LABEL: plan.schedule @c on @t makespan(3.000000e+00) method "collective" {
// CHECK-NEXT:    plan.collective "c.0" "all-reduce" "in-network" bytes(1.000000e+09) over ["gpu[0]", "gpu[1]"] window(1.000000e+00, 3.000000e+00) times {"in-network" = 2.000000e+00 : f64, ring = 2.500000e+00 : f64} {alpha_beta = {"in-network" = 2.000000e+00 : f64, ring = 2.500000e+00 : f64}, endpoint_bound = 2.500000e+00 : f64}
// CHECK-NEXT:    plan.transfer "gpu[0]" -> "sw" bytes(1.000000e+09) via ["gpu[0]", "sw"] rate(5.000000e+08) window(1.000000e+00, 3.000000e+00) chunks(1) {stream = "c.0/up"}
// CHECK-NEXT:  }
plan.schedule @c on @t makespan(3.0) method "collective" {
  plan.collective "c.0" "all-reduce" "in-network" bytes(1.0e9) over ["gpu[0]", "gpu[1]"] window(1.0, 3.0) times {"in-network" = 2.0 : f64, ring = 2.5 : f64} {alpha_beta = {"in-network" = 2.0 : f64, ring = 2.5 : f64}, endpoint_bound = 2.5 : f64}
  plan.transfer "gpu[0]" -> "sw" bytes(1.0e9) via ["gpu[0]", "sw"] rate(5.0e8) window(1.0, 3.0) chunks(1) {stream = "c.0/up"}
}

// An offload iteration (sluicec --emit=plan --format=mlir of a finetune
// job): tflops, peak_bytes and link_bytes on the schedule, tensor and label
// on transfers, flops and bytes on compute.
// CHECK-LABEL: plan.schedule @tune_iteration on @w makespan(4.000000e+00) method "offload-finetune" attributes {link_bytes = {d2h = 0.000000e+00 : f64, h2d = 1.000000e+09 : f64}, peak_bytes = {gpu = 2.000000e+09 : f64, host = 8.000000e+09 : f64}, tflops = 1.500000e+02 : f64} {
// CHECK-NEXT:    plan.transfer "cpu" -> "gpu" bytes(1.000000e+09) via ["cpu", "gpu"] rate(1.000000e+09) window(0.000000e+00, 1.000000e+00) chunks(1) {label = "params prefetch L0", stream = "H2D", tensor = "params"}
// CHECK-NEXT:    plan.compute "layer forward L0" on "gpu" stream "GPU compute" window(1.000000e+00, 3.000000e+00) {flops = 3.000000e+14 : f64}
// CHECK-NEXT:    plan.compute "adam update L0" on "cpu" stream "CPU optimizer" window(3.000000e+00, 4.000000e+00) {bytes = 2.800000e+10 : f64}
// CHECK-NEXT:  }
plan.schedule @tune_iteration on @w makespan(4.0) method "offload-finetune" attributes {tflops = 150.0 : f64, peak_bytes = {gpu = 2.0e9 : f64, host = 8.0e9 : f64}, link_bytes = {h2d = 1.0e9 : f64, d2h = 0.0 : f64}} {
  plan.transfer "cpu" -> "gpu" bytes(1.0e9) via ["cpu", "gpu"] rate(1.0e9) window(0.0, 1.0) chunks(1) {stream = "H2D", tensor = "params", label = "params prefetch L0"}
  plan.compute "layer forward L0" on "gpu" stream "GPU compute" window(1.0, 3.0) {flops = 3.0e14 : f64}
  plan.compute "adam update L0" on "cpu" stream "CPU optimizer" window(3.0, 4.0) {bytes = 2.8e10 : f64}
}

// A 3D-parallel plan: two stages of two GPUs, two virtual chunks each.
// CHECK-LABEL: plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 2 recompute selective sequence_parallel zero 1 placement "exact" time(1.500000e+00) attributes {backward = 1.000000e-01 : f64, data_comm = 0.000000e+00 : f64, default_time = 1.600000e+00 : f64, forward = 5.000000e-02 : f64, memory = 1.800000e+10 : f64, memory_available = 2.300000e+10 : f64, mfu = 4.800000e-01 : f64, p2p = 1.000000e-03 : f64, tflops = 8.000000e+01 : f64} {
// CHECK-NEXT:    plan.stage 0 layers [0, 20] x 10 gpus ["gpu[0]", "gpu[1]"]
// CHECK-NEXT:    plan.stage 1 layers [10, 30] x 10 gpus ["gpu[3]", "gpu[2]"]
// CHECK-NEXT:  }
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 2 recompute selective sequence_parallel zero 1 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0, 20] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10, 30] x 10 gpus ["gpu[3]", "gpu[2]"]
}

// A mixture of experts: experts over ep 2 ranks of the 4-way data parallelism.
// CHECK-LABEL: plan.parallel @moe for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.500000e+00) attributes {backward = 1.000000e-01 : f64, data_comm = 0.000000e+00 : f64, default_time = 1.600000e+00 : f64, ep = 2 : i64, expert_comm = 1.000000e-02 : f64, forward = 5.000000e-02 : f64, memory = 1.800000e+10 : f64, memory_available = 2.300000e+10 : f64, mfu = 4.800000e-01 : f64, p2p = 0.000000e+00 : f64, tflops = 8.000000e+01 : f64} {
// CHECK-NEXT:    plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
plan.parallel @moe for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.0 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, ep = 2 : i64, expert_comm = 0.01 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
}

// A blockio demand and a storage middle tier's plan.
// CHECK-LABEL: plan.demands @io on @dc {
// CHECK-NEXT: plan.demand blockio 4.096000e+03 from ["c.cpu"] to ["s.ssd"] {job = {codec = #plan<codec lz4>, compressibility = 5.000000e-01 : f64, header_cost = 9.9999999999999995E-7 : f64, middle_tier = ["m[*].cpu"], rate = 1.000000e+06 : f64, read_fraction = 3.000000e-01 : f64}}
// CHECK: plan.middle_tier "io.0" block_bytes(4.096000e+03) rate(1.000000e+06) {codec = #plan<codec zstd>, compressibility = 5.000000e-01 : f64, cpu_decompress_rate = 5.000000e+09 : f64, cpu_only = {requests = 1.000000e+05 : f64, servers_needed = 10 : i64}, cpu_rate = 2.500000e+08 : f64, cpu_ratio = 2.000000e+00 : f64, cpu_source = "fallback", header_cost = 9.9999999999999995E-7 : f64, planned = {requests = 1.000000e+06 : f64, servers_needed = 1 : i64}, read_fraction = 3.000000e-01 : f64, servers = [{compress_nic_share = 1.000000e+00 : f64, decompress_nic_share = 0.000000e+00 : f64, decompress_site = "host", name = "m[0]", site = "smartnic"}], speedup = 1.000000e+01 : f64}
plan.demands @io on @dc {
  plan.demand blockio 4096.0 from ["c.cpu"] to ["s.ssd"] {job = {codec = #plan<codec lz4>, compressibility = 0.5 : f64, header_cost = 1.0e-6 : f64, middle_tier = ["m[*].cpu"], rate = 1.0e6 : f64, read_fraction = 0.3 : f64}}
}
plan.middle_tier "io.0" block_bytes(4096.0) rate(1.0e6) {codec = #plan<codec zstd>, compressibility = 0.5 : f64, cpu_decompress_rate = 5.0e9 : f64, cpu_only = {requests = 1.0e5 : f64, servers_needed = 10 : i64}, cpu_rate = 2.5e8 : f64, cpu_ratio = 2.0 : f64, cpu_source = "fallback", header_cost = 1.0e-6 : f64, planned = {requests = 1.0e6 : f64, servers_needed = 1 : i64}, read_fraction = 0.3 : f64, servers = [{compress_nic_share = 1.0 : f64, decompress_nic_share = 0.0 : f64, decompress_site = "host", name = "m[0]", site = "smartnic"}], speedup = 10.0 : f64}
