// WalkReservoirLibrary.mlir - warp-wide reservoir sampling helpers
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
  func.func private @sluice_bits_to_double(i32, i32) -> f64
  func.func private @sluice_frame_i64(!llvm.ptr, i32) -> i64
  func.func private @sluice_philox(i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  // The natural logarithm of a positive normal x on the device: x = m 2^e
  // with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1) /
  // (m + 1), |s| < 0.172, atanh(s) / s = sum_k z^k / (2k + 1) (z = s^2) by
  // Horner's rule to k = 11 (p_k = 1 / (2k + 1); s^23: truncation < 1e-17),
  // e ln 2 with ln 2 split in two. Written out rather than math.log, which
  // would lower (convert-gpu-to-nvvm) to libdevice's __nv_log, and the
  // upstream polynomial approximation of math.log is f32 only.
  func.func private @sluice_log(%x: f64) -> f64 {
    %c52 = arith.constant 52 : i64
    %emask = arith.constant 2047 : i64
    %bias = arith.constant 1023 : i64
    %ione = arith.constant 1 : i64
    %mmask = arith.constant 4503599627370495 : i64
    %onebits = arith.constant 4607182418800017408 : i64
    %one = arith.constant 1.0 : f64
    %two = arith.constant 2.0 : f64
    %half = arith.constant 0.5 : f64
    %sqrt2 = arith.constant 1.4142135623730951 : f64
    %ln2hi = arith.constant 0.69314718036912382 : f64
    %ln2lo = arith.constant 1.9082149292705877e-10 : f64
    %bits = arith.bitcast %x : f64 to i64
    %eb = arith.shrui %bits, %c52 : i64
    %eb2 = arith.andi %eb, %emask : i64
    %e0 = arith.subi %eb2, %bias : i64
    %mb = arith.andi %bits, %mmask : i64
    %mb2 = arith.ori %mb, %onebits : i64
    %m0 = arith.bitcast %mb2 : i64 to f64
    %big = arith.cmpf ogt, %m0, %sqrt2 : f64
    %mh = arith.mulf %m0, %half : f64
    %m = arith.select %big, %mh, %m0 : f64
    %e1 = arith.addi %e0, %ione : i64
    %e = arith.select %big, %e1, %e0 : i64
    %num = arith.subf %m, %one : f64
    %den = arith.addf %m, %one : f64
    %s = arith.divf %num, %den : f64
    %z = arith.mulf %s, %s : f64
    %p11 = arith.constant 0.043478260869565216 : f64
    %a10 = arith.mulf %p11, %z : f64
    %c10 = arith.constant 0.047619047619047616 : f64
    %p10 = arith.addf %a10, %c10 : f64
    %a9 = arith.mulf %p10, %z : f64
    %c9 = arith.constant 0.052631578947368418 : f64
    %p9 = arith.addf %a9, %c9 : f64
    %a8 = arith.mulf %p9, %z : f64
    %c8 = arith.constant 0.058823529411764705 : f64
    %p8 = arith.addf %a8, %c8 : f64
    %a7 = arith.mulf %p8, %z : f64
    %c7 = arith.constant 0.066666666666666666 : f64
    %p7 = arith.addf %a7, %c7 : f64
    %a6 = arith.mulf %p7, %z : f64
    %c6 = arith.constant 0.076923076923076927 : f64
    %p6 = arith.addf %a6, %c6 : f64
    %a5 = arith.mulf %p6, %z : f64
    %c5 = arith.constant 0.090909090909090912 : f64
    %p5 = arith.addf %a5, %c5 : f64
    %a4 = arith.mulf %p5, %z : f64
    %c4 = arith.constant 0.1111111111111111 : f64
    %p4 = arith.addf %a4, %c4 : f64
    %a3 = arith.mulf %p4, %z : f64
    %c3 = arith.constant 0.14285714285714285 : f64
    %p3 = arith.addf %a3, %c3 : f64
    %a2 = arith.mulf %p3, %z : f64
    %c2 = arith.constant 0.20000000000000001 : f64
    %p2 = arith.addf %a2, %c2 : f64
    %a1 = arith.mulf %p2, %z : f64
    %c1 = arith.constant 0.33333333333333331 : f64
    %p1 = arith.addf %a1, %c1 : f64
    %a0 = arith.mulf %p1, %z : f64
    %p0 = arith.addf %a0, %one : f64
    %s2 = arith.mulf %s, %two : f64
    %ls = arith.mulf %s2, %p0 : f64
    %ef = arith.sitofp %e : i64 to f64
    %hi = arith.mulf %ef, %ln2hi : f64
    %lo = arith.mulf %ef, %ln2lo : f64
    %r0 = arith.addf %ls, %lo : f64
    %r = arith.addf %hi, %r0 : f64
    return %r : f64
  }

  // Candidate (key k, index i) beats (bk, bi): a candidate beats none (-1),
  // a larger key wins, equal keys go to the smaller index. A strict total
  // order, so the butterfly's result does not depend on the lane.
  func.func private @sluice_reservoir_better(%k: f64, %i: i64, %bk: f64, %bi: i64) -> i1 {
    %none = arith.constant -1 : i64
    %real = arith.cmpi ne, %i, %none : i64
    %empty = arith.cmpi eq, %bi, %none : i64
    %gt = arith.cmpf ogt, %k, %bk : f64
    %eq = arith.cmpf oeq, %k, %bk : f64
    %lt = arith.cmpi slt, %i, %bi : i64
    %tie = arith.andi %eq, %lt : i1
    %wins = arith.ori %gt, %tie : i1
    %any = arith.ori %empty, %wins : i1
    %b = arith.andi %real, %any : i1
    return %b : i1
  }
  // The key of candidate i (its index among cur's edges) of weight w > 0:
  // log(u) / w, u = 1 - [0, 1) from Philox under the seed with its words
  // flipped (0x3C6EF372, 0xA54FF53A; i's high word also in key word 1),
  // counter (i low, step, walker low, walker high), words 0 and 1.
  func.func private @sluice_reservoir_key(%f: !llvm.ptr, %i: i64, %w: f64) -> f64 {
    %c9 = arith.constant {sluice.frame_slot = "walker"} 9 : i32
    %c12 = arith.constant {sluice.frame_slot = "step"} 12 : i32
    %c13 = arith.constant {sluice.frame_slot = "seed"} 13 : i32
    %c32 = arith.constant 32 : i64
    %one = arith.constant 1.0 : f64
    %flip0 = arith.constant 1013904242 : i32
    %flip1 = arith.constant -1521486534 : i32
    %seed = func.call @sluice_frame_i64(%f, %c13) : (!llvm.ptr, i32) -> i64
    %s0 = arith.trunci %seed : i64 to i32
    %sh = arith.shrui %seed, %c32 : i64
    %s1 = arith.trunci %sh : i64 to i32
    %ish = arith.shrui %i, %c32 : i64
    %ihi = arith.trunci %ish : i64 to i32
    %k0 = arith.xori %s0, %flip0 : i32
    %k1a = arith.xori %s1, %flip1 : i32
    %k1 = arith.xori %k1a, %ihi : i32
    %ilo = arith.trunci %i : i64 to i32
    %step = func.call @sluice_frame_i64(%f, %c12) : (!llvm.ptr, i32) -> i64
    %st = arith.trunci %step : i64 to i32
    %walker = func.call @sluice_frame_i64(%f, %c9) : (!llvm.ptr, i32) -> i64
    %wlo = arith.trunci %walker : i64 to i32
    %wsh = arith.shrui %walker, %c32 : i64
    %whi = arith.trunci %wsh : i64 to i32
    %b:4 = func.call @sluice_philox(%ilo, %st, %wlo, %whi, %k0, %k1) : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
    %x = func.call @sluice_bits_to_double(%b#0, %b#1) : (i32, i32) -> f64
    %u = arith.subf %one, %x : f64
    %l = func.call @sluice_log(%u) : (f64) -> f64
    %key = arith.divf %l, %w : f64
    return %key : f64
  }
  // x from lane `lane xor off` (a 64-bit value as two 32-bit shuffles).
  func.func private @sluice_shfl_xor_i64(%x: i64, %off: i32) -> i64 {
    %c32 = arith.constant 32 : i64
    %width = arith.constant 32 : i32
    %lo = arith.trunci %x : i64 to i32
    %h = arith.shrui %x, %c32 : i64
    %hi = arith.trunci %h : i64 to i32
    %slo, %vlo = gpu.shuffle xor %lo, %off, %width : i32
    %shi, %vhi = gpu.shuffle xor %hi, %off, %width : i32
    %a = arith.extui %slo : i32 to i64
    %b = arith.extui %shi : i32 to i64
    %bs = arith.shli %b, %c32 : i64
    %r = arith.ori %bs, %a : i64
    return %r : i64
  }
  // The warp's best candidate, in every lane (offsets 16, 8, 4, 2, 1).
  func.func private @sluice_warp_best(%k: f64, %i: i64) -> (f64, i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %r:3 = scf.while (%off = %c16, %k1 = %k, %i1 = %i) : (i32, f64, i64) -> (i32, f64, i64) {
      %more = arith.cmpi ne, %off, %c0 : i32
      scf.condition(%more) %off, %k1, %i1 : i32, f64, i64
    } do {
    ^bb0(%off1: i32, %k2: f64, %i2: i64):
      %kb = arith.bitcast %k2 : f64 to i64
      %okb = func.call @sluice_shfl_xor_i64(%kb, %off1) : (i64, i32) -> i64
      %ok = arith.bitcast %okb : i64 to f64
      %oi = func.call @sluice_shfl_xor_i64(%i2, %off1) : (i64, i32) -> i64
      %better = func.call @sluice_reservoir_better(%ok, %oi, %k2, %i2) : (f64, i64, f64, i64) -> i1
      %k3 = arith.select %better, %ok, %k2 : f64
      %i3 = arith.select %better, %oi, %i2 : i64
      %off2 = arith.shrui %off1, %c1 : i32
      scf.yield %off2, %k3, %i3 : i32, f64, i64
    }
    return %r#1, %r#2 : f64, i64
  }
}
