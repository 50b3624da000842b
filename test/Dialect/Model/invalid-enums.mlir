// RUN: not sluice-opt %s -split-input-file 2>&1 | FileCheck %s

// A job action that is not one of JobAction's (ModelEnums.td) is a parse
// error that lists them.

// CHECK: error: custom op 'model.job' expected ::sluice::model::JobAction to be one of: finetune, infer, train, distill
model.job @j pretrain @m on @box batch 8

// -----

// A norm that is not one of NormKind's is a parse error at the word that
// lists them (the words of `norm:` in the language).

// CHECK: error: custom op 'model.norm' expected ::sluice::model::NormKind to be one of: layernorm, rmsnorm
model.transformer @m : f16 attributes {layers = 1 : i64, hidden = 64 : i64, heads = 8 : i64, kv_heads = 8 : i64, ffn = 256 : i64, seq = 16 : i64, vocab = 10 : i64} {
  model.embedding vocab 10 hidden 64 : f16
  model.layers 1 {
    model.norm batchnorm hidden 64 : f16
    model.attention hidden 64 heads 8 kv_heads 8 : f16
    model.mlp hidden 64 ffn 256 : f16
  }
  model.head vocab 10 hidden 64 : f16
}
