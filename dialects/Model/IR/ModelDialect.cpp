//===- ModelDialect.cpp - The model dialect -------------------------------===//
#include "dialects/Model/IR/ModelDialect.h"

#include "dialects/Model/IR/ModelOps.h"

using namespace mlir;
using namespace sluice::model;

#include "dialects/Model/IR/ModelDialect.cpp.inc"

void ModelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Model/IR/ModelOps.cpp.inc"
      >();
}
