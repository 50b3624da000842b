// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// model.distill and a distill model.job round trip.

// CHECK: model.distill @kd teacher @t student @s blocks 2
// CHECK: model.job @job distill @kd on @box batch 8
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
model.job @job distill @kd on @box batch 8
// NONE-NOT: error
