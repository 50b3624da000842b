//===- AlignCases.h - Generated read pairs and their launch arrays --------===//
//
// What the alignment tests share: pairs of reads with known mutations,
// a result written as one comparable string, the C arrays sluice/align.h
// takes, and the argument block of the GPU kernel over a prepared batch
// (runtime/src/align/AlignGpu.h) for the emulations that run it on the
// host.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALIGN_ALIGNCASES_H
#define SLUICE_TEST_UNIT_ALIGN_ALIGNCASES_H

#include "sluice/align.h"
#include "test/Unit/Align/AlignReference.h"

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sluice::test {

using Pairs = std::vector<std::pair<std::string, std::string>>;

/// Every field of `r`, for EXPECT_EQ on whole results.
inline std::string describe(const sluice_align_result_t &r) {
  return "max " + std::to_string(r.max_score) + " at q" +
         std::to_string(r.max_query_end) + " t" +
         std::to_string(r.max_target_end) + ", query end " +
         std::to_string(r.query_end_score) + " at t" +
         std::to_string(r.query_end_target) + ", global " +
         std::to_string(r.global_score) + ", zdropped " +
         std::to_string(r.zdropped);
}

/// `count` pairs from `seed`: a random target of length/2 to length bases
/// and its read with substitutions at rate `sub` and indels at `indel`,
/// every third with `junk` random bases appended (a chimera's tail for
/// Z-drop), every second swapped (query longer than the target).
inline Pairs generatePairs(uint64_t seed, size_t count, size_t length,
                           double sub, double indel, size_t junk) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> len(length / 2, length);
  Pairs pairs;
  for (size_t k = 0; k < count; ++k) {
    std::string target = randomSequence(len(rng), rng);
    std::string query =
        mutateRead(target, sub, indel, k % 3 == 0 ? junk : 0, rng);
    if (k % 2)
      std::swap(query, target);
    pairs.emplace_back(query, target);
  }
  return pairs;
}

/// The arrays of sluice_align_batch for `pairs` (pointers into them).
struct PairArrays {
  std::vector<const char *> q, t;
  std::vector<uint32_t> ql, tl;
  explicit PairArrays(const Pairs &pairs) {
    for (const auto &[query, target] : pairs) {
      q.push_back(query.data());
      t.push_back(target.data());
      ql.push_back(uint32_t(query.size()));
      tl.push_back(uint32_t(target.size()));
    }
  }
};

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_ALIGN_ALIGNCASES_H
