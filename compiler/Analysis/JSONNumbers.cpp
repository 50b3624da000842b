//===- JSONNumbers.cpp - Exact numbers in llvm::json output ---------------===//
#include "compiler/Analysis/JSONNumbers.h"

#include <cassert>
#include <charconv>
#include <cmath>

using namespace sluice;

void analysis::writeJSONNumber(llvm::json::OStream &j, double v) {
  if (!std::isfinite(v)) {
    j.value(nullptr);
    return;
  }
  if (v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0) {
    j.value(static_cast<int64_t>(v));
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  assert(res.ec == std::errc() && "double does not fit its buffer");
  j.rawValue(llvm::StringRef(buf, res.ptr - buf));
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
