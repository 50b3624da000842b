//===- NumberFormat.cpp - The one shortest-number formatter ---------------===//
#include "support/NumberFormat.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

std::string sluice::formatNumber(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  if (v == 0)
    return std::signbit(v) ? "-0" : "0";
  // Whole numbers as integers ("600000", not "6e+05"): below 2^53 every
  // integer is a double, so all the digits are significant.
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0)
    return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  std::to_chars_result res = std::to_chars(buf, buf + sizeof(buf), v);
  assert(res.ec == std::errc() && "a double does not fit in 64 characters");
  return std::string(buf, res.ptr);
}
