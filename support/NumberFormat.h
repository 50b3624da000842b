//===- NumberFormat.h - The one shortest-number formatter ------*- C++ -*-===//
//
// formatNumber: how Sluice writes a double wherever a person or a parser
// reads it back (messages, the AST dump, #topo.q<...> attributes, JSON
// reports and schedules). One spelling everywhere, so that a number in an
// error message can be pasted into a source file, a test or a JSON file and
// mean exactly the same double.
//
// Depends on the C++ standard library only, so that every Sluice library
// above the runtime can link it (the runtime depends on nothing of ours).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_SUPPORT_NUMBERFORMAT_H
#define SLUICE_SUPPORT_NUMBERFORMAT_H

#include <string>

namespace sluice {

/// The shortest text that reads back (strtod, llvm::StringRef::getAsDouble,
/// the Sluice lexer, JSON) as exactly `v`:
///  - whole numbers of magnitude below 2^53 as integers: "80", "-1",
///    "600000", "1000000000000000" (never "6e+05");
///  - every other finite value in the shortest round-trip form of
///    std::to_chars, the fixed or the exponent form, whichever is shorter
///    (the fixed one on a tie): "0.1", "2.5", "0.001", "1e-04", "1e-09",
///    "1e+16", "5e-324", "1.7976931348623157e+308";
///  - negative zero as "-0" (it reads back as -0.0);
///  - "nan" for every NaN, "inf" and "-inf" for the infinities (JSON has
///    none of them: JSON writers write null instead).
std::string formatNumber(double v);

} // namespace sluice

#endif // SLUICE_SUPPORT_NUMBERFORMAT_H
