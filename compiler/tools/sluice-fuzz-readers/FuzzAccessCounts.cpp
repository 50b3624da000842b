//===- FuzzAccessCounts.cpp - Fuzz target: gather access-count files ------===//
//
// The reader of `access: file("...")` in gather demands
// (compiler/Analysis/Flow/GatherAccess.h, parseAccessCounts). The first two
// bytes give the item count (1-4096), the third the destination count
// (1-8); the rest is the file. An accepted file then goes through
// accessClasses, as the gather job does.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/GatherAccess.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3)
    return 0;
  const size_t items = 1 + ((size_t(data[0]) << 8 | data[1]) % 4096);
  const size_t destinations = 1 + data[2] % 8;
  llvm::StringRef text(reinterpret_cast<const char *>(data + 3), size - 3);
  auto counts =
      sluice::flow::parseAccessCounts(text, "fuzz.txt", items, destinations);
  if (!counts) {
    llvm::consumeError(counts.takeError());
    return 0;
  }
  if (counts->items != items || counts->destinations != destinations ||
      counts->counts.size() != items * destinations)
    abort();
  for (double c : counts->counts)
    if (!(c >= 0 && std::isfinite(c)))
      abort();
  (void)counts->total();
  std::vector<size_t> classOf;
  (void)sluice::flow::accessClasses(*counts, 64, 1 + data[2] % 5, &classOf);
  return 0;
}
