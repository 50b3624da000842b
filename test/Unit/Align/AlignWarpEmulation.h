//===- AlignWarpEmulation.h - align-to-gpu's kernel, lanes in lock step ---===//
//
// A C++ emulation of the kernel that align-to-gpu builds
// (compiler/Conversion/AlignToGPU/AlignToGPU.cpp), step for step: the same
// sluice_align_gpu_args_t (with host addresses), the same scratch rows,
// the same work queue, the same lane strides, shuffle butterfly and tie
// rule, the same shuffles of the first and last cell, the same Z-drop
// test. 32 lanes run in lock step: each phase of the kernel that lanes run
// apart (the cell loop) is a loop over the lanes, each shuffle reads every
// lane's value before any lane's is replaced. The unit tests compare it
// with the row-by-row reference, so what the GPU adds is codegen only.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TEST_UNIT_ALIGN_ALIGNWARPEMULATION_H
#define SLUICE_TEST_UNIT_ALIGN_ALIGNWARPEMULATION_H

#include "sluice/align_gpu.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace sluice::test {

constexpr int kLanes = 32;
using Lanes = std::array<int32_t, kLanes>;

/// shfl.sync.bfly: lane l gets v[l ^ mask].
inline Lanes shuffleXor(const Lanes &v, int mask) {
  Lanes out;
  for (int l = 0; l < kLanes; ++l)
    out[l] = v[l ^ mask];
  return out;
}

/// One warp's alignment of pair `pair` (the kernel's body between taking
/// a pair and writing its result); `scratch` is the warp's 7 rows.
inline void emulateWarpPair(const sluice_align_gpu_args_t &a, uint32_t pair,
                            int32_t *scratch) {
  auto ptr = [](uint64_t address) {
    return reinterpret_cast<const void *>(address);
  };
  const auto *qOff = static_cast<const uint64_t *>(ptr(a.query_offsets));
  const auto *tOff = static_cast<const uint64_t *>(ptr(a.target_offsets));
  const auto *q = static_cast<const uint8_t *>(ptr(a.queries)) + qOff[pair];
  const auto *t = static_cast<const uint8_t *>(ptr(a.targets)) + tOff[pair];
  const int32_t qlen = int32_t(qOff[pair + 1] - qOff[pair]);
  const int32_t tlen = int32_t(tOff[pair + 1] - tOff[pair]);
  const sluice_align_scoring_t &sc = a.scoring;
  const int32_t kNegInf = SLUICE_ALIGN_NEG_INF;
  const int32_t w = sc.band, ge = sc.gap_extend, oe = sc.gap_open + ge;
  sluice_align_result_t res = {0, -1, -1, kNegInf, -1, kNegInf, 0};
  auto *out = reinterpret_cast<sluice_align_result_t *>(a.results) + pair;
  if (qlen == 0 || tlen == 0) {
    *out = res;
    return;
  }
  const int64_t row = int64_t(a.row);
  int32_t *h2 = scratch, *h1 = scratch + row, *h0 = scratch + 2 * row;
  int32_t *e1 = scratch + 3 * row, *e0 = scratch + 4 * row;
  int32_t *f1 = scratch + 5 * row, *f0 = scratch + 6 * row;
  // Lane 0 writes the corner and anti-diagonal -1; then bar.warp.sync.
  h2[0] = 0;
  h1[0] = h1[1] = -oe;
  e1[1] = kNegInf;
  f1[0] = kNegInf;
  const int32_t last = qlen + tlen - 2;
  for (int32_t r = 0; r <= last; ++r) {
    const int32_t st = std::max({0, r - qlen + 1, (r - w + 1) >> 1});
    const int32_t en = std::min({tlen - 1, r, (r + w) >> 1});
    if (st > en) {
      res.zdropped = 1;
      break;
    }
    const int32_t n = en - st + 1;
    // The cell loop: lane l takes k = l, l + 32, ...; its best (strictly
    // greater: the smallest k among its equals) and the h of its first
    // cell.
    Lanes best, bestK, firstH;
    for (int l = 0; l < kLanes; ++l) {
      best[l] = INT32_MIN;
      bestK[l] = INT32_MAX;
      firstH[l] = kNegInf;
      for (int32_t k = l; k < n; k += kLanes) {
        const int32_t i = st + k, j = r - i;
        const uint8_t tb = t[i], qb = q[j];
        const int32_t s = (tb == qb && tb < 4) ? sc.match : -sc.mismatch;
        const int32_t e =
            std::max(std::max(h1[i + 1] - oe, e1[i + 1] - ge), kNegInf);
        const int32_t f = std::max(std::max(h1[i] - oe, f1[i] - ge), kNegInf);
        const int32_t h = std::max(std::max(h2[i] + s, e), f);
        h0[i + 1] = h;
        e0[i + 1] = e;
        f0[i + 1] = f;
        if (h > best[l]) {
          best[l] = h;
          bestK[l] = k;
        }
        if (k == l)
          firstH[l] = h;
      }
    }
    // The butterfly: the larger score, the smaller k among equals.
    for (int mask = 16; mask >= 1; mask >>= 1) {
      Lanes otherBest = shuffleXor(best, mask);
      Lanes otherK = shuffleXor(bestK, mask);
      for (int l = 0; l < kLanes; ++l) {
        bool take = otherBest[l] > best[l] ||
                    (otherBest[l] == best[l] && otherK[l] < bestK[l]);
        best[l] = take ? otherBest[l] : best[l];
        bestK[l] = take ? otherK[l] : bestK[l];
      }
    }
    // Every lane holds the same values now; lane 0's are used.
    const int32_t top = best[0], bestI = st + bestK[0], bestJ = r - bestI;
    // Cell k = 0 (the query's last base when st == r - qlen + 1, and the
    // last cell of the matrix on the last anti-diagonal, which has only
    // it): lane 0's first cell, shfl.idx from lane 0.
    const int32_t cornerH = firstH[0];
    if (st == r - qlen + 1 && cornerH > res.query_end_score) {
      res.query_end_score = cornerH;
      res.query_end_target = st;
    }
    if (top > res.max_score) {
      res.max_score = top;
      res.max_target_end = bestI;
      res.max_query_end = bestJ;
    } else if (bestI >= res.max_target_end && bestJ >= res.max_query_end) {
      const int32_t di = bestI - res.max_target_end;
      const int32_t dj = bestJ - res.max_query_end;
      const int32_t l = di > dj ? di - dj : dj - di;
      if (sc.zdrop >= 0 && res.max_score - top > sc.zdrop + l * ge) {
        res.zdropped = 1;
        break;
      }
    }
    if (r == last && en == tlen - 1)
      res.global_score = cornerH;
    // Lane 0 writes the edges; bar.warp.sync; the rows rotate.
    const int32_t edge = r + 1 <= w ? -(sc.gap_open + ge * (r + 2)) : kNegInf;
    h0[st] = st == 0 ? edge : kNegInf;
    f0[st] = kNegInf;
    h0[en + 2] = en == r ? edge : kNegInf;
    e0[en + 2] = kNegInf;
    int32_t *rotated = h2;
    h2 = h1;
    h1 = h0;
    h0 = rotated;
    std::swap(e0, e1);
    std::swap(f0, f1);
  }
  *out = res; // lane 0
}

/// The whole launch: `a.warps` warps take pairs from the work queue
/// (`next`, in `order`); here warp w takes its next pair after warps
/// 0..w-1 took theirs (one interleaving of many; the results do not
/// depend on it). `scratch` holds a.warps * SLUICE_ALIGN_GPU_SCRATCH_ROWS *
/// a.row ints.
inline void emulateWarpKernel(const sluice_align_gpu_args_t &a,
                              int32_t *scratch) {
  const auto *order = reinterpret_cast<const uint32_t *>(a.order);
  auto *next = reinterpret_cast<uint32_t *>(a.next);
  std::vector<bool> done(a.warps, false);
  for (uint64_t running = a.warps; running > 0;) {
    for (uint64_t warp = 0; warp < a.warps; ++warp) {
      if (done[warp])
        continue;
      uint32_t p = (*next)++; // lane 0's atomic add, shuffled to the warp
      if (p >= a.count) {     // the queue is empty: the warp returns
        done[warp] = true;
        --running;
        continue;
      }
      emulateWarpPair(a, order[p],
                      scratch + warp * SLUICE_ALIGN_GPU_SCRATCH_ROWS * a.row);
    }
  }
}

} // namespace sluice::test

#endif // SLUICE_TEST_UNIT_ALIGN_ALIGNWARPEMULATION_H
