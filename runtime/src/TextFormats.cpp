//===- TextFormats.cpp - Fields, numbers and entry lines ------------------===//
#include "runtime/src/TextFormats.h"

#include "runtime/src/Error.h"

#include <charconv>
#include <cmath>
#include <limits>

using namespace sluice::rt;

namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::string withArticle(const char *name) {
  char c = name[0];
  bool vowel = c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
  return std::string(vowel ? "an " : "a ") + name;
}

} // namespace

size_t sluice::rt::splitFields(std::string_view line, Field *fields,
                               size_t max) {
  size_t count = 0, i = 0, n = line.size();
  while (true) {
    while (i < n && isBlank(line[i]))
      ++i;
    if (i == n)
      return count;
    size_t start = i;
    while (i < n && !isBlank(line[i]))
      ++i;
    if (count == max)
      return max + 1;
    fields[count].text = line.substr(start, i - start);
    fields[count].column = start + 1;
    ++count;
  }
}

size_t sluice::rt::splitCsvFields(std::string_view line, Field *fields,
                                  size_t max) {
  size_t count = 0, i = 0, n = line.size();
  while (true) {
    while (i < n && isBlank(line[i]))
      ++i;
    size_t start = i;
    while (i < n && line[i] != ',')
      ++i;
    size_t end = i;
    while (end > start && isBlank(line[end - 1]))
      --end;
    if (count == max)
      return max + 1;
    fields[count].text = line.substr(start, end - start);
    fields[count].column = start + 1;
    ++count;
    if (i == n)
      return count;
    ++i; // the comma
  }
}

bool sluice::rt::isBlankOrComment(std::string_view line) {
  for (char c : line) {
    if (isBlank(c))
      continue;
    return c == '#' || c == '%';
  }
  return true;
}

bool sluice::rt::isHeaderLine(std::string_view line, bool csv) {
  Field fields[3];
  size_t count =
      csv ? splitCsvFields(line, fields, 2) : splitFields(line, fields, 2);
  if (count < 2)
    return false;
  for (size_t k = 0; k < 2; ++k) {
    int64_t value;
    std::string_view text = fields[k].text;
    if (text.empty() || parseSigned(text, value) != NumberParse::NotANumber)
      return false;
  }
  return true;
}

NumberParse sluice::rt::parseUnsigned(std::string_view text, uint64_t &value) {
  if (text.size() > 1 && text[0] == '-') {
    for (char c : text.substr(1))
      if (c < '0' || c > '9')
        return NumberParse::NotANumber;
    return NumberParse::Negative;
  }
  if (text.empty())
    return NumberParse::NotANumber;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return NumberParse::NotANumber;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
      return NumberParse::TooLarge;
    v = v * 10 + digit;
  }
  value = v;
  return NumberParse::Ok;
}

NumberParse sluice::rt::parseSigned(std::string_view text, int64_t &value) {
  bool negative = !text.empty() && text[0] == '-';
  uint64_t magnitude = 0;
  NumberParse r = parseUnsigned(negative ? text.substr(1) : text, magnitude);
  if (r != NumberParse::Ok)
    return r == NumberParse::Negative ? NumberParse::NotANumber : r;
  if (negative) {
    if (magnitude > uint64_t(std::numeric_limits<int64_t>::max()) + 1)
      return NumberParse::TooLarge;
    value = static_cast<int64_t>(0 - magnitude);
    return NumberParse::Ok;
  }
  if (magnitude > uint64_t(std::numeric_limits<int64_t>::max()))
    return NumberParse::TooLarge;
  value = static_cast<int64_t>(magnitude);
  return NumberParse::Ok;
}

NumberParse sluice::rt::parseFloat(std::string_view text, float &value) {
  if (!text.empty() && text[0] == '+')
    text.remove_prefix(1);
  if (text.empty())
    return NumberParse::NotANumber;
  float v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range)
    return NumberParse::TooLarge;
  if (ec != std::errc() || ptr != text.data() + text.size())
    return NumberParse::NotANumber;
  if (!std::isfinite(v))
    return NumberParse::NotFinite;
  value = v;
  return NumberParse::Ok;
}

sluice_status_t sluice::rt::parseEntry(std::string_view line,
                                       const EntryLayout &layout,
                                       const std::string &path,
                                       uint64_t lineNumber, Entry &entry,
                                       sluice_error_t *error) {
  Field fields[5];
  const size_t expected =
      2 + (layout.valueColumn ? 1 : 0) + (layout.labelColumn ? 1 : 0);
  // One field more than expected, to quote it in the error.
  const size_t count = layout.csv ? splitCsvFields(line, fields, expected + 1)
                                   : splitFields(line, fields, expected + 1);
  auto at = [&](size_t k) {
    return ErrorLocation{path, lineNumber, fields[k].column};
  };
  auto missing = [&](size_t k, const char *name) {
    return fail(error, SLUICE_STATUS_PARSE_ERROR,
                {path, lineNumber, line.size() + 1},
                std::string("missing ") + name + " (column " +
                    std::to_string(k + 1) + ")");
  };

  for (size_t k = 0; k < 2; ++k) {
    const char *name = layout.idName[k];
    if (count <= k)
      return missing(k, name);
    std::string_view text = fields[k].text;
    uint64_t raw = 0;
    switch (parseUnsigned(text, raw)) {
    case NumberParse::Ok:
      break;
    case NumberParse::Negative:
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  std::string("negative ") + name + " " + quote(text));
    case NumberParse::TooLarge:
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                  std::string(name) + " " + quote(text) +
                      " does not fit in 64 bits");
    default:
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  "expected " + withArticle(name) + ", got " + quote(text));
    }
    if (layout.base == 1 && raw == 0)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  std::string(name) + " 0 is not valid in a 1-based file");
    if (layout.declared[k] && raw > layout.declared[k])
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  std::string(name) + " " + std::to_string(raw) +
                      " is beyond the " + std::to_string(layout.declared[k]) +
                      " declared " + layout.declaredName[k]);
    if (layout.compactIds) {
      entry.ids[k] = raw;
      continue;
    }
    uint64_t vertex = raw - layout.base;
    if (vertex >= kMaxVertices)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                  std::string(name) + " " + std::to_string(raw) +
                      " does not fit in 32 bits (the largest is " +
                      std::to_string(kMaxVertices - 1 + layout.base) +
                      "; compact ids renumber sparse ids)");
    entry.ids[k] = vertex;
  }

  size_t k = 2;
  if (layout.valueColumn) {
    const char *name = layout.valueName;
    if (count <= k)
      return missing(k, name);
    std::string_view text = fields[k].text;
    float value = 0;
    if (layout.valueIsInteger) {
      int64_t integer = 0;
      switch (parseSigned(text, integer)) {
      case NumberParse::Ok:
        value = static_cast<float>(integer);
        break;
      case NumberParse::TooLarge:
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                    std::string(name) + " " + quote(text) +
                        " does not fit in 64 bits");
      default:
        return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                    std::string("expected an integer ") + name + ", got " +
                        quote(text));
      }
    } else {
      switch (parseFloat(text, value)) {
      case NumberParse::Ok:
        break;
      case NumberParse::TooLarge:
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                    std::string(name) + " " + quote(text) +
                        " is out of range for float32");
      case NumberParse::NotFinite:
        return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                    std::string(name) + " " + quote(text) + " is not finite");
      default:
        return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                    "expected " + withArticle(name) + ", got " + quote(text));
      }
    }
    if (layout.valueIsWeight) {
      // Transition probabilities are proportional to the weights
      // (docs/language.md, 10.1): a negative one has no meaning.
      if (value < 0)
        return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                    std::string("negative ") + name + " " + quote(text) +
                        " (edge weights must not be negative)");
      entry.weight = value == 0 ? 0.0f : value; // -0 becomes +0
    }
    ++k;
  }

  if (layout.labelColumn) {
    if (count <= k)
      return missing(k, "edge label");
    std::string_view text = fields[k].text;
    int64_t label = 0;
    switch (parseSigned(text, label)) {
    case NumberParse::Ok:
      break;
    case NumberParse::TooLarge:
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                  "edge label " + quote(text) + " does not fit in 32 bits");
    default:
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  "expected an edge label, got " + quote(text));
    }
    if (label < 0)
      return fail(error, SLUICE_STATUS_PARSE_ERROR, at(k),
                  "negative edge label " + quote(text));
    if (label > std::numeric_limits<int32_t>::max())
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, at(k),
                  "edge label " + quote(text) + " does not fit in 32 bits");
    entry.label = static_cast<int32_t>(label);
    ++k;
  }

  if (count > expected)
    return fail(error, SLUICE_STATUS_PARSE_ERROR, at(expected),
                "unexpected column " + std::to_string(expected + 1) + " " +
                    quote(fields[expected].text) + " (expected " +
                    std::to_string(expected) + " columns" + layout.extraHint +
                    ")");
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice::rt::failTooManyIds(sluice_error_t *error,
                                           const std::string &path,
                                           uint64_t lineNumber) {
  return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path, lineNumber, 1},
              "more than " + std::to_string(kMaxVertices) +
                  " distinct vertex ids");
}

bool sluice::rt::parseLabelField(std::string_view text, int32_t &label,
                                 sluice_status_t &status,
                                 std::string &message) {
  int64_t value = 0;
  switch (parseSigned(text, value)) {
  case NumberParse::Ok:
    break;
  case NumberParse::TooLarge:
    value = std::numeric_limits<int64_t>::max();
    break;
  default:
    status = SLUICE_STATUS_PARSE_ERROR;
    message = "expected a label, got " + quote(text);
    return false;
  }
  if (value < 0) {
    status = SLUICE_STATUS_PARSE_ERROR;
    message = "negative label " + quote(text);
    return false;
  }
  if (value > std::numeric_limits<int32_t>::max()) {
    status = SLUICE_STATUS_OUT_OF_RANGE;
    message = "label " + quote(text) + " does not fit in 32 bits";
    return false;
  }
  label = static_cast<int32_t>(value);
  return true;
}

bool sluice::rt::parseVertexIdField(std::string_view text, uint64_t &id,
                                    sluice_status_t &status,
                                    std::string &message) {
  switch (parseUnsigned(text, id)) {
  case NumberParse::Ok:
    return true;
  case NumberParse::Negative:
    status = SLUICE_STATUS_PARSE_ERROR;
    message = "negative vertex id " + quote(text);
    return false;
  case NumberParse::TooLarge:
    status = SLUICE_STATUS_OUT_OF_RANGE;
    message = "vertex id " + quote(text) + " does not fit in 64 bits";
    return false;
  default:
    status = SLUICE_STATUS_PARSE_ERROR;
    message = "expected a vertex id, got " + quote(text);
    return false;
  }
}

bool sluice::rt::keepVertexIds(const TextLoadOptions &options, uint32_t base,
                               uint64_t limit, EdgeCollector &collector) {
  for (uint64_t k = 0; k < options.numKeepIds; ++k) {
    const uint64_t raw = options.keepIds[k];
    if (raw < base || (limit && raw - base >= limit))
      continue; // not an id this file can hold
    if (options.compactIds) {
      if (!collector.keep(raw))
        return false;
    } else if (raw - base < kMaxVertices) {
      collector.keep(raw - base);
    }
  }
  return true;
}
