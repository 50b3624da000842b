//===- PhiloxLanes.cpp - Philox4x32-10 for many counters at once ----------===//
//
// One Philox4x32-10 round multiplies two 32-bit words by constants and
// keeps both halves of the 64-bit products. SIMD units multiply the even
// 32-bit elements of a vector into 64-bit products (vpmuludq), so a round
// over 8 (AVX2) or 16 (AVX-512) lanes is two such multiplications per
// word, for the even and the odd lanes, and blends that put the halves
// back in place. The ten rounds run in registers, lanes in groups; the
// arrays are padded to the group (PhiloxLanes.h). Measured: the walk
// engine's node2vec on luxembourg_osm spent 70 instructions per lane and
// block in the compiler-vectorised loop (rounds outside, lanes inside),
// about 22 (AVX2) here (bench/RESULTS.md, "Walks").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/PhiloxLanes.h"

#include "runtime/src/walk/Sampling.h"

#include <string_view>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SLUICE_PHILOX_X86 1
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() as the
// pass-through of unmasked operations, which -Wmaybe-uninitialized reports
// (a known false positive of the headers, not of this code).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#endif

namespace sluice::walk::detail {

namespace {

#ifdef SLUICE_PHILOX_X86
// Philox4x32-10's multipliers and Weyl constants (sluice/sampling.h).
constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

__attribute__((target("avx2"))) void
philoxAvx2(uint32_t n, uint64_t seed, uint32_t *c0, uint32_t *c1,
           uint32_t *c2, uint32_t *c3, uint32_t blockIndex) {
  const __m256i m0 = _mm256_set1_epi64x(kM0), m1 = _mm256_set1_epi64x(kM1);
  for (uint32_t i = 0; i < n; i += 8) {
    __m256i x0 = _mm256_set1_epi32(static_cast<int>(blockIndex));
    __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c1 + i));
    __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c2 + i));
    __m256i x3 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c3 + i));
    uint32_t k0 = static_cast<uint32_t>(seed);
    uint32_t k1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += kW0;
        k1 += kW1;
      }
      __m256i e0 = _mm256_mul_epu32(x0, m0);
      __m256i o0 = _mm256_mul_epu32(_mm256_srli_epi64(x0, 32), m0);
      __m256i e1 = _mm256_mul_epu32(x2, m1);
      __m256i o1 = _mm256_mul_epu32(_mm256_srli_epi64(x2, 32), m1);
      __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);
      __m256i lo0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);
      __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);
      __m256i lo1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);
      __m256i n0 = _mm256_xor_si256(
          _mm256_xor_si256(hi1, x1), _mm256_set1_epi32(static_cast<int>(k0)));
      __m256i n2 = _mm256_xor_si256(
          _mm256_xor_si256(hi0, x3), _mm256_set1_epi32(static_cast<int>(k1)));
      x1 = lo1;
      x3 = lo0;
      x0 = n0;
      x2 = n2;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(c0 + i), x0);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(c1 + i), x1);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(c2 + i), x2);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(c3 + i), x3);
  }
}

__attribute__((target("avx512f"))) void
philoxAvx512(uint32_t n, uint64_t seed, uint32_t *c0, uint32_t *c1,
             uint32_t *c2, uint32_t *c3, uint32_t blockIndex) {
  const __m512i m0 = _mm512_set1_epi64(kM0), m1 = _mm512_set1_epi64(kM1);
  const __mmask16 odd = 0xAAAA;
  for (uint32_t i = 0; i < n; i += 16) {
    __m512i x0 = _mm512_set1_epi32(static_cast<int>(blockIndex));
    __m512i x1 = _mm512_loadu_si512(c1 + i);
    __m512i x2 = _mm512_loadu_si512(c2 + i);
    __m512i x3 = _mm512_loadu_si512(c3 + i);
    uint32_t k0 = static_cast<uint32_t>(seed);
    uint32_t k1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += kW0;
        k1 += kW1;
      }
      __m512i e0 = _mm512_mul_epu32(x0, m0);
      __m512i o0 = _mm512_mul_epu32(_mm512_srli_epi64(x0, 32), m0);
      __m512i e1 = _mm512_mul_epu32(x2, m1);
      __m512i o1 = _mm512_mul_epu32(_mm512_srli_epi64(x2, 32), m1);
      __m512i hi0 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(e0, 32), o0);
      __m512i lo0 = _mm512_mask_blend_epi32(odd, e0, _mm512_slli_epi64(o0, 32));
      __m512i hi1 = _mm512_mask_blend_epi32(odd, _mm512_srli_epi64(e1, 32), o1);
      __m512i lo1 = _mm512_mask_blend_epi32(odd, e1, _mm512_slli_epi64(o1, 32));
      // x ^ y ^ k in one instruction (truth table 0x96: a ^ b ^ c).
      __m512i n0 = _mm512_ternarylogic_epi32(
          hi1, x1, _mm512_set1_epi32(static_cast<int>(k0)), 0x96);
      __m512i n2 = _mm512_ternarylogic_epi32(
          hi0, x3, _mm512_set1_epi32(static_cast<int>(k1)), 0x96);
      x1 = lo1;
      x3 = lo0;
      x0 = n0;
      x2 = n2;
    }
    _mm512_storeu_si512(c0 + i, x0);
    _mm512_storeu_si512(c1 + i, x1);
    _mm512_storeu_si512(c2 + i, x2);
    _mm512_storeu_si512(c3 + i, x3);
  }
}
#endif

struct Choice {
  PhiloxLanesFn fn;
  const char *isa;
};

Choice choose() {
#ifdef SLUICE_PHILOX_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {philoxAvx512, "avx512f"};
  if (__builtin_cpu_supports("avx2"))
    return {philoxAvx2, "avx2"};
#endif
  return {philoxLanesPortable, "portable"};
}

const Choice &chosen() {
  static const Choice choice = choose();
  return choice;
}

} // namespace

void philoxLanesPortable(uint32_t n, uint64_t seed, uint32_t *c0,
                         uint32_t *c1, uint32_t *c2, uint32_t *c3,
                         uint32_t blockIndex) {
  const uint32_t key[2] = {static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32)};
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t counter[4] = {blockIndex, c1[i], c2[i], c3[i]};
    uint32_t out[4];
    philox4x32_10(counter, key, out);
    c0[i] = out[0];
    c1[i] = out[1];
    c2[i] = out[2];
    c3[i] = out[3];
  }
}

void philoxLanes(uint32_t n, uint64_t seed, uint32_t *c0, uint32_t *c1,
                 uint32_t *c2, uint32_t *c3, uint32_t blockIndex) {
  chosen().fn(n, seed, c0, c1, c2, c3, blockIndex);
}

const char *philoxLanesIsa() { return chosen().isa; }

PhiloxLanesFn philoxLanesFor(const char *isa) {
  std::string_view name(isa ? isa : "");
  if (name == "portable")
    return philoxLanesPortable;
#ifdef SLUICE_PHILOX_X86
  __builtin_cpu_init();
  if (name == "avx512f" && __builtin_cpu_supports("avx512f"))
    return philoxAvx512;
  if (name == "avx2" && __builtin_cpu_supports("avx2"))
    return philoxAvx2;
#endif
  return nullptr;
}

} // namespace sluice::walk::detail
