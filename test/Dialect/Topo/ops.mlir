// RUN: sluice-opt %s -split-input-file | sluice-opt -split-input-file | FileCheck %s
// RUN: sluice-opt %s -split-input-file -mlir-print-op-generic | sluice-opt -split-input-file | FileCheck %s

// A machine: device arrays with typed properties, scalar devices, links in
// both directions and one way.
// CHECK-LABEL: topo.topology @dgx_a100 {
// CHECK-NEXT:    topo.device @gpu kind(gpu) count 8 props {memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>, model = "A100", sms = 108 : i64}
// CHECK-NEXT:    topo.device @cpu kind(cpu) count 2 props {cores = 64 : i64, frequency = #topo.q<2.25 GHz>}
// CHECK-NEXT:    topo.device @nvswitch kind(switch) count 6 props {reduce = false}
// CHECK-NEXT:    topo.device @nic kind(nic) props {bandwidth = #topo.q<200 Gbit/s>, rdma = true}
// CHECK-NEXT:    topo.device @ssd kind(nvme) props {capacity = #topo.q<3.84 TB>, read = #topo.q<6.8 GB/s>}
// CHECK-NEXT:    topo.link gpu[0] <-> nvswitch[0] {bandwidth = #topo.q<25 GB/s>, type = "nvlink3"}
// CHECK-NEXT:    topo.link cpu[0] -> ssd {bandwidth = #topo.q<6.8 GB/s>, latency = #topo.q<80 us>}
// CHECK-NEXT:    topo.link gpu[7] <-> nic {bandwidth = #topo.q<25 GB/s>, latency = #topo.q<0 us>}
// CHECK-NEXT:  }
topo.topology @dgx_a100 {
  topo.device @gpu kind(gpu) count 8 props {memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>, model = "A100", sms = 108 : i64}
  topo.device @cpu kind(cpu) count 2 props {cores = 64 : i64, frequency = #topo.q<2.25 GHz>}
  topo.device @nvswitch kind(switch) count 6 props {reduce = false}
  topo.device @nic kind(nic) props {bandwidth = #topo.q<200 Gbit/s>, rdma = true}
  topo.device @ssd kind(nvme) props {capacity = #topo.q<3.84 TB>, read = #topo.q<6.8 GB/s>}
  topo.link gpu[0] <-> nvswitch[0] {bandwidth = #topo.q<25 GB/s>, type = "nvlink3"}
  topo.link cpu[0] -> ssd {bandwidth = #topo.q<6.8 GB/s>, latency = #topo.q<80 us>}
  topo.link gpu[7] <-> nic {bandwidth = #topo.q<25 GB/s>, latency = #topo.q<0 us>}
}

// -----

// Every device kind; a device without properties prints no `props`.
// CHECK-LABEL: topo.topology @kinds {
// CHECK-NEXT:    topo.device @g kind(gpu)
// CHECK-NEXT:    topo.device @c kind(cpu)
// CHECK-NEXT:    topo.device @n kind(nvme)
// CHECK-NEXT:    topo.device @i kind(nic)
// CHECK-NEXT:    topo.device @s kind(smartnic) props {cores = 16 : i64, rdma = true}
// CHECK-NEXT:    topo.device @w kind(switch) props {ports = 64 : i64}
// CHECK-NEXT:    topo.device @d kind(csd) props {compute = #topo.q<1.5 TFLOPS>, power = #topo.q<25 W>, price = #topo.q<1200 USD>}
// CHECK-NEXT:  }
topo.topology @kinds {
  topo.device @g kind(gpu)
  topo.device @c kind(cpu) props {}
  topo.device @n kind(nvme)
  topo.device @i kind(nic)
  topo.device @s kind(smartnic) props {cores = 16, rdma = true}
  topo.device @w kind(switch) props {ports = 64}
  topo.device @d kind(csd) props {compute = #topo.q<1.5 TFLOPS>, price = #topo.q<1200 USD>, power = #topo.q<25 W>}
}

// -----

// Nested nodes: arrays of instances, endpoints through instances, overrides
// and a measured link.
// CHECK-LABEL: topo.topology @node {
// CHECK-NEXT:    topo.device @gpu kind(gpu) count 4
// CHECK-NEXT:    topo.device @nic kind(nic)
// CHECK-NEXT:    topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<300 GB/s>}
// CHECK-LABEL: topo.topology @pod {
// CHECK-NEXT:    topo.instance @server of @node count 16
// CHECK-NEXT:    topo.instance @head of @node
// CHECK-NEXT:    topo.device @spine kind(switch)
// CHECK-NEXT:    topo.link server[15]::nic -> spine {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1.5 us>}
// CHECK-NEXT:    topo.link head::gpu[3] <-> server[0]::gpu[0] measured {bandwidth = #topo.q<12.25 GB/s>}
// CHECK-NEXT:    topo.override server[3]::gpu[0] -> server[3]::gpu[1] {bandwidth = #topo.q<150 GB/s>}
// CHECK-NEXT:  }
topo.topology @node {
  topo.device @gpu kind(gpu) count 4
  topo.device @nic kind(nic)
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<300 GB/s>}
}
topo.topology @pod {
  topo.instance @server of @node count 16
  topo.instance @head of @node
  topo.device @spine kind(switch)
  topo.link server[15]::nic -> spine {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1.5 us>}
  topo.link head::gpu[3] <-> server[0]::gpu[0] measured {bandwidth = #topo.q<12.25 GB/s>}
  topo.override server[3]::gpu[0] -> server[3]::gpu[1] {bandwidth = #topo.q<150 GB/s>}
}

// -----

// A flat topology: devices named by full paths, endpoints written as strings.
// CHECK-LABEL: topo.topology @flat flat {
// CHECK-NEXT:    topo.device @"server[0].gpu[0]" kind(gpu)
// CHECK-NEXT:    topo.device @"server[0].gpu[1]" kind(gpu)
// CHECK-NEXT:    topo.device @cpu kind(cpu)
// CHECK-NEXT:    topo.link "server[0].gpu[0]" <-> "server[0].gpu[1]" {bandwidth = #topo.q<300 GB/s>}
// CHECK-NEXT:    topo.link cpu -> "server[0].gpu[1]" {bandwidth = #topo.q<32 GB/s>}
// CHECK-NEXT:  }
topo.topology @flat flat {
  topo.device @"server[0].gpu[0]" kind(gpu)
  topo.device @"server[0].gpu[1]" kind(gpu)
  topo.device @cpu kind(cpu)
  topo.link "server[0].gpu[0]" <-> "server[0].gpu[1]" {bandwidth = #topo.q<300 GB/s>}
  topo.link "cpu" -> "server[0].gpu[1]" {bandwidth = #topo.q<32 GB/s>}
}

// -----

// Quantities keep the number as written and round-trip every double.
// CHECK-LABEL: topo.topology @numbers {
// CHECK-NEXT:    topo.device @a kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<0.1 GB>}
// CHECK-NEXT:    topo.device @b kind(gpu) props {compute = #topo.q<1e+20 FLOPS>, memory = #topo.q<1.2345678901234567 TiB>}
// CHECK-NEXT:    topo.device @c kind(gpu) props {compute = #topo.q<1000 GFLOPS>, memory = #topo.q<2.5e-05 PB>}
// CHECK-NEXT:  }
topo.topology @numbers {
  topo.device @a kind(gpu) props {compute = #topo.q<312.0 TFLOPS>, memory = #topo.q<0.1 GB>}
  topo.device @b kind(gpu) props {compute = #topo.q<1e20 FLOPS>, memory = #topo.q<1.2345678901234567 TiB>}
  topo.device @c kind(gpu) props {compute = #topo.q<1.0e3 GFLOPS>, memory = #topo.q<0.000025 PB>}
}

// -----

// The attributes on their own.
// CHECK-LABEL: func.func @attrs
// CHECK-SAME:    dir = #topo<direction both>
// CHECK-SAME:    ep = #topo.ep<server[3]::gpu[2]>
// CHECK-SAME:    flat = #topo.ep<"server[3].gpu[2]">
// CHECK-SAME:    kind = #topo<kind smartnic>
// CHECK-SAME:    q = #topo.q<2.5 GB/s>
func.func @attrs() attributes {q = #topo.q<2.5 GB/s>, ep = #topo.ep<server[3]::gpu[2]>, flat = #topo.ep<"server[3].gpu[2]">, kind = #topo<kind smartnic>, dir = #topo<direction both>} {
  return
}
