//===- WalkAbi.h - The walk kernel ABI in the LLVM dialect ------*- C++ -*-===//
//
// The pieces of walk-to-llvm that know runtime/include/sluice/walk.h: the
// frame, list and kernel struct types, the names of the functions a walk
// becomes, outlining a walk.walk into them (with its walk ops lowered to
// frame accesses and libsluicert calls, arith/math/scf left for the
// upstream conversions), and the kernel descriptor global.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_CONVERSION_WALKTOLLVM_WALKABI_H
#define SLUICE_COMPILER_CONVERSION_WALKTOLLVM_WALKABI_H

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <string>

namespace sluice::conversion {

/// What the kernel descriptor of one walk holds.
struct KernelInfo {
  std::string name; ///< the walk's name
  uint32_t flags = 0;
  int weightClass = 2;
  uint32_t numParams = 0;
  uint32_t numState = 0;
  /// Function symbols in sluice_walk_kernel_t order (weight, stop, update,
  /// init, upper_bound, lower_bound, sum_upper_bound, sum_lower_bound);
  /// empty where the walk has no such region.
  std::array<std::string, 8> functions;
  mlir::Location loc;
  explicit KernelInfo(mlir::Location loc) : loc(loc) {}
};

/// The module attribute that carries the #walk.kernel of every walk from
/// walk-to-llvm to walk-kernel-descriptors.
inline constexpr llvm::StringLiteral kKernelsAttrName = "walk.kernels";

/// `info` as a typed attribute, and back (the location: the weight
/// function's, else the module's).
walk::KernelAttr kernelAttr(mlir::MLIRContext *ctx, const KernelInfo &info);
KernelInfo kernelInfo(mlir::ModuleOp module, walk::KernelAttr kernel);

/// `sluice_walk_<walk>_<region>`: the function a region becomes.
std::string kernelFunctionName(llvm::StringRef walk, llvm::StringRef region);
/// `sluice_walk_kernel_<walk>`: the descriptor global.
std::string kernelDescriptorName(llvm::StringRef walk);

/// Outlines every non-empty region of `walk` into a func.func (inserted
/// before it) whose body has no walk op left. Emits located errors.
mlir::FailureOr<KernelInfo> outlineWalk(mlir::ModuleOp module,
                                        walk::WalkOp walk);

/// Appends the name string and the `sluice_walk_kernel_t` global of `info`
/// to `module` (whose functions must already be llvm.func). Fails when
/// the descriptor's symbol is taken.
mlir::LogicalResult emitKernelDescriptor(mlir::ModuleOp module, const KernelInfo &info);

} // namespace sluice::conversion

#endif // SLUICE_COMPILER_CONVERSION_WALKTOLLVM_WALKABI_H
