//===- PlanSchema.h - The decisions a plan records --------------*- C++ -*-===//
//
// The single source of truth for the words of a plan: the demand kinds
// (which Sema accepts in a `demand` and plan.demand carries), the
// collectives a plan.collective runs and the methods a schedule names (the
// `method` of plan.schedule and of the exported JSON). The plan dialect's
// attributes are these enums, and the flow solvers (compiler/Analysis/Flow)
// return them. Depends on LLVM Support and the enums generated from
// PlanEnums.td only (header-only MLIR support types; no MLIR library is
// needed to link it).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_IR_PLANSCHEMA_H
#define SLUICE_DIALECTS_PLAN_IR_PLANSCHEMA_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMapInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>

// DemandKind, CollectiveKind and ScheduleMethod with their
// stringify*/symbolize* functions.
#include "dialects/Plan/IR/PlanEnums.h.inc"

namespace sluice::plan {

/// The spellings of every demand kind, in declaration order (for Sema's
/// "expected one of" lists).
llvm::ArrayRef<llvm::StringRef> demandKindNames();

/// True for the kinds over one group of devices (`over` in the language;
/// equal sources and destinations in plan.demand): alltoall and the
/// collectives.
bool isOverOneGroup(DemandKind kind);

/// The collective that plan-schedule-flows plans by algorithm for `kind`,
/// if any (alltoall stays point-to-point).
std::optional<CollectiveKind> collectiveOf(DemandKind kind);

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_IR_PLANSCHEMA_H
