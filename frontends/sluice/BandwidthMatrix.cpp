//===- BandwidthMatrix.cpp - Measured bandwidth matrices (JSON) -----------===//
//
// See BandwidthMatrix.h.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/BandwidthMatrix.h"

#include "dialects/Common/BoundedJSON.h"
#include "support/NumberFormat.h"
#include "support/Units.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <optional>

using namespace sluice;

llvm::Expected<BandwidthMatrix>
sluice::parseBandwidthMatrix(llvm::StringRef text, llvm::StringRef file,
                             llvm::ArrayRef<std::string> deviceNames) {
  auto json = parseBoundedJSON(text);
  if (!json)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "bandwidth matrix '" + file +
            "' is not valid JSON: " + llvm::toString(json.takeError()));
  auto fail = [&](const llvm::Twine &what) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "bandwidth matrix '" + file + "': " + what);
  };
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail("expected a JSON object with \"unit\" and \"matrix\"");
  std::optional<llvm::StringRef> unit = root->getString("unit");
  if (!unit)
    return fail("missing \"unit\" (e.g. \"GB/s\")");
  auto unitInfo = lookupUnit(*unit);
  if (!unitInfo || unitInfo->dim != Dim::bandwidth())
    return fail("\"unit\" must be a bandwidth unit such as \"GB/s\", got \"" +
                *unit + "\"");
  const llvm::json::Array *matrix = root->getArray("matrix");
  if (!matrix)
    return fail("missing \"matrix\" (an N x N array of numbers)");
  size_t n = deviceNames.size();
  if (const llvm::json::Array *names = root->getArray("devices")) {
    if (names->size() != n)
      return fail("lists " + llvm::Twine(names->size()) +
                  " devices but 'between' names " + llvm::Twine(n));
    for (size_t i = 0; i < n; ++i) {
      auto s = (*names)[i].getAsString();
      if (!s || *s != deviceNames[i])
        return fail("device " + llvm::Twine(i) + " is \"" +
                    (s ? *s : llvm::StringRef("?")) +
                    "\" but 'between' gives \"" + deviceNames[i] + "\"");
    }
  }
  if (matrix->size() != n)
    return fail("has " + llvm::Twine(matrix->size()) + " rows, expected " +
                llvm::Twine(n));
  BandwidthMatrix result;
  result.unit = unit->str();
  result.factor = unitInfo->factor;
  for (size_t i = 0; i < n; ++i) {
    const llvm::json::Array *row = (*matrix)[i].getAsArray();
    if (!row || row->size() != n)
      return fail("row " + llvm::Twine(i) + " must have " + llvm::Twine(n) +
                  " numbers");
    for (size_t j = 0; j < n; ++j) {
      std::optional<double> v = (*row)[j].getAsNumber();
      if (!v || *v < 0 || !std::isfinite(*v))
        return fail("entry [" + llvm::Twine(i) + "][" + llvm::Twine(j) +
                    "] must be a non-negative number");
      if (i == j || *v == 0)
        continue;
      // The IR holds bandwidths in B/s: 1e300 TB/s is finite only here.
      if (!std::isfinite(*v * unitInfo->factor))
        return fail("entry [" + llvm::Twine(i) + "][" + llvm::Twine(j) +
                    "] is too large (" + formatNumber(*v) + " " + *unit +
                    " overflows B/s)");
      result.links.push_back({i, j, *v});
    }
  }
  return result;
}
