//===- WalkEnums.td - Enums of the walk dialect ------------*- tablegen -*-===//
//
// The decisions and choices a walk carries, as C++ enums. This file has no
// dialect dependency so that WalkSchema (and through it Sema) uses the
// generated enums without linking the dialect; WalkAttrs.td wraps them in
// attributes. The spellings are those of the language (docs/language.md,
// sections 9 and 12.2).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_WALK_ENUMS
#define SLUICE_WALK_ENUMS

include "mlir/IR/EnumAttr.td"

def Walk_GraphFormat : I32EnumAttr<"GraphFormat",
    "how a graph file is read (`load(..., format: ...)`)", [
    I32EnumAttrCase<"Snap", 0, "snap">,
    I32EnumAttrCase<"Mtx", 1, "mtx">,
    I32EnumAttrCase<"Csr", 2, "csr">,
    I32EnumAttrCase<"Edgelist", 3, "edgelist">,
    I32EnumAttrCase<"MtxBody", 4, "mtx-body">,
    I32EnumAttrCase<"Csv", 5, "csv">,
    I32EnumAttrCase<"Npy", 6, "npy">,
    I32EnumAttrCase<"Npz", 7, "npz">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_WalksDtype : I32EnumAttr<"WalksDtype",
    "the integer type of a walk job's .npy output (`walks_dtype: ...`)", [
    I32EnumAttrCase<"I32", 0, "i32">,
    I32EnumAttrCase<"I64", 1, "i64">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_Duplicates : I32EnumAttr<"Duplicates",
    "what a graph load does with the copies of an edge "
    "(`load(..., duplicates: ...)`)", [
    I32EnumAttrCase<"Merge", 0, "merge">,
    I32EnumAttrCase<"Keep", 1, "keep">,
    I32EnumAttrCase<"Sum", 2, "sum">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_SelfLoops : I32EnumAttr<"SelfLoops",
    "what a graph load does with edges u -> u (`load(..., self_loops: ...)`)", [
    I32EnumAttrCase<"Drop", 0, "drop">,
    I32EnumAttrCase<"Keep", 1, "keep">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_Sampler : I32EnumAttr<"Sampler",
    "the sampler a walk's schedule asks for (`sampler: ...`)", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Rejection", 1, "rejection">,
    I32EnumAttrCase<"Reservoir", 2, "reservoir">,
    I32EnumAttrCase<"Alias", 3, "alias">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_Target : I32EnumAttr<"Target", "where a walk runs (`target: ...`)", [
    I32EnumAttrCase<"Cpu", 0, "cpu">,
    I32EnumAttrCase<"Gpu", 1, "gpu">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_WeightClass : I32EnumAttr<"WeightClass",
    "what a walk's weight depends on (written by walk-bounds)", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Parameter", 1, "parameter">,
    I32EnumAttrCase<"Static", 2, "static">,
    I32EnumAttrCase<"Dynamic", 3, "dynamic">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

def Walk_StepMethod : I32EnumAttr<"StepMethod",
    "how each step of a walk is drawn (chosen by walk-select-sampler)", [
    I32EnumAttrCase<"Uniform", 0, "uniform">,
    I32EnumAttrCase<"Alias", 1, "alias">,
    I32EnumAttrCase<"Rejection", 2, "rejection">,
    I32EnumAttrCase<"Reservoir", 3, "reservoir">,
    I32EnumAttrCase<"CostModel", 4, "cost_model">
  ]> {
  let cppNamespace = "::sluice::walk";
  let genSpecializedAttr = 0;
}

#endif // SLUICE_WALK_ENUMS
