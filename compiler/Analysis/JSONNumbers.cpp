//===- JSONNumbers.cpp - Exact numbers in llvm::json output ---------------===//
#include "compiler/Analysis/JSONNumbers.h"

#include "support/NumberFormat.h"

#include <cmath>

using namespace sluice;

void analysis::writeJSONNumber(llvm::json::OStream &j, double v) {
  if (!std::isfinite(v)) {
    j.value(nullptr);
    return;
  }
  j.rawValue(formatNumber(v));
}

void analysis::writeJSONNumberAttr(llvm::json::OStream &j, llvm::StringRef key,
                                   double v) {
  j.attributeBegin(key);
  writeJSONNumber(j, v);
  j.attributeEnd();
}

void analysis::writeJSONIndexArray(llvm::json::OStream &j, llvm::StringRef key,
                                   llvm::ArrayRef<unsigned> ids) {
  j.attributeArray(key, [&] {
    for (unsigned i : ids)
      j.value(static_cast<int64_t>(i));
  });
}
