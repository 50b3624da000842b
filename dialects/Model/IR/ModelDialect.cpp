//===- ModelDialect.cpp - The model dialect -------------------------------===//
#include "dialects/Model/IR/ModelDialect.h"

#include "dialects/Model/IR/ModelOps.h"

using namespace mlir;
using namespace sluice::model;

#include "dialects/Model/IR/ModelDialect.cpp.inc"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#define GET_ATTRDEF_CLASSES
#include "dialects/Model/IR/ModelAttrs.cpp.inc"

void ModelDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Model/IR/ModelAttrs.cpp.inc"
      >();
}

void ModelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Model/IR/ModelOps.cpp.inc"
      >();
  registerAttributes();
}
