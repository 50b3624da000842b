//===- Passes.h - Passes of the plan dialect --------------------*- C++ -*-===//
//
// createPlanScheduleFlows() / registerPlanScheduleFlows(), and
// registerPlanPasses() for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_TRANSFORMS_PASSES_H
#define SLUICE_DIALECTS_PLAN_TRANSFORMS_PASSES_H

#include "dialects/Plan/IR/PlanOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <memory>

namespace sluice::plan {

#define GEN_PASS_DECL
#include "dialects/Plan/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/Plan/Transforms/Passes.h.inc"

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_TRANSFORMS_PASSES_H
