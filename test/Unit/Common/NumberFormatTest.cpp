//===- NumberFormatTest.cpp - The one shortest-number formatter -----------===//
//
// Pins sluice::formatNumber, the spelling of every double in messages, the
// AST dump, #topo.q<...> attributes and JSON: integers as integers, the
// shortest round-trip decimal otherwise, negative zero, NaN and the
// infinities, large and small exponents. The runtime's twin
// (flow::formatNumber: the runtime links nothing of ours) is held to the
// same table.
//
//===----------------------------------------------------------------------===//
#include "support/NumberFormat.h"

#include "runtime/src/flow/FlowPlan.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

using sluice::formatNumber;

namespace {

struct Case {
  double value;
  const char *text;
};

const Case kCases[] = {
    // Integers as integers, never in exponent form, up to 2^53.
    {0.0, "0"},
    {1.0, "1"},
    {-1.0, "-1"},
    {80.0, "80"},
    {600000.0, "600000"},
    {1e15, "1000000000000000"},
    {9007199254740991.0, "9007199254740991"},   // 2^53 - 1
    {-9007199254740991.0, "-9007199254740991"}, // -(2^53 - 1)
    // From 2^53 on: the shortest round-trip form, fixed or exponent.
    {9007199254740992.0, "9007199254740992"},   // 2^53
    {18014398509481984.0, "18014398509481984"}, // 2^54, shorter fixed
    {1e16, "1e+16"},
    {-1e16, "-1e+16"},
    {1e21, "1e+21"},
    {1.5e300, "1.5e+300"},
    {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
    // Fractions: the fewest digits that read back exactly.
    {0.5, "0.5"},
    {-2.5, "-2.5"},
    {0.1, "0.1"},
    {0.3, "0.3"},
    {0.1 + 0.2, "0.30000000000000004"},
    {1.0 / 3.0, "0.3333333333333333"},
    {123456.7, "123456.7"},
    {1234567890123.5, "1234567890123.5"},
    // Small magnitudes: fixed or exponent, whichever is shorter (fixed on
    // a tie).
    {0.001, "0.001"},
    {0.00015, "0.00015"},
    {0.0001, "1e-04"},
    {1e-9, "1e-09"},
    {-2.5e-7, "-2.5e-07"},
    {1e-300, "1e-300"},
    {std::numeric_limits<double>::min(), "2.2250738585072014e-308"},
    {std::numeric_limits<double>::denorm_min(), "5e-324"},
    // Negative zero keeps its sign (it reads back as -0.0).
    {-0.0, "-0"},
    // NaN without a sign, the infinities with theirs.
    {std::numeric_limits<double>::quiet_NaN(), "nan"},
    {-std::numeric_limits<double>::quiet_NaN(), "nan"},
    {std::numeric_limits<double>::infinity(), "inf"},
    {-std::numeric_limits<double>::infinity(), "-inf"},
};

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

TEST(NumberFormatTest, Table) {
  for (const Case &c : kCases)
    EXPECT_EQ(formatNumber(c.value), c.text) << "for " << c.text;
}

TEST(NumberFormatTest, RuntimeTwinAgrees) {
  for (const Case &c : kCases)
    EXPECT_EQ(sluice::rt::flow::formatNumber(c.value), c.text)
        << "for " << c.text;
}

/// Every finite double reads back bit for bit (negative zero included), and
/// the runtime's twin spells it the same.
TEST(NumberFormatTest, RoundTripsRandomDoubles) {
  std::mt19937_64 rng(42);
  int checked = 0;
  while (checked < 20000) {
    uint64_t b = rng();
    double v;
    std::memcpy(&v, &b, sizeof(v));
    if (!std::isfinite(v))
      continue;
    ++checked;
    std::string text = formatNumber(v);
    ASSERT_EQ(bits(std::strtod(text.c_str(), nullptr)), bits(v)) << text;
    EXPECT_EQ(sluice::rt::flow::formatNumber(v), text);
  }
}

TEST(NumberFormatTest, IntegersNeverUseExponents) {
  for (double v = 1; v < 9007199254740992.0; v *= 10) {
    std::string text = formatNumber(v);
    EXPECT_EQ(text.find('e'), std::string::npos) << text;
    EXPECT_EQ(text.find('.'), std::string::npos) << text;
    EXPECT_EQ(formatNumber(-v), "-" + text);
  }
}

} // namespace
