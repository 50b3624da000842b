//===- WalkSchema.h - Choices of graphs and walk schedules ------*- C++ -*-===//
//
// The single source of truth for the words a graph load and a walk schedule
// accept (formats, duplicates, self loops, samplers, targets), the weight
// classes walk-bounds writes and the step methods walk-select-sampler chooses,
// and the ranges of the numeric options (WalkLimits.h). Sema checks `load(...)`
// and walk schedules against it; the walk dialect's attributes are these enums.
// Depends on LLVM Support and the enums generated from WalkEnums.td only (no
// MLIR library is needed to link it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_IR_WALKSCHEMA_H
#define SLUICE_DIALECTS_WALK_IR_WALKSCHEMA_H

#include "dialects/Walk/IR/WalkLimits.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>

// GraphFormat, Duplicates, SelfLoops, Sampler, Target, WeightClass and
// StepMethod with their stringify*/symbolize* functions.
#include "dialects/Walk/IR/WalkEnums.h.inc"

namespace sluice::walk {

/// The spellings of every value of each enum, in declaration order (for
/// Sema's "expected one of" lists).
llvm::ArrayRef<llvm::StringRef> graphFormatNames();
llvm::ArrayRef<llvm::StringRef> walksDtypeNames();
llvm::ArrayRef<llvm::StringRef> duplicatesNames();
llvm::ArrayRef<llvm::StringRef> selfLoopsNames();
llvm::ArrayRef<llvm::StringRef> samplerNames();
llvm::ArrayRef<llvm::StringRef> targetNames();

/// Threads per walker of a GPU reservoir kernel (one warp); rejection
/// kernels and every CPU method use one.
inline constexpr int64_t kGpuReservoirThreads = 32;

/// Why a requested sampler cannot serve a weight, or none.
enum class SamplerConflict { None, AliasNeedsStatic, RejectionNeedsBound };

/// The step method for a walk of weight class `cls` (`unbounded`: no upper
/// bound of its weight) asked to use `requested` on `target`, as
/// walk-select-sampler chooses it and the engine runs it:
///   cpu, auto: constant and parameter weights draw uniformly, static ones
///     from alias tables, unbounded ones by reservoir, the others by the
///     cost model (rejection or reservoir per vertex and step);
///   cpu, alias: uniform for constant and parameter weights, else alias;
///   gpu: reservoir (a warp per walker) for unbounded weights or when asked,
///     rejection (a thread per walker) otherwise (no alias tables on GPU).
/// `conflict` is set (and the result meaningless) when the request cannot
/// be served: alias with a dynamic weight, rejection without a bound.
StepMethod selectStepMethod(Sampler requested, Target target, WeightClass cls,
                            bool unbounded, SamplerConflict &conflict);

/// Threads per walker of `method` on `target`.
inline int64_t threadsPerWalker(Target target, StepMethod method) {
  return target == Target::Gpu && method == StepMethod::Reservoir
             ? kGpuReservoirThreads
             : 1;
}

} // namespace sluice::walk

#endif // SLUICE_DIALECTS_WALK_IR_WALKSCHEMA_H
