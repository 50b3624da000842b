//===- Crc32c.cpp - CRC-32C, hardware or slicing-by-8 ---------------------===//
//
// The x86 SSE4.2 crc32 instruction computes CRC-32C 8 bytes at a time; three
// independent streams over thirds of a large buffer hide its 3-cycle
// latency, and the partial CRCs are combined with the zero-extension
// operator (multiplication by x^(8n) mod P, done with a 32x32 matrix
// power). Without SSE4.2 (or on other CPUs) a slicing-by-8 table does it.
//
//===----------------------------------------------------------------------===//
#include "sluice/io.h"

#include <array>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace {

constexpr uint32_t kPoly = 0x82F63B78u; // reflected 0x1EDC6F41

struct Tables {
  uint32_t t[8][256];
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c >> 1) ^ (kPoly & (0u - (c & 1)));
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s)
        t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};

const Tables &tables() {
  static const Tables instance;
  return instance;
}

uint32_t softwareCrc(uint32_t crc, const unsigned char *p, size_t n) {
  const Tables &T = tables();
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    crc = (crc >> 8) ^ T.t[0][(crc ^ *p++) & 0xff];
    --n;
  }
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    word ^= crc;
    crc = T.t[7][word & 0xff] ^ T.t[6][(word >> 8) & 0xff] ^
          T.t[5][(word >> 16) & 0xff] ^ T.t[4][(word >> 24) & 0xff] ^
          T.t[3][(word >> 32) & 0xff] ^ T.t[2][(word >> 40) & 0xff] ^
          T.t[1][(word >> 48) & 0xff] ^ T.t[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n--)
    crc = (crc >> 8) ^ T.t[0][(crc ^ *p++) & 0xff];
  return crc;
}

// GF(2) 32x32 matrices as 32 column words, for shifting a CRC over n zero
// bytes (as in zlib's crc32_combine).
using Matrix = std::array<uint32_t, 32>;

uint32_t apply(const Matrix &m, uint32_t v) {
  uint32_t out = 0;
  for (int i = 0; v; ++i, v >>= 1)
    if (v & 1)
      out ^= m[i];
  return out;
}

Matrix multiply(const Matrix &a, const Matrix &b) {
  Matrix out;
  for (int i = 0; i < 32; ++i)
    out[i] = apply(a, b[i]);
  return out;
}

/// The operator that appends `bytes` zero bytes to a (raw, non-inverted)
/// CRC register.
Matrix zerosOperator(size_t bytes) {
  Matrix one; // one zero bit
  one[0] = kPoly;
  for (int i = 1; i < 32; ++i)
    one[i] = 1u << (i - 1);
  Matrix byte = one;
  for (int i = 0; i < 3; ++i)
    byte = multiply(byte, byte); // 8 bits
  Matrix result;
  for (int i = 0; i < 32; ++i)
    result[i] = 1u << i;
  while (bytes) {
    if (bytes & 1)
      result = multiply(byte, result);
    byte = multiply(byte, byte);
    bytes >>= 1;
  }
  return result;
}

#if defined(__x86_64__)
constexpr size_t kStripe = 8192; // bytes per stream per round

struct StripeShift {
  Matrix m = zerosOperator(kStripe);
};

__attribute__((target("sse4.2"))) uint32_t
hardwareCrc(uint32_t crc, const unsigned char *p, size_t n) {
  uint64_t c0 = crc;
  while (n && (reinterpret_cast<uintptr_t>(p) & 7)) {
    c0 = _mm_crc32_u8(static_cast<uint32_t>(c0), *p++);
    --n;
  }
  if (n >= 3 * kStripe) {
    static const StripeShift shift;
    while (n >= 3 * kStripe) {
      uint64_t c1 = 0, c2 = 0;
      const unsigned char *p1 = p + kStripe, *p2 = p + 2 * kStripe;
      for (size_t i = 0; i < kStripe; i += 8) {
        uint64_t w0, w1, w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p1 + i, 8);
        std::memcpy(&w2, p2 + i, 8);
        c0 = _mm_crc32_u64(c0, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
      }
      // Raw registers combine linearly: crc(A||B) = shift(crc(A)) ^ crc0(B).
      uint32_t r = apply(shift.m, static_cast<uint32_t>(c0)) ^
                   static_cast<uint32_t>(c1);
      r = apply(shift.m, r) ^ static_cast<uint32_t>(c2);
      c0 = r;
      p += 3 * kStripe;
      n -= 3 * kStripe;
    }
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c0 = _mm_crc32_u64(c0, w);
    p += 8;
    n -= 8;
  }
  while (n--)
    c0 = _mm_crc32_u8(static_cast<uint32_t>(c0), *p++);
  return static_cast<uint32_t>(c0);
}

bool haveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2") &&
                           !std::getenv("SLUICE_CRC32C_SOFTWARE");
  return have;
}
#endif

} // namespace

extern "C" uint32_t sluice_crc32c(uint32_t crc, const void *data,
                                  size_t bytes) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (!p)
    return crc;
  crc = ~crc;
#if defined(__x86_64__)
  if (haveSse42())
    return ~hardwareCrc(crc, p, bytes);
#endif
  return ~softwareCrc(crc, p, bytes);
}
