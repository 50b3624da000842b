// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// graph.compare_swap in a parallel pull loop: an llvm.cmpxchg acq_rel
// (acquire on failure) at a vertex read from the property, its success
// flag extracted; every access to the swapped property is atomic, the
// read and the reduction at the owned destination too (another iteration
// may swap that element); the loop is not tiled and `comp` is not
// accumulated in a register.
// CHECK-LABEL: llvm.func @sluice_algo_link_link_pull(
// CHECK:         %[[P:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[Q:.*]] = llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         %[[AT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[X:.*]] = llvm.cmpxchg %[[AT]], %[[P]], %[[Q]] acq_rel acquire : !llvm.ptr, i32
// CHECK-NEXT:    %[[OK:.*]] = llvm.extractvalue %[[X]][1] : !llvm.struct<(i32, i1)>
// CHECK:         scf.if %[[OK]] {
// CHECK:           llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i64
// CHECK:         llvm.atomicrmw umin %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK-NOT:     graph.
// A serial loop: a load, a compare and a select stored back.
// CHECK-LABEL: llvm.func @sluice_algo_link_settle_vertices(
// CHECK:         %[[OLD:.*]] = llvm.load %[[AT2:.*]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    %[[EQ:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i64
// CHECK-NEXT:    %[[NEW:.*]] = arith.select %[[EQ]], %{{.*}}, %[[OLD]] : i64
// CHECK-NEXT:    llvm.store %[[NEW]], %[[AT2]] {alignment = 8 : i64} : i64, !llvm.ptr
// REMARK: remark: loop 'link' of algorithm 'link': pull over in-edges (CSC); parallel, dynamic chunks of 64 vertices; atomic updates of 'comp' 'wins'; not tiled (it updates 'comp' with compare_swap, whose reads and swaps must see every other iteration's as they happen)
// REMARK: remark: loop 'settle' of algorithm 'link': over every vertex; serial
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @link on @g attributes {outputs = [@comp, @wins], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    %v0 = graph.vertex_of %c0
    graph.property @comp : i32 = %v0
    graph.property @wins : i64 = %c0
    %one = arith.constant 1 : i64
    graph.edges label "link" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, tile = auto, frontier = auto, format = csr>} do {
    ^bb0(%src: i32, %dst: i32):
      %p = graph.prop.get @comp[%src] : i32
      %q = graph.prop.get @comp[%dst] : i32
      %ok = graph.compare_swap @comp[%p], %p, %q : i32, i32
      scf.if %ok {
        graph.prop.reduce add @wins[%p], %one : i64
      }
      graph.prop.reduce min @comp[%dst], %p : i32
      graph.yield
    }
    graph.vertices label "settle" attributes {schedule = #graph.schedule<parallel = serial>} do {
    ^bb0(%v: i32):
      %ok = graph.compare_swap @wins[%v], %c0, %one : i64, i64
      graph.yield
    }
  }
}
