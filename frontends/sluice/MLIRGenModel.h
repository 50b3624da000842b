//===- MLIRGenModel.h - Lowering model declarations -------------*- C++ -*-===//
//
// Each `model NAME = transformer(...)` becomes a `model.transformer @NAME`
// with GPT-style blocks (docs/dialects/model.md): a token embedding with a
// learned position table of `seq` rows, `layers` identical layers (LayerNorm,
// attention with `heads` / `kv_heads` and biases, LayerNorm, a two-matrix
// MLP of width `ffn` with biases) as one `model.layers`, a final LayerNorm
// and an output head tied to the embedding. `gnn` models become model.gnn
// and `distill` models model.distill. `finetune`, `train`, `infer` and
// `distill` jobs become model.job ops naming their model and topology
// (`train` of a gnn: model.gnn_train).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_MLIRGENMODEL_H
#define SLUICE_FRONTENDS_SLUICE_MLIRGENMODEL_H

#include "frontends/sluice/AST.h"
#include "frontends/sluice/ConstEval.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

namespace sluice {

/// False, with a located "not supported yet" error, for a model whose kind
/// the model dialect cannot describe yet (none today: Sema admits
/// transformer, gnn and distill, and all three lower).
bool checkModelSupported(const ast::ModelDecl &d, mlir::MLIRContext *ctx);

/// False, with a located "not supported yet" error, for a model job whose
/// subject is not a transformer (`train` of a gnn model).
bool checkModelJobSupported(const ast::JobDecl &j, const ast::Program &program,
                            mlir::MLIRContext *ctx);

/// True for the jobs lowerModels lowers (`finetune`, `train`, `infer` and
/// `distill`).
bool isModelJob(const ast::Decl &d);

/// Appends a model.transformer for every transformer model declaration of
/// `program` to `module`. Fails, with located errors, on other model kinds
/// and on arguments that are not constant.
mlir::LogicalResult lowerModels(mlir::ModuleOp module,
                                const ast::Program &program,
                                const ConstEnv &globals);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_MLIRGENMODEL_H
