// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// The verifier of plan.parallel's Optimus-CC attributes: every message quoted.

// Compression details without a rank.
// expected-error@+1 {{compressed_micro_batches, compressed_dp_stages and uncompressed_time need compress_rank}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compressed_micro_batches = 1 : i64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// A rank of zero.
// expected-error@+1 {{compress_rank must be positive, got 0}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 0 : i64, compressed_micro_batches = 1 : i64, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// A rank that compresses nothing.
// expected-error@+1 {{compress_rank 64 compresses nothing: expected compressed_micro_batches or compressed_dp_stages}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// The predicted effect is missing.
// expected-error@+1 {{compress_rank needs uncompressed_time}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_micro_batches = 1 : i64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// More epilogue micro-batches than the cool-down has (pp - 1 = 1).
// expected-error@+1 {{compressed_micro_batches must be in [1, 1] (min(micro_batches, pp - 1)), got 2}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_micro_batches = 2 : i64, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// Gradient compression without data parallelism.
// expected-error@+1 {{compressed_dp_stages needs dp > 1, got dp 1}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_dp_stages = array<i64: 0>, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[1]"]
}

// -----

// A stage index out of range.
// expected-error@+1 {{compressed_dp_stages must be increasing stage indices in [0, 2), got 2 after 0}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_dp_stages = array<i64: 0, 2>, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// Stages out of order.
// expected-error@+1 {{compressed_dp_stages must be increasing stage indices in [0, 2), got 0 after 1}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_dp_stages = array<i64: 1, 0>, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// Compression that does not pay is never kept.
// expected-error@+1 {{uncompressed_time 1.4 must be finite and at least time 1.5 (compression is kept only where it pays)}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_micro_batches = 1 : i64, uncompressed_time = 1.4 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// Epilogue and gradient compression together: valid.
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, compressed_micro_batches = 1 : i64, compressed_dp_stages = array<i64: 0, 1>, uncompressed_time = 1.6 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// A compressed send time without compressed sends.
// expected-error@+1 {{compressed_p2p needs compressed_micro_batches}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, uncompressed_time = 1.6 : f64, compressed_dp_stages = array<i64: 0>, compressed_p2p = 0.0001 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}

// -----

// expected-error@+1 {{compressed_p2p must be finite and non-negative}}
plan.parallel @p for @job on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.001 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, compress_rank = 64 : i64, uncompressed_time = 1.6 : f64, compressed_micro_batches = 1 : i64, compressed_p2p = -0.0001 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]", "gpu[1]"]
  plan.stage 1 layers [10] x 10 gpus ["gpu[2]", "gpu[3]"]
}
