//===- BoundedJSON.h - llvm::json::parse with a nesting bound --*- C++ -*-===//
//
// llvm::json::parse and llvm::json::Value's destructor recurse once per
// nesting level, so a hostile file of 40,000 nested arrays overflows the
// stack. Every reader of outside JSON in the compiler and its tools parses
// through parseBoundedJSON, which scans the text first (iteratively, strings
// and escapes respected) and refuses a document nested deeper than the bound
// with the line and column where the bound is crossed.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_COMMON_BOUNDEDJSON_H
#define SLUICE_DIALECTS_COMMON_BOUNDEDJSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace sluice {

/// Deepest nesting of arrays and objects any Sluice JSON input needs is 6;
/// 256 leaves room for hand-written files and is far from any stack limit.
constexpr unsigned kMaxJSONNesting = 256;

/// Where the text first nests deeper than `maxDepth`: 1-based line and
/// column, or line 0 when it never does.
struct JSONNestingReport {
  unsigned line = 0;
  unsigned col = 0;
};
JSONNestingReport findJSONNestingOverflow(llvm::StringRef text,
                                          unsigned maxDepth);

/// llvm::json::parse, after checking that `text` nests at most `maxDepth`
/// arrays/objects deep ("nested deeper than 256 levels at line 1, column 257"
/// otherwise).
llvm::Expected<llvm::json::Value>
parseBoundedJSON(llvm::StringRef text, unsigned maxDepth = kMaxJSONNesting);

} // namespace sluice

#endif // SLUICE_DIALECTS_COMMON_BOUNDEDJSON_H
