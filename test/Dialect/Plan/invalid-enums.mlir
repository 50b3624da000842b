// RUN: not sluice-opt %s -split-input-file 2>&1 | FileCheck %s

// A word that is not a value of the plan enums (PlanEnums.td) is a parse
// error at the word that names the accepted ones. Demand kinds are words
// (the language's); collectives and schedule methods are strings, the names
// of the exported schedules.

// CHECK: error: custom op 'plan.demand' expected ::sluice::plan::DemandKind to be one of: transfer, gather, alltoall, allgather, reducescatter, allreduce
plan.demands @d on @t {
  plan.demand broadcast 1.0e9 from ["gpu[0]"] to ["gpu[*]"]
}

// -----

// CHECK: error: custom op 'plan.collective' expected ::sluice::plan::CollectiveKind to be one of: "all-gather", "reduce-scatter", "all-reduce"
plan.schedule @s on @t makespan(4.0) {
  plan.collective "c" "broadcast" "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

// A collective is a string: the word alone does not parse.

// CHECK: error: custom op 'plan.collective' expected string
plan.schedule @s on @t makespan(4.0) {
  plan.collective "c" allreduce "ring" bytes(1.0) over ["a", "b"] window(0.0, 1.0) times {ring = 1.0 : f64}
}

// -----

// CHECK: error: custom op 'plan.schedule' expected ::sluice::plan::ScheduleMethod to be one of: "single-commodity-parametric", "single-commodity-bisection", "multi-commodity-lp", "direct-path", "moment-greedy", "multi-commodity-path-lp", "collective", "offload-finetune"
plan.schedule @s on @t makespan(1.0) method "simplex" {
}

// -----

// The attribute form names the enum too.

// CHECK: error: expected ::sluice::plan::DemandKind to be one of: transfer, gather, alltoall, allgather, reducescatter, allreduce
module attributes {test.kind = #plan<demand scatter>} {
}
