// RUN: sluice-opt %s -split-input-file -walk-kernel-descriptors -verify-diagnostics | FileCheck %s

// The #walk.kernel that walk-to-llvm recorded becomes the descriptor
// global; the list is removed.

// CHECK-NOT: walk.kernels
// CHECK: llvm.mlir.global private constant @sluice_walk_kernel_w.name("w\00")
// CHECK: llvm.mlir.global external constant @sluice_walk_kernel_w()
// CHECK:   llvm.mlir.addressof @sluice_walk_w_weight
// CHECK:   llvm.mlir.zero : !llvm.ptr
module attributes {walk.kernels = [#walk.kernel<name = "w", flags = 0, weight_class = 3, num_params = 0, num_state = 0, functions = ["sluice_walk_w_weight", "", "", "", "", "", "", ""]>]} {
  llvm.func @sluice_walk_w_weight(%f: !llvm.ptr, %next: i32, %e: i64, %w: f64) -> f64 {
    llvm.return %w : f64
  }
}

// -----

// A function the descriptor names must be an LLVM-dialect function.
// expected-error @+1 {{walk-to-llvm: the kernel of walk 'w' names 'sluice_walk_w_weight', which is not an LLVM-dialect function (run the upstream conversions first)}}
module attributes {walk.kernels = [#walk.kernel<name = "w", flags = 0, weight_class = 3, num_params = 0, num_state = 0, functions = ["sluice_walk_w_weight", "", "", "", "", "", "", ""]>]} {
}

// -----

// Whatever the upstream conversions should have lowered is reported.
module {
  // expected-error @+1 {{walk-kernel-descriptors: 'func.func' was not lowered to the LLVM dialect}}
  func.func @f() {
    return
  }
}

// -----

// expected-error @+1 {{walk-kernel-descriptors: 'walk.kernels' holds 3 : i64, not a #walk.kernel}}
module attributes {walk.kernels = [3]} {
}
