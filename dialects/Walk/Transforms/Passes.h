//===- Passes.h - Passes of the walk dialect --------------------*- C++ -*-===//
//
// createWalkBounds(), createWalkSelectSampler() (and their register*), and
// registerWalkPasses() for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_WALK_TRANSFORMS_PASSES_H

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace sluice::walk {

#define GEN_PASS_DECL
#include "dialects/Walk/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Walk/Transforms/Passes.h.inc"

} // namespace sluice::walk

#endif // SLUICE_DIALECTS_WALK_TRANSFORMS_PASSES_H
