//===- WalkDialect.h - The walk dialect -------------------------*- C++ -*-===//
//
// Declares the `walk` dialect (random walks over graphs). Most users want
// WalkOps.h, which includes this header, the types and the attributes.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_WALK_IR_WALKDIALECT_H
#define SLUICE_DIALECTS_WALK_IR_WALKDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Walk/IR/WalkDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Walk/IR/WalkTypes.h.inc"

// The walk enums (WalkSchema.h) as attributes, and #walk.schedule.
#include "dialects/Walk/IR/WalkSchema.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/OpImplementation.h"
#define GET_ATTRDEF_CLASSES
#include "dialects/Walk/IR/WalkAttrs.h.inc"

#endif // SLUICE_DIALECTS_WALK_IR_WALKDIALECT_H
