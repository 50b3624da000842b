//===- ModelDialect.h - The model dialect -----------------------*- C++ -*-===//
//
// Declares the `model` dialect (model architectures). Most users want
// ModelOps.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_MODEL_IR_MODELDIALECT_H
#define SLUICE_DIALECTS_MODEL_IR_MODELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Model/IR/ModelDialect.h.inc"

#endif // SLUICE_DIALECTS_MODEL_IR_MODELDIALECT_H
