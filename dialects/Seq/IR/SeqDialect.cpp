//===- SeqDialect.cpp - The seq dialect -----------------------------------===//
#include "dialects/Seq/IR/SeqDialect.h"

#include "dialects/Seq/IR/SeqOps.h"

using namespace mlir;
using namespace sluice::seq;

#include "dialects/Seq/IR/SeqDialect.cpp.inc"

void SeqDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Seq/IR/SeqOps.cpp.inc"
      >();
}
