//===- CompressTest.cpp - Measured block compression (sluice/compress.h)
//---===//
//
// The block generator against a direct count of its repeated 64-byte runs
// (the fraction asked for), determinism, the measured ratio against the
// ideal 1 / (1 - c) of such blocks for zstd and lz4, and every rejected
// option.
//
//===----------------------------------------------------------------------===//
#include "sluice/compress.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

/// The fraction of 64-byte runs (after the first of each block) equal to an
/// earlier run of the same block.
double repeatedFraction(double c, uint64_t blocks, uint64_t bytes) {
  std::vector<uint8_t> block(bytes);
  uint64_t runs = 0, repeated = 0;
  for (uint64_t b = 0; b < blocks; ++b) {
    sluice_compress_fill_block(block.data(), bytes, c, 7, b);
    for (uint64_t r = 1; r < bytes / 64; ++r) {
      ++runs;
      for (uint64_t e = 0; e < r; ++e)
        if (!std::memcmp(&block[r * 64], &block[e * 64], 64)) {
          ++repeated;
          break;
        }
    }
  }
  return double(repeated) / double(runs);
}

std::string errorOf(const sluice_compress_options_t &o) {
  sluice_compress_report_t r;
  sluice_error_t e;
  if (sluice_compress_measure(&o, &r, &e) == SLUICE_STATUS_OK)
    return "ok";
  char buf[512];
  sluice_error_format(&e, buf, sizeof(buf));
  return e.status == SLUICE_STATUS_INVALID_ARGUMENT ? buf
                                                    : std::string("?") + buf;
}

TEST(Compress, GeneratorRepeatsTheAskedFraction) {
  for (double c : {0.0, 0.25, 0.5, 0.9}) {
    double f = repeatedFraction(c, 64, 4096);
    // 4032 runs: the binomial standard deviation is below 0.008.
    EXPECT_NEAR(f, c, 0.03) << c;
  }
}

TEST(Compress, GeneratorIsDeterministic) {
  std::vector<uint8_t> a(4096), b(4096), other(4096);
  sluice_compress_fill_block(a.data(), a.size(), 0.5, 3, 9);
  sluice_compress_fill_block(b.data(), b.size(), 0.5, 3, 9);
  sluice_compress_fill_block(other.data(), other.size(), 0.5, 3, 10);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  // A block that is not a multiple of 64 bytes is filled to its end.
  std::vector<uint8_t> odd(100, 0xab);
  sluice_compress_fill_block(odd.data(), 99, 0.0, 1, 0);
  EXPECT_EQ(odd[99], 0xab);
}

TEST(Compress, MeasuresRateAndRatio) {
  for (double c : {0.0, 0.5, 0.75}) {
    sluice_compress_options_t o;
    sluice_compress_options_init(&o);
    o.compressibility = c;
    o.blocks = 64;
    o.min_seconds = 0.05;
    sluice_compress_report_t r;
    sluice_error_t e;
    ASSERT_EQ(sluice_compress_measure(&o, &r, &e), SLUICE_STATUS_OK);
    EXPECT_GT(r.compress_bytes_per_s, 0);
    EXPECT_GT(r.decompress_bytes_per_s, 0);
    EXPECT_GE(r.blocks_compressed, o.blocks);
    EXPECT_GE(r.seconds, o.min_seconds);
    EXPECT_EQ(std::string(r.codec).rfind("zstd ", 0), 0u) << r.codec;
    // Each repeat costs a few bytes of match: below the ideal, within 25%.
    double ideal = 1 / (1 - c);
    EXPECT_LE(r.ratio, ideal * 1.01) << c;
    EXPECT_GE(r.ratio, ideal * 0.75) << c;
  }
}

TEST(Compress, MeasuresLz4) {
  // lz4 level 1 (LZ4) and 9 (LZ4HC) on the same blocks: every block
  // round-trips, and the ratio lies within 25% below the ideal (LZ4's
  // matches cost a little more than zstd's).
  for (int level : {1, 9}) {
    sluice_compress_options_t o;
    sluice_compress_options_init(&o);
    o.codec = SLUICE_COMPRESS_LZ4;
    o.level = level;
    o.compressibility = 0.75;
    o.blocks = 64;
    o.min_seconds = 0.05;
    sluice_compress_report_t r;
    sluice_error_t e;
    ASSERT_EQ(sluice_compress_measure(&o, &r, &e), SLUICE_STATUS_OK);
    EXPECT_EQ(std::string(r.codec).rfind("lz4 ", 0), 0u) << r.codec;
    EXPECT_GT(r.compress_bytes_per_s, 0);
    EXPECT_GT(r.decompress_bytes_per_s, 0);
    EXPECT_LE(r.ratio, 4 * 1.01) << level;
    EXPECT_GE(r.ratio, 4 * 0.75) << level;
  }
}

TEST(Compress, RejectsOptions) {
  sluice_compress_options_t o;
  sluice_compress_options_init(&o);
  o.block_bytes = 32;
  EXPECT_EQ(errorOf(o), "block_bytes must be in [64, "
                        "67108864], got 32");
  sluice_compress_options_init(&o);
  o.compressibility = 1;
  EXPECT_EQ(errorOf(o), "compressibility must be in "
                        "[0, 1), got 1");
  sluice_compress_options_init(&o);
  o.level = 0;
  EXPECT_EQ(errorOf(o), "level must be in [1, 19] for zstd, got 0");
  o.codec = SLUICE_COMPRESS_LZ4;
  o.level = 13;
  EXPECT_EQ(errorOf(o), "level must be in [1, 12] for lz4, got 13");
  sluice_compress_options_init(&o);
  o.codec = static_cast<sluice_compress_codec_t>(7);
  EXPECT_EQ(errorOf(o), "codec must be SLUICE_COMPRESS_ZSTD or "
                        "SLUICE_COMPRESS_LZ4, got 7");
  sluice_compress_options_init(&o);
  o.blocks = 0;
  EXPECT_EQ(errorOf(o), "blocks must be in [1, 65536] and "
                        "blocks x block_bytes at most 1 GiB, got 0 blocks");
  sluice_compress_options_init(&o);
  o.min_seconds = 0;
  EXPECT_EQ(errorOf(o), "min_seconds must be in (0, 600], "
                        "got 0");
  sluice_compress_report_t r;
  EXPECT_EQ(sluice_compress_measure(nullptr, &r, nullptr),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

} // namespace
