// RUN: sluice-opt %s -split-input-file -gnn-to-gpu | FileCheck %s
// RUN: sluice-opt %s -split-input-file -sluice-gnn-to-nvvm | FileCheck %s --check-prefix=NVVM

// A sage job: a forward and a backward kernel in gpu.module @sluice_gnn of
// a gpu.container_module; the job stays (the host trains).

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: model.gnn_train @fit @sage
// CHECK: gpu.module @sluice_gnn
// CHECK: gpu.func @sluice_gnn_fit_sage_forward(%[[ARGS:.*]]: !llvm.ptr) kernel attributes {sluice.gnn_kernel = {block = 256 : i64, direction = "forward", job = "fit", kind = "sage", model = "sage"}}
// The thread (d, j) of num_dst * in: sluice_gnn_gpu_forward_args_t's
// bytes 56 (in) and 48 (num_dst) (GnnGpuAbi.h).
// CHECK: gpu.block_dim x
// CHECK: %[[C56:.*]] = arith.constant 56 : i64
// CHECK: llvm.getelementptr %[[ARGS]][%[[C56]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: %[[C48:.*]] = arith.constant 48 : i64
// CHECK: llvm.getelementptr %[[ARGS]][%[[C48]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: scf.if
// SAGE copies the own row to the self half and sums from 0.0.
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)  : i64
// A separate multiply and add, no fast-math flags.
// CHECK: %[[PRODUCT:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %[[ACC]], %[[PRODUCT]] : f32
// CHECK: gpu.func @sluice_gnn_fit_sage_backward(%{{.*}}: !llvm.ptr) kernel attributes {sluice.gnn_kernel = {block = 256 : i64, direction = "backward", job = "fit", kind = "sage", model = "sage"}}
// The gather starts from dh's value and reads slot's row and half.
// CHECK: %[[DH:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[DH]]) -> (f32)  : i64
// CHECK: arith.shrui
// CHECK: arith.andi
// CHECK-NOT: gpu.func

// NVVM-LABEL: module attributes {gpu.container_module}
// NVVM: gpu.module @sluice_gnn
// NVVM: llvm.func @sluice_gnn_fit_sage_forward(%{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel
// NVVM: nvvm.read.ptx.sreg.tid.x
// NVVM: llvm.fmul
// NVVM: llvm.fadd
// NVVM: llvm.func @sluice_gnn_fit_sage_backward
module {
  topo.topology @box {
    topo.device @c kind(cpu)
  }
  walk.graph @cliques "g.el" format edgelist undirected {labels = "g.labels"}
  model.gnn @sage sage layers 2 fanouts [4, 4] features 16 hidden 8 classes 2
  model.gnn_train @fit @sage on @box graph @cliques batch 4 epochs 20 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 3 : i64, weight_decay = 0.000000e+00 : f64}
}

// -----

// A gcn job: the sum starts from self_coef[d] * h[d][j] (self_coef at
// byte 24), one output half; two jobs give two pairs of kernels.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.func @sluice_gnn_a_gcn_forward(%[[ARGS:.*]]: !llvm.ptr)
// CHECK: %[[C24:.*]] = arith.constant 24 : i64
// CHECK: llvm.getelementptr %[[ARGS]][%[[C24]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: %[[SELF:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[SELF]]) -> (f32)  : i64
// CHECK: gpu.func @sluice_gnn_a_gcn_backward
// CHECK: gpu.func @sluice_gnn_b_gcn_forward
// CHECK: gpu.func @sluice_gnn_b_gcn_backward
// CHECK-NOT: gpu.func
module {
  topo.topology @box {
    topo.device @c kind(cpu)
  }
  walk.graph @cliques "g.el" format edgelist undirected {labels = "g.labels"}
  model.gnn @gcn gcn layers 2 fanouts [3, 3] features 16 hidden 8 classes 2
  model.gnn_train @a @gcn on @box graph @cliques batch 4 epochs 20 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 3 : i64, weight_decay = 0.000000e+00 : f64}
  model.gnn_train @b @gcn on @box graph @cliques batch 8 epochs 2 attributes {dropout = 0.000000e+00 : f64, lr = 1.000000e-02 : f64, seed = 3 : i64, weight_decay = 0.000000e+00 : f64}
}

// -----

// Without gnn train jobs the pass changes nothing.

// CHECK-LABEL: module {
// CHECK-NOT: gpu.module
// CHECK: model.gnn @gcn
module {
  model.gnn @gcn gcn layers 2 fanouts [3, 3] features 16 hidden 8 classes 2
}
