//===- BoundedJSON.cpp - llvm::json::parse with a nesting bound ----------===//
//
// See BoundedJSON.h. The scan only tracks what decides nesting (brackets
// outside strings); llvm::json::parse still reports every syntax error.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/BoundedJSON.h"

using namespace sluice;

JSONNestingReport sluice::findJSONNestingOverflow(llvm::StringRef text,
                                                  unsigned maxDepth) {
  unsigned depth = 0, line = 1, col = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      col = 0;
    } else {
      ++col;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return {line, col};
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return {};
}

llvm::Expected<llvm::json::Value>
sluice::parseBoundedJSON(llvm::StringRef text, unsigned maxDepth) {
  JSONNestingReport r = findJSONNestingOverflow(text, maxDepth);
  if (r.line != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "arrays and objects nested deeper than " + llvm::Twine(maxDepth) +
            " levels at line " + llvm::Twine(r.line) + ", column " +
            llvm::Twine(r.col));
  return llvm::json::parse(text);
}
