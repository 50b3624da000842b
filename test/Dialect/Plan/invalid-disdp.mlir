// RUN: sluice-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// The verifier of plan.disdp: every message quoted; a valid op round-trips.

// A round trip: the printed form parses back.
// CHECK: plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute
// CHECK-SAME: time(8.67{{[0-9]*}}e+01) baseline(1.27{{[0-9]*}}e+02)
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// One GPU has nothing to shard over.
// expected-error@+1 {{needs at least 2 gpus to shard over, got 1}}
plan.disdp @p for @job on @rack ps "ps" gpus 1 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// No micro-batches.
// expected-error@+1 {{micro_batches must be positive, got 0}}
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 0 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// Zero layers.
// expected-error@+1 {{layers must be positive, got 0}}
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 0 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// An empty parameter server.
// expected-error@+1 {{parameter_server must name a device}}
plan.disdp @p for @job on @rack ps "" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// No reducing switch.
// expected-error@+1 {{needs at least one reducing switch}}
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = [], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// A negative duration.
// expected-error@+1 {{ps_update must be finite and non-negative, got -1}}
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.0 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = -1.0 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}

// -----

// A parameter fetch without offloaded parameters.
// expected-error@+1 {{param_fetch needs baseline_offload_params}}
plan.disdp @p for @job on @rack ps "ps" gpus 8 micro_batch 1 x 1 recompute full time(86.7) baseline(127.0) attributes {backward = 0.108 : f64, baseline_memory = 2.0e10 : f64, baseline_optimizer = 0.24 : f64, forward = 0.036 : f64, layers = 96 : i64, memory = 2.0e10 : f64, memory_available = 7.7e10 : f64, net_all_gather = 0.34 : f64, net_reduce_scatter = 0.34 : f64, param_fetch = 0.01 : f64, parameters = 1.7e11 : f64, ps_memory = 2.8e12 : f64, ps_memory_available = 3.9e12 : f64, ps_update = 0.55 : f64, reducers = ["leaf"], ring_all_gather = 0.3 : f64, ring_reduce_scatter = 0.3 : f64}
