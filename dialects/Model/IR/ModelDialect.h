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

// JobAction and NormKind (ModelSchema.h) and their attributes.
#include "dialects/Model/IR/ModelSchema.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/OpImplementation.h"
#define GET_ATTRDEF_CLASSES
#include "dialects/Model/IR/ModelAttrs.h.inc"

#endif // SLUICE_DIALECTS_MODEL_IR_MODELDIALECT_H
