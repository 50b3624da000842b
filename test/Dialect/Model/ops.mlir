// RUN: sluice-opt %s | sluice-opt | FileCheck %s

// GPT-3 175B: 96 identical layers are one model.layers op.
// CHECK-LABEL: model.transformer @gpt3 : f16 attributes
// CHECK-SAME: ffn = 49152 : i64, heads = 96 : i64, hidden = 12288 : i64, kv_heads = 96 : i64, layers = 96 : i64, seq = 2048 : i64, vocab = 50257 : i64
// CHECK-NEXT: model.embedding vocab 50257 hidden 12288 positions 2048 : f16
// CHECK-NEXT: model.layers 96 {
// CHECK-NEXT: model.norm layernorm hidden 12288 : f16
// CHECK-NEXT: model.attention hidden 12288 heads 96 kv_heads 96 bias : f16
// CHECK-NEXT: model.norm layernorm hidden 12288 : f16
// CHECK-NEXT: model.mlp hidden 12288 ffn 49152 bias : f16
// CHECK-NEXT: }
// CHECK-NEXT: model.norm layernorm hidden 12288 : f16
// CHECK-NEXT: model.head vocab 50257 hidden 12288 tied : f16
model.transformer @gpt3 : f16 attributes {layers = 96 : i64, hidden = 12288 : i64, heads = 96 : i64, kv_heads = 96 : i64, ffn = 49152 : i64, seq = 2048 : i64, vocab = 50257 : i64} {
  model.embedding vocab 50257 hidden 12288 positions 2048 : f16
  model.layers 96 {
    model.norm layernorm hidden 12288 : f16
    model.attention hidden 12288 heads 96 kv_heads 96 bias : f16
    model.norm layernorm hidden 12288 : f16
    model.mlp hidden 12288 ffn 49152 bias : f16
  }
  model.norm layernorm hidden 12288 : f16
  model.head vocab 50257 hidden 12288 tied : f16
}

// Llama-2 70B: GQA (8 KV heads), SwiGLU, RMSNorm, rotary positions, an
// untied head, bf16; and a model whose layers differ (two model.layers).
// CHECK-LABEL: model.transformer @llama2_70b : bf16
// CHECK: model.embedding vocab 32000 hidden 8192 : bf16
// CHECK: model.attention hidden 8192 heads 64 kv_heads 8 : bf16
// CHECK: model.mlp hidden 8192 ffn 28672 gated : bf16
// CHECK: model.head vocab 32000 hidden 8192 : bf16
model.transformer @llama2_70b : bf16 attributes {layers = 80 : i64, hidden = 8192 : i64, heads = 64 : i64, kv_heads = 8 : i64, ffn = 28672 : i64, seq = 4096 : i64, vocab = 32000 : i64} {
  model.embedding vocab 32000 hidden 8192 : bf16
  model.layers 80 {
    model.norm rmsnorm hidden 8192 : bf16
    model.attention hidden 8192 heads 64 kv_heads 8 : bf16
    model.norm rmsnorm hidden 8192 : bf16
    model.mlp hidden 8192 ffn 28672 gated : bf16
  }
  model.norm rmsnorm hidden 8192 : bf16
  model.head vocab 32000 hidden 8192 : bf16
}

// CHECK-LABEL: model.transformer @mixed : f32
// CHECK: model.layers 2 {
// CHECK: model.layers 1 {
// CHECK-NEXT: model.attention hidden 64 heads 4 kv_heads 4 : f32
// CHECK-NEXT: model.mlp hidden 64 ffn 128 gated bias : f32
model.transformer @mixed : f32 attributes {layers = 3 : i64, hidden = 64 : i64, heads = 4 : i64, kv_heads = 4 : i64, ffn = 128 : i64, seq = 16 : i64, vocab = 100 : i64} {
  model.embedding vocab 100 hidden 64 : f32
  model.layers 2 {
    model.norm layernorm hidden 64 : f32
    model.attention hidden 64 heads 4 kv_heads 4 bias : f32
    model.norm layernorm hidden 64 : f32
    model.mlp hidden 64 ffn 128 : f32
  }
  model.layers 1 {
    model.attention hidden 64 heads 4 kv_heads 4 : f32
    model.mlp hidden 64 ffn 128 gated bias : f32
  }
  model.head vocab 100 hidden 64 : f32
}

// CHECK: model.job @tune finetune @gpt3 on @workstation batch 8 attributes {micro_batch = 4 : i64, optimizer = "adam", recompute = true}
// CHECK: model.job @serve infer @llama2_70b on @workstation attributes {seq = 512 : i64, tokens = 32 : i64}
// CHECK: model.job @pretrain train @gpt3 on @workstation batch 64 attributes {recompute = true}
model.job @tune finetune @gpt3 on @workstation batch 8 attributes {micro_batch = 4 : i64, optimizer = "adam", recompute = true}
model.job @serve infer @llama2_70b on @workstation attributes {seq = 512 : i64, tokens = 32 : i64}
model.job @pretrain train @gpt3 on @workstation batch 64 attributes {recompute = true}
// A finetune job whose schedule pins tiers.
// CHECK: model.job @pinned finetune @gpt3 on @workstation batch 8 attributes {grad_home = #model<tier cpu>, optimizer_home = #model<tier nvme>, param_home = #model<tier nvme>, recompute = false}
model.job @pinned finetune @gpt3 on @workstation batch 8 attributes {grad_home = #model<tier cpu>, optimizer_home = #model<tier nvme>, param_home = #model<tier nvme>, recompute = false}

// A mixture of experts: 8 experts, top 2, capacity factor 1.25.
// CHECK-LABEL: model.transformer @moe
// CHECK: model.mlp hidden 64 ffn 256 gated experts 8 top_k 2 capacity 1.250000e+00 : bf16
model.transformer @moe : bf16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 100 : i64} {
  model.embedding vocab 100 hidden 64 : bf16
  model.layers 2 {
    model.norm rmsnorm hidden 64 : bf16
    model.attention hidden 64 heads 8 kv_heads 8 : bf16
    model.norm rmsnorm hidden 64 : bf16
    model.mlp hidden 64 ffn 256 gated experts 8 top_k 2 capacity 1.25 : bf16
  }
  model.norm rmsnorm hidden 64 : bf16
  model.head vocab 100 hidden 64 : bf16
}
