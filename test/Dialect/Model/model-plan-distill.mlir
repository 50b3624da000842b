// RUN: sluice-opt %s -split-input-file -model-plan-distill -verify-diagnostics | FileCheck %s
// RUN: sluice-opt %s -split-input-file '-model-plan-distill=job=other' | FileCheck %s --check-prefix=OTHER
// RUN: not sluice-opt %s -split-input-file '-model-plan-distill=remarks=true' 2>&1 | FileCheck %s --check-prefix=REMARK
//
// The cluster is the flat topology's gpus (as model-plan-parallel); the
// blocks' costs come from the teacher's and the student's
// model.transformer. Numbers are not pinned beyond what the cases are
// about (the planner is unit tested in test/Unit/Parallel/PipeBDTest.cpp,
// the costs against textbook counts in test/Plan/emit-plan-distill.test).

// Two hosts of two GPUs, 1 GB/s between the hosts: a teacher of 16 wide
// layers and a narrow student in 4 blocks. Every teacher block runs once;
// the stages cover the blocks in order on distinct GPUs.
// CHECK-LABEL: plan.distill @kd_job_distill for @kd_job on @box batch 32 time(
// CHECK-NEXT:    plan.distill_stage 0 blocks 0 x
// CHECK-NOT: plan.distill @
// OTHER-NOT: plan.distill @
// REMARK: remark: job 'kd_job': {{[1-4]}} stages for 4 blocks on 4 GPUs; {{[0-9.]+}} {{m?}}s per batch against {{[0-9.]+}} {{m?}}s block by block
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
model.transformer @teacher : f16 attributes {layers = 16 : i64, hidden = 2048 : i64, heads = 16 : i64, kv_heads = 16 : i64, ffn = 8192 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 2048 positions 1024 : f16
  model.layers 16 {
    model.norm layernorm hidden 2048 : f16
    model.attention hidden 2048 heads 16 kv_heads 16 bias : f16
    model.norm layernorm hidden 2048 : f16
    model.mlp hidden 2048 ffn 8192 bias : f16
  }
  model.norm layernorm hidden 2048 : f16
  model.head vocab 1024 hidden 2048 tied : f16
}
model.transformer @student : f16 attributes {layers = 4 : i64, hidden = 512 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 2048 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 512 positions 1024 : f16
  model.layers 4 {
    model.norm layernorm hidden 512 : f16
    model.attention hidden 512 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 512 : f16
    model.mlp hidden 512 ffn 2048 bias : f16
  }
  model.norm layernorm hidden 512 : f16
  model.head vocab 1024 hidden 512 tied : f16
}
model.distill @kd teacher @teacher student @student blocks 4
model.job @kd_job distill @kd on @box batch 32

// -----

// A job on another topology than the flat one.
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
model.transformer @teacher : f16 attributes {layers = 2 : i64, hidden = 512 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 2048 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 512 positions 1024 : f16
  model.layers 2 {
    model.norm layernorm hidden 512 : f16
    model.attention hidden 512 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 512 : f16
    model.mlp hidden 512 ffn 2048 bias : f16
  }
  model.norm layernorm hidden 512 : f16
  model.head vocab 1024 hidden 512 tied : f16
}
model.transformer @student : f16 attributes {layers = 2 : i64, hidden = 256 : i64, heads = 4 : i64, kv_heads = 4 : i64, ffn = 1024 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 256 positions 1024 : f16
  model.layers 2 {
    model.norm layernorm hidden 256 : f16
    model.attention hidden 256 heads 4 kv_heads 4 bias : f16
    model.norm layernorm hidden 256 : f16
    model.mlp hidden 256 ffn 1024 bias : f16
  }
  model.norm layernorm hidden 256 : f16
  model.head vocab 1024 hidden 256 tied : f16
}
model.distill @kd teacher @teacher student @student blocks 2
// expected-error@+1 {{job 'elsewhere' runs on 'other' but the flattened topology is 'box' (pass --top=other)}}
model.job @elsewhere distill @kd on @other batch 8

// -----

// No flat topology.
model.transformer @teacher : f16 attributes {layers = 2 : i64, hidden = 512 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 2048 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 512 positions 1024 : f16
  model.layers 2 {
    model.norm layernorm hidden 512 : f16
    model.attention hidden 512 heads 8 kv_heads 8 bias : f16
    model.norm layernorm hidden 512 : f16
    model.mlp hidden 512 ffn 2048 bias : f16
  }
  model.norm layernorm hidden 512 : f16
  model.head vocab 1024 hidden 512 tied : f16
}
model.transformer @student : f16 attributes {layers = 2 : i64, hidden = 256 : i64, heads = 4 : i64, kv_heads = 4 : i64, ffn = 1024 : i64, seq = 1024 : i64, vocab = 1024 : i64} {
  model.embedding vocab 1024 hidden 256 positions 1024 : f16
  model.layers 2 {
    model.norm layernorm hidden 256 : f16
    model.attention hidden 256 heads 4 kv_heads 4 bias : f16
    model.norm layernorm hidden 256 : f16
    model.mlp hidden 256 ffn 1024 bias : f16
  }
  model.norm layernorm hidden 256 : f16
  model.head vocab 1024 hidden 256 tied : f16
}
model.distill @kd teacher @teacher student @student blocks 2
// expected-error@+1 {{model-plan-distill needs the flat topology (run topo-flatten)}}
model.job @kd_job distill @kd on @box batch 8
