//===- EnumNames.h - Every spelling of a generated enum ---------*- C++ -*-===//
//
// The dialect schemas (WalkSchema, GraphSchema) list the words of their
// ODS enums for Sema's "expected one of" messages; header-only, LLVM only.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_SUPPORT_ENUMNAMES_H
#define SLUICE_SUPPORT_ENUMNAMES_H

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace sluice {

/// Every spelling of an enum with values 0..maxValue (mlir-tblgen's
/// getMaxEnumValFor<E>() and stringify<E>()).
template <typename E>
std::vector<llvm::StringRef> enumNames(unsigned maxValue,
                                       llvm::StringRef (*stringify)(E)) {
  std::vector<llvm::StringRef> names;
  for (unsigned v = 0; v <= maxValue; ++v)
    names.push_back(stringify(static_cast<E>(v)));
  return names;
}

} // namespace sluice

#endif // SLUICE_SUPPORT_ENUMNAMES_H
