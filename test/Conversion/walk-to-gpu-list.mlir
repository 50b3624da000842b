// RUN: sluice-opt %s -walk-to-gpu | FileCheck %s

// List parameters and vertex_of on the device. A list's 8-byte parameter
// slot holds a device pointer to a sluice_walk_list_t {data, size}: `xs[i]`
// loads data[i] when 0 <= i < size, else records a LIST_INDEX fault (code
// 1) in the kernel's fault record (frame slot 18: an atomic min of the
// walker, a compare-and-swap of the code, then cur, index, size, walker,
// step) and gives 0. vertex_of searches the sorted original ids (slot 19)
// or subtracts id_base (slot 20) when the ids are dense.

// CHECK: func.func private @sluice_fault(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64)
// CHECK:   arith.constant 18 : i32
// CHECK:   llvm.atomicrmw umin
// CHECK:   llvm.cmpxchg
// CHECK: func.func private @sluice_list_size(%[[L:.*]]: !llvm.ptr) -> i64
// CHECK:   llvm.getelementptr inbounds %[[L]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: func.func private @sluice_list_get(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64) -> i64
// CHECK:   arith.cmpi sge
// CHECK:   arith.cmpi slt
// CHECK:   call @sluice_fault
// CHECK: func.func private @sluice_vertex_of(%{{.*}}: !llvm.ptr, %{{.*}}: i64) -> i32
// CHECK:   arith.constant 19 : i32
// CHECK:   arith.constant 20 : i32
// The kernel puts its fault record, original ids and id base in the frame.
// CHECK: gpu.func @sluice_walk_typed(%[[ARGS:.*]]: !llvm.ptr) kernel
// CHECK:   %[[C19:.*]] = arith.constant 19 : i32
// CHECK:   %[[BASE:.*]] = func.call @sluice_kernel_arg_i64(%[[ARGS]], %[[C19]])
// CHECK:   %[[C20:.*]] = arith.constant 20 : i32
// CHECK:   %[[FAULT:.*]] = func.call @sluice_kernel_arg_ptr(%[[ARGS]], %[[C20]])
// CHECK:   %[[C21:.*]] = arith.constant 21 : i32
// CHECK:   %[[IDS:.*]] = func.call @sluice_kernel_arg_ptr(%[[ARGS]], %[[C21]])
// CHECK:   %[[C22:.*]] = arith.constant 22 : i32
// CHECK:   %[[IDBASE:.*]] = func.call @sluice_kernel_arg_i64(%[[ARGS]], %[[C22]])
// CHECK:   arith.addi %[[BASE]], %{{.*}} : i64
// CHECK:   llvm.store %[[FAULT]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:   llvm.store %[[IDS]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:   llvm.store %[[IDBASE]], %{{.*}} : i64, !llvm.ptr
// CHECK: func.func private @sluice_walk_typed_weight(%[[F:[^:]*]]: !llvm.ptr
// CHECK:   %[[SCHEMA:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK:   %[[N:.*]] = call @sluice_list_size(%[[SCHEMA]]) : (!llvm.ptr) -> i64
// CHECK:   call @sluice_list_get(%[[F]], %[[SCHEMA]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> i64
// CHECK: func.func private @sluice_walk_typed_init(%[[FI:[^:]*]]: !llvm.ptr)
// CHECK:   call @sluice_vertex_of(%[[FI]], %{{.*}}) : (!llvm.ptr, i64) -> i32

walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = ["schema"], param_types = [!walk.list], param_defaults = [array<i64: 0, 1, 2>], state_names = ["home"], state_types = [i64], schedule = #walk.schedule<target = gpu, method = rejection>}
  init {
    %id = arith.constant 7 : i64
    %v = walk.vertex_of %id
    %vw = arith.extui %v : i32 to i64
    walk.yield %vw : i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %schema = walk.param "schema"[0] : !walk.list
    %n = walk.list_size %schema : i64
    %one = arith.constant 1 : i64
    %last = arith.subi %n, %one : i64
    %want = walk.list_get %schema[%last] : i64
    %l = walk.label %next : i64
    %ok = arith.cmpi eq, %l, %want : i64
    %z = arith.constant 0.0 : f64
    %r = arith.select %ok, %w, %z : f64
    walk.yield %r : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
