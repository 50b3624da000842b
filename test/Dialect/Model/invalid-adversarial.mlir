// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// The verifier of model.job's adversarial-training attributes
// (docs/adversarial.md): every message quoted.

// PGD options without a technique.
// expected-error@+1 {{pgd_steps, epsilon, step_size, attack_fraction[_end], pseudo_batches and peer need adversarial}}
model.job @j train @m on @box batch 8 attributes {pgd_steps = 3 : i64}

// -----

// expected-error@+1 {{adversarial applies to train jobs only}}
model.job @j finetune @m on @box batch 8 attributes {adversarial = "pgd"}

// -----

// expected-error@+1 {{adversarial must be pgd, dbac or peeraid, got 'fgsm'}}
model.job @j train @m on @box batch 8 attributes {adversarial = "fgsm"}

// -----

// expected-error@+1 {{pgd_steps must lie in [1, 1000], got 0}}
model.job @j train @m on @box batch 8 attributes {adversarial = "pgd", pgd_steps = 0 : i64}

// -----

// expected-error@+1 {{epsilon must be positive, got 0}}
model.job @j train @m on @box batch 8 attributes {adversarial = "pgd", epsilon = 0.0 : f64}

// -----

// expected-error@+1 {{attack_fraction must lie in [0, 1], got 1.5}}
model.job @j train @m on @box batch 8 attributes {adversarial = "pgd", attack_fraction = 1.5 : f64}

// -----

// expected-error@+1 {{attack_fraction_end and pseudo_batches need adversarial dbac}}
model.job @j train @m on @box batch 8 attributes {adversarial = "pgd", pseudo_batches = 2 : i64}

// -----

// expected-error@+1 {{adversarial dbac needs steps}}
model.job @j train @m on @box batch 8 attributes {adversarial = "dbac"}

// -----

// DBAC's attacked fraction grows.
// expected-error@+1 {{attack_fraction must not exceed attack_fraction_end}}
model.job @j train @m on @box batch 8 attributes {adversarial = "dbac", steps = 10 : i64, attack_fraction = 0.9 : f64, attack_fraction_end = 0.5 : f64}

// -----

// expected-error@+1 {{pseudo_batches must be positive, got 0}}
model.job @j train @m on @box batch 8 attributes {adversarial = "dbac", steps = 10 : i64, pseudo_batches = 0 : i64}

// -----

// expected-error@+1 {{peer is needed by, and only by, adversarial peeraid}}
model.job @j train @m on @box batch 8 attributes {adversarial = "peeraid"}

// -----

// expected-error@+1 {{peer is needed by, and only by, adversarial peeraid}}
model.job @j train @m on @box batch 8 attributes {adversarial = "pgd", peer = @p}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 1 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 : f16
}
// expected-error@+1 {{peer 'nowhere' does not name a model.transformer}}
model.job @j train @m on @box batch 8 attributes {adversarial = "peeraid", peer = @nowhere}
