//===- WalkDialect.cpp - The walk dialect ---------------------------------===//
//
// Registers the walk types and operations. Op verifiers live in
// WalkOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialects/Walk/IR/WalkDialect.h"

#include "dialects/Walk/IR/WalkOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::walk;

#include "dialects/Walk/IR/WalkDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/Walk/IR/WalkTypes.cpp.inc"

void WalkDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Walk/IR/WalkTypes.cpp.inc"
      >();
}

void WalkDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Walk/IR/WalkOps.cpp.inc"
      >();
  registerTypes();
}
