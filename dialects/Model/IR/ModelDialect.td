//===- ModelDialect.td - The model dialect -----------------*- tablegen -*-===//
//
// The `model` dialect describes a model's architecture as ops: a
// `model.transformer` holds its embedding, its repeated layers (one
// `model.layers` op with a count and the body of one layer), the final norm
// and the output head. Analyses (`model-cost`) walk these ops; the planners
// consume the numbers they attach.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_MODEL_DIALECT
#define SLUICE_MODEL_DIALECT

include "mlir/IR/OpBase.td"

def Model_Dialect : Dialect {
  let name = "model";
  let cppNamespace = "::sluice::model";
  let summary = "Model architectures (decoder-only transformers)";
  let description = [{
    `model.transformer @name` holds the blocks of a decoder-only transformer
    with their shapes and element types: `model.embedding`, `model.layers`
    (a count and the body of one layer: `model.norm`, `model.attention`,
    `model.mlp`), `model.norm` and `model.head`. A stack of 96 identical
    layers is one `model.layers 96 { ... }`, so the IR stays small; models
    whose layers differ use several `model.layers` ops.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerAttributes();
  }];
}

class Model_Op<string mnemonic, list<Trait> traits = []>
    : Op<Model_Dialect, mnemonic, traits>;

#endif // SLUICE_MODEL_DIALECT
