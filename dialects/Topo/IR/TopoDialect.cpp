//===- TopoDialect.cpp - The topo dialect ---------------------------------===//
//
// Registers the topo operations and attributes. Attribute parsing and
// printing live in TopoAttrs.cpp, op verifiers in TopoOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "dialects/Topo/IR/TopoDialect.h"

#include "dialects/Topo/IR/TopoAttrs.h"
#include "dialects/Topo/IR/TopoOps.h"

using namespace mlir;
using namespace sluice::topo;

#include "dialects/Topo/IR/TopoDialect.cpp.inc"

void TopoDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Topo/IR/TopoOps.cpp.inc"
      >();
  registerAttributes();
}
