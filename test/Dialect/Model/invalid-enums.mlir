// RUN: not sluice-opt %s 2>&1 | FileCheck %s

// A job action that is not one of JobAction's (ModelEnums.td) is a parse
// error that lists them; `train` (GNNs) does not lower to this dialect.

// CHECK: error: custom op 'model.job' expected ::sluice::model::JobAction to be one of: finetune, infer
model.job @j train @m on @box batch 8
