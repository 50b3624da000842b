// RUN: sluice-opt %s -split-input-file -model-plan-disdp -verify-diagnostics | FileCheck %s
// RUN: sluice-opt %s -split-input-file '-model-plan-disdp=job=other' | FileCheck %s --check-prefix=OTHER
// RUN: not sluice-opt %s -split-input-file '-model-plan-disdp=remarks=true' 2>&1 | FileCheck %s --check-prefix=REMARK
//
// model-plan-disdp: train jobs with a parameter_server get a plan.disdp
// (DisDP vs serialised ZeRO-3); the others are model-plan-parallel's.
// Numbers are not pinned beyond what the cases are about (the planner is
// unit tested in test/Unit/Parallel/DisDPTest.cpp, the durations by hand
// in test/Plan/emit-plan-disdp.test).

// Two GPUs on a reducing switch, a parameter server on the switch: one
// plan.disdp for the job with the server, none for the plain train job.
// CHECK-LABEL: plan.disdp @dis_disdp for @dis on @star ps "ps" gpus 2 micro_batch 1 x 4 recompute  none time(
// CHECK-SAME: baseline_optimizer
// CHECK-SAME: reducers = ["leaf"]
// CHECK-NOT: plan.disdp @plain
// CHECK-NOT: plan.parallel
// OTHER-NOT: plan.disdp
// REMARK: remark: job 'dis': DisDP {{[0-9.]+}} {{m?}}s vs ZeRO-3 {{[0-9.]+}} {{m?}}s serialised ({{[0-9.]+}}x); DisDP is bound by {{.*}}; per layer all-gather ring {{[0-9.]+}} {{m?}}s vs in-network {{[0-9.]+}} {{m?}}s, forward
topo.topology @star flat {
  topo.device @"s0.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"s1.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @leaf kind(switch) props {reduce = true}
  topo.device @ps kind(cpu) props {memory = #topo.q<1 TiB>, memory_bandwidth = #topo.q<400 GB/s>}
  topo.link "s0.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link "s1.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link ps <-> leaf {bandwidth = #topo.q<200 Gbps>}
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
model.job @dis train @gpt on @star batch 8 attributes {parameter_server = "ps"}
model.job @plain train @gpt on @star batch 8

// -----

// Without a reducing switch the collectives cannot run in the network.
topo.topology @star flat {
  topo.device @"s0.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"s1.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @leaf kind(switch) props {reduce = false}
  topo.device @ps kind(cpu) props {memory = #topo.q<1 TiB>, memory_bandwidth = #topo.q<400 GB/s>}
  topo.link "s0.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link "s1.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link ps <-> leaf {bandwidth = #topo.q<200 Gbps>}
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
// expected-error@+1 {{cannot plan job 'dis' with DisDP: topology 'star' has no switch with `reduce: true` to run the collectives in the network}}
model.job @dis train @gpt on @star batch 8 attributes {parameter_server = "ps"}

// -----

// The parameter server must be a cpu of the topology.
topo.topology @star flat {
  topo.device @"s0.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @"s1.gpu" kind(gpu) props {compute = #topo.q<312 TFLOPS>, memory = #topo.q<80 GiB>, memory_bandwidth = #topo.q<2039 GB/s>}
  topo.device @leaf kind(switch) props {reduce = true}
  topo.device @ps kind(cpu) props {memory = #topo.q<1 TiB>, memory_bandwidth = #topo.q<400 GB/s>}
  topo.link "s0.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link "s1.gpu" <-> leaf {bandwidth = #topo.q<100 Gbps>}
  topo.link ps <-> leaf {bandwidth = #topo.q<200 Gbps>}
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
// expected-error@+1 {{cannot plan job 'dis' with DisDP: parameter server 'leaf' must be a cpu with memory and memory_bandwidth (it holds the optimizer states and updates them), got a switch without them}}
model.job @dis train @gpt on @star batch 8 attributes {parameter_server = "leaf"}
