// RUN: sluice-opt %s -split-input-file -model-plan-parallel -verify-diagnostics | FileCheck %s
// RUN: sluice-opt %s -split-input-file '-model-plan-parallel=placement=false seed=7 anneal-iterations=10' -verify-diagnostics | FileCheck %s --check-prefix=NOPLACE
// RUN: not sluice-opt %s -split-input-file '-model-plan-parallel=remarks=true' 2>&1 | FileCheck %s --check-prefix=REMARK
//
// The cluster is the flat topology's gpus grouped by top-level instance;
// the model the job's model.transformer. Numbers are not pinned beyond what
// the cases are about (the formulas are unit tested in
// test/Unit/Parallel).

// Two hosts of two GPUs on 300 GB/s links, 1 GB/s between the hosts: the
// pipeline crosses the slow link once per stage boundary, data parallelism
// stays inside the hosts. Every placement costs the same (uniform links).
// CHECK-LABEL: plan.parallel @pretrain_parallel for @pretrain on @box tp 1 pp 2 dp 2 micro_batch 1 x 8 virtual 1 recompute none zero 1 placement "uniform-links" time(
// CHECK-NEXT:    plan.stage 0 layers [0] x 4 gpus ["a.gpu[0]", "a.gpu[1]"]
// CHECK-NEXT:    plan.stage 1 layers [4] x 4 gpus ["b.gpu[0]", "b.gpu[1]"]
// CHECK-NEXT:  }
// CHECK-NOT: plan.parallel
// NOPLACE-LABEL: plan.parallel @pretrain_parallel for @pretrain on @box tp 1 pp 2 dp 2 {{.*}} placement "default"
// REMARK: remark: job 'pretrain': 369 configurations, rejected 45 by divisibility, 30 by tensor-parallel span, 0 by GPU memory; {{[0-9]+}} costed; tp 1 pp 2 dp 2 b 1 no-recompute zero 0:
topo.topology @box flat {
  topo.device @"a.gpu[0]" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"a.gpu[1]" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"b.gpu[0]" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"b.gpu[1]" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @sw kind(switch)
  topo.link "a.gpu[0]" <-> "a.gpu[1]" {bandwidth = #topo.q<300 GB/s>, latency = #topo.q<1 us>}
  topo.link "b.gpu[0]" <-> "b.gpu[1]" {bandwidth = #topo.q<300 GB/s>, latency = #topo.q<1 us>}
  topo.link "a.gpu[0]" <-> sw {bandwidth = #topo.q<1 GB/s>, latency = #topo.q<5 us>}
  topo.link "a.gpu[1]" <-> sw {bandwidth = #topo.q<1 GB/s>, latency = #topo.q<5 us>}
  topo.link "b.gpu[0]" <-> sw {bandwidth = #topo.q<1 GB/s>, latency = #topo.q<5 us>}
  topo.link "b.gpu[1]" <-> sw {bandwidth = #topo.q<1 GB/s>, latency = #topo.q<5 us>}
}
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
model.job @pretrain train @gpt on @box batch 16

// -----

// Four hosts of one GPU; the measured pairs h0-h1 and h2-h3 attain 0.5
// GB/s, the rest 10 GB/s through the switch. Megatron-LM's order puts
// consecutive stages on both slow pairs; the exact search over the 4!
// placements orders the stages h0, h2, h1, h3 and predicts a third of the
// time.
// CHECK-LABEL: plan.parallel @pretrain_parallel for @pretrain on @ring tp 1 pp 4 dp 1 micro_batch 1 x 32 virtual 1 recompute none zero 0 placement "exact" time(0.16{{[0-9]*}})
// CHECK-SAME:    default_time = 0.46{{[0-9]*}} : f64
// CHECK-NEXT:    plan.stage 0 layers [0] x 2 gpus ["h0.gpu"]
// CHECK-NEXT:    plan.stage 1 layers [2] x 2 gpus ["h2.gpu"]
// CHECK-NEXT:    plan.stage 2 layers [4] x 2 gpus ["h1.gpu"]
// CHECK-NEXT:    plan.stage 3 layers [6] x 2 gpus ["h3.gpu"]
// NOPLACE-LABEL: plan.parallel @pretrain_parallel for @pretrain on @ring tp 1 pp 4 dp 1 {{.*}} placement "default" time(0.46{{[0-9]*}})
// NOPLACE-NEXT:    plan.stage 0 layers [0] x 2 gpus ["h0.gpu"]
// NOPLACE-NEXT:    plan.stage 1 layers [2] x 2 gpus ["h1.gpu"]
topo.topology @ring flat {
  topo.device @"h0.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<16 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"h1.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<16 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"h2.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<16 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"h3.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<16 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @sw kind(switch)
  topo.link "h0.gpu" <-> sw {bandwidth = #topo.q<10 GB/s>, latency = #topo.q<2 us>}
  topo.link "h1.gpu" <-> sw {bandwidth = #topo.q<10 GB/s>, latency = #topo.q<2 us>}
  topo.link "h2.gpu" <-> sw {bandwidth = #topo.q<10 GB/s>, latency = #topo.q<2 us>}
  topo.link "h3.gpu" <-> sw {bandwidth = #topo.q<10 GB/s>, latency = #topo.q<2 us>}
  topo.link "h0.gpu" -> "h1.gpu" measured {bandwidth = #topo.q<0.5 GB/s>}
  topo.link "h1.gpu" -> "h0.gpu" measured {bandwidth = #topo.q<0.5 GB/s>}
  topo.link "h2.gpu" -> "h3.gpu" measured {bandwidth = #topo.q<0.5 GB/s>}
  topo.link "h3.gpu" -> "h2.gpu" measured {bandwidth = #topo.q<0.5 GB/s>}
}
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 2048 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 8192 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 2048 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 2048 : f16
    model.attention hidden 2048 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 2048 : f16
    model.mlp hidden 2048 ffn 8192 bias : f16
  }
  model.norm layernorm hidden 2048 : f16
  model.head vocab 1024 hidden 2048 tied : f16
}
model.job @pretrain train @gpt on @ring batch 32

// -----

// Two 4 GiB GPUs and a model of 4.9 billion parameters: nothing fits; the
// error names GPU memory with the numbers of the configuration that came
// closest.
topo.topology @box flat {
  topo.device @"gpu[0]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<4 GiB>}
  topo.device @"gpu[1]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<4 GiB>}
  topo.device @cpu kind(cpu)
  topo.link cpu <-> "gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link cpu <-> "gpu[1]" {bandwidth = #topo.q<25 GB/s>}
}
model.transformer @gpt : f16 attributes {layers = 48 : i64, hidden = 4096 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 4096 : i64, vocab = 4096 : i64} {
  model.embedding vocab 4096 hidden 4096 positions 4096 : f16
  model.layers 48 {
    model.norm layernorm hidden 4096 : f16
    model.attention hidden 4096 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 4096 : f16
    model.mlp hidden 4096 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 4096 : f16
  model.head vocab 4096 hidden 4096 tied : f16
}
// expected-error@+1 {{job 'pretrain' does not fit on 'box': GPU memory: the configuration needing the least (tp 1 pp 1 dp 2 b 1 full zero 3) needs}}
model.job @pretrain train @gpt on @box batch 8

// -----

// The job names a topology that is not the flat one.
topo.topology @box flat {
  topo.device @"gpu[0]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<4 GiB>}
  topo.device @"gpu[1]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<4 GiB>}
  topo.device @cpu kind(cpu)
  topo.link cpu <-> "gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link cpu <-> "gpu[1]" {bandwidth = #topo.q<25 GB/s>}
}
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
// expected-error@+1 {{job 'pretrain' runs on 'other' but the flattened topology is 'box' (pass --top=other)}}
model.job @pretrain train @gpt on @other batch 8

// -----

// Hosts of different sizes.
topo.topology @box flat {
  topo.device @"a.gpu[0]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<24 GiB>}
  topo.device @"a.gpu[1]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<24 GiB>}
  topo.device @"b.gpu[0]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<24 GiB>}
  topo.link "a.gpu[0]" <-> "b.gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link "a.gpu[1]" <-> "b.gpu[0]" {bandwidth = #topo.q<25 GB/s>}
}
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
// expected-error@+1 {{cannot plan job 'pretrain' on 'box': host 'b' has 1 gpus but 'a' has 2 (the parallel planner needs the same number of gpus in every host)}}
model.job @pretrain train @gpt on @box batch 8

// -----

// Layer groups of different widths: not modeled yet.
topo.topology @box flat {
  topo.device @"gpu[0]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<24 GiB>}
  topo.device @"gpu[1]" kind(gpu) props {compute = #topo.q<165 TFLOPS>, memory = #topo.q<24 GiB>}
  topo.device @cpu kind(cpu)
  topo.link cpu <-> "gpu[0]" {bandwidth = #topo.q<25 GB/s>}
  topo.link cpu <-> "gpu[1]" {bandwidth = #topo.q<25 GB/s>}
}
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 4 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.layers 4 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 2048 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
// expected-error@+1 {{not supported yet: parallel planning of model 'gpt' (its layers differ; the planner models one layer group)}}
model.job @pretrain train @gpt on @box batch 8

// -----

// No flat topology: run topo-flatten first.
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
// expected-error@+1 {{model-plan-parallel needs the flat topology (run topo-flatten)}}
model.job @pretrain train @gpt on @box batch 8

// -----

// Jobs other than train are left alone (the offload planners plan them).
// CHECK-LABEL: model.job @tune finetune
// CHECK-NOT: plan.parallel
model.transformer @gpt : f16 attributes {layers = 8 : i64, hidden = 1024 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 4096 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 1024 positions 1024 : f16
  model.layers 8 {
    model.norm layernorm hidden 1024 : f16
    model.attention hidden 1024 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 1024 : f16
    model.mlp hidden 1024 ffn 4096 bias : f16
  }
  model.norm layernorm hidden 1024 : f16
  model.head vocab 1024 hidden 1024 tied : f16
}
model.job @tune finetune @gpt on @box batch 8
