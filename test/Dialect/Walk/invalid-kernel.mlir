// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// #walk.kernel (what walk-to-llvm decided about a walk's descriptor) is
// checked when it is built or parsed.

// expected-error @+1 {{a kernel lists 8 functions (weight, stop, update, init and the four bounds), got 1}}
module attributes {walk.kernels = [#walk.kernel<name = "w", flags = 0, weight_class = 3, num_params = 0, num_state = 0, functions = ["f"]>]} {
}

// -----

// expected-error @+1 {{a kernel's functions are symbol names, "" for none}}
module attributes {walk.kernels = [#walk.kernel<name = "w", flags = 0, weight_class = 3, num_params = 0, num_state = 0, functions = [1, "", "", "", "", "", "", ""]>]} {
}

// -----

// expected-error @+1 {{a kernel needs the name of its walk}}
module attributes {walk.kernels = [#walk.kernel<name = "", flags = 0, weight_class = 3, num_params = 0, num_state = 0, functions = ["", "", "", "", "", "", "", ""]>]} {
}
