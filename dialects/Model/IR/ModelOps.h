//===- ModelOps.h - Operations of the model dialect -------------*- C++ -*-===//
//
// model.transformer, model.embedding, model.layers, model.norm,
// model.attention, model.mlp, model.head.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_IR_MODELOPS_H
#define SLUICE_DIALECTS_MODEL_IR_MODELOPS_H

#include "dialects/Model/IR/ModelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "dialects/Model/IR/ModelOps.h.inc"

#endif // SLUICE_DIALECTS_MODEL_IR_MODELOPS_H
