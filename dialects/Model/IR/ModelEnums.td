//===- ModelEnums.td - Enums of the model dialect ----------*- tablegen -*-===//
//
// What a model job does (the language's `finetune`, `infer` and `train` job
// actions on transformers; `train` of a gnn is model.gnn_train), which
// norm a block uses, where a finetune job's schedule keeps a model state
// and the layer of a gnn, as C++ enums. This file has no dialect dependency so that
// ModelSchema (and through it Sema and the transformer cost model of
// compiler/Analysis/Model) uses the generated enums without linking the
// dialect; ModelAttrs.td wraps them in attributes. The spellings are those
// of the language (docs/language.md, "Models").
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_MODEL_ENUMS
#define SLUICE_MODEL_ENUMS

include "mlir/IR/EnumAttr.td"

def Model_JobAction : I32EnumAttr<"JobAction", "what a model job does", [
    I32EnumAttrCase<"Finetune", 0, "finetune">,
    I32EnumAttrCase<"Infer", 1, "infer">,
    I32EnumAttrCase<"Train", 2, "train">,
    I32EnumAttrCase<"Distill", 3, "distill">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

// LayerNorm has a scale and a bias (2h parameters); RMSNorm only a scale
// (h).
def Model_NormKind : I32EnumAttr<"NormKind",
    "the norm of a transformer block (`norm: ...`)", [
    I32EnumAttrCase<"LayerNorm", 0, "layernorm">,
    I32EnumAttrCase<"RMSNorm", 1, "rmsnorm">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

// The layer of a gnn model (`kind: ...`, docs/gnn.md).
def Model_GnnKind : I32EnumAttr<"GnnKind", "the layer of a gnn model", [
    I32EnumAttrCase<"Sage", 0, "sage">,
    I32EnumAttrCase<"Gcn", 1, "gcn">,
    I32EnumAttrCase<"Gat", 2, "gat">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

// Where a model state of a finetune job lives between its uses (a job
// schedule's `params`, `grads`, `optimizer`): GPU memory, host memory, the
// NVMe array or computational storage.
def Model_Tier : I32EnumAttr<"Tier",
    "where a finetune job keeps a model state (`params: nvme`)", [
    I32EnumAttrCase<"Gpu", 0, "gpu">,
    I32EnumAttrCase<"Cpu", 1, "cpu">,
    I32EnumAttrCase<"Nvme", 2, "nvme">,
    I32EnumAttrCase<"Csd", 3, "csd">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

// How a LoRA fine-tune stores its frozen base weights (`quantize: nf4`,
// QLoRA): 4-bit NormalFloat with double quantization.
def Model_WeightQuant : I32EnumAttr<"WeightQuant",
    "the quantization of a LoRA fine-tune's frozen base weights", [
    I32EnumAttrCase<"Nf4", 0, "nf4">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

// What an infer job stores and moves compressed (`compress:`, FlexGen's
// 4-bit group-wise quantization): the weights, the KV cache, or both.
def Model_CompressedTensors : I32EnumAttr<"CompressedTensors",
    "the tensors an infer job compresses to 4 bits", [
    I32EnumAttrCase<"Weights", 0, "weights">,
    I32EnumAttrCase<"Cache", 1, "cache">,
    I32EnumAttrCase<"All", 2, "all">
  ]> {
  let cppNamespace = "::sluice::model";
  let genSpecializedAttr = 0;
}

#endif // SLUICE_MODEL_ENUMS
