//===- FeatureTestUtil.h - Feature files written for the tests -*- C++ -*-===//
#ifndef SLUICE_TEST_UNIT_FEATURES_FEATURETESTUTIL_H
#define SLUICE_TEST_UNIT_FEATURES_FEATURETESTUTIL_H

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace sluice::test {

/// The header numpy.lib.format writes (version 1.0, 2.0 or 3.0) for `dict`:
/// magic, version, little-endian length, the dict padded with spaces so
/// that the data starts at a multiple of 64, then '\n'.
inline std::string npyHeader(const std::string &dict, int major = 1) {
  std::string text = dict;
  size_t preamble = major == 1 ? 10 : 12;
  size_t total = preamble + text.size() + 1;
  text.append((64 - total % 64) % 64, ' ');
  text += '\n';
  std::string out = std::string("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  uint32_t length = static_cast<uint32_t>(text.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((length >> (8 * i)) & 0xff);
  return out + text;
}

inline std::string npyDict(uint64_t rows, uint64_t dim,
                           const std::string &descr = "<f4",
                           bool fortran = false) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': (" + std::to_string(rows) + ", " + std::to_string(dim) +
         "), }";
}

/// Value of element (r, c) of the test arrays: distinct for every element
/// of arrays up to 2^24 elements, exactly representable.
inline float featureValue(uint64_t r, uint64_t c, uint64_t dim) {
  return static_cast<float>((r * dim + c) % 16777216) * 0.5f - 1000.0f;
}

inline std::vector<float> featureRows(uint64_t rows, uint64_t dim) {
  std::vector<float> v(rows * dim);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < dim; ++c)
      v[r * dim + c] = featureValue(r, c, dim);
  return v;
}

inline void writeBytes(const std::string &path, const std::string &head,
                       const void *data, size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(head.data(), static_cast<std::streamsize>(head.size()));
  out.write(static_cast<const char *>(data),
            static_cast<std::streamsize>(bytes));
}

/// A .npy (header) or raw .f32 (no header) file of featureRows(rows, dim).
inline void writeFeatures(const std::string &path, uint64_t rows, uint64_t dim,
                          bool npy, int major = 1) {
  std::vector<float> v = featureRows(rows, dim);
  writeBytes(path, npy ? npyHeader(npyDict(rows, dim), major) : "", v.data(),
             v.size() * 4);
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_FEATURES_FEATURETESTUTIL_H
