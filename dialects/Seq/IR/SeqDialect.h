//===- SeqDialect.h - The seq dialect ---------------------------*- C++ -*-===//
//
// Declares the `seq` dialect (sequence alignment jobs). Most users want
// SeqOps.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_SEQ_IR_SEQDIALECT_H
#define SLUICE_DIALECTS_SEQ_IR_SEQDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Seq/IR/SeqDialect.h.inc"

#endif // SLUICE_DIALECTS_SEQ_IR_SEQDIALECT_H
