// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s

// f32 properties in a push loop: 4-byte elements, every reduction at the
// destination atomic on the 32-bit word (fadd, fsub; fmin and fmax after
// a read that shows they would change it, as for f64), the initial values
// stored as f32.
// CHECK-LABEL: llvm.func @sluice_algo_push32_scatter_push(
// The loop does not write x: its reads at the source are made once per
// source, before the out-edges.
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK:         scf.for
// CHECK:         %[[ACC:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.atomicrmw fadd %[[ACC]], %[[X]] monotonic : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fsub %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK:         %[[SEEN:.*]] = llvm.load %[[LO:.*]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[WINS:.*]] = arith.cmpf ult, %[[V:.*]], %[[SEEN]] : f32
// CHECK-NEXT:    scf.if %[[WINS]] -> (f32, i1) {
// CHECK-NEXT:      llvm.atomicrmw fmin %[[LO]], %[[V]] monotonic : !llvm.ptr, f32
// CHECK:         arith.cmpf ugt, %{{.*}}, %{{.*}} : f32
// CHECK:         llvm.atomicrmw fmax %{{.*}}, %{{.*}} monotonic : !llvm.ptr, f32
// CHECK-LABEL: llvm.func @sluice_algo_push32(
// CHECK:         %[[ONE:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:         llvm.store %[[ONE]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
walk.graph @g "g.txt" format edgelist
graph.algorithm @push32 on @g attributes {label_schedules = {scatter = #graph.schedule<direction = push, parallel = static>}, outputs = [@acc, @lo, @hi], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  %cst = arith.constant 1.000000e+00 : f64
  %0 = arith.truncf %cst : f64 to f32
  graph.property @x : f32 = %0
  %zero = arith.constant 0.000000e+00 : f32
  graph.property @acc : f32 = %zero
  %big = arith.constant 1.000000e+30 : f32
  graph.property @lo : f32 = %big
  %small = arith.constant -1.000000e+30 : f32
  graph.property @hi : f32 = %small
  graph.edges label "scatter" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %4 = graph.prop.get @x[%src] : f32
    graph.prop.reduce add @acc[%dst], %4 : f32
    %half = arith.constant 5.000000e-01 : f32
    graph.prop.reduce sub @acc[%dst], %half : f32
    %6 = graph.prop.get @x[%src] : f32
    graph.prop.reduce min @lo[%dst], %6 : f32
    %7 = graph.prop.get @x[%src] : f32
    graph.prop.reduce max @hi[%dst], %7 : f32
    graph.yield
  }
}

// -----

// A pull loop sums into an f32 accumulator (one f32 slot per destination,
// no atomics), stored once after the destination's in-edges.
// CHECK-LABEL: llvm.func @sluice_algo_pull32_gather_pull(
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK:         scf.for
// CHECK:           %[[AT:.*]] = llvm.getelementptr %[[ACC:.*]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      %[[FIRST:.*]] = llvm.load %[[AT]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:      llvm.store %[[FIRST]], %[[SLOT]] : f32, !llvm.ptr
// CHECK:           scf.for
// CHECK:             %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:        %[[OLD:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> f32
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[OLD]], %[[X]] : f32
// CHECK-NEXT:        llvm.store %[[SUM]], %[[SLOT]] : f32, !llvm.ptr
// CHECK-NOT:         llvm.atomicrmw
// CHECK:           %[[TOTAL:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> f32
// CHECK:           llvm.store %[[TOTAL]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
walk.graph @g "g.txt" format edgelist
graph.algorithm @pull32 on @g attributes {label_schedules = {gather = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64>}, outputs = [@acc], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
  %one = arith.constant 1.000000e+00 : f32
  graph.property @x : f32 = %one
  %zero = arith.constant 0.000000e+00 : f32
  graph.property @acc : f32 = %zero
  graph.edges label "gather" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %2 = graph.prop.get @x[%src] : f32
    graph.prop.reduce add @acc[%dst], %2 : f32
    graph.yield
  }
}
