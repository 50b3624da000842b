// RUN: sluice-opt %s -split-input-file -align-to-gpu | FileCheck %s
// RUN: sluice-opt %s -split-input-file -sluice-align-to-nvvm | FileCheck %s --check-prefix=NVVM

// The example's job: one warp-per-pair kernel in gpu.module @sluice_aligns
// of a gpu.container_module; the job is gone.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: seq.align
// CHECK: gpu.module @sluice_aligns
// CHECK: gpu.func @sluice_align_extend(%[[ARGS:.*]]: !llvm.ptr) kernel attributes {sluice.align_kernel = {block = 128 : i64, job = "extend", threads_per_pair = 32 : i64}}
// The warp and the lane of the thread.
// CHECK: gpu.thread_id x
// CHECK: gpu.block_id x
// CHECK: gpu.block_dim x
// The scoring: sluice_align_gpu_args_t's bytes 88.. (AlignGpuAbi.h).
// CHECK: %[[C88:.*]] = arith.constant 88 : i64
// CHECK: llvm.getelementptr %[[ARGS]][%[[C88]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// The work queue: lane 0's atomic add on the head, shuffled from lane 0.
// CHECK: scf.while : () -> i64
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK: gpu.shuffle idx
// Lane 0 writes the corner and anti-diagonal -1; the warp syncs.
// CHECK: nvvm.bar.warp.sync
// The anti-diagonals: r, the seven rotating rows, the result, the stop.
// CHECK: scf.while {{.*}} -> (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i1)
// The band's cells in strides of 32 from the lane.
// CHECK: %[[STRIDE:.*]] = arith.constant 32 : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STRIDE]] iter_args({{.*}}) -> (i32, i32, i32) : i32
// CHECK: arith.maxsi
// The butterfly over (score, k), then cell 0 from lane 0.
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle idx
// The edges, then the rows are visible to the warp.
// CHECK: nvvm.bar.warp.sync
// Lane 0 writes the seven fields of the result.
// CHECK-COUNT-7: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK: gpu.return

// NVVM: gpu.module @sluice_aligns
// NVVM: llvm.func @sluice_align_extend(%{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel
// NVVM-NOT: scf.
// NVVM-NOT: gpu.shuffle
// NVVM: nvvm.shfl.sync bfly
// NVVM: nvvm.shfl.sync idx
seq.align @extend query "queries.fa" target "targets.fa" match 2 mismatch 4
    gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output "extend.tsv"

// -----

// Two jobs: two kernels in the one gpu.module.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @sluice_aligns
// CHECK: gpu.func @sluice_align_short(
// CHECK: gpu.func @sluice_align_long(
// CHECK-NOT: seq.align
seq.align @short query "a.fa" target "b.fa" match 1 mismatch 1
    gap_open 0 gap_extend 1 band 5 zdrop -1 threads 1 output ""
seq.align @long query "c.fa" target "d.fa" match 2 mismatch 4
    gap_open 4 gap_extend 2 band 500 zdrop 400 threads 0 output ""

// -----

// No align job: nothing changes.

// CHECK-LABEL: module {
// CHECK-NOT: gpu.module
// CHECK: llvm.func @other()
llvm.func @other()
