// RUN: sluice-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect
// The verifier of plan.distill and plan.distill_stage: every message quoted.

// expected-error@+1 {{batch must be positive, got 0}}
plan.distill @p for @job on @box batch 0 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

// expected-error@+1 {{baseline_time must be finite and non-negative, got -2}}
plan.distill @p for @job on @box batch 8 time(1.0) baseline(-2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  // expected-error@+1 {{has index 1, expected 0}}
  plan.distill_stage 1 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
  // expected-error@+1 {{has blocks 3 x 1, expected at least one block from 2}}
  plan.distill_stage 1 blocks 3 x 1 gpus ["gpu[1]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  // expected-error@+1 {{has no gpu}}
  plan.distill_stage 0 blocks 0 x 2 gpus [] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
  // expected-error@+1 {{uses gpu 'gpu[0]' twice}}
  plan.distill_stage 1 blocks 2 x 1 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = 0.0 : f64, memory = 1.0e9 : f64}
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  // expected-error@+1 {{p2p must be finite and non-negative, got -1}}
  plan.distill_stage 0 blocks 0 x 2 gpus ["gpu[0]"] {compute = 1.0 : f64, all_reduce = 0.0 : f64, p2p = -1.0 : f64, memory = 1.0e9 : f64}
}

// -----

// expected-error@+1 {{has no stage}}
plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
}

// -----

plan.distill @p for @job on @box batch 8 time(1.0) baseline(2.0) attributes {memory_available = 1.0e10 : f64, baseline_memory = 1.0e9 : f64} {
  // expected-error@+1 {{is not allowed in a plan.distill}}
  "test.op"() : () -> ()
}
