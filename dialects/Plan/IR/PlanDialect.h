//===- PlanDialect.h - The plan dialect -------------------------*- C++ -*-===//
//
// Declares the `plan` dialect (transfer demands and schedules). Most users
// want PlanOps.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_IR_PLANDIALECT_H
#define SLUICE_DIALECTS_PLAN_IR_PLANDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Plan/IR/PlanDialect.h.inc"

#endif // SLUICE_DIALECTS_PLAN_IR_PLANDIALECT_H
