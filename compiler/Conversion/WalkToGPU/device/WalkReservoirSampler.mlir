// WalkReservoirSampler.mlir - a warp per walker, weighted reservoir sampling
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
  func.func private @sluice_reservoir_better(f64, i64, f64, i64) -> i1
  func.func private @sluice_reservoir_key(!llvm.ptr, i64, f64) -> f64
  func.func private @sluice_walk_WALK_edge_w(!llvm.ptr, i64) -> f64
  func.func private @sluice_warp_best(f64, i64) -> (f64, i64)

  func.func private @sluice_walk_WALK_sample(%f: !llvm.ptr, %r: !llvm.ptr, %begin: i64, %d: i64, %lane: i32) -> i64 {
    %none = arith.constant -1 : i64
    %c32 = arith.constant 32 : i64
    %fz = arith.constant 0.0 : f64
    %ninf = arith.constant 0xFFF0000000000000 : f64
    %first = arith.extui %lane : i32 to i64
    %t:3 = scf.while (%i = %first, %bk = %ninf, %bi = %none) : (i64, f64, i64) -> (i64, f64, i64) {
      %more = arith.cmpi ult, %i, %d : i64
      scf.condition(%more) %i, %bk, %bi : i64, f64, i64
    } do {
    ^bb0(%i1: i64, %bk1: f64, %bi1: i64):
      %e = arith.addi %begin, %i1 : i64
      %w = func.call @sluice_walk_WALK_edge_w(%f, %e) : (!llvm.ptr, i64) -> f64
      %pos = arith.cmpf ogt, %w, %fz : f64
      %n:2 = scf.if %pos -> (f64, i64) {
        %key = func.call @sluice_reservoir_key(%f, %i1, %w) : (!llvm.ptr, i64, f64) -> f64
        %better = func.call @sluice_reservoir_better(%key, %i1, %bk1, %bi1) : (f64, i64, f64, i64) -> i1
        %k2 = arith.select %better, %key, %bk1 : f64
        %i2 = arith.select %better, %i1, %bi1 : i64
        scf.yield %k2, %i2 : f64, i64
      } else {
        scf.yield %bk1, %bi1 : f64, i64
      }
      %i3 = arith.addi %i1, %c32 : i64
      scf.yield %i3, %n#0, %n#1 : i64, f64, i64
    }
    %best:2 = func.call @sluice_warp_best(%t#1, %t#2) : (f64, i64) -> (f64, i64)
    return %best#1 : i64
  }
}
