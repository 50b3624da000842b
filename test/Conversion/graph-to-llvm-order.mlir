// RUN: sluice-opt --graph-to-llvm --split-input-file %s | FileCheck %s
// RUN: sluice-opt --graph-to-llvm=remarks=true --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Triangle counting with `order: auto`: the launch asks the runtime for the
// positions (the env slot 6) and runs one of two versions of the push pass
// (no test of the positions or the list per vertex): with positions (the
// pointer not null), `_push_degree` over the runtime's list of the
// vertices in that order; without, `_push` over every vertex. The
// destination is only compared and counted, so `_push_degree` runs over
// the relabelled graph (sluice_algo_order_offsets/_targets): the i-th
// vertex's out-neighbours are positions, compared with i and counted by a
// merge in the loop (sluice_algo_count_common when a list has 16 or
// more), no lookup per edge; `_push` runs over the CSR comparing the
// vertices, the same merge over the CSR's lists. `dst < src` holds for a
// prefix of the sorted out-edges in both: a while loop ends them at its
// first false. The merge walks v's list against the source's, whose bounds
// the edge loop loaded (not loaded again per edge) and which holds the
// destination, at or above the bound min(src, dst): the walk along it
// tests neither its emptiness nor its end, nor loads its last element.
// CHECK:       llvm.mlir.global internal constant @sluice_algo_tc_count_order_name("loop 'count' of algorithm 'tc'\00")
// CHECK-LABEL: llvm.func @sluice_algo_tc_count_push_degree(
// CHECK:         %[[LSLOT:.*]] = llvm.getelementptr inbounds %arg1[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[LIST:.*]] = llvm.load %[[LSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[OFFSETS:.*]] = llvm.call @sluice_algo_order_offsets(%[[CTX:.*]]) :
// CHECK-NEXT:    %[[TARGETS:.*]] = llvm.call @sluice_algo_order_targets(%[[CTX]]) :
// CHECK:         scf.for %[[I:.*]] = 
// CHECK-NOT:       llvm.icmp
// CHECK:           %[[UAT:.*]] = llvm.getelementptr %[[LIST]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:      %[[U:.*]] = llvm.load %[[UAT]] : !llvm.ptr -> i32
// CHECK-NEXT:      %[[POS:.*]] = arith.trunci %[[I]] : i64 to i32
// CHECK:           %[[ULO:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:           %[[UHI:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT:      scf.while
// CHECK:               %[[AT:.*]] = llvm.getelementptr %[[TARGETS]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:          %[[W:.*]] = llvm.load %[[AT]] : !llvm.ptr -> i32
// CHECK-NEXT:          %[[BELOW:.*]] = arith.cmpi ult, %[[W]], %[[POS]] : i32
// CHECK-NEXT:          scf.yield %[[BELOW]] : i1
// CHECK:             } do {
// CHECK:               %[[DAT:.*]] = llvm.getelementptr %[[TARGETS]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:          %[[D:.*]] = llvm.load %[[DAT]] : !llvm.ptr -> i32
// CHECK-NEXT:          %[[PBOUND:.*]] = arith.minui %[[POS]], %[[D]] : i32
// CHECK-NEXT:          %[[BOUND:.*]] = arith.extui %[[PBOUND]] : i32 to i64
// CHECK:               %[[VLO:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK:               %[[VHI:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT:          %[[ULEN:.*]] = arith.subi %[[UHI]], %[[ULO]] : i64
// CHECK-NEXT:          %[[VLEN:.*]] = arith.subi %[[VHI]], %[[VLO]] : i64
// CHECK:               %[[PSHORT:.*]] = arith.cmpi ult, %{{.*}}, %c16_i64 : i64
// CHECK-NEXT:          scf.if %[[PSHORT]] -> (i64) {
// CHECK:                 scf.execute_region -> i64 {
// CHECK-NEXT:              cf.br ^bb1(%[[VLO]], %[[ULO]], %{{.*}} : i64, i64, i64)
// CHECK-NEXT:            ^bb1(%[[IA:.*]]: i64, %[[IB:.*]]: i64, %[[N:.*]]: i64):
// CHECK-NEXT:              %[[AEND:.*]] = arith.cmpi eq, %[[IA]], %[[VHI]] : i64
// CHECK-NEXT:              cf.cond_br %[[AEND]], ^bb6(%[[N]] : i64), ^bb2
// CHECK:                   %[[X:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:              %[[UNDER:.*]] = arith.cmpi ult, %[[X]], %[[BOUND]] : i64
// CHECK-NEXT:              cf.cond_br %[[UNDER]], ^bb3(%[[IB]] : i64), ^bb6(%[[N]] : i64)
// CHECK-NEXT:            ^bb3(%[[JB:.*]]: i64):
// CHECK-NEXT:              %[[YAT:.*]] = llvm.getelementptr %[[TARGETS]][%[[JB]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NOT:               %[[UHI]]
// CHECK:                 ^bb5:
// CHECK-NEXT:              %[[NEXTB:.*]] = arith.addi
// CHECK-NEXT:              %[[MORE:.*]] = arith.addi %[[N]]
// CHECK-NEXT:              cf.br ^bb1(%{{.*}}, %[[NEXTB]], %[[MORE]] : i64, i64, i64)
// CHECK:               } else {
// CHECK-NEXT:            %[[PA:.*]] = llvm.getelementptr %[[TARGETS]][%[[ULO]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:            %[[PB:.*]] = llvm.getelementptr %[[TARGETS]][%[[VLO]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:            llvm.call @sluice_algo_count_common(%[[PA]], %[[ULEN]], %[[PB]], %[[VLEN]], %[[BOUND]])
// CHECK:               arith.cmpi eq, %[[D]], %[[POS]] : i32
// CHECK-NOT:     sluice_algo_common_neighbors
// CHECK-LABEL: llvm.func @sluice_algo_tc_count_push(
// CHECK-NOT:     %arg1[6]
// CHECK:         scf.for %[[I:.*]] = 
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      %[[SRC:.*]] = arith.trunci %[[I]] : i64 to i32
// CHECK-NOT:       llvm.icmp
// CHECK:           scf.while
// CHECK:               %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:          arith.cmpi ult, %[[V]], %[[SRC]] : i32
// CHECK:             } do {
// CHECK:               arith.minui %[[SRC]], %{{.*}} : i32
// CHECK:               scf.execute_region -> i64 {
// CHECK-NEXT:            cf.br ^bb1(
// CHECK:               llvm.call @sluice_algo_count_common(
// CHECK-NOT:     sluice_algo_common_neighbors
// CHECK-LABEL: llvm.func @sluice_algo_tc(
// CHECK:         %[[NAME:.*]] = llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<31 x i8>
// CHECK:         %[[KIND:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[POSITIONS:.*]] = llvm.call @sluice_algo_order_begin(%[[CTX:.*]], %[[KIND]], %[[NAME]]) : (!llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
// CHECK-NEXT:    %[[AT6:.*]] = llvm.getelementptr inbounds %{{.*}}[6] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    llvm.store %[[POSITIONS]], %[[AT6]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[HAS:.*]] = llvm.icmp "ne" %[[POSITIONS]], %[[NULL]] : !llvm.ptr
// CHECK-NEXT:    scf.if %[[HAS]] {
// CHECK-NEXT:      %[[LIST:.*]] = llvm.call @sluice_algo_order_vertices(%[[CTX]])
// CHECK-NEXT:      %[[AT2:.*]] = llvm.getelementptr inbounds %{{.*}}[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:      llvm.store %[[LIST]], %[[AT2]] : !llvm.ptr, !llvm.ptr
// CHECK:           %[[DEGREE:.*]] = llvm.mlir.addressof @sluice_algo_tc_count_push_degree : !llvm.ptr
// CHECK-NEXT:      llvm.call @sluice_algo_parallel_for(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[DEGREE]], %{{.*}})
// CHECK-NEXT:    } else {
// CHECK:           %[[GRAPH:.*]] = llvm.mlir.addressof @sluice_algo_tc_count_push : !llvm.ptr
// CHECK-NEXT:      llvm.call @sluice_algo_parallel_for(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %[[GRAPH]], %{{.*}})
// CHECK-NEXT:    }
// CHECK-NEXT:    llvm.call @sluice_algo_order_end(%[[CTX]])
// REMARK: remark: loop 'count' of algorithm 'tc': push over the out-edges (CSR) of every vertex; parallel, dynamic chunks of 16 vertices; no atomics; order: auto: comparisons of vertices and common_neighbors_below use the graph relabelled by degree when the runtime finds the degrees skewed (the run's report says which); the destination is only compared and counted, so in that order the pass runs over the relabelled graph, destinations as positions (no lookup per edge); two versions of the pass, in the degree order and in the graph's order, the launch runs the one the order asks for (no test per vertex); common_neighbors merged in the loop when both lists are shorter than 16 (else the runtime's merge); `where` holds for a prefix of a source's sorted out-edges: they end at its first false
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @tc on @g attributes {outputs = [@triangles], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @triangles : i64 = %c0
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = dynamic, chunk = 16, frontier = auto, format = auto, order = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %0 = arith.cmpi ult, %dst, %src : i32
      graph.yield %0 : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %0 = graph.common_neighbors below %src, %dst : i64
      graph.prop.reduce add @triangles[%src], %0 : i64
      %same = arith.cmpi eq, %dst, %src : i32
      %one = arith.extui %same : i1 to i64
      graph.prop.reduce add @triangles[%src], %one : i64
      graph.yield
    }
  }
}

// -----

// `order: degree` passes 1; `order: natural` is the plain loop (no runtime
// call, no positions).
// CHECK-LABEL: llvm.func @sluice_algo_deg(
// CHECK:         llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<32 x i8>
// CHECK-NEXT:    %[[KIND:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    llvm.call @sluice_algo_order_begin(%{{.*}}, %[[KIND]], %{{.*}})
// CHECK-LABEL: llvm.func @sluice_algo_plain_count_push(
// CHECK-NOT:     %arg1[6]
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK-LABEL: llvm.func @sluice_algo_plain(
// CHECK-NOT:     llvm.call @sluice_algo_order_begin
// CHECK:         llvm.call @sluice_algo_parallel_for(
// CHECK-NOT:     llvm.call @sluice_algo_order_end
// REMARK: remark: loop 'count' of algorithm 'deg': {{.*}}; order: degree: comparisons of vertices and common_neighbors_below use the graph relabelled by degree (highest first), built at run time; {{.*}}; two versions of the pass, in the degree order and in the graph's order, the launch runs the one the order asks for (no test per vertex);
// REMARK: remark: loop 'count' of algorithm 'plain': {{.*}}; no atomics; order: natural; common_neighbors merged in the loop when both lists are shorter than 16 (else the runtime's merge); `where` holds for a prefix of a source's sorted out-edges: they end at its first false{{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @deg on @g attributes {outputs = [@t], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @t : i64 = %c0
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = degree>} where {
    ^bb0(%src: i32, %dst: i32):
      %0 = arith.cmpi ult, %dst, %src : i32
      graph.yield %0 : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %0 = graph.common_neighbors below %src, %dst : i64
      graph.prop.reduce add @t[%src], %0 : i64
      graph.yield
    }
  }
  graph.algorithm @plain on @g attributes {outputs = [@t], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @t : i64 = %c0
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = natural>} where {
    ^bb0(%src: i32, %dst: i32):
      %0 = arith.cmpi ult, %dst, %src : i32
      graph.yield %0 : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %0 = graph.common_neighbors below %src, %dst : i64
      graph.prop.reduce add @t[%src], %0 : i64
      graph.yield
    }
  }
}

// -----

// A destination used otherwise (here as a property index) keeps the CSR in
// the degree order: `_push_degree` (run only with positions) compares the
// positions it looks up per comparison, with no test of the pointer, `==`
// is left as it is, and the out-edges run to their end (they are not
// sorted by the positions), with the runtime's common_neighbors_below.
// `_push`, in the graph's order, compares the vertices, ends the out-edges
// at the first false `where` and merges in the loop.
// CHECK-LABEL: llvm.func @sluice_algo_at_count_push_degree(
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr inbounds %{{.*}}[6] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[RANKS:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NOT:     sluice_algo_order_offsets
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[DSTAT:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:        %[[DST:.*]] = llvm.load %[[DSTAT]] : !llvm.ptr -> i32
// CHECK-NOT:         llvm.icmp
// CHECK-NEXT:        %[[DI:.*]] = arith.extui %[[DST]] : i32 to i64
// CHECK-NEXT:        %[[AT:.*]] = llvm.getelementptr %[[RANKS]][%[[DI]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT:        %[[RDST:.*]] = llvm.load %[[AT]] : !llvm.ptr -> i32
// CHECK:             %[[RSRC:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK-NEXT:        arith.cmpi ult, %[[RDST]], %[[RSRC]] : i32
// CHECK:             llvm.call @sluice_algo_common_neighbors_below
// CHECK:             arith.cmpi eq, %[[DST]], %{{.*}} : i32
// CHECK-NOT:     scf.while
// CHECK-LABEL: llvm.func @sluice_algo_at_count_push(
// CHECK-NOT:     %arg1[6]
// CHECK:         scf.while
// CHECK:           scf.execute_region
// CHECK:           llvm.call @sluice_algo_count_common(
// CHECK-NOT:     sluice_algo_common_neighbors_below
// CHECK-LABEL: llvm.func @sluice_algo_at(
// REMARK: remark: loop 'count' of algorithm 'at': {{.*}}; order: degree: comparisons of vertices and common_neighbors_below use the graph relabelled by degree (highest first), built at run time; two versions of the pass, in the degree order and in the graph's order, the launch runs the one the order asks for (no test per vertex); common_neighbors merged in the loop in the graph's order when both lists are shorter than 16 (else the runtime's merge); `where` holds for a prefix of a source's sorted out-edges in the graph's order: they end at its first false{{$}}
module {
  walk.graph @g "g.txt" format snap
  graph.algorithm @at on @g attributes {outputs = [@t], param_defaults = [], param_names = [], schedule = #graph.algorithm_schedule<target = cpu>} {
    %c0 = arith.constant 0 : i64
    graph.property @t : i64 = %c0
    graph.edges label "count" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto, order = degree>} where {
    ^bb0(%src: i32, %dst: i32):
      %0 = arith.cmpi ult, %dst, %src : i32
      graph.yield %0 : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %0 = graph.common_neighbors below %src, %dst : i64
      graph.prop.reduce add @t[%dst], %0 : i64
      %same = arith.cmpi eq, %dst, %src : i32
      %one = arith.extui %same : i1 to i64
      graph.prop.reduce add @t[%src], %one : i64
      graph.yield
    }
  }
}
