// RUN: sluice-opt %s -split-input-file --topo-flatten -verify-diagnostics | FileCheck %s
// RUN: not sluice-opt %s -split-input-file --topo-flatten="top=node" 2>&1 | FileCheck %s --check-prefix=TOP

// A single machine: arrays expanded in index order, scalars keep their name,
// properties copied, link directions kept. (With top=node: no such topology.)
// TOP: error: no topology named @node to flatten
// CHECK-LABEL: topo.topology @machine flat {
// CHECK-NEXT:    topo.device @"gpu[0]" kind(gpu) props {memory = #topo.q<80 GiB>}
// CHECK-NEXT:    topo.device @"gpu[1]" kind(gpu) props {memory = #topo.q<80 GiB>}
// CHECK-NEXT:    topo.device @cpu kind(cpu) props {cores = 64 : i64}
// CHECK-NEXT:    topo.link "gpu[0]" <-> "gpu[1]" {bandwidth = #topo.q<300 GB/s>, type = "nvlink4"}
// CHECK-NEXT:    topo.link cpu -> "gpu[1]" {bandwidth = #topo.q<32 GB/s>}
// CHECK-NEXT:  }
// CHECK-NOT:   count
topo.topology @machine {
  topo.device @gpu kind(gpu) count 2 props {memory = #topo.q<80 GiB>}
  topo.device @cpu kind(cpu) props {cores = 64 : i64}
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<300 GB/s>, type = "nvlink4"}
  topo.link cpu -> gpu[1] {bandwidth = #topo.q<32 GB/s>}
}

// -----

// A cluster of nodes: nested devices and links copied per instance under
// its path, cluster-level links through instances; the default top is the
// last topology nothing instances (@cluster, not @node), and every other
// topology is removed.
// CHECK-LABEL: topo.topology @cluster flat {
// CHECK-NEXT:    topo.device @"server[0].gpu[0]" kind(gpu) props {sms = 132 : i64}
// CHECK-NEXT:    topo.device @"server[0].gpu[1]" kind(gpu) props {sms = 132 : i64}
// CHECK-NEXT:    topo.device @"server[0].nic" kind(nic)
// CHECK-NEXT:    topo.device @"server[1].gpu[0]" kind(gpu) props {sms = 132 : i64}
// CHECK-NEXT:    topo.device @"server[1].gpu[1]" kind(gpu) props {sms = 132 : i64}
// CHECK-NEXT:    topo.device @"server[1].nic" kind(nic)
// CHECK-NEXT:    topo.device @"spine[0]" kind(switch)
// CHECK-NEXT:    topo.device @"storage.ssd[0]" kind(nvme)
// CHECK-NEXT:    topo.device @"storage.ssd[1]" kind(nvme)
// CHECK-NEXT:    topo.link "server[0].gpu[0]" <-> "server[0].gpu[1]" {bandwidth = #topo.q<450 GB/s>}
// CHECK-NEXT:    topo.link "server[0].gpu[1]" -> "server[0].nic" {bandwidth = #topo.q<50 GB/s>}
// CHECK-NEXT:    topo.link "server[1].gpu[0]" <-> "server[1].gpu[1]" {bandwidth = #topo.q<450 GB/s>}
// CHECK-NEXT:    topo.link "server[1].gpu[1]" -> "server[1].nic" {bandwidth = #topo.q<50 GB/s>}
// CHECK-NEXT:    topo.link "server[0].nic" <-> "spine[0]" {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1 us>}
// CHECK-NEXT:    topo.link "server[1].nic" <-> "spine[0]" {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1 us>}
// CHECK-NEXT:    topo.link "storage.ssd[0]" -> "spine[0]" {bandwidth = #topo.q<7 GB/s>}
// CHECK-NEXT:  }
// CHECK-NOT:   topo.topology
// CHECK-NOT:   topo.instance
// The top option picks a topology even if others instance it.
// TOP-LABEL:   topo.topology @node flat {
// TOP-NEXT:      topo.device @"gpu[0]" kind(gpu) props {sms = 132 : i64}
// TOP-NEXT:      topo.device @"gpu[1]" kind(gpu) props {sms = 132 : i64}
// TOP-NEXT:      topo.device @nic kind(nic)
// TOP-NEXT:      topo.link "gpu[0]" <-> "gpu[1]" {bandwidth = #topo.q<450 GB/s>}
// TOP-NEXT:      topo.link "gpu[1]" -> nic {bandwidth = #topo.q<50 GB/s>}
// TOP-NEXT:    }
// TOP-NOT:     topo.topology
topo.topology @node {
  topo.device @gpu kind(gpu) count 2 props {sms = 132 : i64}
  topo.device @nic kind(nic)
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<450 GB/s>}
  topo.link gpu[1] -> nic {bandwidth = #topo.q<50 GB/s>}
}
topo.topology @jbod {
  topo.device @ssd kind(nvme) count 2
}
topo.topology @cluster {
  topo.instance @server of @node count 2
  topo.device @spine kind(switch) count 1
  topo.instance @storage of @jbod
  topo.link server[0]::nic <-> spine[0] {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1 us>}
  topo.link server[1]::nic <-> spine[0] {bandwidth = #topo.q<50 GB/s>, latency = #topo.q<1 us>}
  topo.link storage::ssd[0] -> spine[0] {bandwidth = #topo.q<7 GB/s>}
}

// -----

// Overrides: `<->` changes links in both directions, `->` changes a forward
// link or splits a `<->` link; nested overrides apply per instance before
// the outer ones; overrides apply in declaration order (the last one wins);
// measured links are kept and never overridden.
// CHECK-LABEL: topo.topology @pod flat {
// CHECK:         topo.link "n[0].gpu[0]" <-> "n[0].gpu[1]" {bandwidth = #topo.q<100 GB/s>, latency = #topo.q<1 us>, type = "nvlink"}
// CHECK-NEXT:    topo.link "n[0].gpu[0]" -> "n[0].gpu[1]" measured {bandwidth = #topo.q<91.5 GB/s>}
// CHECK-NEXT:    topo.link "n[1].gpu[0]" -> "n[1].gpu[1]" {bandwidth = #topo.q<60 GB/s>, latency = #topo.q<1 us>, type = "nvlink"}
// CHECK-NEXT:    topo.link "n[1].gpu[1]" -> "n[1].gpu[0]" {bandwidth = #topo.q<100 GB/s>, latency = #topo.q<1 us>, type = "nvlink"}
// CHECK-NEXT:    topo.link "n[1].gpu[0]" -> "n[1].gpu[1]" measured {bandwidth = #topo.q<91.5 GB/s>}
// CHECK-NEXT:    topo.link "n[0].gpu[1]" <-> "n[1].gpu[1]" {bandwidth = #topo.q<5 GB/s>, type = "ib"}
// CHECK-NEXT:    topo.link "n[1].gpu[1]" -> "n[0].gpu[0]" {bandwidth = #topo.q<7 GB/s>, type = "pcie"}
// CHECK-NEXT:  }
// CHECK-NOT:   topo.override
topo.topology @n2 {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<100 GB/s>, type = "nvlink"}
  topo.link gpu[0] -> gpu[1] measured {bandwidth = #topo.q<91.5 GB/s>}
  topo.override gpu[0] <-> gpu[1] {latency = #topo.q<1 us>}
}
topo.topology @pod {
  topo.instance @n of @n2 count 2
  topo.link n[0]::gpu[1] <-> n[1]::gpu[1] {bandwidth = #topo.q<10 GB/s>}
  topo.link n[1]::gpu[1] -> n[0]::gpu[0] {bandwidth = #topo.q<7 GB/s>}
  topo.override n[1]::gpu[0] -> n[1]::gpu[1] {bandwidth = #topo.q<50 GB/s>}
  topo.override n[1]::gpu[0] -> n[1]::gpu[1] {bandwidth = #topo.q<60 GB/s>}
  topo.override n[1]::gpu[1] <-> n[0]::gpu[1] {bandwidth = #topo.q<5 GB/s>, type = "ib"}
  topo.override n[1]::gpu[1] -> n[0]::gpu[0] {type = "pcie"}
}

// -----

// An already flat topology is left as it is.
// CHECK-LABEL: topo.topology @done flat {
// CHECK-NEXT:    topo.device @a.x kind(cpu)
// CHECK-NEXT:    topo.device @b kind(cpu)
// CHECK-NEXT:    topo.link "a.x" -> b {bandwidth = #topo.q<1 GB/s>}
// CHECK-NEXT:  }
topo.topology @done flat {
  topo.device @"a.x" kind(cpu)
  topo.device @b kind(cpu)
  topo.link "a.x" -> b {bandwidth = #topo.q<1 GB/s>}
}

// -----

// An override must match a link; measured links do not count.
topo.topology @bad {
  topo.device @gpu kind(gpu) count 3
  topo.link gpu[0] <-> gpu[1] {bandwidth = #topo.q<100 GB/s>}
  topo.link gpu[0] -> gpu[2] measured {bandwidth = #topo.q<40 GB/s>}
  // expected-error@+1 {{'topo.override' op override matches no link between gpu[0] and gpu[2]}}
  topo.override gpu[0] -> gpu[2] {bandwidth = #topo.q<50 GB/s>}
}

// -----

// A `->` override does not match a forward link the other way.
topo.topology @bad {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] -> gpu[1] {bandwidth = #topo.q<100 GB/s>}
  // expected-error@+1 {{'topo.override' op override matches no link between gpu[1] and gpu[0]}}
  topo.override gpu[1] -> gpu[0] {bandwidth = #topo.q<50 GB/s>}
}

// -----

// Arrays of instances multiply: their product is checked before any device
// is copied, and the instance that contributes most is named.
topo.topology @blade {
  topo.device @gpu kind(gpu) count 1000000
  topo.link gpu[0] -> gpu[1] {bandwidth = #topo.q<1 GB/s>}
}
// expected-error@+1 {{topology 'cluster' flattens to 1000000001 devices and 1000 links; at most 1000000 devices and 10000000 links are allowed}}
topo.topology @cluster {
  topo.device @cpu kind(cpu)
  // expected-note@+1 {{'server' makes 1000 copies of topology 'blade' (1000000 devices and 1 link each)}}
  topo.instance @server of @blade count 1000
}

// -----

// Links count too: 2,000 copies of 10,000 links.
topo.topology @blade {
  topo.device @gpu kind(gpu) count 2
  topo.link gpu[0] -> gpu[1] {bandwidth = #topo.q<1 GB/s>}
}
topo.topology @rack {
  topo.instance @n of @blade count 10000
}
// expected-error@+1 {{topology 'row' flattens to 40000000 devices and 20000000 links; at most 1000000 devices and 10000000 links are allowed}}
topo.topology @row {
  // expected-note@+1 {{'r' makes 2000 copies of topology 'rack' (20000 devices and 10000 links each)}}
  topo.instance @r of @rack count 2000
}
