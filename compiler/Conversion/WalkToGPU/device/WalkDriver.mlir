// WalkDriver.mlir - the kernel of walk WALK and its weight of an edge
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
  func.func private @sluice_kernel_arg_f64(!llvm.ptr, i32) -> f64
  func.func private @sluice_kernel_arg_i64(!llvm.ptr, i32) -> i64
  func.func private @sluice_kernel_arg_ptr(!llvm.ptr, i32) -> !llvm.ptr
  func.func private @sluice_adjacency(!llvm.ptr, i32) -> (i64, i64)
  func.func private @sluice_frame_i32(!llvm.ptr, i32) -> i32
  func.func private @sluice_frame_i64(!llvm.ptr, i32) -> i64
  func.func private @sluice_frame_ptr(!llvm.ptr, i32) -> !llvm.ptr
  func.func private @sluice_frame_slot(!llvm.ptr, i32) -> !llvm.ptr
  func.func private @sluice_next_double(!llvm.ptr) -> f64
  func.func private @sluice_rng_init(!llvm.ptr, i32, i32, i32, i64)
  func.func private @sluice_stored_weight(!llvm.ptr, i64) -> f64
  func.func private @sluice_walk_WALK_init(!llvm.ptr)
  func.func private @sluice_walk_WALK_sample(!llvm.ptr, !llvm.ptr, i64, i64, i32) -> i64
  func.func private @sluice_walk_WALK_stop(!llvm.ptr) -> i1
  func.func private @sluice_walk_WALK_update(!llvm.ptr, i32)
  func.func private @sluice_walk_WALK_weight(!llvm.ptr, i32, i64, f64) -> f64

  // The kernel's weight of edge e from the frame's cur.
  func.func private @sluice_walk_WALK_edge_w(%f: !llvm.ptr, %e: i64) -> f64 {
    %c1 = arith.constant {sluice.frame_slot = "targets"} 1 : i32
    %tg = func.call @sluice_frame_ptr(%f, %c1) : (!llvm.ptr, i32) -> !llvm.ptr
    %p = llvm.getelementptr inbounds %tg[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %next = llvm.load %p : !llvm.ptr -> i32
    %w = func.call @sluice_stored_weight(%f, %e) : (!llvm.ptr, i64) -> f64
    %x = func.call @sluice_walk_WALK_weight(%f, %next, %e, %w) : (!llvm.ptr, i32, i64, f64) -> f64
    return %x : f64
  }
  // T = threads_per_walker (1: rejection, 32: a warp, reservoir):
  // thread t runs walker w = t / T as lane t % T; every lane
  // keeps the walker's whole state (the same values: the control flow is
  // the same in every lane), they share only the sampling. The launch
  // covers walkers walker_base .. walker_base + num_walkers - 1: thread t
  // runs walker w = walker_base + t / T (the id the random numbers
  // are keyed by), which starts at starts[w / walks_per_vertex]; lane 0
  // writes rows[(t / T) * max_length ...] and lengths[t / T].
  gpu.func @sluice_walk_WALK(%args: !llvm.ptr) kernel {
    // The arguments: one sluice_walk_gpu_args_t (walk_gpu.h) in device
    // memory; each field is 8 bytes, its index tagged by name.
    %arg_offsets = arith.constant {sluice.kernel_arg = "offsets"} 0 : i32
    %offsets = func.call @sluice_kernel_arg_ptr(%args, %arg_offsets) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_targets = arith.constant {sluice.kernel_arg = "targets"} 1 : i32
    %targets = func.call @sluice_kernel_arg_ptr(%args, %arg_targets) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_weights = arith.constant {sluice.kernel_arg = "weights"} 2 : i32
    %weights = func.call @sluice_kernel_arg_ptr(%args, %arg_weights) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_wmax = arith.constant {sluice.kernel_arg = "weight_max"} 3 : i32
    %wmax = func.call @sluice_kernel_arg_ptr(%args, %arg_wmax) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_wmin = arith.constant {sluice.kernel_arg = "weight_min"} 4 : i32
    %wmin = func.call @sluice_kernel_arg_ptr(%args, %arg_wmin) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_wsum = arith.constant {sluice.kernel_arg = "weight_sum"} 5 : i32
    %wsum = func.call @sluice_kernel_arg_ptr(%args, %arg_wsum) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_labels = arith.constant {sluice.kernel_arg = "labels"} 6 : i32
    %labels = func.call @sluice_kernel_arg_ptr(%args, %arg_labels) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_params = arith.constant {sluice.kernel_arg = "params"} 7 : i32
    %params = func.call @sluice_kernel_arg_ptr(%args, %arg_params) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_starts = arith.constant {sluice.kernel_arg = "starts"} 8 : i32
    %starts = func.call @sluice_kernel_arg_ptr(%args, %arg_starts) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_num_walkers = arith.constant {sluice.kernel_arg = "num_walkers"} 9 : i32
    %num_walkers = func.call @sluice_kernel_arg_i64(%args, %arg_num_walkers) : (!llvm.ptr, i32) -> i64
    %arg_wpv = arith.constant {sluice.kernel_arg = "walks_per_vertex"} 10 : i32
    %wpv = func.call @sluice_kernel_arg_i64(%args, %arg_wpv) : (!llvm.ptr, i32) -> i64
    %arg_max_length = arith.constant {sluice.kernel_arg = "max_length"} 11 : i32
    %max_length = func.call @sluice_kernel_arg_i64(%args, %arg_max_length) : (!llvm.ptr, i32) -> i64
    %arg_stop_prob = arith.constant {sluice.kernel_arg = "stop_probability"} 12 : i32
    %stop_prob = func.call @sluice_kernel_arg_f64(%args, %arg_stop_prob) : (!llvm.ptr, i32) -> f64
    %arg_seed = arith.constant {sluice.kernel_arg = "seed"} 13 : i32
    %seed = func.call @sluice_kernel_arg_i64(%args, %arg_seed) : (!llvm.ptr, i32) -> i64
    %arg_rows = arith.constant {sluice.kernel_arg = "rows"} 14 : i32
    %rows = func.call @sluice_kernel_arg_ptr(%args, %arg_rows) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_lengths = arith.constant {sluice.kernel_arg = "lengths"} 15 : i32
    %lengths = func.call @sluice_kernel_arg_ptr(%args, %arg_lengths) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_nv = arith.constant {sluice.kernel_arg = "num_vertices"} 16 : i32
    %nv = func.call @sluice_kernel_arg_i64(%args, %arg_nv) : (!llvm.ptr, i32) -> i64
    %arg_ne = arith.constant {sluice.kernel_arg = "num_edges"} 17 : i32
    %ne = func.call @sluice_kernel_arg_i64(%args, %arg_ne) : (!llvm.ptr, i32) -> i64
    %arg_edge_labels = arith.constant {sluice.kernel_arg = "edge_labels"} 18 : i32
    %edge_labels = func.call @sluice_kernel_arg_ptr(%args, %arg_edge_labels) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_walker_base = arith.constant {sluice.kernel_arg = "walker_base"} 19 : i32
    %walker_base = func.call @sluice_kernel_arg_i64(%args, %arg_walker_base) : (!llvm.ptr, i32) -> i64
    %arg_fault = arith.constant {sluice.kernel_arg = "fault"} 20 : i32
    %fault = func.call @sluice_kernel_arg_ptr(%args, %arg_fault) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_original_ids = arith.constant {sluice.kernel_arg = "original_ids"} 21 : i32
    %original_ids = func.call @sluice_kernel_arg_ptr(%args, %arg_original_ids) : (!llvm.ptr, i32) -> !llvm.ptr
    %arg_id_base = arith.constant {sluice.kernel_arg = "id_base"} 22 : i32
    %id_base = func.call @sluice_kernel_arg_i64(%args, %arg_id_base) : (!llvm.ptr, i32) -> i64
    %nslots = arith.constant {sluice.frame_slot = "num_slots"} 21 : i32
    %c11 = arith.constant 11 : i32
    %nstate = arith.constant {sluice.walk_constant = "num_state"} 1 : i32
    %frame = llvm.alloca %nslots x i64 : (i32) -> !llvm.ptr
    %rng = llvm.alloca %c11 x i32 : (i32) -> !llvm.ptr
    %state = llvm.alloca %nstate x i64 : (i32) -> !llvm.ptr
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %tid = gpu.thread_id x
    %base = arith.muli %bid, %bdim : index
    %gid = arith.addi %base, %tid : index
    %g = arith.index_cast %gid : index to i64
    %tpw = arith.constant {sluice.walk_constant = "threads_per_walker"} 1 : i64
    %lw = arith.divui %g, %tpw : i64
    %w = arith.addi %walker_base, %lw : i64
    %lane64 = arith.remui %g, %tpw : i64
    %lane = arith.trunci %lane64 : i64 to i32
    %lane0 = arith.constant 0 : i32
    %lead = arith.cmpi eq, %lane, %lane0 : i32
    %in = arith.cmpi ult, %lw, %num_walkers : i64
    scf.if %in {
      %zero = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %c32 = arith.constant 32 : i64
      %fz = arith.constant 0.0 : f64
      %none = arith.constant -1 : i64
      %true = arith.constant true
      %false = arith.constant false
      %ns64 = arith.extui %nstate : i32 to i64
      scf.for %k = %zero to %ns64 step %one : i64 {
        %p = llvm.getelementptr inbounds %state[%k] : (!llvm.ptr, i64) -> !llvm.ptr, i64
        llvm.store %zero, %p : i64, !llvm.ptr
      }
      %si = arith.divui %w, %wpv : i64
      %sp = llvm.getelementptr inbounds %starts[%si] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %start = llvm.load %sp : !llvm.ptr -> i32
      %i0 = arith.constant {sluice.frame_slot = "offsets"} 0 : i32
      %i1 = arith.constant {sluice.frame_slot = "targets"} 1 : i32
      %i2 = arith.constant {sluice.frame_slot = "weights"} 2 : i32
      %i3 = arith.constant {sluice.frame_slot = "weight_max"} 3 : i32
      %i4 = arith.constant {sluice.frame_slot = "weight_min"} 4 : i32
      %i5 = arith.constant {sluice.frame_slot = "weight_sum"} 5 : i32
      %i6 = arith.constant {sluice.frame_slot = "labels"} 6 : i32
      %i7 = arith.constant {sluice.frame_slot = "params"} 7 : i32
      %i8 = arith.constant {sluice.frame_slot = "state"} 8 : i32
      %i9 = arith.constant {sluice.frame_slot = "walker"} 9 : i32
      %i10 = arith.constant {sluice.frame_slot = "prev"} 10 : i32
      %i11 = arith.constant {sluice.frame_slot = "cur"} 11 : i32
      %i12 = arith.constant {sluice.frame_slot = "step"} 12 : i32
      %i13 = arith.constant {sluice.frame_slot = "seed"} 13 : i32
      %i14 = arith.constant {sluice.frame_slot = "draws"} 14 : i32
      %i15 = arith.constant {sluice.frame_slot = "num_vertices"} 15 : i32
      %i16 = arith.constant {sluice.frame_slot = "num_edges"} 16 : i32
      %f0 = func.call @sluice_frame_slot(%frame, %i0) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %offsets, %f0 : !llvm.ptr, !llvm.ptr
      %f1 = func.call @sluice_frame_slot(%frame, %i1) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %targets, %f1 : !llvm.ptr, !llvm.ptr
      %f2 = func.call @sluice_frame_slot(%frame, %i2) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %weights, %f2 : !llvm.ptr, !llvm.ptr
      %f3 = func.call @sluice_frame_slot(%frame, %i3) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wmax, %f3 : !llvm.ptr, !llvm.ptr
      %f4 = func.call @sluice_frame_slot(%frame, %i4) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wmin, %f4 : !llvm.ptr, !llvm.ptr
      %f5 = func.call @sluice_frame_slot(%frame, %i5) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %wsum, %f5 : !llvm.ptr, !llvm.ptr
      %f6 = func.call @sluice_frame_slot(%frame, %i6) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %labels, %f6 : !llvm.ptr, !llvm.ptr
      %f7 = func.call @sluice_frame_slot(%frame, %i7) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %params, %f7 : !llvm.ptr, !llvm.ptr
      %f8 = func.call @sluice_frame_slot(%frame, %i8) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %state, %f8 : !llvm.ptr, !llvm.ptr
      %f9 = func.call @sluice_frame_slot(%frame, %i9) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %w, %f9 : i64, !llvm.ptr
      %f10 = func.call @sluice_frame_slot(%frame, %i10) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %start, %f10 : i32, !llvm.ptr
      %f11 = func.call @sluice_frame_slot(%frame, %i11) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %start, %f11 : i32, !llvm.ptr
      %f12 = func.call @sluice_frame_slot(%frame, %i12) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %zero, %f12 : i64, !llvm.ptr
      %f13 = func.call @sluice_frame_slot(%frame, %i13) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %seed, %f13 : i64, !llvm.ptr
      %f14 = func.call @sluice_frame_slot(%frame, %i14) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %zero, %f14 : i64, !llvm.ptr
      %f15 = func.call @sluice_frame_slot(%frame, %i15) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %nv, %f15 : i64, !llvm.ptr
      %f16 = func.call @sluice_frame_slot(%frame, %i16) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %ne, %f16 : i64, !llvm.ptr
      %i17 = arith.constant {sluice.frame_slot = "edge_labels"} 17 : i32
      %f17 = func.call @sluice_frame_slot(%frame, %i17) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %edge_labels, %f17 : !llvm.ptr, !llvm.ptr
      %i18 = arith.constant {sluice.frame_slot = "fault"} 18 : i32
      %f18 = func.call @sluice_frame_slot(%frame, %i18) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %fault, %f18 : !llvm.ptr, !llvm.ptr
      %i19 = arith.constant {sluice.frame_slot = "original_ids"} 19 : i32
      %f19 = func.call @sluice_frame_slot(%frame, %i19) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %original_ids, %f19 : !llvm.ptr, !llvm.ptr
      %i20 = arith.constant {sluice.frame_slot = "id_base"} 20 : i32
      %f20 = func.call @sluice_frame_slot(%frame, %i20) : (!llvm.ptr, i32) -> !llvm.ptr
      llvm.store %id_base, %f20 : i64, !llvm.ptr
      func.call @sluice_walk_WALK_init(%frame) : (!llvm.ptr) -> ()
      %rowbase = arith.muli %lw, %max_length : i64
      %row = llvm.getelementptr inbounds %rows[%rowbase] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      scf.if %lead {
        llvm.store %start, %row : i32, !llvm.ptr
      }
      %k0 = arith.trunci %seed : i64 to i32
      %seedhi = arith.shrui %seed, %c32 : i64
      %k1 = arith.trunci %seedhi : i64 to i32
      %len:2 = scf.while (%n = %one, %go = %true) : (i64, i1) -> (i64, i1) {
        %room = arith.cmpi slt, %n, %max_length : i64
        %cont = arith.andi %room, %go : i1
        scf.condition(%cont) %n, %go : i64, i1
      } do {
      ^bb0(%n1: i64, %go1: i1):
        %step = func.call @sluice_frame_i64(%frame, %i12) : (!llvm.ptr, i32) -> i64
        %step32 = arith.trunci %step : i64 to i32
        func.call @sluice_rng_init(%rng, %k0, %k1, %step32, %w) : (!llvm.ptr, i32, i32, i32, i64) -> ()
        %restart = arith.cmpf ogt, %stop_prob, %fz : f64
        %alive = scf.if %restart -> (i1) {
          %u = func.call @sluice_next_double(%rng) : (!llvm.ptr) -> f64
          %stays = arith.cmpf oge, %u, %stop_prob : f64
          scf.yield %stays : i1
        } else {
          scf.yield %true : i1
        }
        %alive2 = scf.if %alive -> (i1) {
          %stop = func.call @sluice_walk_WALK_stop(%frame) : (!llvm.ptr) -> i1
          %cont = arith.xori %stop, %true : i1
          scf.yield %cont : i1
        } else {
          scf.yield %false : i1
        }
        %moved = scf.if %alive2 -> (i1) {
          %cur = func.call @sluice_frame_i32(%frame, %i11) : (!llvm.ptr, i32) -> i32
          %be:2 = func.call @sluice_adjacency(%frame, %cur) : (!llvm.ptr, i32) -> (i64, i64)
          %d = arith.subi %be#1, %be#0 : i64
          %has = arith.cmpi ne, %d, %zero : i64
          %m = scf.if %has -> (i1) {
            %j = func.call @sluice_walk_WALK_sample(%frame, %rng, %be#0, %d, %lane) : (!llvm.ptr, !llvm.ptr, i64, i64, i32) -> i64
            %ok = arith.cmpi ne, %j, %none : i64
            scf.if %ok {
              %e = arith.addi %be#0, %j : i64
              %tp = llvm.getelementptr inbounds %targets[%e] : (!llvm.ptr, i64) -> !llvm.ptr, i32
              %next = llvm.load %tp : !llvm.ptr -> i32
              func.call @sluice_walk_WALK_update(%frame, %next) : (!llvm.ptr, i32) -> ()
              llvm.store %cur, %f10 : i32, !llvm.ptr
              llvm.store %next, %f11 : i32, !llvm.ptr
              %step1 = arith.addi %step, %one : i64
              llvm.store %step1, %f12 : i64, !llvm.ptr
              llvm.store %zero, %f14 : i64, !llvm.ptr
              %rp = llvm.getelementptr inbounds %row[%n1] : (!llvm.ptr, i64) -> !llvm.ptr, i32
              scf.if %lead {
                llvm.store %next, %rp : i32, !llvm.ptr
              }
            }
            scf.yield %ok : i1
          } else {
            scf.yield %false : i1
          }
          scf.yield %m : i1
        } else {
          scf.yield %false : i1
        }
        %n2 = arith.addi %n1, %one : i64
        %n3 = arith.select %moved, %n2, %n1 : i64
        scf.yield %n3, %moved : i64, i1
      }
      %lp = llvm.getelementptr inbounds %lengths[%lw] : (!llvm.ptr, i64) -> !llvm.ptr, i32
      %len32 = arith.trunci %len#0 : i64 to i32
      scf.if %lead {
        llvm.store %len32, %lp : i32, !llvm.ptr
      }
    }
    gpu.return
  }
}
