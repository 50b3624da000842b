//===- FeatureFile.h - Feature file layout (.npy, raw .f32) --- -*- C++ -*-===//
//
// A feature file holds a 2-D float32 array, rows x dim, in C order: either a
// NumPy .npy file (format 1.0, 2.0 or 3.0; dtype '<f4'; fortran_order
// False; shape (rows, dim)) or raw little-endian float32 values with no
// header (rows * dim * 4 bytes; the caller gives rows and dim). The
// functions here only read the header and check the sizes; nothing is
// allocated from a size before it has been checked against the file.
//
// Errors are one line naming the file: "features.npy: expected 986 rows of
// 16 float32, the file has shape (985, 16)".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_FEATURES_FEATUREFILE_H
#define SLUICE_RUNTIME_SRC_FEATURES_FEATUREFILE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::rt::features {

enum class FeatureFormat {
  Auto,  ///< .npy by the file's extension or magic string, else raw
  Npy,   ///< NumPy .npy
  RawF32 ///< rows * dim float32, no header
};

/// Where the array is in the file.
struct FeatureLayout {
  uint64_t rows = 0;
  uint64_t dim = 0;
  uint64_t dataOffset = 0; ///< byte offset of row 0
  uint64_t fileSize = 0;
  uint64_t rowBytes() const { return dim * 4; }
};

/// Parses the .npy header in `bytes` (the first `size` bytes of the file,
/// at least the whole header when the file has one) of a file of
/// `fileSize` bytes called `path` (for messages). `rows` / `dim` are what
/// the caller expects, 0 for "whatever the file says". Checks the magic
/// string, the version, the header length against the bytes available,
/// the dict's keys and values, the shape against `rows` x `dim`, and the
/// file size against the shape.
bool parseNpyHeader(const std::string &path, const char *bytes, size_t size,
                    uint64_t fileSize, uint64_t rows, uint64_t dim,
                    FeatureLayout &out, std::string &error);

/// Opens `path`, reads what is needed of its header and checks it
/// (parseNpyHeader, or for raw files that the size is rows * dim * 4; raw
/// files need both rows and dim).
bool readFeatureLayout(const std::string &path, FeatureFormat format,
                       uint64_t rows, uint64_t dim, FeatureLayout &out,
                       std::string &error);

} // namespace sluice::rt::features

#endif // SLUICE_RUNTIME_SRC_FEATURES_FEATUREFILE_H
