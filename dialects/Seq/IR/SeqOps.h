//===- SeqOps.h - The seq dialect's ops -------------------------*- C++ -*-===//
#ifndef SLUICE_DIALECTS_SEQ_IR_SEQOPS_H
#define SLUICE_DIALECTS_SEQ_IR_SEQOPS_H

#include "dialects/Seq/IR/SeqDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include <cstdint>

namespace sluice::seq {
/// The largest match, mismatch, gap_open and gap_extend (minimap2's int8
/// scoring; sluice_align_check_scoring).
constexpr int32_t kMaxScore = 255;
/// The largest band and sequence length (2^20).
constexpr int32_t kMaxBand = 1 << 20;
/// The largest zdrop.
constexpr int32_t kMaxZdrop = 1 << 28;
} // namespace sluice::seq

#define GET_OP_CLASSES
#include "dialects/Seq/IR/SeqOps.h.inc"

#endif // SLUICE_DIALECTS_SEQ_IR_SEQOPS_H
