//===- PlanOps.h - Operations of the plan dialect ---------------*- C++ -*-===//
//
// plan.demands, plan.demand, plan.schedule, plan.transfer, plan.collective,
// plan.placement, plan.compute.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_IR_PLANOPS_H
#define SLUICE_DIALECTS_PLAN_IR_PLANOPS_H

#include "dialects/Plan/IR/PlanAttrs.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.h.inc"

#endif // SLUICE_DIALECTS_PLAN_IR_PLANOPS_H
