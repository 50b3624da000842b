// WalkDeviceLibrary.mlir - Philox, the walker's stream, the frame and the graph queries
//
// Checked-in device code of walk-to-gpu (compiler/Conversion/WalkToGPU),
// embedded into the compiler at build time and parsed when the pass runs
// (WalkDeviceCode.cpp). Conventions:
// - `func.func private` declarations without a body are imports: the
//   functions this file calls from another device file or from the ones
//   walk-to-gpu outlines from a walk's regions; they are checked against
//   the definitions and dropped.
// - `sluice_walk_WALK...` symbols are per walk: `WALK` becomes the walk's
//   name when the file is instantiated for it.
// - an i32 constant tagged `sluice.frame_slot = "<slot>"` is the index of
//   that slot of the device frame; its value is set from FrameSlot
//   (DeviceFrame.h), and must equal it in the text.
// - a constant tagged `sluice.walk_constant = "<name>"` gets the walk's
//   value (num_state, threads_per_walker) or walk.h's
//   (rejection_max_trials, rejection_min_trials,
//   rejection_trials_per_edge: SLUICE_WALK_REJECTION_*);
// - an i32 constant tagged `sluice.kernel_arg = "<field>"` is the index
//   (offset / 8) of that field of sluice_walk_gpu_args_t (walk_gpu.h,
//   KernelArgs.h); it must equal it in the text.

gpu.module @sluice_walk_device {

  func.func private @sluice_philox(%c0: i32, %c1: i32, %c2: i32, %c3: i32, %k0: i32, %k1: i32) -> (i32, i32, i32, i32) {
    %m0 = arith.constant -766435501 : i32
    %m1 = arith.constant -845247145 : i32
    %w0 = arith.constant -1640531527 : i32
    %w1 = arith.constant -1150833019 : i32
    %lb = arith.constant 0 : index
    %ub = arith.constant 10 : index
    %one = arith.constant 1 : index
    %r:6 = scf.for %i = %lb to %ub step %one iter_args(%a0 = %c0, %a1 = %c1, %a2 = %c2, %a3 = %c3, %x0 = %k0, %x1 = %k1) -> (i32, i32, i32, i32, i32, i32) {
      %lo0, %hi0 = arith.mului_extended %a0, %m0 : i32
      %lo1, %hi1 = arith.mului_extended %a2, %m1 : i32
      %t0 = arith.xori %hi1, %a1 : i32
      %n0 = arith.xori %t0, %x0 : i32
      %t2 = arith.xori %hi0, %a3 : i32
      %n2 = arith.xori %t2, %x1 : i32
      %y0 = arith.addi %x0, %w0 : i32
      %y1 = arith.addi %x1, %w1 : i32
      scf.yield %n0, %lo1, %n2, %lo0, %y0, %y1 : i32, i32, i32, i32, i32, i32
    }
    return %r#0, %r#1, %r#2, %r#3 : i32, i32, i32, i32
  }
  func.func private @sluice_rng_slot(%r: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = llvm.getelementptr inbounds %r[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i32
    return %p : !llvm.ptr
  }
  func.func private @sluice_rng_init(%r: !llvm.ptr, %k0: i32, %k1: i32, %step: i32, %walker: i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %c6 = arith.constant 6 : i32
    %c7 = arith.constant 7 : i32
    %c8 = arith.constant 8 : i32
    %c9 = arith.constant 9 : i32
    %c10 = arith.constant 10 : i32
    %c32 = arith.constant 32 : i64
    %wlo = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %whi = arith.trunci %wsh : i64 to i32
    %p0 = func.call @sluice_rng_slot(%r, %c0) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %c0, %p0 : i32, !llvm.ptr
    %p1 = func.call @sluice_rng_slot(%r, %c1) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %c4, %p1 : i32, !llvm.ptr
    %p6 = func.call @sluice_rng_slot(%r, %c6) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %k0, %p6 : i32, !llvm.ptr
    %p7 = func.call @sluice_rng_slot(%r, %c7) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %k1, %p7 : i32, !llvm.ptr
    %p8 = func.call @sluice_rng_slot(%r, %c8) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %step, %p8 : i32, !llvm.ptr
    %p9 = func.call @sluice_rng_slot(%r, %c9) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %wlo, %p9 : i32, !llvm.ptr
    %p10 = func.call @sluice_rng_slot(%r, %c10) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %whi, %p10 : i32, !llvm.ptr
    return
  }
  func.func private @sluice_rng_load(%r: !llvm.ptr, %i: i32) -> i32 {
    %p = func.call @sluice_rng_slot(%r, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i32
    return %v : i32
  }
  func.func private @sluice_rng_store(%r: !llvm.ptr, %i: i32, %v: i32) {
    %p = func.call @sluice_rng_slot(%r, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    llvm.store %v, %p : i32, !llvm.ptr
    return
  }
  // WalkRng::nextU32: slots 0 counter, 1 used, 2..5 block, 6..7 key,
  // 8 step, 9..10 walker.
  func.func private @sluice_next_u32(%r: !llvm.ptr) -> i32 {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %c7 = arith.constant 7 : i32
    %c8 = arith.constant 8 : i32
    %c9 = arith.constant 9 : i32
    %c10 = arith.constant 10 : i32
    %used = func.call @sluice_rng_load(%r, %c1) : (!llvm.ptr, i32) -> i32
    %empty = arith.cmpi eq, %used, %c4 : i32
    scf.if %empty {
      %ctr = func.call @sluice_rng_load(%r, %c0) : (!llvm.ptr, i32) -> i32
      %stp = func.call @sluice_rng_load(%r, %c8) : (!llvm.ptr, i32) -> i32
      %wlo = func.call @sluice_rng_load(%r, %c9) : (!llvm.ptr, i32) -> i32
      %whi = func.call @sluice_rng_load(%r, %c10) : (!llvm.ptr, i32) -> i32
      %k0 = func.call @sluice_rng_load(%r, %c6) : (!llvm.ptr, i32) -> i32
      %k1 = func.call @sluice_rng_load(%r, %c7) : (!llvm.ptr, i32) -> i32
      %b:4 = func.call @sluice_philox(%ctr, %stp, %wlo, %whi, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
      func.call @sluice_rng_store(%r, %c2, %b#0) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c3, %b#1) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c4, %b#2) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c5, %b#3) : (!llvm.ptr, i32, i32) -> ()
      %ctr1 = arith.addi %ctr, %c1 : i32
      func.call @sluice_rng_store(%r, %c0, %ctr1) : (!llvm.ptr, i32, i32) -> ()
      func.call @sluice_rng_store(%r, %c1, %c0) : (!llvm.ptr, i32, i32) -> ()
    }
    %u = func.call @sluice_rng_load(%r, %c1) : (!llvm.ptr, i32) -> i32
    %slot = arith.addi %u, %c2 : i32
    %v = func.call @sluice_rng_load(%r, %slot) : (!llvm.ptr, i32) -> i32
    %u1 = arith.addi %u, %c1 : i32
    func.call @sluice_rng_store(%r, %c1, %u1) : (!llvm.ptr, i32, i32) -> ()
    return %v : i32
  }
  // 53 random bits of two words, the first the high one: [0, 1).
  func.func private @sluice_bits_to_double(%hi: i32, %lo: i32) -> f64 {
    %c32 = arith.constant 32 : i64
    %c11 = arith.constant 11 : i64
    %scale = arith.constant 1.1102230246251565e-16 : f64
    %h = arith.extui %hi : i32 to i64
    %l = arith.extui %lo : i32 to i64
    %hs = arith.shli %h, %c32 : i64
    %bits = arith.ori %hs, %l : i64
    %top = arith.shrui %bits, %c11 : i64
    %d = arith.uitofp %top : i64 to f64
    %x = arith.mulf %d, %scale : f64
    return %x : f64
  }
  func.func private @sluice_next_double(%r: !llvm.ptr) -> f64 {
    %hi = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %lo = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %x = func.call @sluice_bits_to_double(%hi, %lo) : (i32, i32) -> f64
    return %x : f64
  }
  // Lemire's unbiased uniform index in [0, n), n in [1, 2^32).
  func.func private @sluice_uniform_index(%r: !llvm.ptr, %n: i64) -> i64 {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i64
    %n32 = arith.trunci %n : i64 to i32
    %neg = arith.subi %c0, %n32 : i32
    %threshold = arith.remui %neg, %n32 : i32
    %nw = arith.extui %n32 : i32 to i64
    %u0 = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
    %u0w = arith.extui %u0 : i32 to i64
    %m0 = arith.muli %u0w, %nw : i64
    %m = scf.while (%m1 = %m0) : (i64) -> i64 {
      %low = arith.trunci %m1 : i64 to i32
      %again = arith.cmpi ult, %low, %threshold : i32
      scf.condition(%again) %m1 : i64
    } do {
    ^bb0(%m2: i64):
      %u = func.call @sluice_next_u32(%r) : (!llvm.ptr) -> i32
      %uw = arith.extui %u : i32 to i64
      %m3 = arith.muli %uw, %nw : i64
      scf.yield %m3 : i64
    }
    %i = arith.shrui %m, %c32 : i64
    return %i : i64
  }
  // Field `i` (8 bytes each) of the kernel's sluice_walk_gpu_args_t.
  func.func private @sluice_kernel_arg_ptr(%args: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = llvm.getelementptr inbounds %args[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    %v = llvm.load %p invariant : !llvm.ptr -> !llvm.ptr
    return %v : !llvm.ptr
  }
  func.func private @sluice_kernel_arg_i64(%args: !llvm.ptr, %i: i32) -> i64 {
    %p = llvm.getelementptr inbounds %args[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    %v = llvm.load %p invariant : !llvm.ptr -> i64
    return %v : i64
  }
  func.func private @sluice_kernel_arg_f64(%args: !llvm.ptr, %i: i32) -> f64 {
    %p = llvm.getelementptr inbounds %args[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    %v = llvm.load %p invariant : !llvm.ptr -> f64
    return %v : f64
  }
  // The device frame: 8-byte slots (FrameSlot in DeviceFrame.h).
  func.func private @sluice_frame_slot(%f: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = llvm.getelementptr inbounds %f[%i] : (!llvm.ptr, i32) -> !llvm.ptr, i64
    return %p : !llvm.ptr
  }
  func.func private @sluice_frame_ptr(%f: !llvm.ptr, %i: i32) -> !llvm.ptr {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> !llvm.ptr
    return %v : !llvm.ptr
  }
  func.func private @sluice_frame_i64(%f: !llvm.ptr, %i: i32) -> i64 {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i64
    return %v : i64
  }
  func.func private @sluice_frame_i32(%f: !llvm.ptr, %i: i32) -> i32 {
    %p = func.call @sluice_frame_slot(%f, %i) : (!llvm.ptr, i32) -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> i32
    return %v : i32
  }
  func.func private @sluice_in_range(%f: !llvm.ptr, %v: i32) -> i1 {
    %c15 = arith.constant {sluice.frame_slot = "num_vertices"} 15 : i32
    %nv = func.call @sluice_frame_i64(%f, %c15) : (!llvm.ptr, i32) -> i64
    %vw = arith.extui %v : i32 to i64
    %in = arith.cmpi ult, %vw, %nv : i64
    return %in : i1
  }
  // offsets[v], offsets[v + 1]; (0, 0) for a vertex out of range.
  func.func private @sluice_adjacency(%f: !llvm.ptr, %v: i32) -> (i64, i64) {
    %c0 = arith.constant {sluice.frame_slot = "offsets"} 0 : i32
    %z = arith.constant 0 : i64
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %r:2 = scf.if %in -> (i64, i64) {
      %offs = func.call @sluice_frame_ptr(%f, %c0) : (!llvm.ptr, i32) -> !llvm.ptr
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %offs[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %b = llvm.load %p : !llvm.ptr -> i64
      %q = llvm.getelementptr inbounds %p[1] : (!llvm.ptr) -> !llvm.ptr, i64
      %e = llvm.load %q : !llvm.ptr -> i64
      scf.yield %b, %e : i64, i64
    } else {
      scf.yield %z, %z : i64, i64
    }
    return %r#0, %r#1 : i64, i64
  }
  func.func private @sluice_degree(%f: !llvm.ptr, %v: i32) -> i64 {
    %r:2 = func.call @sluice_adjacency(%f, %v) : (!llvm.ptr, i32) -> (i64, i64)
    %d = arith.subi %r#1, %r#0 : i64
    return %d : i64
  }
  // The first edge u -> v (binary search of u's sorted targets), or -1.
  func.func private @sluice_find_edge(%f: !llvm.ptr, %u: i32, %v: i32) -> i64 {
    %c1i = arith.constant {sluice.frame_slot = "targets"} 1 : i32
    %tg = func.call @sluice_frame_ptr(%f, %c1i) : (!llvm.ptr, i32) -> !llvm.ptr
    %be:2 = func.call @sluice_adjacency(%f, %u) : (!llvm.ptr, i32) -> (i64, i64)
    %res = func.call @sluice_sorted_find_i32(%tg, %be#0, %be#1, %v) : (!llvm.ptr, i64, i64, i32) -> i64
    return %res : i64
  }
  func.func private @sluice_has_edge(%f: !llvm.ptr, %u: i32, %v: i32) -> i1 {
    %none = arith.constant -1 : i64
    %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
    %has = arith.cmpi ne, %e, %none : i64
    return %has : i1
  }
  // The stored weight of edge e (1.0 on an unweighted graph).
  func.func private @sluice_stored_weight(%f: !llvm.ptr, %e: i64) -> f64 {
    %c2 = arith.constant {sluice.frame_slot = "weights"} 2 : i32
    %unit = arith.constant 1.0 : f64
    %ws = func.call @sluice_frame_ptr(%f, %c2) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %unweighted = llvm.icmp "eq" %ws, %null : !llvm.ptr
    %w = scf.if %unweighted -> (f64) {
      scf.yield %unit : f64
    } else {
      %p = llvm.getelementptr inbounds %ws[%e] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p : !llvm.ptr -> f32
      %xd = arith.extf %x : f32 to f64
      scf.yield %xd : f64
    }
    return %w : f64
  }
  func.func private @sluice_edge_weight(%f: !llvm.ptr, %u: i32, %v: i32) -> f64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0.0 : f64
    %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
    %has = arith.cmpi ne, %e, %none : i64
    %w = scf.if %has -> (f64) {
      %x = func.call @sluice_stored_weight(%f, %e) : (!llvm.ptr, i64) -> f64
      scf.yield %x : f64
    } else {
      scf.yield %zero : f64
    }
    return %w : f64
  }
  // SLUICE_LABEL_NONE (-1) without labels or out of range.
  func.func private @sluice_label(%f: !llvm.ptr, %v: i32) -> i64 {
    %c6 = arith.constant {sluice.frame_slot = "labels"} 6 : i32
    %none = arith.constant -1 : i64
    %ls = func.call @sluice_frame_ptr(%f, %c6) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %nolabels = llvm.icmp "eq" %ls, %null : !llvm.ptr
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %true = arith.constant true
    %nl = arith.xori %nolabels, %true : i1
    %ok = arith.andi %in, %nl : i1
    %l = scf.if %ok -> (i64) {
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %ls[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %x = llvm.load %p : !llvm.ptr -> i32
      %xw = arith.extsi %x : i32 to i64
      scf.yield %xw : i64
    } else {
      scf.yield %none : i64
    }
    return %l : i64
  }
  // edge_label(u, v): the label of the first u -> v edge; -1 without such
  // an edge or without edge labels (sluice_kernel_edge_label).
  func.func private @sluice_edge_label(%f: !llvm.ptr, %u: i32, %v: i32) -> i64 {
    %c17 = arith.constant {sluice.frame_slot = "edge_labels"} 17 : i32
    %none = arith.constant -1 : i64
    %ls = func.call @sluice_frame_ptr(%f, %c17) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %nolabels = llvm.icmp "eq" %ls, %null : !llvm.ptr
    %l = scf.if %nolabels -> (i64) {
      scf.yield %none : i64
    } else {
      %e = func.call @sluice_find_edge(%f, %u, %v) : (!llvm.ptr, i32, i32) -> i64
      %has = arith.cmpi ne, %e, %none : i64
      %x = scf.if %has -> (i64) {
        %p = llvm.getelementptr inbounds %ls[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
        %y = llvm.load %p : !llvm.ptr -> i32
        %yw = arith.extsi %y : i32 to i64
        scf.yield %yw : i64
      } else {
        scf.yield %none : i64
      }
      scf.yield %x : i64
    }
    return %l : i64
  }
  // weight_max (k = 0), weight_min (1), weight_sum (2) of v; 0 out of range.
  func.func private @sluice_weight_stat(%f: !llvm.ptr, %v: i32, %k: i32) -> f64 {
    %c3 = arith.constant {sluice.frame_slot = "weight_max"} 3 : i32
    %zero = arith.constant 0.0 : f64
    %slot = arith.addi %c3, %k : i32
    %in = func.call @sluice_in_range(%f, %v) : (!llvm.ptr, i32) -> i1
    %r = scf.if %in -> (f64) {
      %a = func.call @sluice_frame_ptr(%f, %slot) : (!llvm.ptr, i32) -> !llvm.ptr
      %vw = arith.extui %v : i32 to i64
      %p = llvm.getelementptr inbounds %a[%vw] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %x = llvm.load %p : !llvm.ptr -> f32
      %xd = arith.extf %x : f32 to f64
      scf.yield %xd : f64
    } else {
      scf.yield %zero : f64
    }
    return %r : f64
  }
  // A run-time error of the walk program (walk.h, sluice_walk_fault_t) in
  // the kernel's fault record (frame slot 18; none: nothing recorded). The
  // record is a sluice_walk_fault_t (code, cur, index, size, walker, step)
  // and one more u64: the smallest walker that faulted (an atomic min). A
  // compare-and-swap of the code lets the first fault fill the rest.
  func.func private @sluice_fault(%f: !llvm.ptr, %code: i32, %index: i64, %size: i64) {
    %c9 = arith.constant {sluice.frame_slot = "walker"} 9 : i32
    %c11 = arith.constant {sluice.frame_slot = "cur"} 11 : i32
    %c12 = arith.constant {sluice.frame_slot = "step"} 12 : i32
    %c18 = arith.constant {sluice.frame_slot = "fault"} 18 : i32
    %zero = arith.constant 0 : i32
    %true = arith.constant true
    %rec = func.call @sluice_frame_ptr(%f, %c18) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %none = llvm.icmp "eq" %rec, %null : !llvm.ptr
    %some = arith.xori %none, %true : i1
    scf.if %some {
      %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
      %wp = llvm.getelementptr inbounds %rec[5] : (!llvm.ptr) -> !llvm.ptr, i64
      %old = llvm.atomicrmw umin %wp, %walker monotonic : !llvm.ptr, i64
      %pair = llvm.cmpxchg %rec, %zero, %code monotonic monotonic : !llvm.ptr, i32
      %won = llvm.extractvalue %pair[1] : !llvm.struct<(i32, i1)>
      scf.if %won {
        %cur = func.call @sluice_frame_i32(%f, %c11) : (!llvm.ptr, i32) -> i32
        %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
        %curp = llvm.getelementptr inbounds %rec[1] : (!llvm.ptr) -> !llvm.ptr, i32
        llvm.store %cur, %curp : i32, !llvm.ptr
        %ip = llvm.getelementptr inbounds %rec[1] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %index, %ip : i64, !llvm.ptr
        %sp = llvm.getelementptr inbounds %rec[2] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %size, %sp : i64, !llvm.ptr
        %wq = llvm.getelementptr inbounds %rec[3] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %walker, %wq : i64, !llvm.ptr
        %tp = llvm.getelementptr inbounds %rec[4] : (!llvm.ptr) -> !llvm.ptr, i64
        llvm.store %step, %tp : i64, !llvm.ptr
      }
    }
    return
  }
  // size(xs) of a list parameter: a device sluice_walk_list_t {data, size}
  // (0 for a null list, as sluice_kernel_list_get treats it).
  func.func private @sluice_list_size(%l: !llvm.ptr) -> i64 {
    %zero = arith.constant 0 : i64
    %null = llvm.mlir.zero : !llvm.ptr
    %isnull = llvm.icmp "eq" %l, %null : !llvm.ptr
    %n = scf.if %isnull -> (i64) {
      scf.yield %zero : i64
    } else {
      %sp = llvm.getelementptr inbounds %l[1] : (!llvm.ptr) -> !llvm.ptr, i64
      %x = llvm.load %sp : !llvm.ptr -> i64
      scf.yield %x : i64
    }
    return %n : i64
  }
  // xs[i] (sluice_kernel_list_get): an index outside [0, size) records a
  // SLUICE_WALK_FAULT_LIST_INDEX fault and gives 0.
  func.func private @sluice_list_get(%f: !llvm.ptr, %l: !llvm.ptr, %i: i64) -> i64 {
    %zero = arith.constant 0 : i64
    %code = arith.constant 1 : i32
    %n = func.call @sluice_list_size(%l) : (!llvm.ptr) -> i64
    %nonneg = arith.cmpi sge, %i, %zero : i64
    %below = arith.cmpi slt, %i, %n : i64
    %ok = arith.andi %nonneg, %below : i1
    %x = scf.if %ok -> (i64) {
      %data = llvm.load %l : !llvm.ptr -> !llvm.ptr
      %p = llvm.getelementptr inbounds %data[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %v = llvm.load %p : !llvm.ptr -> i64
      scf.yield %v : i64
    } else {
      func.call @sluice_fault(%f, %code, %i, %n) : (!llvm.ptr, i32, i64, i64) -> ()
      scf.yield %zero : i64
    }
    return %x : i64
  }
  // vertex_of(id) (sluice_graph_vertex_of): the vertex whose original id
  // is `id`, by binary search of the sorted original ids (frame slot 19),
  // or id - id_base (slot 20) without them; -1 (SLUICE_VERTEX_NONE) when
  // no vertex has it.
  func.func private @sluice_vertex_of(%f: !llvm.ptr, %id: i64) -> i32 {
    %c15 = arith.constant {sluice.frame_slot = "num_vertices"} 15 : i32
    %c19 = arith.constant {sluice.frame_slot = "original_ids"} 19 : i32
    %c20 = arith.constant {sluice.frame_slot = "id_base"} 20 : i32
    %zero = arith.constant 0 : i64
    %vnone = arith.constant -1 : i32
    %nv = func.call @sluice_frame_i64(%f, %c15) : (!llvm.ptr, i32) -> i64
    %ids = func.call @sluice_frame_ptr(%f, %c19) : (!llvm.ptr, i32) -> !llvm.ptr
    %null = llvm.mlir.zero : !llvm.ptr
    %dense = llvm.icmp "eq" %ids, %null : !llvm.ptr
    %v = scf.if %dense -> (i32) {
      %base = func.call @sluice_frame_i64(%f, %c20) : (!llvm.ptr, i32) -> i64
      %off = arith.subi %id, %base : i64
      %above = arith.cmpi uge, %id, %base : i64
      %inside = arith.cmpi ult, %off, %nv : i64
      %ok = arith.andi %above, %inside : i1
      %o32 = arith.trunci %off : i64 to i32
      %r = arith.select %ok, %o32, %vnone : i32
      scf.yield %r : i32
    } else {
      %at = func.call @sluice_sorted_find_i64(%ids, %zero, %nv, %id) : (!llvm.ptr, i64, i64, i64) -> i64
      %found = arith.cmpi sge, %at, %zero : i64
      %v32 = arith.trunci %at : i64 to i32
      %r = arith.select %found, %v32, %vnone : i32
      scf.yield %r : i32
    }
    return %v : i32
  }
  // random() (sluice_walk_random): Philox under the seed with its words
  // flipped, counter (draw / 2, step, walker low, walker high); draw counts
  // the calls of this step.
  func.func private @sluice_random(%f: !llvm.ptr) -> f64 {
    %c9 = arith.constant {sluice.frame_slot = "walker"} 9 : i32
    %c12 = arith.constant {sluice.frame_slot = "step"} 12 : i32
    %c13 = arith.constant {sluice.frame_slot = "seed"} 13 : i32
    %c14 = arith.constant {sluice.frame_slot = "draws"} 14 : i32
    %one = arith.constant 1 : i64
    %c32 = arith.constant 32 : i64
    %flip0 = arith.constant 1779033703 : i32
    %flip1 = arith.constant -1150833019 : i32
    %dp = func.call @sluice_frame_slot(%f, %c14) : (!llvm.ptr, i32) -> !llvm.ptr
    %draw = llvm.load %dp : !llvm.ptr -> i64
    %draw1 = arith.addi %draw, %one : i64
    llvm.store %draw1, %dp : i64, !llvm.ptr
    %seed = func.call @sluice_frame_i64(%f, %c13) : (!llvm.ptr, i32) -> i64
    %s0 = arith.trunci %seed : i64 to i32
    %sh = arith.shrui %seed, %c32 : i64
    %s1 = arith.trunci %sh : i64 to i32
    %k0 = arith.xori %s0, %flip0 : i32
    %k1 = arith.xori %s1, %flip1 : i32
    %blk = arith.shrui %draw, %one : i64
    %c0 = arith.trunci %blk : i64 to i32
    %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
    %c1 = arith.trunci %step : i64 to i32
    %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
    %c2 = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %c3 = arith.trunci %wsh : i64 to i32
    %b:4 = func.call @sluice_philox(%c0, %c1, %c2, %c3, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    %odd = arith.andi %draw, %one : i64
    %zero = arith.constant 0 : i64
    %isodd = arith.cmpi ne, %odd, %zero : i64
    %hi = arith.select %isodd, %b#2, %b#0 : i32
    %lo = arith.select %isodd, %b#3, %b#1 : i32
    %x = func.call @sluice_bits_to_double(%hi, %lo) : (i32, i32) -> f64
    return %x : f64
  }

  // @sluice_sorted_find_<ty>(%base, %lo, %hi, %key): the index of the
  // first `key` in the sorted elements [lo, hi) of `base` (element type
  // `ty`, compared unsigned), or -1. One binary search for has_edge (i32
  // targets) and vertex_of (i64 original ids).
  func.func private @sluice_sorted_find_i32(%base: !llvm.ptr, %begin: i64, %end: i64, %key: i32) -> i64 {
    %one = arith.constant 1 : i64
    %none = arith.constant -1 : i64
    %r:2 = scf.while (%lo = %begin, %hi = %end) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ult, %lo, %hi : i64
      scf.condition(%more) %lo, %hi : i64, i64
    } do {
    ^bb0(%lo1: i64, %hi1: i64):
      %span = arith.subi %hi1, %lo1 : i64
      %half = arith.shrui %span, %one : i64
      %mid = arith.addi %lo1, %half : i64
      %p = llvm.getelementptr inbounds %base[%mid] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %x = llvm.load %p : !llvm.ptr -> i32
      %less = arith.cmpi ult, %x, %key : i32
      %mid1 = arith.addi %mid, %one : i64
      %lo2 = arith.select %less, %mid1, %lo1 : i64
      %hi2 = arith.select %less, %hi1, %mid : i64
      scf.yield %lo2, %hi2 : i64, i64
    }
    %inside = arith.cmpi ult, %r#0, %end : i64
    %res = scf.if %inside -> (i64) {
      %p = llvm.getelementptr inbounds %base[%r#0] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %x = llvm.load %p : !llvm.ptr -> i32
      %hit = arith.cmpi eq, %x, %key : i32
      %e = arith.select %hit, %r#0, %none : i64
      scf.yield %e : i64
    } else {
      scf.yield %none : i64
    }
    return %res : i64
  }

  func.func private @sluice_sorted_find_i64(%base: !llvm.ptr, %begin: i64, %end: i64, %key: i64) -> i64 {
    %one = arith.constant 1 : i64
    %none = arith.constant -1 : i64
    %r:2 = scf.while (%lo = %begin, %hi = %end) : (i64, i64) -> (i64, i64) {
      %more = arith.cmpi ult, %lo, %hi : i64
      scf.condition(%more) %lo, %hi : i64, i64
    } do {
    ^bb0(%lo1: i64, %hi1: i64):
      %span = arith.subi %hi1, %lo1 : i64
      %half = arith.shrui %span, %one : i64
      %mid = arith.addi %lo1, %half : i64
      %p = llvm.getelementptr inbounds %base[%mid] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %x = llvm.load %p : !llvm.ptr -> i64
      %less = arith.cmpi ult, %x, %key : i64
      %mid1 = arith.addi %mid, %one : i64
      %lo2 = arith.select %less, %mid1, %lo1 : i64
      %hi2 = arith.select %less, %hi1, %mid : i64
      scf.yield %lo2, %hi2 : i64, i64
    }
    %inside = arith.cmpi ult, %r#0, %end : i64
    %res = scf.if %inside -> (i64) {
      %p = llvm.getelementptr inbounds %base[%r#0] : (!llvm.ptr, i64) -> !llvm.ptr, i64
      %x = llvm.load %p : !llvm.ptr -> i64
      %hit = arith.cmpi eq, %x, %key : i64
      %e = arith.select %hit, %r#0, %none : i64
      scf.yield %e : i64
    } else {
      scf.yield %none : i64
    }
    return %res : i64
  }
}
