//===- BandwidthMatrix.h - Measured bandwidth matrices (JSON) ---*- C++ -*-===//
//
// The reader of `bandwidths between <devices> from "file.json"` in the
// topology language (docs/language.md): a JSON object
//
//   {"unit": "GB/s", "devices": ["gpu[0]", "gpu[1]"],   ("devices" optional)
//    "matrix": [[0, 300], [280, 0]]}
//
// whose N x N matrix gives the measured bandwidth from device i to device j.
// Kept apart from MLIRGen so that it can be tested and fuzzed on a buffer;
// MLIRGen reports its errors at the file name in the .sluice source.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_BANDWIDTHMATRIX_H
#define SLUICE_FRONTENDS_SLUICE_BANDWIDTHMATRIX_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace sluice {

/// One measured link: devices[from] -> devices[to] at `value` in the
/// matrix's unit (finite, > 0; zero entries and the diagonal are not links).
struct MeasuredBandwidth {
  size_t from = 0, to = 0;
  double value = 0;
};

struct BandwidthMatrix {
  /// The unit as spelled in the file ("GB/s") and its factor to B/s.
  std::string unit;
  double factor = 1;
  /// Row-major, in the order of the matrix.
  std::vector<MeasuredBandwidth> links;
};

/// Parses the matrix file `text` for the devices named `deviceNames` (in
/// the order of 'between'). `file` is the name the file is given in
/// messages: "bandwidth matrix 'm.json': has 3 rows, expected 2", or
/// "bandwidth matrix 'm.json' is not valid JSON: ..." for a syntax error.
llvm::Expected<BandwidthMatrix>
parseBandwidthMatrix(llvm::StringRef text, llvm::StringRef file,
                     llvm::ArrayRef<std::string> deviceNames);

} // namespace sluice

#endif // SLUICE_FRONTENDS_SLUICE_BANDWIDTHMATRIX_H
