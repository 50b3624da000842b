//===- PlanDialect.cpp - The plan dialect ---------------------------------===//
#include "dialects/Plan/IR/PlanDialect.h"

#include "dialects/Plan/IR/PlanOps.h"

using namespace mlir;
using namespace sluice::plan;

#include "dialects/Plan/IR/PlanDialect.cpp.inc"

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/IR/PlanOps.cpp.inc"
      >();
}
