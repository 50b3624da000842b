//===- Json.h - A small JSON reader with source locations -------*- C++ -*-===//
//
// The runtime has no LLVM (docs/runtime.md), so files it reads (offload
// schedules, ScheduleFile.h) are parsed by this reader: RFC 8259 values
// into a tree whose every node remembers its line and column, so that a
// checker can say "schedule.json:12:7: expected a tensor name". Numbers are
// kept as text plus a double, so integers up to 2^64 read back exactly.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_JSON_H
#define SLUICE_RUNTIME_SRC_TRAIN_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice::train::json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  unsigned line = 0, column = 0;
  bool boolean = false;
  double number = 0;
  std::string text; ///< String: the decoded string; Number: its spelling
  std::vector<Value> items;                          ///< Array
  std::vector<std::pair<std::string, Value>> fields; ///< Object, in order

  /// The field named `key` of an object, or null.
  const Value *find(const std::string &key) const;
  /// Number that is a non-negative integer below 2^64 (text has no '.',
  /// 'e' or '-'); false otherwise.
  bool asUnsigned(uint64_t &out) const;
  static const char *kindName(Kind kind);
};

/// Parses `text`; on a syntax error returns false with `error` =
/// "line:col: what". Nesting deeper than 64 is an error.
bool parse(const std::string &text, Value &out, std::string &error);

} // namespace sluice::train::json

#endif // SLUICE_RUNTIME_SRC_TRAIN_JSON_H
