//===- Units.h - Physical units and dimensions for Sluice ------*- C++ -*-===//
//
// Quantities in Sluice carry a dimension: a vector of integer exponents over
// five base dimensions (byte, second, flop, US dollar, watt). A quantity's
// value is stored in base units (bytes, seconds, ...). This header is shared
// by the front end (Sema's unit checking), the dialects (quantity attributes)
// and the analyses; it depends only on LLVM Support.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_SUPPORT_UNITS_H
#define SLUICE_SUPPORT_UNITS_H

#include "llvm/ADT/StringRef.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// Base dimensions, in the order of Dim's exponent vector.
enum class BaseDim : unsigned { Byte = 0, Second, Flop, Dollar, Watt };
constexpr unsigned kNumBaseDims = 5;

/// A physical dimension: integer exponents of the base dimensions.
struct Dim {
  std::array<int8_t, kNumBaseDims> exp{};

  static Dim none() { return Dim(); }
  static Dim bytes() { return make(BaseDim::Byte, 1); }
  static Dim time() { return make(BaseDim::Second, 1); }
  static Dim flops() { return make(BaseDim::Flop, 1); }
  static Dim price() { return make(BaseDim::Dollar, 1); }
  static Dim power() { return make(BaseDim::Watt, 1); }
  static Dim bandwidth() { return bytes() / time(); }
  static Dim compute() { return flops() / time(); }
  static Dim frequency() { return none() / time(); }
  static Dim make(BaseDim d, int8_t e) {
    Dim r;
    r.exp[static_cast<unsigned>(d)] = e;
    return r;
  }

  bool isNone() const { return *this == Dim(); }
  Dim operator*(const Dim &o) const;
  Dim operator/(const Dim &o) const;
  bool operator==(const Dim &o) const { return exp == o.exp; }
  bool operator!=(const Dim &o) const { return !(*this == o); }

  /// A readable name: "bytes", "bandwidth", "time", "compute", "flops",
  /// "price", "power", "frequency", "number", or a formula such as
  /// "B*s^-2" for the rest.
  std::string name() const;
  /// The dimension named by a type name ("bytes", "bandwidth", ...).
  static std::optional<Dim> fromTypeName(llvm::StringRef name);
};

/// A unit spelling such as "GiB" or "GB/s": its dimension and its factor to
/// base units.
struct UnitInfo {
  Dim dim;
  double factor;
};

/// Looks up a unit spelling (case-sensitive). Returns std::nullopt for an
/// unknown unit.
std::optional<UnitInfo> lookupUnit(llvm::StringRef spelling);

/// A comma-separated list of every unit spelling, for error messages and docs.
std::string listUnits();

/// The Sluice spellings a mistyped unit most likely means, best first; empty
/// when none is close. Case-insensitive matches (`ghz` -> GHz), common
/// spellings of bytes and bits (`TBps` -> TB/s, `Gb/s` -> Gbit/s, `Gb` ->
/// Gbit: a lower-case `b` is a bit, an upper-case `B` a byte; `gb`, all lower
/// case, may be either: GB, Gbit) and of time, power and money (`sec`,
/// `hours`, `watts`, `dollars`).
std::vector<std::string> suggestUnits(llvm::StringRef spelling);

/// "; did you mean 'GB/s'?" for suggestUnits(spelling), with "(bytes)" and
/// "(bits)" when both are offered; "" when there is no suggestion.
std::string unitSuggestion(llvm::StringRef spelling);

/// The unit to show `baseValue` of dimension `dim` in: the largest of the
/// preferred units of the dimension that keeps the number >= 1 (e.g. "TFLOPS"
/// for 5.9e12 FLOP/s). Empty when the dimension has no unit spelling.
std::string chooseDisplayUnit(double baseValue, const Dim &dim);

/// Formats a value in base units with a human-friendly unit of its dimension
/// ("80 GiB", "25 GB/s", "1.5 us"); falls back to the base-unit formula.
std::string formatQuantity(double baseValue, const Dim &dim);

} // namespace sluice

#endif // SLUICE_SUPPORT_UNITS_H
