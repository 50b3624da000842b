//===- ModelEnums.td - Enums and enum attributes of the model dialect -----===//
//
// What a model job does, as a typed enum (the language's `finetune` and
// `infer` job actions; `train` of GNNs is not lowered to this dialect).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_MODEL_ENUMS
#define SLUICE_MODEL_ENUMS

include "dialects/Model/IR/ModelDialect.td"
include "mlir/IR/EnumAttr.td"

def Model_JobAction : I32EnumAttr<"JobAction", "what a model job does", [
    I32EnumAttrCase<"Finetune", 0, "finetune">,
    I32EnumAttrCase<"Infer", 1, "infer">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

def Model_JobActionAttr : EnumAttr<Model_Dialect, Model_JobAction, "action">;

#endif // SLUICE_MODEL_ENUMS
