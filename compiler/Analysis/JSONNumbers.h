//===- JSONNumbers.h - Exact numbers in llvm::json output ------*- C++ -*-===//
//
// Shared by the JSON writers of the analyses (topology report, flow
// schedules): numbers in base units written so they read back exactly.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_JSONNUMBERS_H
#define SLUICE_COMPILER_ANALYSIS_JSONNUMBERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace sluice::analysis {

/// A finite value as formatNumber writes it (integers below 2^53 as
/// integers, others in the shortest form that reads back exactly), and null
/// for infinity or NaN (JSON has neither).
void writeJSONNumber(llvm::json::OStream &j, double v);
/// `"key": <number>` with writeJSONNumber.
void writeJSONNumberAttr(llvm::json::OStream &j, llvm::StringRef key, double v);
/// `"key": [i, ...]` for device or arc indices.
void writeJSONIndexArray(llvm::json::OStream &j, llvm::StringRef key,
                         llvm::ArrayRef<unsigned> ids);

} // namespace sluice::analysis

#endif // SLUICE_COMPILER_ANALYSIS_JSONNUMBERS_H
