// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// The verifiers of model.distill and of distill model.jobs: every message
// quoted.

model.transformer @t : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
model.transformer @s : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
// expected-error@+1 {{teacher and student are the same model 't'}}
model.distill @kd teacher @t student @t blocks 2

// -----

model.transformer @t : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
model.transformer @s : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
// expected-error@+1 {{blocks must be positive, got 0}}
model.distill @kd teacher @t student @s blocks 0

// -----

model.transformer @s : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
// expected-error@+1 {{teacher 'nothing' does not name a model.transformer}}
model.distill @kd teacher @nothing student @s blocks 2

// -----

model.transformer @t : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
model.transformer @s : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
// expected-error@+1 {{blocks (3) exceeds the layers of teacher 't' (2)}}
model.distill @kd teacher @t student @s blocks 3

// -----

model.transformer @t : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
// expected-error@+1 {{'t' does not name a model.distill}}
model.job @job distill @t on @box batch 8

// -----

model.transformer @t : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
model.transformer @s : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 positions 16 : f16
  model.layers 2 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 64 : f16
    model.mlp hidden 64 ffn 256 bias : f16
  }
  model.head vocab 10 hidden 64 tied : f16
}
model.distill @kd teacher @t student @s blocks 2
// expected-error@+1 {{'kd' does not name a model.transformer}}
model.job @job train @kd on @box batch 8
