//===- Json.cpp - A small JSON reader with source locations ---------------===//
#include "runtime/src/train/Json.h"

#include <cerrno>
#include <cstdlib>
#include <unordered_set>

using namespace sluice::train::json;

const Value *Value::find(const std::string &key) const {
  for (const auto &f : fields)
    if (f.first == key)
      return &f.second;
  return nullptr;
}

bool Value::asUnsigned(uint64_t &out) const {
  if (kind != Number || text.empty())
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  out = v;
  return true;
}

const char *Value::kindName(Kind kind) {
  switch (kind) {
  case Null:
    return "null";
  case Bool:
    return "a boolean";
  case Number:
    return "a number";
  case String:
    return "a string";
  case Array:
    return "an array";
  case Object:
    return "an object";
  }
  return "?";
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &text) : s(text) {}

  bool document(Value &out, std::string &error) {
    skipSpace();
    if (!value(out, 0))
      return fail(error);
    skipSpace();
    if (pos != s.size()) {
      why = "unexpected text after the JSON value";
      return fail(error);
    }
    return true;
  }

private:
  const std::string &s;
  size_t pos = 0;
  unsigned line = 1, column = 1;
  std::string why;

  bool fail(std::string &error) {
    error = std::to_string(line) + ":" + std::to_string(column) + ": " + why;
    return false;
  }
  bool error(const std::string &what) {
    why = what;
    return false;
  }
  void advance() {
    if (s[pos] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++pos;
  }
  void skipSpace() {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r'))
      advance();
  }
  bool literal(const char *word) {
    size_t n = 0;
    while (word[n]) {
      if (pos + n >= s.size() || s[pos + n] != word[n])
        return error(std::string("expected '") + word + "'");
      ++n;
    }
    for (size_t k = 0; k < n; ++k)
      advance();
    return true;
  }

  bool value(Value &v, unsigned depth) {
    if (depth > 64)
      return error("nesting deeper than 64");
    v.line = line;
    v.column = column;
    if (pos >= s.size())
      return error("unexpected end of input, expected a value");
    char c = s[pos];
    switch (c) {
    case '{':
      return object(v, depth);
    case '[':
      return array(v, depth);
    case '"':
      v.kind = Value::String;
      return string(v.text);
    case 't':
      v.kind = Value::Bool;
      v.boolean = true;
      return literal("true");
    case 'f':
      v.kind = Value::Bool;
      return literal("false");
    case 'n':
      v.kind = Value::Null;
      return literal("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return number(v);
      return error(std::string("unexpected character '") + c +
                   "', expected a value");
    }
  }

  bool number(Value &v) {
    size_t start = pos;
    auto digits = [&] {
      size_t n = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        advance();
        ++n;
      }
      return n;
    };
    if (s[pos] == '-')
      advance();
    if (pos < s.size() && s[pos] == '0')
      advance();
    else if (digits() == 0)
      return error("malformed number");
    if (pos < s.size() && s[pos] == '.') {
      advance();
      if (digits() == 0)
        return error("malformed number: digits expected after '.'");
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      advance();
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        advance();
      if (digits() == 0)
        return error("malformed number: digits expected in the exponent");
    }
    v.kind = Value::Number;
    v.text = s.substr(start, pos - start);
    v.number = std::strtod(v.text.c_str(), nullptr);
    return true;
  }

  static void utf8(uint32_t cp, std::string &out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(uint32_t &cp) {
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      if (pos >= s.size())
        return error("unterminated \\u escape");
      char c = s[pos];
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        d = uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        d = uint32_t(c - 'A' + 10);
      else
        return error("bad hex digit in \\u escape");
      cp = cp * 16 + d;
      advance();
    }
    return true;
  }

  bool string(std::string &out) {
    advance(); // "
    out.clear();
    while (true) {
      if (pos >= s.size())
        return error("unterminated string");
      char c = s[pos];
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return error("control character in a string");
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      if (pos >= s.size())
        return error("unterminated string");
      char e = s[pos];
      advance();
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t lo;
          if (pos + 1 >= s.size() || s[pos] != '\\' || s[pos + 1] != 'u')
            return error("unpaired surrogate in \\u escape");
          advance();
          advance();
          if (!hex4(lo))
            return false;
          if (lo < 0xDC00 || lo >= 0xE000)
            return error("unpaired surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return error("unpaired surrogate in \\u escape");
        }
        utf8(cp, out);
        break;
      }
      default:
        return error(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  bool array(Value &v, unsigned depth) {
    v.kind = Value::Array;
    advance(); // [
    skipSpace();
    if (pos < s.size() && s[pos] == ']') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1))
        return false;
      skipSpace();
      if (pos >= s.size())
        return error("unterminated array, expected ',' or ']'");
      if (s[pos] == ']') {
        advance();
        return true;
      }
      if (s[pos] != ',')
        return error("expected ',' or ']' in an array");
      advance();
    }
  }

  bool object(Value &v, unsigned depth) {
    v.kind = Value::Object;
    std::unordered_set<std::string> names;
    advance(); // {
    skipSpace();
    if (pos < s.size() && s[pos] == '}') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= s.size() || s[pos] != '"')
        return error("expected a field name in quotes");
      std::string key;
      if (!string(key))
        return false;
      // A set, not a scan of the fields so far: an object of n fields
      // would take n^2 / 2 comparisons (seconds for a 1 MB file).
      if (!names.insert(key).second)
        return error("duplicate field '" + key + "'");
      skipSpace();
      if (pos >= s.size() || s[pos] != ':')
        return error("expected ':' after the field name");
      advance();
      skipSpace();
      v.fields.emplace_back(key, Value());
      if (!value(v.fields.back().second, depth + 1))
        return false;
      skipSpace();
      if (pos >= s.size())
        return error("unterminated object, expected ',' or '}'");
      if (s[pos] == '}') {
        advance();
        return true;
      }
      if (s[pos] != ',')
        return error("expected ',' or '}' in an object");
      advance();
    }
  }
};

} // namespace

bool sluice::train::json::parse(const std::string &text, Value &out,
                                std::string &error) {
  out = Value();
  return Parser(text).document(out, error);
}
