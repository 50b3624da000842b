//===- AlignReference.h - A row-by-row reference for sluice/align.h -------===//
//
// Written apart from the runtime's kernels: the whole banded matrix, row by
// row (target index i outer), in int64 with -infinity as a value far below
// any score; then the anti-diagonals are replayed in order for the maxima,
// the query-end scores and the Z-drop, as sluice/align.h specifies them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALIGN_ALIGNREFERENCE_H
#define SLUICE_TEST_UNIT_ALIGN_ALIGNREFERENCE_H

#include "sluice/align.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace sluice::test {

inline sluice_align_result_t referenceAlign(const std::string &query,
                                            const std::string &target,
                                            const sluice_align_scoring_t &sc) {
  const int64_t kInf = int64_t(1) << 50;
  const int64_t n = int64_t(target.size()), m = int64_t(query.size());
  sluice_align_result_t out = {
      0, -1, -1, SLUICE_ALIGN_NEG_INF, -1, SLUICE_ALIGN_NEG_INF, 0};
  if (n == 0 || m == 0)
    return out;
  // Rows and columns -1..n-1 / -1..m-1 stored at +1.
  std::vector<std::vector<int64_t>> H(n + 1,
                                      std::vector<int64_t>(m + 1, -kInf));
  auto E = H, F = H;
  auto inBand = [&](int64_t i, int64_t j) {
    return std::llabs(i - j) <= sc.band;
  };
  H[0][0] = 0;
  for (int64_t j = 0; j < m; ++j)
    if (inBand(0, j))
      H[0][j + 1] = -(sc.gap_open + sc.gap_extend * (j + 1));
  for (int64_t i = 0; i < n; ++i)
    if (inBand(i, 0))
      H[i + 1][0] = -(sc.gap_open + sc.gap_extend * (i + 1));
  auto upper = [](char c) { return c >= 'a' && c <= 'z' ? char(c - 32) : c; };
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      if (!inBand(i, j))
        continue;
      char a = upper(target[i]), b = upper(query[j]);
      bool base = a == 'A' || a == 'C' || a == 'G' || a == 'T';
      int64_t s = (a == b && base) ? sc.match : -sc.mismatch;
      int64_t open = sc.gap_open + sc.gap_extend;
      E[i + 1][j + 1] =
          std::max(H[i + 1][j] - open, E[i + 1][j] - sc.gap_extend);
      F[i + 1][j + 1] =
          std::max(H[i][j + 1] - open, F[i][j + 1] - sc.gap_extend);
      H[i + 1][j + 1] =
          std::max({H[i][j] + s, E[i + 1][j + 1], F[i + 1][j + 1]});
    }
  }
  auto score = [&](int64_t i, int64_t j) { return H[i + 1][j + 1]; };
  for (int64_t r = 0; r <= n + m - 2; ++r) {
    // The band's cells of anti-diagonal r, in increasing i.
    int64_t bestI = -1;
    int64_t best = 0;
    for (int64_t i = 0; i <= r && i < n; ++i) {
      int64_t j = r - i;
      if (j >= m || !inBand(i, j))
        continue;
      if (bestI < 0 || score(i, j) > best)
        bestI = i, best = score(i, j);
    }
    if (bestI < 0) {
      out.zdropped = 1;
      break;
    }
    int64_t iq = r - (m - 1); // the cell on the query's last base
    if (iq >= 0 && iq < n && inBand(iq, m - 1) &&
        score(iq, m - 1) > out.query_end_score)
      out.query_end_score = int32_t(score(iq, m - 1)),
      out.query_end_target = int32_t(iq);
    int64_t bestJ = r - bestI;
    if (best > out.max_score) {
      out.max_score = int32_t(best);
      out.max_target_end = int32_t(bestI);
      out.max_query_end = int32_t(bestJ);
    } else if (bestI >= out.max_target_end && bestJ >= out.max_query_end) {
      int64_t l = std::llabs((bestI - out.max_target_end) -
                             (bestJ - out.max_query_end));
      if (sc.zdrop >= 0 &&
          out.max_score - best > sc.zdrop + l * sc.gap_extend) {
        out.zdropped = 1;
        break;
      }
    }
    if (r == n + m - 2 && inBand(n - 1, m - 1))
      out.global_score = int32_t(score(n - 1, m - 1));
  }
  return out;
}

/// A read drawn from `reference` with known mutations: each base is
/// substituted with probability `sub`, followed by an insertion or
/// preceded by a deletion (1 to 4 bases) with probability `indel`; with
/// `junkTail` bases of unrelated sequence at the end (a chimera the Z-drop
/// should stop on). Fixed seeds in the tests.
inline std::string mutateRead(const std::string &reference, double sub,
                              double indel, size_t junkTail,
                              std::mt19937_64 &rng) {
  static const char kBases[] = "ACGT";
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> base(0, 3), len(1, 4);
  std::string read;
  for (size_t i = 0; i < reference.size(); ++i) {
    if (u(rng) < indel / 2) { // deletion
      i += len(rng) - 1;
      continue;
    }
    char c = reference[i];
    if (u(rng) < sub)
      c = kBases[(std::string("ACGT").find(c) + 1 + base(rng) % 3) % 4];
    read += c;
    if (u(rng) < indel / 2)
      for (int k = len(rng); k > 0; --k)
        read += kBases[base(rng)];
  }
  for (size_t k = 0; k < junkTail; ++k)
    read += kBases[base(rng)];
  return read;
}

inline std::string randomSequence(size_t length, std::mt19937_64 &rng) {
  static const char kBases[] = "ACGT";
  std::uniform_int_distribution<int> base(0, 3);
  std::string s(length, 'A');
  for (char &c : s)
    c = kBases[base(rng)];
  return s;
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_ALIGN_ALIGNREFERENCE_H
