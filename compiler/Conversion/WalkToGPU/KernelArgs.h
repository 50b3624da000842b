//===- KernelArgs.h - the fields of a GPU walk kernel's arguments -*- C++ -*-===//
//
// sluice_walk_gpu_args_t (runtime/include/sluice/walk_gpu.h) is the one
// definition of a walk kernel's arguments: the device code reads field i
// at 8 * i (a tagged constant `arith.constant {sluice.kernel_arg =
// "seed"} 13 : i32` in WalkDriver.mlir, checked and set by
// WalkDeviceCode.cpp), and the kernels' JSON description lists the fields
// with their types. The indices below come from offsetof.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WALKTOGPU_KERNELARGS_H
#define SLUICE_CONVERSION_WALKTOGPU_KERNELARGS_H

#include "sluice/walk_gpu.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace sluice::conversion {

struct KernelArgField {
  const char *name;
  size_t index; ///< offset / 8
  const char *type; ///< as the JSON description names it
};

#define SLUICE_KERNEL_ARG(field, type)                                         \
  KernelArgField { #field, offsetof(sluice_walk_gpu_args_t, field) / 8, type }

/// Every field, in the struct's order.
inline llvm::ArrayRef<KernelArgField> kernelArgFields() {
  static const KernelArgField fields[] = {
      SLUICE_KERNEL_ARG(offsets, "u64*"),
      SLUICE_KERNEL_ARG(targets, "u32*"),
      SLUICE_KERNEL_ARG(weights, "f32*"),
      SLUICE_KERNEL_ARG(weight_max, "f32*"),
      SLUICE_KERNEL_ARG(weight_min, "f32*"),
      SLUICE_KERNEL_ARG(weight_sum, "f32*"),
      SLUICE_KERNEL_ARG(labels, "i32*"),
      SLUICE_KERNEL_ARG(params, "u64*"),
      SLUICE_KERNEL_ARG(starts, "u32*"),
      SLUICE_KERNEL_ARG(num_walkers, "i64"),
      SLUICE_KERNEL_ARG(walks_per_vertex, "i64"),
      SLUICE_KERNEL_ARG(max_length, "i64"),
      SLUICE_KERNEL_ARG(stop_probability, "f64"),
      SLUICE_KERNEL_ARG(seed, "i64"),
      SLUICE_KERNEL_ARG(rows, "u32*"),
      SLUICE_KERNEL_ARG(lengths, "u32*"),
      SLUICE_KERNEL_ARG(num_vertices, "i64"),
      SLUICE_KERNEL_ARG(num_edges, "i64"),
      SLUICE_KERNEL_ARG(edge_labels, "i32*"),
      SLUICE_KERNEL_ARG(walker_base, "i64"),
      SLUICE_KERNEL_ARG(fault, "sluice_walk_fault_t*"),
      SLUICE_KERNEL_ARG(original_ids, "u64*"),
      SLUICE_KERNEL_ARG(id_base, "i64")};
  static_assert(sizeof(fields) / sizeof(fields[0]) * 8 ==
                    sizeof(sluice_walk_gpu_args_t),
                "a field of sluice_walk_gpu_args_t is missing here, or is "
                "not 8 bytes");
  return fields;
}

#undef SLUICE_KERNEL_ARG

/// The index of the field called `name`.
inline std::optional<size_t> kernelArgNamed(llvm::StringRef name) {
  for (const KernelArgField &f : kernelArgFields())
    if (name == f.name)
      return f.index;
  return std::nullopt;
}

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_WALKTOGPU_KERNELARGS_H
