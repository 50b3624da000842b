// WalkRejectionSampler.mlir - one thread per walker, rejection with an exact fallback
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
  // Imports.
  func.func private @sluice_next_double(!llvm.ptr) -> f64
  func.func private @sluice_uniform_index(!llvm.ptr, i64) -> i64
  func.func private @sluice_walk_WALK_edge_w(!llvm.ptr, i64) -> f64
  func.func private @sluice_walk_WALK_upper_bound(!llvm.ptr) -> f64

  // sampleExact: two passes, one uniform; -1 when no weight is positive.
  func.func private @sluice_walk_WALK_exact(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64) -> i64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %fz = arith.constant 0.0 : f64
    %t:3 = scf.while (%i = %zero, %total = %fz, %last = %none) : (i64, f64, i64) -> (i64, f64, i64) {
      %more = arith.cmpi ult, %i, %d : i64
      scf.condition(%more) %i, %total, %last : i64, f64, i64
    } do {
    ^bb0(%i1: i64, %total1: f64, %last1: i64):
      %e = arith.addi %begin, %i1 : i64
      %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
      %pos = arith.cmpf ogt, %w, %fz : f64
      %sum = arith.addf %total1, %w : f64
      %total2 = arith.select %pos, %sum, %total1 : f64
      %last2 = arith.select %pos, %i1, %last1 : i64
      %i2 = arith.addi %i1, %one : i64
      scf.yield %i2, %total2, %last2 : i64, f64, i64
    }
    %empty = arith.cmpi eq, %t#2, %none : i64
    %res = scf.if %empty -> (i64) {
      scf.yield %none : i64
    } else {
      %u = func.call @sluice_next_double(%r) : (!llvm.ptr) -> f64
      %target = arith.mulf %u, %t#1 : f64
      %s:3 = scf.while (%i = %zero, %acc = %fz, %found = %none) : (i64, f64, i64) -> (i64, f64, i64) {
        %more = arith.cmpi ult, %i, %t#2 : i64
        %open = arith.cmpi eq, %found, %none : i64
        %go = arith.andi %more, %open : i1
        scf.condition(%go) %i, %acc, %found : i64, f64, i64
      } do {
      ^bb0(%i1: i64, %acc1: f64, %found1: i64):
        %e = arith.addi %begin, %i1 : i64
        %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
        %pos = arith.cmpf ogt, %w, %fz : f64
        %sum = arith.addf %acc1, %w : f64
        %acc2 = arith.select %pos, %sum, %acc1 : f64
        %below = arith.cmpf olt, %target, %acc2 : f64
        %hit = arith.andi %pos, %below : i1
        %found2 = arith.select %hit, %i1, %none : i64
        %i2 = arith.addi %i1, %one : i64
        scf.yield %i2, %acc2, %found2 : i64, f64, i64
      }
      %miss = arith.cmpi eq, %s#2, %none : i64
      %j = arith.select %miss, %t#2, %s#2 : i64
      scf.yield %j : i64
    }
    return %res : i64
  }
  // Rejection against upper_bound(cur), at most min(64, max(4, 2 d))
  // trials (SLUICE_WALK_REJECTION_* of walk.h), then sampleExact (the CPU
  // engine's rejection mode).
  func.func private @sluice_walk_WALK_sample(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64, %lane: i32) -> i64 {
    %none = arith.constant -1 : i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %four = arith.constant {sluice.walk_constant = "rejection_min_trials"} 4 : i64
    %cap = arith.constant {sluice.walk_constant = "rejection_max_trials"} 64 : i64
    %per = arith.constant {sluice.walk_constant = "rejection_trials_per_edge"} 2 : i64
    %fz = arith.constant 0.0 : f64
    %inf = arith.constant 0x7FF0000000000000 : f64
    %bound = func.call @sluice_walk_WALK_upper_bound(%f) : (!llvm.ptr) -> f64
    %twice = arith.muli %d, %per : i64
    %atleast = arith.maxui %twice, %four : i64
    %trials = arith.minui %atleast, %cap : i64
    %pos = arith.cmpf ogt, %bound, %fz : f64
    %fin = arith.cmpf olt, %bound, %inf : f64
    %usable = arith.andi %pos, %fin : i1
    %acc = scf.if %usable -> (i64) {
      %s:2 = scf.while (%k = %zero, %found = %none) : (i64, i64) -> (i64, i64) {
        %more = arith.cmpi ult, %k, %trials : i64
        %open = arith.cmpi eq, %found, %none : i64
        %go = arith.andi %more, %open : i1
        scf.condition(%go) %k, %found : i64, i64
      } do {
      ^bb0(%k1: i64, %found1: i64):
        %i = func.call @sluice_uniform_index(%r, %d) : (!llvm.ptr, i64) -> i64
        %e = arith.addi %begin, %i : i64
        %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
        %u = func.call @sluice_next_double(%r) : (!llvm.ptr) -> f64
        %y = arith.mulf %u, %bound : f64
        %ok = arith.cmpf olt, %y, %w : f64
        %found2 = arith.select %ok, %i, %none : i64
        %k2 = arith.addi %k1, %one : i64
        scf.yield %k2, %found2 : i64, i64
      }
      scf.yield %s#1 : i64
    } else {
      scf.yield %none : i64
    }
    %rejected = arith.cmpi eq, %acc, %none : i64
    %j = scf.if %rejected -> (i64) {
      %x = func.call @sluice_walk_WALK_exact(%f, %r, %begin, %d) : (!llvm.ptr, !llvm.ptr, i64, i64) -> i64
      scf.yield %x : i64
    } else {
      scf.yield %acc : i64
    }
    return %j : i64
  }
}
