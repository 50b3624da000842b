//===- PlanEnums.td - Enums of the plan dialect ------------*- tablegen -*-===//
//
// The decisions a plan records, as C++ enums: what a demand asks for, which
// collective a plan.collective runs and how a schedule was found. This file
// has no dialect dependency so that PlanSchema (and through it the flow
// solvers and Sema) uses the generated enums without linking the dialect;
// PlanAttrs.td wraps them in attributes. The spellings are those the user
// sees: the language's demand kinds (docs/language.md, "Demands") and the
// names of the exported schedules (docs/flows.md).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_PLAN_ENUMS
#define SLUICE_PLAN_ENUMS

include "mlir/IR/EnumAttr.td"

class Plan_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::sluice::plan";
  let genSpecializedAttr = 0;
}

// The names of the exported schedules hold '-', which an MLIR keyword
// cannot: the IR writes these enums as strings (`"all-reduce"`), parsed by
// parseQuotedEnum (PlanAttrs.h) against the names below.
class Plan_QuotedEnum<string name, string summary,
                      list<I32EnumAttrCase> cases>
    : Plan_Enum<name, summary, cases> {
  let parameterParser = "::sluice::plan::parseQuotedEnum<" # cppType #
      ">($_parser, \"" # cppType # "\", {" #
      !interleave(!foreach(c, cases, "\"" # c.str # "\""), ", ") # "})";
  let parameterPrinter =
      "$_printer.printString(" # symbolToStringFnName # "($_self))";
}

def Plan_DemandKind : Plan_Enum<"DemandKind",
    "how a demand's bytes become point-to-point demands (`plan.demand`)", [
    I32EnumAttrCase<"Transfer", 0, "transfer">,
    I32EnumAttrCase<"Gather", 1, "gather">,
    I32EnumAttrCase<"AllToAll", 2, "alltoall">,
    I32EnumAttrCase<"AllGather", 3, "allgather">,
    I32EnumAttrCase<"ReduceScatter", 4, "reducescatter">,
    I32EnumAttrCase<"AllReduce", 5, "allreduce">,
    // Block I/O from compute to storage servers through a middle tier
    // (SmartDS; planned by plan-middle-tier, docs/flows.md).
    I32EnumAttrCase<"BlockIO", 6, "blockio">
  ]>;

def Plan_CollectiveKind : Plan_QuotedEnum<"CollectiveKind",
    "the collective a plan.collective runs", [
    I32EnumAttrCase<"AllGather", 0, "all-gather">,
    I32EnumAttrCase<"ReduceScatter", 1, "reduce-scatter">,
    I32EnumAttrCase<"AllReduce", 2, "all-reduce">
  ]>;

def Plan_ScheduleMethod : Plan_QuotedEnum<"ScheduleMethod",
    "how a schedule was found (`plan.schedule`, the exported `method`)", [
    // Single commodity, Newton's method on the parametric max flow.
    I32EnumAttrCase<"SingleCommodityParametric", 0,
                    "single-commodity-parametric">,
    // Single commodity, bisection on the horizon with a max flow per probe.
    I32EnumAttrCase<"SingleCommodityBisection", 1,
                    "single-commodity-bisection">,
    // The multi-commodity linear program (GLPK).
    I32EnumAttrCase<"MultiCommodityLP", 2, "multi-commodity-lp">,
    // Baseline: one widest path per demand, max-min fair sharing.
    I32EnumAttrCase<"DirectPath", 3, "direct-path">,
    // Baseline: Moment's tiered single-sink max flow.
    I32EnumAttrCase<"MomentGreedy", 4, "moment-greedy">,
    // The path form of the multi-commodity LP by column generation
    // (solveMultiCommodityPaths), for large problems.
    I32EnumAttrCase<"MultiCommodityPathLP", 5, "multi-commodity-path-lp">,
    // Only collectives, each by its own algorithm (Collectives.h).
    I32EnumAttrCase<"Collective", 6, "collective">,
    // One iteration of a fine-tuning offload plan (docs/offload.md).
    I32EnumAttrCase<"OffloadFinetune", 7, "offload-finetune">,
    // One batched generation of an offloaded-inference plan (FlexGen:
    // prefill and every decoded token, layer by layer; docs/offload.md).
    I32EnumAttrCase<"OffloadInfer", 8, "offload-infer">
  ]>;

// What a 3D-parallel plan recomputes in the backward pass (Korthikanti et
// al. 2022; Megatron-LM's --recompute-granularity): nothing, the attention
// scores (selective) or each layer from its input (full).
def Plan_Recompute : Plan_Enum<"Recompute",
    "activation recomputation of a plan.parallel", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Selective", 1, "selective">,
    I32EnumAttrCase<"Full", 2, "full">
  ]>;

// The host codec of a storage middle tier (SmartDS; blockio's `codec`,
// docs/flows.md "Storage middle tier (SmartDS)").
def Plan_Codec : Plan_Enum<"Codec", "the host codec of a plan.middle_tier", [
    I32EnumAttrCase<"Zstd", 0, "zstd">,
    I32EnumAttrCase<"Lz4", 1, "lz4">
  ]>;

// How a plan.parallel's ranks were put on GPUs (docs/parallel.md).
def Plan_PlacementMethod : Plan_QuotedEnum<"PlacementMethod",
    "how a plan.parallel placed its ranks", [
    // Megatron-LM's rank order, not searched.
    I32EnumAttrCase<"Default", 0, "default">,
    // Every placement costs the same (uniform links): the default order.
    I32EnumAttrCase<"UniformLinks", 1, "uniform-links">,
    // Every host and GPU permutation costed.
    I32EnumAttrCase<"Exact", 2, "exact">,
    // Simulated annealing over host and GPU swaps.
    I32EnumAttrCase<"Annealing", 3, "annealing">
  ]>;

#endif // SLUICE_PLAN_ENUMS
