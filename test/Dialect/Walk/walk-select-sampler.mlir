// RUN: sluice-opt %s -walk-select-sampler | FileCheck %s
// RUN: sluice-opt %s -walk-select-sampler=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: sluice-opt %s -walk-select-sampler=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: sluice-opt %s '-walk-select-sampler=sampler=reservoir' | FileCheck %s --check-prefix=RES

// The schedule walk-select-sampler writes for each weight class, bound and
// request (selectStepMethod in WalkSchema.h), for each walk's own target
// (default cpu; @own_gpu asks for the gpu), for target=gpu and target=cpu
// (which override the walk's own), and with sampler=reservoir for every
// walk. The defaults (threads_per_walker = 1, threads and
// walkers_per_thread 0) are not printed.

walk.graph @g "g.txt" format snap

// CHECK-LABEL: walk.walk @constant
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = uniform>
// GPU-LABEL: walk.walk @constant
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @constant
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = uniform>

// RES-LABEL: walk.walk @constant
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @constant on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class constant>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @parameter
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = uniform>
// GPU-LABEL: walk.walk @parameter
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @parameter
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = uniform>

// RES-LABEL: walk.walk @parameter
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @parameter on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class parameter>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @static
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = alias>
// GPU-LABEL: walk.walk @static
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @static
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = alias>

// RES-LABEL: walk.walk @static
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @static on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class static>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @dynamic
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = cost_model>
// GPU-LABEL: walk.walk @dynamic
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @dynamic
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = cost_model>

// RES-LABEL: walk.walk @dynamic
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @dynamic on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @unbounded
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>
// GPU-LABEL: walk.walk @unbounded
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 32>

// CPU-LABEL: walk.walk @unbounded
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

// RES-LABEL: walk.walk @unbounded
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @unbounded on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], unbounded, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// CHECK-LABEL: walk.walk @static_unbounded
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = alias>
// GPU-LABEL: walk.walk @static_unbounded
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 32>

// CPU-LABEL: walk.walk @static_unbounded
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = alias>

// RES-LABEL: walk.walk @static_unbounded
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @static_unbounded on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], unbounded, weight_class = #walk<weight_class static>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }

// CHECK-LABEL: walk.walk @alias_constant
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = uniform>
// GPU-LABEL: walk.walk @alias_constant
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @alias_constant
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = uniform>

// RES-LABEL: walk.walk @alias_constant
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @alias_constant on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler alias>, weight_class = #walk<weight_class constant>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @rejection
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = rejection, threads = 16, walkers_per_thread = 64>
// GPU-LABEL: walk.walk @rejection
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection, threads = 16, walkers_per_thread = 64>

// CPU-LABEL: walk.walk @rejection
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = rejection, threads = 16, walkers_per_thread = 64>

// RES-LABEL: walk.walk @rejection
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir, threads = 16, walkers_per_thread = 64>

walk.walk @rejection on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler rejection>, threads = 16 : i64, walkers_per_thread = 64 : i64, weight_class = #walk<weight_class static>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @reservoir
// CHECK-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>
// GPU-LABEL: walk.walk @reservoir
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 32>

// CPU-LABEL: walk.walk @reservoir
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

// RES-LABEL: walk.walk @reservoir
// RES-SAME: schedule = #walk.schedule<target = cpu, method = reservoir>

walk.walk @reservoir on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], sampler = #walk<sampler reservoir>, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }

// CHECK-LABEL: walk.walk @own_gpu
// CHECK-SAME: schedule = #walk.schedule<target = gpu, method = rejection>
// GPU-LABEL: walk.walk @own_gpu
// GPU-SAME: schedule = #walk.schedule<target = gpu, method = rejection>

// CPU-LABEL: walk.walk @own_gpu
// CPU-SAME: schedule = #walk.schedule<target = cpu, method = cost_model>

// RES-LABEL: walk.walk @own_gpu
// RES-SAME: schedule = #walk.schedule<target = gpu, method = reservoir, threads_per_walker = 32>

walk.walk @own_gpu on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = [], target = #walk<target gpu>, weight_class = #walk<weight_class dynamic>}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    walk.yield %w : f64
  }
  upper_bound {
  ^bb0(%cur: i32):
    %one = arith.constant 1.0 : f64
    walk.yield %one : f64
  }
