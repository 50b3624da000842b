//===- Npy.cpp - NumPy .npy header parser ---------------------------------===//
//
// The header dict is parsed by hand: a tiny subset of Python literals
// (strings without escapes, True/False, tuples of whole numbers), enough for
// what numpy.lib.format writes and nothing that could run away on a broken
// file (at most 32 dimensions, no number beyond 64 bits).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/Npy.h"

#include <cstring>

using namespace sluice::rt::npy;

namespace {

/// The header dict: `key: value` pairs, parsed by hand (a tiny subset of
/// Python literals: strings, True/False, tuples of integers).
class DictParser {
public:
  DictParser(const std::string &path, const char *text, size_t size,
             uint64_t base)
      : path(path), text(text), size(size), base(base) {}

  std::string error;
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;

  /// dict := '{' (entry (',' entry)* ','?)? '}' trailing-space
  bool parse() {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!expect('{', "'{' opening the header dict"))
      return false;
    for (;;) {
      skipSpace();
      if (peek() == '}') {
        closeAt = at++;
        break;
      }
      std::string key;
      size_t keyAt = at;
      if (!parseString(key, "a quoted key"))
        return false;
      skipSpace();
      if (!expect(':', "':' after '" + key + "'"))
        return false;
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr, "a quoted dtype after 'descr'"))
          return false;
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortran))
          return false;
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape())
          return false;
        haveShape = true;
      } else {
        return failAt(keyAt, "unexpected key '" + key +
                                 "' (expected 'descr', 'fortran_order' and "
                                 "'shape')");
      }
      skipSpace();
      if (peek() == ',') {
        ++at;
        continue;
      }
      skipSpace();
      closeAt = at;
      if (!expect('}', "',' or '}' after the value of '" + key + "'"))
        return false;
      break;
    }
    skipSpace();
    if (at != size)
      return failAt(at, "unexpected text after the header dict");
    const char *missing = !haveDescr     ? "descr"
                          : !haveFortran ? "fortran_order"
                          : !haveShape   ? "shape"
                                         : nullptr;
    if (missing)
      return failAt(closeAt, std::string("the header dict has no '") + missing +
                                 "' key");
    return true;
  }

private:
  char peek() const { return at < size ? text[at] : '\0'; }

  void skipSpace() {
    while (at < size && (text[at] == ' ' || text[at] == '\n' ||
                         text[at] == '\t' || text[at] == '\r'))
      ++at;
  }

  bool failAt(size_t where, const std::string &message) {
    error = path + ": .npy header, byte " + std::to_string(base + where) +
            ": " + message;
    return false;
  }

  bool expect(char c, const std::string &what) {
    if (peek() != c)
      return failAt(at, "expected " + what);
    ++at;
    return true;
  }

  /// string := '\'' chars '\'' | '"' chars '"'   (no escapes)
  bool parseString(std::string &out, const std::string &what) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return failAt(at, "expected " + what);
    size_t start = ++at;
    while (at < size && text[at] != quote)
      ++at;
    if (at == size)
      return failAt(start - 1, "unterminated string");
    out.assign(text + start, at - start);
    ++at;
    return true;
  }

  /// bool := 'True' | 'False'
  bool parseBool(bool &out) {
    if (size - at >= 4 && !std::strncmp(text + at, "True", 4)) {
      at += 4;
      out = true;
      return true;
    }
    if (size - at >= 5 && !std::strncmp(text + at, "False", 5)) {
      at += 5;
      out = false;
      return true;
    }
    return failAt(at, "expected True or False after 'fortran_order'");
  }

  /// shape := '(' (int (',' int)* ','?)? ')'
  bool parseShape() {
    if (!expect('(', "a tuple after 'shape'"))
      return false;
    for (;;) {
      skipSpace();
      if (peek() == ')') {
        ++at;
        return true;
      }
      if (peek() < '0' || peek() > '9')
        return failAt(at, "expected a dimension (a whole number) in 'shape'");
      uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        uint64_t d = static_cast<uint64_t>(peek() - '0');
        if (v > (UINT64_MAX - d) / 10)
          return failAt(at, "dimension too large in 'shape'");
        v = v * 10 + d;
        ++at;
      }
      // Tuples have 0..32 dimensions in NumPy; more is a broken file.
      if (shape.size() == 32)
        return failAt(at, "more than 32 dimensions in 'shape'");
      shape.push_back(v);
      skipSpace();
      if (peek() == ',')
        ++at;
      else if (peek() != ')')
        return failAt(at, "expected ',' or ')' in 'shape'");
    }
  }

  const std::string &path;
  const char *text;
  size_t size;
  uint64_t base;
  size_t at = 0;
  size_t closeAt = 0; ///< the closing '}'
};

} // namespace

uint64_t Header::elementSize() const {
  switch (dtype) {
  case DType::I4:
  case DType::F4:
    return 4;
  case DType::I8:
  case DType::F8:
    return 8;
  case DType::Unknown:
    break;
  }
  return 0;
}

bool Header::elementCount(uint64_t &count) const {
  count = 1;
  for (uint64_t d : shape) {
    if (d && count > UINT64_MAX / d)
      return false;
    count *= d;
  }
  return true;
}

std::string sluice::rt::npy::shapeText(const std::vector<uint64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

DType sluice::rt::npy::dtypeOf(const std::string &descr) {
  if (descr == "<i4")
    return DType::I4;
  if (descr == "<i8")
    return DType::I8;
  if (descr == "<f4")
    return DType::F4;
  if (descr == "<f8")
    return DType::F8;
  return DType::Unknown;
}

bool sluice::rt::npy::hasMagic(const char *bytes, size_t size) {
  return size >= kMagicSize && std::memcmp(bytes, kMagic, kMagicSize) == 0;
}

bool sluice::rt::npy::parseHeader(const std::string &path, const char *bytes,
                                  size_t size, Header &out,
                                  std::string &error) {
  if (size < kMagicSize + 2 || !hasMagic(bytes, size)) {
    error = path + ": not a NumPy .npy file (no \\x93NUMPY magic string at "
                   "byte 0)";
    return false;
  }
  unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3) {
    error = path + ": .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + " is not supported (1.0, 2.0 and 3.0 are)";
    return false;
  }
  const size_t lengthBytes = major == 1 ? 2 : 4;
  const size_t preamble = kMagicSize + 2 + lengthBytes;
  if (size < preamble) {
    error = path + ": truncated .npy header: the file ends at byte " +
            std::to_string(size) + ", inside the header length";
    return false;
  }
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= uint64_t(static_cast<unsigned char>(bytes[8 + i]))
                    << (8 * i);
  if (headerLength > kMaxHeader) {
    error = path + ": the .npy header length " + std::to_string(headerLength) +
            " is more than the 1 MiB read";
    return false;
  }
  if (size - preamble < headerLength) {
    error = path + ": truncated .npy header: it says " +
            std::to_string(headerLength) + " bytes after byte " +
            std::to_string(preamble) + ", the file has " +
            std::to_string(size - preamble);
    return false;
  }
  DictParser dict(path, bytes + preamble, headerLength, preamble);
  if (!dict.parse()) {
    error = dict.error;
    return false;
  }
  out.descr = dict.descr;
  out.dtype = dtypeOf(dict.descr);
  out.fortranOrder = dict.fortran;
  out.shape = dict.shape;
  out.dataOffset = preamble + headerLength;
  return true;
}
