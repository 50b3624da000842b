//===- PlanDialect.cpp - The plan dialect ---------------------------------===//
//
// Registers the plan attributes (the enums of PlanEnums.td) and operations.
// Op verifiers live in PlanOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plan/IR/PlanDialect.h"

#include "dialects/Plan/IR/PlanOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::plan;

#include "dialects/Plan/IR/PlanDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plan/IR/PlanAttrs.cpp.inc"

void PlanDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Plan/IR/PlanAttrs.cpp.inc"
      >();
}

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/IR/PlanOps.cpp.inc"
      >();
  registerAttributes();
}
