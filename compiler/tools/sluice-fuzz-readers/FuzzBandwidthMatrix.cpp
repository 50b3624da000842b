//===- FuzzBandwidthMatrix.cpp - Fuzz target: measured bandwidth matrices -===//
//
// The reader of `bandwidths between <devices> from "m.json"`
// (frontends/sluice/BandwidthMatrix.h). The first byte picks how many
// devices 'between' names (0-7, the first three of them named as in the
// seed files); the rest is the file.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/BandwidthMatrix.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const size_t n = data[0] % 8;
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i)
    names.push_back("gpu[" + std::to_string(i) + "]");
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  auto matrix = sluice::parseBandwidthMatrix(text, "fuzz.json", names);
  if (!matrix) {
    llvm::consumeError(matrix.takeError());
    return 0;
  }
  for (const sluice::MeasuredBandwidth &m : matrix->links)
    if (m.from >= n || m.to >= n || m.from == m.to ||
        !(m.value > 0 && std::isfinite(m.value * matrix->factor)))
      abort();
  return 0;
}
