//===- ModelAttrs.td - Attributes of the model dialect -----*- tablegen -*-===//
//
// The model enums as attributes. In an op they print as the word alone
// (`model.job @j finetune ...`, `model.norm rmsnorm ...`); elsewhere as
// `#model<action finetune>`, `#model<norm rmsnorm>`. An EnumAttr prints a
// space before its value, so op formats put an empty literal before one
// (`` $kind) to print a single space.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_MODEL_ATTRS
#define SLUICE_MODEL_ATTRS

include "dialects/Model/IR/ModelDialect.td"
include "dialects/Model/IR/ModelEnums.td"
include "mlir/IR/EnumAttr.td"

def Model_JobActionAttr : EnumAttr<Model_Dialect, Model_JobAction, "action">;
def Model_NormKindAttr : EnumAttr<Model_Dialect, Model_NormKind, "norm">;
def Model_GnnKindAttr : EnumAttr<Model_Dialect, Model_GnnKind, "gnn_kind">;
def Model_TierAttr : EnumAttr<Model_Dialect, Model_Tier, "tier">;
def Model_WeightQuantAttr
    : EnumAttr<Model_Dialect, Model_WeightQuant, "weight_quant">;
def Model_CompressedTensorsAttr
    : EnumAttr<Model_Dialect, Model_CompressedTensors, "compressed_tensors">;

#endif // SLUICE_MODEL_ATTRS
