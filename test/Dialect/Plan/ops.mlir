// RUN: sluice-opt %s | FileCheck %s
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// Round trip of every plan op (printed, parsed back, printed again).

// CHECK-LABEL: plan.demands @d on @t attributes {chunk_bytes = 1.024000e+03 : f64} {
// CHECK-NEXT:    plan.demand "transfer" 1.000000e+09 from ["host"] to ["gpu[*]", "gpu[0..2]"]
// CHECK-NEXT:    plan.demand "allreduce" 2.000000e+09 from ["server[*].gpu[0]"] to ["server[*].gpu[0]"]
// CHECK-NEXT:    plan.demand "gather" 5.000000e+08 from ["ssd[*]", "host"] to ["gpu[1]"]
// CHECK-NEXT:  }
plan.demands @d on @t attributes {chunk_bytes = 1024.0 : f64} {
  plan.demand "transfer" 1.0e9 from ["host"] to ["gpu[*]", "gpu[0..2]"]
  plan.demand "allreduce" 2.0e9 from ["server[*].gpu[0]"] to ["server[*].gpu[0]"]
  plan.demand "gather" 5.0e8 from ["ssd[*]", "host"] to ["gpu[1]"]
}

// CHECK-LABEL: plan.schedule @s on @t makespan(2.000000e+00) attributes {direct_makespan = 4.000000e+00 : f64, lower_bound = 2.000000e+00 : f64, method = "multi-commodity-lp"} {
// CHECK-NEXT:    plan.transfer "host" -> "gpu[0]" bytes(1.000000e+09) via ["host", "pcie", "gpu[0]"] rate(5.000000e+08) window(0.000000e+00, 2.000000e+00) chunks(4) {demand = 1 : i64, stream = "copy0"}
// CHECK-NEXT:    plan.transfer "host" -> "gpu[0]" bytes(5.000000e+08) via ["host", "gpu[0]"] rate(5.000000e+08) window(1.000000e+00, 2.000000e+00) chunks(1) {demand = 1 : i64}
// CHECK-NEXT:    plan.compute "layer0.fwd" on "gpu[0]" stream "compute" window(0.000000e+00, 1.500000e+00)
// CHECK-NEXT:  }
plan.schedule @s on @t makespan(2.0) attributes {method = "multi-commodity-lp", lower_bound = 2.0 : f64, direct_makespan = 4.0 : f64} {
  plan.transfer "host" -> "gpu[0]" bytes(1.0e9) via ["host", "pcie", "gpu[0]"] rate(5.0e8) window(0.0, 2.0) chunks(4) {demand = 1 : i64, stream = "copy0"}
  plan.transfer "host" -> "gpu[0]" bytes(5.0e8) via ["host", "gpu[0]"] rate(5.0e8) window(1.0, 2.0) chunks(1) {demand = 1 : i64}
  plan.compute "layer0.fwd" on "gpu[0]" stream "compute" window(0.0, 1.5)
}

// An empty schedule (nothing to move) is valid.
// CHECK-LABEL: plan.schedule @empty on @t makespan(0.000000e+00) {
plan.schedule @empty on @t makespan(0.0) {
}

// CHECK-LABEL: plan.schedule @c on @t makespan(3.000000e+00) attributes {method = "collective"} {
// CHECK-NEXT:    plan.collective "c.0" "all-reduce" "in-network" bytes(1.000000e+09) over ["gpu[0]", "gpu[1]"] window(1.000000e+00, 3.000000e+00) times {"in-network" = 2.000000e+00 : f64, ring = 2.500000e+00 : f64} {alpha_beta = {"in-network" = 2.000000e+00 : f64, ring = 2.500000e+00 : f64}, endpoint_bound = 2.500000e+00 : f64}
// CHECK-NEXT:    plan.transfer "gpu[0]" -> "sw" bytes(1.000000e+09) via ["gpu[0]", "sw"] rate(5.000000e+08) window(1.000000e+00, 3.000000e+00) chunks(1) {stream = "c.0/up"}
// CHECK-NEXT:  }
plan.schedule @c on @t makespan(3.0) attributes {method = "collective"} {
  plan.collective "c.0" "all-reduce" "in-network" bytes(1.0e9) over ["gpu[0]", "gpu[1]"] window(1.0, 3.0) times {"in-network" = 2.0 : f64, ring = 2.5 : f64} {alpha_beta = {"in-network" = 2.0 : f64, ring = 2.5 : f64}, endpoint_bound = 2.5 : f64}
  plan.transfer "gpu[0]" -> "sw" bytes(1.0e9) via ["gpu[0]", "sw"] rate(5.0e8) window(1.0, 3.0) chunks(1) {stream = "c.0/up"}
}
