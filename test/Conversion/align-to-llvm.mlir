// RUN: sluice-opt %s -split-input-file -align-to-llvm | FileCheck %s
// RUN: sluice-opt %s -split-input-file -sluice-align-to-llvm | FileCheck %s --check-prefix=LLVM

// The example's job: one CPU function per job, one pair per call, the
// scoring as constants; the job is gone.

// CHECK-LABEL: func.func @sluice_align_extend_pair(
// CHECK-SAME: %[[Q:.*]]: !llvm.ptr, %[[QLEN:.*]]: i32, %[[T:.*]]: !llvm.ptr, %[[TLEN:.*]]: i32, %[[SCRATCH:.*]]: !llvm.ptr, %[[RESULT:.*]]: !llvm.ptr)
// CHECK-SAME: attributes {sluice.align_kernel = {job = "extend", lanes = 1 : i64}}
// CHECK-NOT: seq.align
// The scoring: match, mismatch, gap open, extend, band, Z-drop.
// CHECK-DAG: arith.constant 100 : i32
// CHECK-DAG: arith.constant 400 : i32
// Seven scratch rows of tlen + 2.
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[ROW32:.*]] = arith.addi %[[TLEN]], %[[TWO]] : i32
// CHECK: %[[ROW:.*]] = arith.extui %[[ROW32]] : i32 to i64
// CHECK-COUNT-7: llvm.getelementptr %[[SCRATCH]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// Only non-empty pairs are aligned.
// CHECK: scf.if %{{.*}} -> (i32, i32, i32, i32, i32, i32, i32)
// The anti-diagonals: r, the seven rotating rows, the result, the stop.
// CHECK: scf.while {{.*}} -> (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, i32, i32, i1)
// One lane: the band's cells in order, carrying only their maximum.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (i32) : i32
// CHECK: arith.maxsi
// Then the first cell that holds it (the tie rule): the smallest k whose
// H equals it, a min reduction over the same cells (no early exit).
// CHECK: %[[NONE:.*]] = arith.constant 2147483647 : i32
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MIN:.*]] = %[[NONE]]) -> (i32) : i32
// CHECK: %[[EQ:.*]] = arith.cmpi eq
// CHECK: %[[CAND:.*]] = arith.select %[[EQ]], %[[K]], %[[NONE]] : i32
// CHECK: arith.minsi %[[MIN]], %[[CAND]] : i32
// CHECK-NOT: scf.while
// No warp: no shuffle and no barrier.
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: nvvm.bar.warp.sync
// The seven fields of the result.
// CHECK-COUNT-7: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK: return
// LLVM-LABEL: llvm.func @sluice_align_extend_pair(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-NOT: scf.
// LLVM-NOT: arith.
// LLVM: llvm.return
seq.align @extend query "q.fa" target "t.fa" match 2 mismatch 4
    gap_open 4 gap_extend 2 band 100 zdrop 400 threads 0 output ""

// -----

// Two jobs: two functions, each with its own scoring.

// CHECK-LABEL: func.func @sluice_align_first_pair(
// CHECK: arith.constant 7 : i32
// CHECK-LABEL: func.func @sluice_align_second_pair(
// CHECK: arith.constant 9 : i32
// LLVM-LABEL: llvm.func @sluice_align_first_pair(
// LLVM-LABEL: llvm.func @sluice_align_second_pair(
seq.align @first query "q.fa" target "t.fa" match 2 mismatch 4
    gap_open 4 gap_extend 2 band 7 zdrop 400 threads 0 output ""
seq.align @second query "q.fa" target "t.fa" match 2 mismatch 4
    gap_open 4 gap_extend 2 band 9 zdrop -1 threads 0 output ""
