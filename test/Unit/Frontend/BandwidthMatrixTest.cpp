//===- BandwidthMatrixTest.cpp - The measured-bandwidth matrix reader -----===//
//
// parseBandwidthMatrix on buffers: the links it reads (row-major, zeros and
// the diagonal skipped) and the errors it gives, including the inputs the
// fuzz target (sluice-fuzz-bandwidth-matrix) exercises.
//
//===----------------------------------------------------------------------===//
#include "frontends/sluice/BandwidthMatrix.h"

#include <gtest/gtest.h>

using namespace sluice;

namespace {

const std::vector<std::string> kTwo = {"gpu[0]", "gpu[1]"};

std::string errorOf(llvm::StringRef text,
                    const std::vector<std::string> &names = kTwo) {
  auto m = parseBandwidthMatrix(text, "m.json", names);
  if (m)
    return "(no error)";
  return llvm::toString(m.takeError());
}

TEST(BandwidthMatrix, ReadsLinksRowMajor) {
  auto m = parseBandwidthMatrix(
      R"({"unit": "GB/s", "devices": ["gpu[0]", "gpu[1]"],
          "matrix": [[7, 20.5], [0, 0]]})",
      "m.json", kTwo);
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->unit, "GB/s");
  EXPECT_EQ(m->factor, 1e9);
  ASSERT_EQ(m->links.size(), 1u);
  EXPECT_EQ(m->links[0].from, 0u);
  EXPECT_EQ(m->links[0].to, 1u);
  EXPECT_EQ(m->links[0].value, 20.5);
}

TEST(BandwidthMatrix, ErrorsNameTheFileAndTheEntry) {
  EXPECT_EQ(errorOf("[1"),
            "bandwidth matrix 'm.json' is not valid JSON: [1:2, byte=2]: "
            "Expected , or ] after array element");
  EXPECT_EQ(errorOf(R"({"unit": "GiB", "matrix": []})"),
            "bandwidth matrix 'm.json': \"unit\" must be a bandwidth unit "
            "such as \"GB/s\", got \"GiB\"");
  EXPECT_EQ(errorOf(R"({"unit": "GB/s", "matrix": [[0, -1], [0, 0]]})"),
            "bandwidth matrix 'm.json': entry [0][1] must be a non-negative "
            "number");
  EXPECT_EQ(errorOf(R"({"unit": "GB/s", "matrix": [[0, 1]]})"),
            "bandwidth matrix 'm.json': has 1 rows, expected 2");
}

// Found while writing the fuzz target: a finite entry times the unit's
// factor could overflow, giving the IR an infinite bandwidth.
TEST(BandwidthMatrix, EntriesThatOverflowInBytesPerSecondAreErrors) {
  EXPECT_EQ(errorOf(R"({"unit": "TB/s", "matrix": [[0, 1e300], [1, 0]]})"),
            "bandwidth matrix 'm.json': entry [0][1] is too large (1e+300 "
            "TB/s overflows B/s)");
  // The largest finite value is fine in B/s.
  EXPECT_EQ(errorOf(R"({"unit": "B/s", "matrix": [[0, 1.7e308], [1, 0]]})"),
            "(no error)");
}

} // namespace
