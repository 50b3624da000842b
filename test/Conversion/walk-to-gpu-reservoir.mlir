// RUN: sluice-opt %s -split-input-file -walk-select-sampler=target=gpu -walk-to-gpu | FileCheck %s
// RUN: not sluice-opt %s -split-input-file '-walk-select-sampler=target=gpu sampler=rejection' 2>&1 | FileCheck %s --check-prefix=REJ
// RUN: not sluice-opt %s -split-input-file '-walk-select-sampler=target=gpu sampler=fast' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: sluice-opt %s -split-input-file '-walk-select-sampler=target=gpu sampler=reservoir' -walk-to-gpu | FileCheck %s --check-prefix=ALL
// RUN: not sluice-opt %s -split-input-file -walk-to-gpu 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// RUN: not sluice-opt %s -split-input-file -walk-select-sampler=target=cpu -walk-to-gpu 2>&1 | FileCheck %s --check-prefix=CPU

// A walk without an upper bound: weighted reservoir sampling with a warp
// (32 threads) per walker. The library: log by its series, the candidate
// keys from Philox under the flipped seed, the shuffle butterfly.

// CHECK: gpu.module @sluice_walks
// CHECK:   func.func private @sluice_log
// CHECK:   func.func private @sluice_reservoir_better
// CHECK:   func.func private @sluice_reservoir_key
// CHECK:     arith.constant 1013904242 : i32
// CHECK:     arith.constant -1521486534 : i32
// CHECK:     call @sluice_philox
// CHECK:     call @sluice_log
// CHECK:   func.func private @sluice_shfl_xor_i64
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:   func.func private @sluice_warp_best
// CHECK:     arith.constant 16 : i32
// CHECK:     call @sluice_shfl_xor_i64
// CHECK:     call @sluice_reservoir_better
// The kernel: walker = thread / 32, lane = thread % 32; lane 0 writes.
// CHECK:   gpu.func @sluice_walk_free(
// CHECK:     %[[T:.*]] = arith.constant 32 : i64
// CHECK:     arith.divui %{{.*}}, %[[T]] : i64
// CHECK:     arith.remui %{{.*}}, %[[T]] : i64
// CHECK:     call @sluice_walk_free_sample
// The sampler: lane l scans edges l, l + 32, ..., then the butterfly (no
// exact fallback: that is the rejection sampler's).
// CHECK-NOT: func.func private @sluice_walk_free_exact
// CHECK:   func.func private @sluice_walk_free_sample
// CHECK:     arith.constant 32 : i64
// CHECK:     call @sluice_walk_free_edge_w
// CHECK:     call @sluice_reservoir_key
// CHECK:     call @sluice_warp_best
// No upper_bound function: the walk has none.
// CHECK-NOT: @sluice_walk_free_upper_bound

// Kernels come from the schedule that walk-select-sampler wrote; forcing
// rejection refuses the walk without a bound, an unknown sampler is an
// error, and walk-to-gpu refuses walks not scheduled for the GPU.
// REJ: error: walk 'free' is scheduled with sampler 'rejection', but its weight has no upper bound; use 'reservoir' or 'auto'
// REJ-NOT: walk 'sched'
// BAD: error: walk-select-sampler: sampler 'fast' is not one of auto, rejection, reservoir, alias
// UNSCHEDULED: error: walk-to-gpu: walk 'free' is not scheduled; run walk-select-sampler with target=gpu first
// CPU: error: walk-to-gpu: walk 'free' is scheduled for the cpu; run walk-select-sampler with target=gpu first

walk.graph @g "g.txt" format snap
walk.walk @free on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], unbounded, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// -----

// A bounded walk asking for `sampler = #walk<sampler reservoir>`: the reservoir
// kernel too; its upper_bound region is not needed.

// CHECK: gpu.func @sluice_walk_sched(
// CHECK:   call @sluice_walk_sched_sample
// CHECK-NOT: @sluice_walk_sched_exact
// CHECK: func.func private @sluice_walk_sched_sample
// CHECK:   call @sluice_warp_best
// CHECK-NOT: @sluice_walk_sched_upper_bound

// The bounded walk under sampler=reservoir: a warp kernel as well.
// ALL: gpu.func @sluice_walk_bounded(
// ALL:   call @sluice_walk_bounded_sample
// ALL: func.func private @sluice_walk_bounded_sample
// ALL:   call @sluice_warp_best

walk.graph @g "g.txt" format snap
walk.walk @sched on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler reservoir>, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// -----

// A bounded walk: the rejection kernel, one thread per walker.

// CHECK: gpu.func @sluice_walk_bounded(
// CHECK:   arith.constant 1 : i64
// CHECK:   call @sluice_walk_bounded_sample
// CHECK: func.func private @sluice_walk_bounded_exact
// CHECK: func.func private @sluice_walk_bounded_sample
// CHECK:   call @sluice_walk_bounded_upper_bound

walk.graph @g "g.txt" format snap
walk.walk @bounded on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
