//===- PlanAttrs.td - Attributes of the plan dialect -------*- tablegen -*-===//
//
// The plan enums as attributes. In an op they print as the word alone
// (`plan.demand allreduce`, `method "multi-commodity-lp"`); elsewhere as
// `#plan<demand allreduce>`, `#plan<collective "all-reduce">`,
// `#plan<method "direct-path">`. An EnumAttr prints a space before its
// value (the generic form needs it after the mnemonic), so op formats put an
// empty literal before one (`method` `` $method) to print a single space.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_PLAN_ATTRS
#define SLUICE_PLAN_ATTRS

include "dialects/Plan/IR/PlanDialect.td"
include "dialects/Plan/IR/PlanEnums.td"
include "mlir/IR/EnumAttr.td"

def Plan_DemandKindAttr : EnumAttr<Plan_Dialect, Plan_DemandKind, "demand">;
def Plan_CollectiveKindAttr
    : EnumAttr<Plan_Dialect, Plan_CollectiveKind, "collective">;
def Plan_ScheduleMethodAttr
    : EnumAttr<Plan_Dialect, Plan_ScheduleMethod, "method">;
def Plan_RecomputeAttr : EnumAttr<Plan_Dialect, Plan_Recompute, "recompute">;
def Plan_CodecAttr : EnumAttr<Plan_Dialect, Plan_Codec, "codec">;
def Plan_PlacementMethodAttr
    : EnumAttr<Plan_Dialect, Plan_PlacementMethod, "placement">;

#endif // SLUICE_PLAN_ATTRS
