// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// The verifier of plan.parallel's adversarial-training attributes
// (docs/adversarial.md): every message quoted.

// An epoch with the technique but none without.
// expected-error@+1 {{adversarial_epoch and plain_epoch come together; attack_time and peer_time need them}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.0 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, adversarial_epoch = 10.0 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]"]
}

// -----

// An attack time without the epochs.
// expected-error@+1 {{adversarial_epoch and plain_epoch come together; attack_time and peer_time need them}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.0 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, attack_time = 1.0 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]"]
}

// -----

// Adversarial training faster than plain training.
// expected-error@+1 {{adversarial_epoch 1.000000e+00 is below plain_epoch 2.000000e+00}}
plan.parallel @p for @job on @box tp 1 pp 1 dp 1 micro_batch 1 x 8 virtual 1 recompute none zero 0 placement "exact" time(1.5) attributes {default_time = 1.6 : f64, forward = 0.05 : f64, backward = 0.1 : f64, p2p = 0.0 : f64, data_comm = 0.0 : f64, tflops = 80.0 : f64, mfu = 0.48 : f64, memory = 1.8e10 : f64, memory_available = 2.3e10 : f64, adversarial_epoch = 1.0 : f64, plain_epoch = 2.0 : f64} {
  plan.stage 0 layers [0] x 10 gpus ["gpu[0]"]
}
