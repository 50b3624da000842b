//===- FeatureFileTest.cpp - .npy headers and raw feature files -----------===//
//
// Files written by numpy (Inputs/, see Inputs/README.md), headers written
// here as numpy.lib.format lays them out, and every error with its message.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureFile.h"

#include "test/Unit/Features/FeatureTestUtil.h"
#include "test/Unit/Offload/TestDir.h"

#include <gtest/gtest.h>

using namespace sluice::rt::features;
using sluice::test::npyDict;
using sluice::test::npyHeader;
using sluice::test::ScratchDir;
using sluice::test::writeBytes;
using sluice::test::writeFeatures;

namespace {

/// readFeatureLayout's message for `path` (empty when it succeeds).
std::string layoutError(const std::string &path, uint64_t rows, uint64_t dim,
                        FeatureFormat format = FeatureFormat::Auto) {
  FeatureLayout layout;
  std::string error;
  if (readFeatureLayout(path, format, rows, dim, layout, error))
    return "";
  return error;
}

/// A .npy file with header dict `dict` and `bytes` bytes of data.
std::string npyFile(const ScratchDir &dir, const std::string &dict,
                    size_t bytes, int major = 1) {
  std::string path = dir.file("features.npy");
  std::vector<char> data(bytes, 0);
  writeBytes(path, npyHeader(dict, major), data.data(), data.size());
  return path;
}

TEST(FeatureFile, FilesWrittenByNumpy) {
  // numpy.save of arange(12, dtype='<f4').reshape(3, 4) / 2 in the three
  // format versions (Inputs/README.md has the commands).
  for (const char *name : {"v1.npy", "v2.npy", "v3.npy"}) {
    std::string path = std::string(SLUICE_FEATURES_INPUTS) + "/" + name;
    FeatureLayout layout;
    std::string error;
    ASSERT_TRUE(
        readFeatureLayout(path, FeatureFormat::Auto, 3, 4, layout, error))
        << error;
    EXPECT_EQ(layout.rows, 3u);
    EXPECT_EQ(layout.dim, 4u);
    EXPECT_EQ(layout.dataOffset % 64, 0u) << name;
    EXPECT_EQ(layout.fileSize, layout.dataOffset + 48) << name;
    std::vector<char> all = sluice::test::readAll(path);
    float values[12];
    std::memcpy(values, all.data() + layout.dataOffset, sizeof(values));
    for (int i = 0; i < 12; ++i)
      EXPECT_EQ(values[i], float(i) / 2) << name << " element " << i;
  }
}

TEST(FeatureFile, BadFilesWrittenByNumpy) {
  const std::string in = SLUICE_FEATURES_INPUTS;
  EXPECT_EQ(layoutError(in + "/fortran.npy", 3, 4),
            in + "/fortran.npy: the array is in Fortran order (fortran_order: "
                 "True); C order is needed (numpy.ascontiguousarray)");
  EXPECT_EQ(layoutError(in + "/f64.npy", 3, 4),
            in + "/f64.npy: dtype '<f8' is not little-endian float32 ('<f4')");
  EXPECT_EQ(layoutError(in + "/v1.npy", 4, 4),
            in + "/v1.npy: expected 4 rows of 4 float32, the file has shape "
                 "(3, 4)");
}

TEST(FeatureFile, HeadersOfEachVersionAndShapeFromTheFile) {
  ScratchDir dir;
  for (int major : {1, 2, 3}) {
    std::string path = dir.file("f.npy");
    writeFeatures(path, 985, 16, true, major);
    FeatureLayout layout;
    std::string error;
    // 0 x 0: take the file's shape.
    ASSERT_TRUE(
        readFeatureLayout(path, FeatureFormat::Auto, 0, 0, layout, error))
        << error;
    EXPECT_EQ(layout.rows, 985u);
    EXPECT_EQ(layout.dim, 16u);
    EXPECT_EQ(layout.dataOffset, 128u) << "version " << major;
  }
  // Double quotes, no trailing comma, other key order, extra spaces.
  std::string path =
      npyFile(dir,
              "{ \"shape\" : ( 2 , 3 ) , \"fortran_order\": False, "
              "\"descr\": \"<f4\" }",
              24);
  EXPECT_EQ(layoutError(path, 2, 3), "");
}

TEST(FeatureFile, RawFiles) {
  ScratchDir dir;
  std::string path = dir.file("features.f32");
  writeFeatures(path, 10, 7, false);
  FeatureLayout layout;
  std::string error;
  ASSERT_TRUE(
      readFeatureLayout(path, FeatureFormat::Auto, 10, 7, layout, error))
      << error;
  EXPECT_EQ(layout.dataOffset, 0u);
  EXPECT_EQ(layoutError(path, 11, 7),
            path + ": expected 11 rows of 7 float32 (308 bytes), the file "
                   "has 280 bytes (10 rows)");
  EXPECT_EQ(layoutError(path, 10, 6),
            path + ": expected 10 rows of 6 float32 (240 bytes), the file "
                   "has 280 bytes (not a whole number of rows)");
  EXPECT_EQ(layoutError(path, 0, 7),
            path + ": a raw float32 file needs its rows and dim (got 0 x 7)");
}

TEST(FeatureFile, ShapeAgainstTheExpectedRowsAndDim) {
  ScratchDir dir;
  std::string path = npyFile(dir, npyDict(985, 16), 985 * 16 * 4);
  EXPECT_EQ(layoutError(path, 986, 16),
            path + ": expected 986 rows of 16 float32, the file has shape "
                   "(985, 16)");
  EXPECT_EQ(layoutError(path, 985, 32),
            path + ": expected 985 rows of 32 float32, the file has shape "
                   "(985, 16)");
  EXPECT_EQ(layoutError(path, 0, 32),
            path + ": expected any rows of 32 float32, the file has shape "
                   "(985, 16)");
}

TEST(FeatureFile, WrongDtypeOrderOrRank) {
  ScratchDir dir;
  EXPECT_EQ(layoutError(npyFile(dir, npyDict(4, 4, "<f8"), 128), 4, 4),
            dir.file("features.npy") +
                ": dtype '<f8' is not little-endian float32 ('<f4')");
  EXPECT_EQ(layoutError(npyFile(dir, npyDict(4, 4, ">f4"), 64), 4, 4),
            dir.file("features.npy") +
                ": dtype '>f4' is not little-endian float32 ('<f4')");
  EXPECT_EQ(layoutError(npyFile(dir, npyDict(4, 4, "<f4", true), 64), 4, 4),
            dir.file("features.npy") +
                ": the array is in Fortran order (fortran_order: True); C "
                "order is needed (numpy.ascontiguousarray)");
  EXPECT_EQ(layoutError(npyFile(dir,
                                "{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (985,), }",
                                985 * 4),
                        985, 1),
            dir.file("features.npy") +
                ": expected a 2-D array (rows, dim), the file has shape "
                "(985,)");
  EXPECT_EQ(layoutError(npyFile(dir,
                                "{'descr': '<f4', 'fortran_order': False, "
                                "'shape': (2, 3, 4), }",
                                96),
                        0, 0),
            dir.file("features.npy") +
                ": expected a 2-D array (rows, dim), the file has shape "
                "(2, 3, 4)");
  EXPECT_EQ(layoutError(npyFile(dir, npyDict(0, 4), 0), 0, 0),
            dir.file("features.npy") + ": the array is empty (shape (0, 4))");
}

TEST(FeatureFile, FileOfTheWrongSize) {
  ScratchDir dir;
  EXPECT_EQ(
      layoutError(npyFile(dir, npyDict(985, 16), 985 * 16 * 4 - 8), 985, 16),
      dir.file("features.npy") +
          ": 985 x 16 float32 need 63040 bytes after byte 128, the file "
          "has 63032 (truncated)");
  EXPECT_EQ(
      layoutError(npyFile(dir, npyDict(985, 16), 985 * 16 * 4 + 4), 985, 16),
      dir.file("features.npy") +
          ": 985 x 16 float32 need 63040 bytes after byte 128, the file "
          "has 63044 (trailing bytes)");
}

TEST(FeatureFile, TruncatedOrForeignHeaders) {
  ScratchDir dir;
  std::string path = dir.file("features.npy");
  std::string head = npyHeader(npyDict(4, 4));
  writeBytes(path, head.substr(0, 40), "", 0);
  EXPECT_EQ(layoutError(path, 4, 4),
            path + ": truncated .npy header: it says 118 bytes after byte "
                   "10, the file has 30");
  writeBytes(path, head.substr(0, 9), "", 0);
  EXPECT_EQ(layoutError(path, 4, 4),
            path + ": truncated .npy header: the file ends at byte 9, inside "
                   "the header length");
  writeBytes(path, "PK\x03\x04 not numpy at all", "", 0);
  EXPECT_EQ(layoutError(path, 4, 4),
            path + ": not a NumPy .npy file (no \\x93NUMPY magic string at "
                   "byte 0)");
  std::string v4 = head;
  v4[6] = 4;
  writeBytes(path, v4, "", 0);
  EXPECT_EQ(layoutError(path, 4, 4),
            path + ": .npy format version 4.0 is not supported (1.0, 2.0 and "
                   "3.0 are)");
}

TEST(FeatureFile, MalformedHeaderDictsAreLocated) {
  ScratchDir dir;
  const std::string p = dir.file("features.npy");
  struct Case {
    const char *dict;
    const char *message;
  } cases[] = {
      {"['descr', '<f4']", ".npy header, byte 10: expected '{' opening the "
                           "header dict"},
      {"{'descr' '<f4'}", ".npy header, byte 19: expected ':' after 'descr'"},
      {"{'descr': <f4}", ".npy header, byte 20: expected a quoted dtype after "
                         "'descr'"},
      {"{'descr': '<f4', 'fortran_order': No}",
       ".npy header, byte 44: expected True or False after 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [3, 4]}",
       ".npy header, byte 60: expected a tuple after 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3; 4)}",
       ".npy header, byte 62: expected ',' or ')' in 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 4)}",
       ".npy header, byte 61: expected a dimension (a whole number) in "
       "'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'order': 'C'}",
       ".npy header, byte 51: unexpected key 'order' (expected 'descr', "
       "'fortran_order' and 'shape')"},
      {"{'descr': '<f4', 'fortran_order': False}",
       ".npy header, byte 49: the header dict has no 'shape' key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} x",
       ".npy header, byte 68: unexpected text after the header dict"},
      {"{'descr': '<f4}", ".npy header, byte 20: unterminated string"},
  };
  for (const Case &c : cases) {
    writeBytes(p, npyHeader(c.dict), "", 0);
    EXPECT_EQ(layoutError(p, 0, 0), p + ": " + c.message) << c.dict;
  }
}

} // namespace
