//===- Npy.h - NumPy .npy headers, shared by graphs and features -*- C++
//-*-===//
//
// The .npy format (numpy.lib.format): the magic string "\x93NUMPY", a major
// and a minor version byte, the header length (2 bytes little-endian for
// version 1, 4 bytes for versions 2 and 3), then the header: a Python dict
// literal with the keys 'descr', 'fortran_order' and 'shape', padded with
// spaces and ended by '\n'. The array follows in the order the header
// states. Graph inputs (NpyGraph.cpp: .npy edge arrays, .npz archives) and
// feature files (features/FeatureFile.cpp) read their headers here.
//
// Errors are one line naming the file and the byte of the header:
// "edges.npy: .npy header, byte 23: expected True or False after
// 'fortran_order'".
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_NPY_H
#define SLUICE_RUNTIME_SRC_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice::rt::npy {

/// The magic string at byte 0 of every .npy file.
inline constexpr char kMagic[] = "\x93NUMPY";
inline constexpr size_t kMagicSize = 6;
/// Largest header read (numpy writes at most a few hundred bytes; the
/// format allows 4 GiB for v2/v3, which nothing sane uses).
inline constexpr uint64_t kMaxHeader = uint64_t(1) << 20;

/// The element types Sluice reads.
enum class DType { Unknown, I4, I8, F4, F8 };

/// A parsed header.
struct Header {
  std::string descr; ///< as written: "<i8"
  DType dtype = DType::Unknown;
  bool fortranOrder = false;
  std::vector<uint64_t> shape;
  uint64_t dataOffset = 0; ///< byte offset of the first element

  /// 4 or 8; 0 for an unknown dtype.
  uint64_t elementSize() const;
  /// The product of the dimensions, or false when it overflows 64 bits.
  bool elementCount(uint64_t &count) const;
};

/// "(3, 2)", "(5,)".
std::string shapeText(const std::vector<uint64_t> &shape);

/// The dtype of a descr: "<i4" -> I4, "<i8" -> I8, "<f4" -> F4, "<f8" -> F8
/// ('|' is not a byte order for these); anything else is Unknown.
DType dtypeOf(const std::string &descr);

/// True when `bytes` (`size` of them) start with the magic string.
bool hasMagic(const char *bytes, size_t size);

/// Parses the header at the start of `bytes` (`size` bytes: at least the
/// whole header when the file has one). `path` names the file in messages.
/// Checks the magic string, the version (1.0, 2.0, 3.0), the header length
/// against the bytes available and the dict's keys and values; the dtype
/// and the shape are for the caller to check.
bool parseHeader(const std::string &path, const char *bytes, size_t size,
                 Header &out, std::string &error);

} // namespace sluice::rt::npy

#endif // SLUICE_RUNTIME_SRC_NPY_H
