// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// The verifier of plan.parallel and plan.stage: every message quoted.

// A pipeline of zero stages.
// expected-error@+1 {{tp, pp and dp must be positive, got 2, 0, 1}}
plan.parallel @p for @job on @box tp 2 pp 0 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// No micro-batches.
// expected-error@+1 {{micro_batch, micro_batches and virtual must be positive}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 0 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// ZeRO stage 4 does not exist.
// expected-error@+1 {{zero must be 0, 1, 2 or 3, got 4}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 4 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// DeepSpeed has no ZeRO-3 with pipelining.
// expected-error@+1 {{zero 3 needs pp 1 (DeepSpeed has no ZeRO-2/3 with pipelining), got pp 2}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 3 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// Sequence parallelism splits over the tensor-parallel group.
// expected-error@+1 {{sequence_parallel needs tp > 1}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none sequence_parallel zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
}


// -----

// A negative predicted time.
// expected-error@+1 {{time must be finite and non-negative, got -1}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(-1.0) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// Only stages in the body.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
  // expected-error@+1 {{is not allowed in a plan.parallel}}
  builtin.module {}
}


// -----

// Stages in order.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  // expected-error@+1 {{has index 1, expected 0}}
  plan.stage 1 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 0 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// One layer chunk per virtual stage.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 2 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  // expected-error@+1 {{has 1 layer chunks, expected 2 (virtual)}}
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// Empty chunks.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  // expected-error@+1 {{chunk_layers must be positive}}
  plan.stage 0 layers [0] x 0 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// Each stage has tp * dp GPUs.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  // expected-error@+1 {{has 1 gpus, expected tp * dp = 2}}
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}


// -----

// A GPU runs one rank.
plan.parallel @p for @job on @box tp 2 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  // expected-error@+1 {{uses gpu 'gpu[1]' twice}}
  plan.stage 1 layers [10] x 10 gpus ["gpu[1]", "gpu[3]"]
}


// -----

// As many stages as pp.
// expected-error@+1 {{has 2 stages, expected pp = 3}}
plan.parallel @p for @job on @box tp 2 pp 3 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// expected-error@+1 {{offload_time and host_memory go together}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 1 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, offload_time = 0.5 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[4]", "gpu[5]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]", "gpu[6]", "gpu[7]"]
}

// -----

// expected-error@+1 {{optimizer offload needs zero >= 1, got zero 0}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, offload_time = 0.5 : f64, host_memory = 1.0e11 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[4]", "gpu[5]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]", "gpu[6]", "gpu[7]"]
}

// -----

// expected-error@+1 {{offload_time must be finite and non-negative, got -0.5}}
plan.parallel @p for @job on @box tp 2 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 1 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, offload_time = -0.5 : f64, host_memory = 1.0e11 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[4]", "gpu[5]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]", "gpu[6]", "gpu[7]"]
}

// -----

// Expert parallelism: ep and expert_comm come together.
// expected-error@+1 {{ep and expert_comm go together}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, ep = 2 : i64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
}

// -----

// ep shards the experts over ranks of one data-parallel group.
// expected-error@+1 {{ep 3 must be positive and divide dp 4}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, ep = 3 : i64, expert_comm = 0.01 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
}

// -----

// expected-error@+1 {{expert_comm must be finite and non-negative, got -0.01}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 4 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, ep = 2 : i64, expert_comm = -0.01 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]", "gpu[2]", "gpu[3]"]
}
