//===- Passes.h - Passes of the model dialect -------------------*- C++ -*-===//
//
// createModelCost() / registerModelCost(), and registerModelPasses() for
// all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_MODEL_TRANSFORMS_PASSES_H

#include "dialects/Model/IR/ModelOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace sluice::model {

#define GEN_PASS_DECL
#include "dialects/Model/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Model/Transforms/Passes.h.inc"

} // namespace sluice::model

#endif // SLUICE_DIALECTS_MODEL_TRANSFORMS_PASSES_H
