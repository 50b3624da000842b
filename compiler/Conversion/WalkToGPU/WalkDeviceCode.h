//===- WalkDeviceCode.h - walk-to-gpu's checked-in device code --*- C++ -*-===//
//
// The device library and the per-walk driver and samplers live in .mlir
// files next to this one (device/*.mlir, each with its lit test in
// test/Conversion/device-code), embedded at build time. DeviceCodeBuilder
// parses them into the gpu.module walk-to-gpu builds: per-walk symbols
// (`sluice_walk_WALK...`) renamed, tagged constants set (frame slots from
// DeviceFrame.h, per-walk constants), imports checked against what is
// defined once everything is there.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WALKTOGPU_WALKDEVICECODE_H
#define SLUICE_CONVERSION_WALKTOGPU_WALKDEVICECODE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"

#include <string>
#include <utility>
#include <vector>

namespace sluice::conversion {

/// The device code files.
enum class DeviceFile {
  Library,          ///< Philox, the walker's stream, frame, graph queries
  ReservoirLibrary, ///< log, reservoir keys, warp-wide best
  Driver,           ///< the kernel of a walk and its edge weight
  RejectionSampler, ///< one thread per walker
  ReservoirSampler, ///< a warp per walker
};

/// What a per-walk file is instantiated with.
struct WalkInstance {
  std::string walk;         ///< `WALK` in its symbols
  int64_t numState = 1;     ///< state slots (at least 1)
  int64_t threadsPerWalker; ///< 1 or 32
};

/// The text of `file` (for tools and tests).
llvm::StringRef deviceFileText(DeviceFile file);

class DeviceCodeBuilder {
public:
  explicit DeviceCodeBuilder(mlir::gpu::GPUModuleOp module) : module(module) {}

  /// Appends the definitions of `file` to the module; `walk` is required
  /// for the per-walk files. Errors (a broken file: internal errors) are
  /// reported at `loc`.
  mlir::LogicalResult append(DeviceFile file, const WalkInstance *walk,
                             mlir::Location loc);
  /// The same for the text of a device file called `name` (tests).
  mlir::LogicalResult append(llvm::StringRef text, llvm::StringRef name,
                             const WalkInstance *walk, mlir::Location loc);
  /// Checks that every function a file imported is defined, with the
  /// type the file declared.
  mlir::LogicalResult checkImports(mlir::Location loc) const;

private:
  mlir::gpu::GPUModuleOp module;
  std::vector<std::pair<std::string, mlir::FunctionType>> imports;
};

} // namespace sluice::conversion

#endif // SLUICE_CONVERSION_WALKTOGPU_WALKDEVICECODE_H
