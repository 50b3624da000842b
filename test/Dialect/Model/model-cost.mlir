// RUN: sluice-opt %s -model-cost | FileCheck %s
// RUN: sluice-opt %s -model-cost=micro-batch=4 | FileCheck %s --check-prefix=MB4
// RUN: not sluice-opt %s -model-cost=micro-batch=0 2>&1 | FileCheck %s --check-prefix=BAD
//
// The expected numbers are the closed forms of
// shared/reference/planning-models.md, evaluated independently of the pass:
//   GPT:   N = L(12h^2 + 13h) + Vh + sh + 2h; activations per layer
//          sbh(34 + 5as/h), 34sbh selective, 2sbh full; training FLOPs per
//          token 72Lh^2(1 + s/6h + V/12Lh), 96Lh^2(1 + s/6h + V/16Lh) with
//          recomputation; KV cache 4Lh bytes per token (fp16).
//   Llama-2 70B: N = 68,976,648,192 (SluiceModelCost's test), KV cache
//          2 * L * 8 * 128 * 2 = 320 KiB per token.

// BAD: micro-batch must be positive, got 0

// GPT-3 175B (L96, h12288, a96, s2048, V50257), fp16.
// CHECK-LABEL: model.transformer @gpt3
// CHECK-SAME: act_bytes = 275414777856 : i64
// CHECK-SAME: act_bytes_full = 4831838208 : i64
// CHECK-SAME: act_bytes_selective = 82141249536 : i64
// CHECK-SAME: cross_checked
// CHECK-SAME: grad_bytes = 349208518656 : i64
// CHECK-SAME: kv_cache_bytes_per_token = 4718592 : i64
// CHECK-SAME: optimizer_bytes = 2095251111936 : i64
// CHECK-SAME: param_bytes = 349208518656 : i64
// CHECK-SAME: params = 174604259328 : i64
// CHECK-SAME: train_flops_per_token = 1076373430272 : i64
// CHECK-SAME: train_flops_per_token_recompute = 1433929457664 : i64
// Per block: the embedding V*h + s*h, a layer 12h^2 + 13h.
// CHECK-NEXT: model.embedding {{.*}}params = 642723840 : i64
// CHECK-NEXT: model.layers 96 attributes {{.*}}params = 173961510912 : i64
// CHECK-NEXT: model.norm {{.*}}act_bytes = 50331648 : i64{{.*}}params = 24576 : i64
// 11sbh + 5as^2b; 11sbh; 8h^2 FLOPs per token + 4s^2h; 4h^2 + 4h.
// CHECK-NEXT: model.attention {{.*}}act_bytes = 2290089984 : i64, act_bytes_selective = 276824064 : i64, fwd_flops = 2680059592704 : i64, params = 604028928 : i64
// CHECK-NEXT: model.norm
// 19sbh; 16h^2 FLOPs per token; 8h^2 + 5h.
// CHECK-NEXT: model.mlp {{.*}}act_bytes = 478150656 : i64{{.*}}fwd_flops = 4947802324992 : i64, params = 1208020992 : i64
// The tied head: no parameters, 2shV FLOPs.
// CHECK: model.head {{.*}}fwd_flops = 2529517633536 : i64, params = 0 : i64
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

// Ratel's 13B (L40, h5120, a40), sequence 1024: 12.85B parameters.
// CHECK-LABEL: model.transformer @gpt_13b
// CHECK-SAME: act_bytes = 15518924800 : i64
// CHECK-SAME: act_bytes_full = 419430400 : i64
// CHECK-SAME: act_bytes_selective = 7130316800 : i64
// CHECK-SAME: cross_checked
// CHECK-SAME: optimizer_bytes = 154177720320 : i64
// CHECK-SAME: params = 12848143360 : i64
// CHECK-SAME: train_flops_per_token = 79557949440 : i64
// CHECK-SAME: train_flops_per_token_recompute = 105562634240 : i64
// Four sequences per micro-batch: activations x4, nothing else changes.
// MB4-LABEL: model.transformer @gpt_13b
// MB4-SAME: act_bytes = 62075699200 : i64
// MB4-SAME: act_bytes_full = 1677721600 : i64
// MB4-SAME: act_bytes_selective = 28521267200 : i64
// MB4-SAME: micro_batch = 4 : i64
// MB4-SAME: params = 12848143360 : i64
// MB4-SAME: train_flops_per_token = 79557949440 : i64
model.transformer @gpt_13b : f16 attributes {layers = 40 : i64, hidden = 5120 : i64, heads = 40 : i64, kv_heads = 40 : i64, ffn = 20480 : i64, seq = 1024 : i64, vocab = 50257 : i64} {
  model.embedding vocab 50257 hidden 5120 positions 1024 : f16
  model.layers 40 {
    model.norm layernorm hidden 5120 : f16
    model.attention hidden 5120 heads 40 kv_heads 40 bias : f16
    model.norm layernorm hidden 5120 : f16
    model.mlp hidden 5120 ffn 20480 bias : f16
  }
  model.norm layernorm hidden 5120 : f16
  model.head vocab 50257 hidden 5120 tied : f16
}

// Llama-2 70B: GQA 64/8, SwiGLU 28672, RMSNorm, rotary, untied head, bf16.
// CHECK-LABEL: model.transformer @llama2_70b
// CHECK-SAME: act_bytes = 520764784640 : i64
// CHECK-SAME: act_bytes_full = 5368709120 : i64
// CHECK-SAME: act_bytes_selective = 91268055040 : i64
// CHECK-SAME: cross_checked
// CHECK-SAME: grad_bytes = 137953296384 : i64
// CHECK-SAME: kv_cache_bytes_per_token = 327680 : i64
// CHECK-SAME: optimizer_bytes = 827719778304 : i64
// CHECK-SAME: params = 68976648192 : i64
// CHECK-SAME: train_flops_per_token = 444491366400 : i64
// CHECK-SAME: train_flops_per_token_recompute = 592130867200 : i64
// Rotary positions: the embedding is V*h only; the untied head V*h too.
// CHECK-NEXT: model.embedding {{.*}}params = 262144000 : i64
// GQA: Q and O are h x h, K and V h x 1024.
// CHECK: model.attention {{.*}}params = 150994944 : i64
// CHECK: model.mlp {{.*}}params = 704643072 : i64
// CHECK: model.head {{.*}}params = 262144000 : i64
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

// Layers that differ: costed block by block, not cross-checked (no
// TransformerConfig describes it). Layer 1: 4h^2+4h + 2hf+f+h + 2*2h;
// layer 2: 4h^2 + 3hf+2f+h. With h 64, f 128, V 100: 33472 per layer and
// 41280; the embedding and the untied head 6400 each: 121024 in all.
// CHECK-LABEL: model.transformer @mixed
// CHECK-NOT: cross_checked
// CHECK-SAME: params = 121024 : i64
// CHECK: model.layers 2 attributes {{.*}}params = 66944 : i64
// CHECK: model.layers 1 attributes {{.*}}params = 41280 : i64
model.transformer @mixed : f32 attributes {layers = 3 : i64, hidden = 64 : i64, heads = 4 : i64, kv_heads = 4 : i64, ffn = 128 : i64, seq = 16 : i64, vocab = 100 : i64} {
  model.embedding vocab 100 hidden 64 : f32
  model.layers 2 {
    model.norm layernorm hidden 64 : f32
    model.attention hidden 64 heads 4 kv_heads 4 bias : f32
    model.norm layernorm hidden 64 : f32
    model.mlp hidden 64 ffn 128 bias : f32
  }
  model.layers 1 {
    model.attention hidden 64 heads 4 kv_heads 4 : f32
    model.mlp hidden 64 ffn 128 gated bias : f32
  }
  model.head vocab 100 hidden 64 : f32
}

// Jobs get the costs the offload planners read, at the job's sequence
// length (8 here; the model's 16 without one), per sequence. Group 1 (2
// layers): attention 2*s*4h^2 + 4*s^2*h = 278528 FLOPs, MLP 2*s*2hf =
// 262144; activations 2*2sh (norms) + 11sh + 5as^2 + 19sh = 18688 bytes,
// 17408 selective. Group 2: the gated MLP 2*s*3hf = 393216 FLOPs; no norms:
// 16640 and 15360 bytes. The logits 2*s*h*V = 102400 FLOPs; the embedding
// and the head 12800 parameters. SGD keeps 8 optimizer bytes per parameter;
// f32 weights 4. KV cache 2 * L * kv_dim * 4 = 1536 bytes per token.
// CHECK-LABEL: model.job @tune finetune @mixed on @box batch 2 attributes
// CHECK-SAME: cost_seq = 8 : i64
// CHECK-SAME: grad_bytes = 484096 : i64, head_fwd_flops = 102400 : i64, kv_cache_bytes_per_token = 1536 : i64
// CHECK-SAME: layer_costs = [{act_bytes = 18688 : i64, act_bytes_selective = 17408 : i64, count = 2 : i64, ffn = 128 : i64, fwd_flops = 540672 : i64, gated = false, heads = 4 : i64, hidden = 64 : i64, kv_dim = 64 : i64, params = 33472 : i64}, {act_bytes = 16640 : i64, act_bytes_selective = 15360 : i64, count = 1 : i64, ffn = 128 : i64, fwd_flops = 671744 : i64, gated = true, heads = 4 : i64, hidden = 64 : i64, kv_dim = 64 : i64, params = 41280 : i64}]
// CHECK-SAME: optimizer_bytes = 968192 : i64, other_params = 12800 : i64, param_bytes = 484096 : i64, params = 121024 : i64
model.job @tune finetune @mixed on @box batch 2 attributes {optimizer = "sgd", seq = 8 : i64}
// CHECK-LABEL: model.job @serve infer @mixed on @box attributes
// CHECK-SAME: cost_seq = 16 : i64
// CHECK-SAME: optimizer_bytes = 1452288 : i64
model.job @serve infer @mixed on @box attributes {tokens = 4 : i64}

// Mixtral 8x7B: 8 SwiGLU experts per layer, 2 per token. Every expert's
// parameters count (46.7B in all, as published) plus the 4096 x 8 router;
// a token's FLOPs are two experts' and the router's:
// 2 * 4096 * (2 * 3 * 4096 * 14336 + 4096 * 8). Cross-checked against
// SluiceModelCost's closed forms.
// CHECK-LABEL: model.transformer @mixtral
// CHECK-SAME: cross_checked
// CHECK-SAME: params = 46702792704 : i64
// CHECK: model.mlp hidden 4096 ffn 14336 gated experts 8 top_k 2 capacity 1.000000e+00 {{.*}}fwd_flops = 2886486458368 : i64, params = 1409318912 : i64
model.transformer @mixtral : bf16 attributes {layers = 32 : i64, hidden = 4096 : i64, heads = 32 : i64, kv_heads = 8 : i64, ffn = 14336 : i64, seq = 4096 : i64, vocab = 32000 : i64} {
  model.embedding vocab 32000 hidden 4096 : bf16
  model.layers 32 {
    model.norm rmsnorm hidden 4096 : bf16
    model.attention hidden 4096 heads 32 kv_heads 8 : bf16
    model.norm rmsnorm hidden 4096 : bf16
    model.mlp hidden 4096 ffn 14336 gated experts 8 top_k 2 capacity 1.0 : bf16
  }
  model.norm rmsnorm hidden 4096 : bf16
  model.head vocab 32000 hidden 4096 : bf16
}
