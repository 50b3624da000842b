//===- Compress.cpp - Measured block compression (sluice/compress.h) -----===//
//
// Generates blocks of a given compressibility from a seed (splitmix64), then
// compresses them with zstd or lz4 on the calling thread, one block per call as
// a middle-tier server does, for at least min_seconds; every block is
// decompressed and compared with its input.
//
//===----------------------------------------------------------------------===//
#include "sluice/compress.h"

#include "runtime/src/Error.h"

#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace sluice;

namespace {

constexpr uint64_t kRun = 64;

uint64_t splitmix(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// "0.5", "1": the shortest form, for messages.
std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", x);
  return buf;
}

double seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// The codec behind a measurement: one block at a time, as a middle-tier
/// server compresses.
class Codec {
public:
  virtual ~Codec() = default;
  virtual bool ok() const = 0;
  virtual std::string name() const = 0;
  virtual const char *version() const = 0;
  /// The most bytes one block of `bytes` compresses to.
  virtual size_t bound(uint64_t bytes) const = 0;
  /// The compressed size, or 0 with `why` set.
  virtual size_t compress(const uint8_t *in, uint64_t bytes, uint8_t *out,
                          size_t capacity, std::string &why) = 0;
  /// The decompressed size, or SIZE_MAX on an error.
  virtual size_t decompress(const uint8_t *in, size_t bytes, uint8_t *out,
                            uint64_t capacity) = 0;
};

class ZstdCodec final : public Codec {
public:
  explicit ZstdCodec(int level)
      : level(level), cctx(ZSTD_createCCtx()), dctx(ZSTD_createDCtx()) {}
  ~ZstdCodec() override {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
  bool ok() const override { return cctx && dctx; }
  std::string name() const override { return "zstd"; }
  const char *version() const override { return ZSTD_versionString(); }
  size_t bound(uint64_t bytes) const override {
    return ZSTD_compressBound(bytes);
  }
  size_t compress(const uint8_t *in, uint64_t bytes, uint8_t *out,
                  size_t capacity, std::string &why) override {
    size_t c = ZSTD_compressCCtx(cctx, out, capacity, in, bytes, level);
    if (!ZSTD_isError(c))
      return c;
    why = std::string("zstd: ") + ZSTD_getErrorName(c);
    return 0;
  }
  size_t decompress(const uint8_t *in, size_t bytes, uint8_t *out,
                    uint64_t capacity) override {
    size_t d = ZSTD_decompressDCtx(dctx, out, capacity, in, bytes);
    return ZSTD_isError(d) ? SIZE_MAX : d;
  }

private:
  int level;
  ZSTD_CCtx *cctx;
  ZSTD_DCtx *dctx;
};

/// Level 1: LZ4 (LZ4_compress_fast, acceleration 1); 2 to 12: LZ4HC. The
/// state is allocated once, as for zstd's contexts.
class Lz4Codec final : public Codec {
public:
  explicit Lz4Codec(int level)
      : level(level),
        state(level == 1 ? LZ4_sizeofState() : LZ4_sizeofStateHC()) {}
  bool ok() const override { return true; }
  std::string name() const override { return "lz4"; }
  const char *version() const override { return LZ4_versionString(); }
  size_t bound(uint64_t bytes) const override {
    return static_cast<size_t>(LZ4_compressBound(static_cast<int>(bytes)));
  }
  size_t compress(const uint8_t *in, uint64_t bytes, uint8_t *out,
                  size_t capacity, std::string &why) override {
    const char *src = reinterpret_cast<const char *>(in);
    char *dst = reinterpret_cast<char *>(out);
    int n = static_cast<int>(bytes), cap = static_cast<int>(capacity);
    int c = level == 1 ? LZ4_compress_fast_extState(state.data(), src, dst, n,
                                                    cap, /*acceleration=*/1)
                       : LZ4_compress_HC_extStateHC(state.data(), src, dst, n,
                                                    cap, level);
    if (c > 0)
      return static_cast<size_t>(c);
    why = "lz4: cannot compress a block of " + std::to_string(bytes) + " B";
    return 0;
  }
  size_t decompress(const uint8_t *in, size_t bytes, uint8_t *out,
                    uint64_t capacity) override {
    int d = LZ4_decompress_safe(
        reinterpret_cast<const char *>(in), reinterpret_cast<char *>(out),
        static_cast<int>(bytes), static_cast<int>(capacity));
    return d < 0 ? SIZE_MAX : static_cast<size_t>(d);
  }

private:
  int level;
  std::vector<char> state;
};

} // namespace

void sluice_compress_options_init(sluice_compress_options_t *options) {
  if (!options)
    return;
  options->block_bytes = 4096;
  options->compressibility = 0.5;
  options->level = 1;
  options->blocks = 256;
  options->min_seconds = 0.5;
  options->seed = 1;
  options->codec = SLUICE_COMPRESS_ZSTD;
}

void sluice_compress_fill_block(uint8_t *out, uint64_t bytes,
                                double compressibility, uint64_t seed,
                                uint64_t index) {
  uint64_t state = seed * 0x100000001b3ull + index;
  // The repeat decision compares 53 random bits with the fraction.
  const double scale = 1.0 / 9007199254740992.0;
  for (uint64_t at = 0; at < bytes; at += kRun) {
    uint64_t len = bytes - at < kRun ? bytes - at : kRun;
    bool repeat =
        at >= kRun && (splitmix(state) >> 11) * scale < compressibility;
    if (repeat) {
      uint64_t runs = at / kRun;
      uint64_t from = (splitmix(state) % runs) * kRun;
      std::memmove(out + at, out + from, len);
      continue;
    }
    for (uint64_t i = 0; i < len; i += 8) {
      uint64_t r = splitmix(state);
      std::memcpy(out + at + i, &r, len - i < 8 ? len - i : 8);
    }
  }
}

sluice_status_t sluice_compress_measure(const sluice_compress_options_t *o,
                                        sluice_compress_report_t *report,
                                        sluice_error_t *error) {
  if (!o || !report)
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "options and report must not be null");
  if (o->block_bytes < 64 || o->block_bytes > (64ull << 20))
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "block_bytes must be in [64, 67108864], got " +
                        std::to_string(o->block_bytes));
  if (!(o->compressibility >= 0 && o->compressibility < 1))
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "compressibility must be in [0, 1), got " +
                        num(o->compressibility));
  if (o->codec != SLUICE_COMPRESS_ZSTD && o->codec != SLUICE_COMPRESS_LZ4)
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "codec must be SLUICE_COMPRESS_ZSTD or "
                    "SLUICE_COMPRESS_LZ4, got " +
                        std::to_string(static_cast<int>(o->codec)));
  const bool lz4 = o->codec == SLUICE_COMPRESS_LZ4;
  const int maxLevel = lz4 ? LZ4HC_CLEVEL_MAX : 19;
  if (o->level < 1 || o->level > maxLevel)
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    std::string("level must be in [1, ") +
                        std::to_string(maxLevel) + "] for " +
                        (lz4 ? "lz4" : "zstd") + ", got " +
                        std::to_string(o->level));
  if (o->blocks < 1 || o->blocks > 65536 ||
      o->blocks * o->block_bytes > (1ull << 30))
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "blocks must be in [1, 65536] and blocks x block_bytes "
                    "at most 1 GiB, got " +
                        std::to_string(o->blocks) + " blocks");
  if (!(o->min_seconds > 0 && o->min_seconds <= 600))
    return rt::fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    "min_seconds must be in (0, 600], got " +
                        num(o->min_seconds));

  const uint64_t b = o->block_bytes, n = o->blocks;
  std::unique_ptr<Codec> codec;
  if (lz4)
    codec = std::make_unique<Lz4Codec>(o->level);
  else
    codec = std::make_unique<ZstdCodec>(o->level);
  if (!codec->ok())
    return rt::fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {},
                    "cannot create a " + codec->name() + " context");
  const size_t bound = codec->bound(b);
  std::vector<uint8_t> input(b * n), packed(bound * n), back(b);
  std::vector<size_t> packedSize(n);
  for (uint64_t i = 0; i < n; ++i)
    sluice_compress_fill_block(input.data() + i * b, b, o->compressibility,
                               o->seed, i);
  auto compressOne = [&](uint64_t i, std::string &why) {
    return codec->compress(input.data() + i * b, b, packed.data() + i * bound,
                           bound, why);
  };
  // Correctness and the ratio on every distinct block (also a warm-up).
  double packedTotal = 0;
  sluice_status_t status = SLUICE_STATUS_OK;
  std::string message;
  for (uint64_t i = 0; i < n && status == SLUICE_STATUS_OK; ++i) {
    size_t c = compressOne(i, message);
    if (c == 0) {
      status = SLUICE_STATUS_INTERNAL;
      break;
    }
    packedSize[i] = c;
    packedTotal += double(c);
    size_t d = codec->decompress(packed.data() + i * bound, c, back.data(), b);
    if (d != b || std::memcmp(back.data(), input.data() + i * b, b) != 0) {
      status = SLUICE_STATUS_DATA_CORRUPT;
      message =
          "block " + std::to_string(i) + " does not decompress to its input";
    }
  }
  if (status == SLUICE_STATUS_OK) {
    // Timed compression: round robin over the blocks.
    using clock = std::chrono::steady_clock;
    uint64_t done = 0;
    auto start = clock::now();
    double elapsed = 0;
    std::string ignored;
    while (elapsed < o->min_seconds || done < n) {
      for (uint64_t k = 0; k < 16; ++k, ++done)
        (void)compressOne(done % n, ignored);
      elapsed = seconds(start, clock::now());
    }
    report->compress_bytes_per_s = double(done * b) / elapsed;
    report->blocks_compressed = done;
    report->seconds = elapsed;
    // Timed decompression: every block once, at least min_seconds / 4.
    uint64_t undone = 0;
    start = clock::now();
    elapsed = 0;
    while (elapsed < o->min_seconds / 4 || undone < n) {
      for (uint64_t k = 0; k < 16; ++k, ++undone) {
        uint64_t i = undone % n;
        (void)codec->decompress(packed.data() + i * bound, packedSize[i],
                                back.data(), b);
      }
      elapsed = seconds(start, clock::now());
    }
    report->decompress_bytes_per_s = double(undone * b) / elapsed;
    report->ratio = double(b * n) / packedTotal;
    std::snprintf(report->codec, sizeof(report->codec), "%s %s",
                  codec->name().c_str(), codec->version());
  }
  if (status != SLUICE_STATUS_OK)
    return rt::fail(error, status, {}, message);
  return SLUICE_STATUS_OK;
}
