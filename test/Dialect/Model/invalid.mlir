// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{hidden 100 is not a multiple of heads 3}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 100 : i64, heads = 3 : i64, kv_heads = 3 : i64, ffn = 400 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 100 : f16
  model.head vocab 10 hidden 100 : f16
}

// -----

// expected-error@+1 {{heads 8 is not a multiple of kv_heads 3}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 3 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{seq must be positive, got 0}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 0 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{dtype must be a float type, got 'i32'}}
model.transformer @m : i32 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{has 2 layers in its model.layers ops but declares 3}}
model.transformer @m : f16 attributes {layers = 3 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 2 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{must begin with a model.embedding}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{must end with a model.head}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  // expected-error@+1 {{must be the last op of its model.transformer}}
  model.head vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    // expected-error@+1 {{'model.attention' op kv_heads 4 does not match the model's 8}}
    model.attention hidden 64 heads 8 kv_heads 4 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{no model.mlp has the model's ffn 256 (ffn is the widest MLP of the layers)}}
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 128 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// Layer groups may have different MLP widths, none wider than ffn.
model.transformer @m : f16 attributes {layers = 2 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    // expected-error@+1 {{'model.mlp' op ffn 512 exceeds the model's ffn 256 (the widest MLP)}}
    model.mlp hidden 64 ffn 512 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  // expected-error@+1 {{positions 32 does not match the model's 16}}
  model.embedding vocab 10 hidden 64 positions 32 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  // expected-error@+1 {{a layer needs a model.attention and a model.mlp}}
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  // expected-error@+1 {{count must be positive, got 0}}
  model.layers 0 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    // expected-error@+1 {{'model.attention' op hidden 64 is not a multiple of heads 7}}
    model.attention hidden 64 heads 7 kv_heads 7 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    // expected-error@+1 {{'model.mlp' op dtype must be a float type, got 'i8'}}
    model.mlp hidden 64 ffn 256 : i8
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// expected-error@+1 {{'model.attention' op expects parent op 'model.layers'}}
model.attention hidden 64 heads 8 kv_heads 8 : f16

// -----

// expected-error@+1 {{'nope' does not name a model.transformer}}
model.job @j finetune @nope on @box batch 8

// -----

// expected-error@+1 {{micro_batch 3 must be positive and divide batch 8}}
model.job @j finetune @m on @box batch 8 attributes {micro_batch = 3 : i64}

// -----

// expected-error@+1 {{a finetune job needs batch}}
model.job @j finetune @m on @box

// -----

// A train job needs its batch too.
// expected-error@+1 {{a train job needs batch}}
model.job @j train @m on @box

// -----

// expected-error@+1 {{an infer job needs tokens}}
model.job @j infer @m on @box

// -----

// expected-error@+1 {{tokens applies to infer jobs only}}
model.job @j finetune @m on @box batch 8 attributes {tokens = 4 : i64}

// -----

// A second embedding after the first op.
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  // expected-error@+1 {{'model.embedding' op must be the first op of its model.transformer}}
  model.embedding vocab 10 hidden 64 : f16
  model.head vocab 10 hidden 64 : f16
}

// -----

// A layer holds only norms, attention and MLPs.
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    // expected-error@+1 {{'builtin.unrealized_conversion_cast' op is not allowed in model.layers}}
    %c = builtin.unrealized_conversion_cast to i64
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// micro_batch splits a batch the job does not give.
// expected-error@+1 {{'model.job' op micro_batch needs batch}}
model.job @j infer @m on @box attributes {micro_batch = 2 : i64, tokens = 4 : i64}

// -----

// Grouped-query attention whose key/value heads do not divide the heads
// (checked on the block, before its model's hyper-parameters).
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    // expected-error@+1 {{'model.attention' op heads 8 is not a multiple of kv_heads 3}}
    model.attention hidden 64 heads 8 kv_heads 3 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

// A batch of no sequences.
// expected-error@+1 {{'model.job' op batch must be positive, got 0}}
model.job @j finetune @m on @box batch 0

// -----

// A job that runs no steps.
// expected-error@+1 {{'model.job' op steps must be positive, got 0}}
model.job @j finetune @m on @box batch 8 attributes {steps = 0 : i64}

// -----

// Tiers are pinned for finetune jobs only.
// expected-error@+1 {{'model.job' op param_home, grad_home and optimizer_home apply to finetune jobs only}}
model.job @j infer @m on @box attributes {tokens = 4 : i64, param_home = #model<tier nvme>}

// -----

// Optimizer states are never planned on the GPU.
// expected-error@+1 {{'model.job' op optimizer_home must be cpu, nvme or csd}}
model.job @j finetune @m on @box batch 8 attributes {optimizer_home = #model<tier gpu>}

// -----

// Gradients go to the optimizer: the CPU or computational storage.
// expected-error@+1 {{'model.job' op grad_home must be cpu or csd, got nvme}}
model.job @j finetune @m on @box batch 8 attributes {grad_home = #model<tier nvme>}

// -----

// A CSD update needs the optimizer states on the CSDs.
// expected-error@+1 {{'model.job' op grad_home csd needs optimizer_home csd}}
model.job @j finetune @m on @box batch 8 attributes {grad_home = #model<tier csd>, optimizer_home = #model<tier nvme>}

// -----

// expected-error@+1 {{lora_rank applies to finetune jobs only}}
model.job @j train @m on @box batch 8 attributes {lora_rank = 16 : i64}

// -----

// expected-error@+1 {{lora_rank must lie in [1, 65536], got 0}}
model.job @j finetune @m on @box batch 8 attributes {lora_rank = 0 : i64}

// -----

// expected-error@+1 {{quantize needs lora_rank (QLoRA quantizes the frozen base of a LoRA fine-tune)}}
model.job @j finetune @m on @box batch 8 attributes {quantize = #model<weight_quant nf4>}

// -----

// Optimus-CC compression is for train jobs only.
// expected-error@+1 {{compress and compress_rank apply to train jobs only}}
model.job @j finetune @m on @box batch 8 attributes {compress = true}

// -----

// A rank of zero.
// expected-error@+1 {{compress_rank must be positive, got 0}}
model.job @j train @m on @box batch 8 attributes {compress = true, compress_rank = 0 : i64}

// -----

// A rank without compression: compression is opt-in.
// expected-error@+1 {{compress_rank needs compress = true}}
model.job @j train @m on @box batch 8 attributes {compress = false, compress_rank = 16 : i64}

// -----

// DisDP's parameter server is for train jobs only.
// expected-error@+1 {{parameter_server applies to train jobs only}}
model.job @j finetune @m on @box batch 8 attributes {parameter_server = "ps"}

// -----

// expected-error@+1 {{parameter_server must name a device}}
model.job @j train @m on @box batch 8 attributes {parameter_server = ""}

// -----

// expected-error@+1 {{parameter_server and compress do not combine (DisDP plans ZeRO-3 data parallelism)}}
model.job @j train @m on @box batch 8 attributes {parameter_server = "ps", compress = true}

// -----

// FlexGen's compression is for infer jobs only.
// expected-error@+1 {{compress_tensors applies to infer jobs only}}
model.job @j finetune @m on @box batch 8 attributes {compress_tensors = #model<compressed_tensors all>}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.norm layernorm hidden 64 : f16
    // expected-error@+1 {{experts, top_k and capacity come together (a mixture of experts) or not at all}}
    model.mlp hidden 64 ffn 256 {experts = 8 : i64, top_k = 2 : i64} : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.norm layernorm hidden 64 : f16
    // expected-error@+1 {{experts must be between 2 and 65536, got 1}}
    model.mlp hidden 64 ffn 256 {experts = 1 : i64, top_k = 1 : i64, capacity = 1.0 : f64} : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.norm layernorm hidden 64 : f16
    // expected-error@+1 {{top_k must be between 1 and experts (4), got 5}}
    model.mlp hidden 64 ffn 256 {experts = 4 : i64, top_k = 5 : i64, capacity = 1.0 : f64} : f16
  }
  model.head vocab 10 hidden 64 : f16
}

// -----

model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.norm layernorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.norm layernorm hidden 64 : f16
    // expected-error@+1 {{capacity must be in (0, 64.00], got 0.00}}
    model.mlp hidden 64 ffn 256 {experts = 4 : i64, top_k = 2 : i64, capacity = 0.0 : f64} : f16
  }
  model.head vocab 10 hidden 64 : f16
}
