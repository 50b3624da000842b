//===- BenchAlign.cpp - The wavefront kernel against the serial one -------===//
//
// bench-align [rounds]: generated read pairs (a random target; its query
// with 3% substitutions, 1% indels of 1-4 bases, every fifth with an
// unrelated tail that the Z-drop stops on; fixed seeds) aligned with
// minimap2's scoring: a textbook row-by-row implementation (rowByRow below,
// 1 thread), and by sluice_align_batch the serial kernel (the wavefront's
// loop without SIMD, 1 thread) and the wavefront kernel (SIMD across the
// anti-diagonal) on 1 and 2 threads. The four run alternately, `rounds`
// times (default 5); the medians are printed with the speedups (simd: the
// serial kernel over the wavefront on 1 thread; rows/Nt: the row-by-row
// implementation over the wavefront on N threads), and every run's results
// must equal the row-by-row implementation's (else exit 1). A fifth
// column times the kernel sluicec -c compiles for the same scoring
// (bench.sluice, align-to-llvm; cmpl/1t: its time over the wavefront's).
//
//===----------------------------------------------------------------------===//
#include "bench-jobs.h"
#include "bench/align/BenchReads.h"
#include "sluice/align.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sluice::bench;

/// The textbook serial implementation, for comparison: Gotoh's matrices row
/// by row (target index outer) over the band only, int64, the band's H kept
/// (n * (2w + 1) values) and the anti-diagonals replayed afterwards for the
/// maxima, the query-end score and the Z-drop (sluice/align.h). It computes
/// every band cell even after the point where the Z-drop stops.
sluice_align_result_t rowByRow(const std::string &query,
                               const std::string &target,
                               const sluice_align_scoring_t &sc,
                               std::vector<int64_t> &band) {
  const int64_t kInf = int64_t(1) << 50;
  const int64_t n = int64_t(target.size()), m = int64_t(query.size());
  const int64_t w = sc.band, width = 2 * w + 1;
  const int64_t oe = sc.gap_open + sc.gap_extend, ge = sc.gap_extend;
  sluice_align_result_t out = {
      0, -1, -1, SLUICE_ALIGN_NEG_INF, -1, SLUICE_ALIGN_NEG_INF, 0};
  if (n == 0 || m == 0)
    return out;
  band.assign(size_t(n * width), -kInf);
  std::vector<int64_t> fRow(size_t(width), -kInf),
      fNext(static_cast<size_t>(width));
  auto H = [&](int64_t i, int64_t j) -> int64_t {
    if (i < -1 || j < -1 || std::llabs(i - j) > w + 1)
      return -kInf;
    if (i == -1 && j == -1)
      return 0;
    if (i == -1)
      return j + 1 <= w ? -(sc.gap_open + ge * (j + 1)) : -kInf;
    if (j == -1)
      return i + 1 <= w ? -(sc.gap_open + ge * (i + 1)) : -kInf;
    if (std::llabs(i - j) > w || j >= m)
      return -kInf;
    return band[size_t(i * width + (j - i + w))];
  };
  auto code = [](char c) { return std::strchr("ACGT", c) ? c : 'N'; };
  for (int64_t i = 0; i < n; ++i) {
    int64_t e = -kInf;
    std::fill(fNext.begin(), fNext.end(), -kInf);
    char a = code(target[size_t(i)]);
    for (int64_t j = std::max<int64_t>(0, i - w); j <= std::min(m - 1, i + w);
         ++j) {
      // F(i-1, j) sits at column j - (i - 1) + w of the previous row.
      int64_t up = j - (i - 1) + w;
      int64_t fUp = up < width ? fRow[size_t(up)] : -kInf;
      e = std::max(H(i, j - 1) - oe, e - ge);
      int64_t f = std::max(H(i - 1, j) - oe, fUp - ge);
      int64_t s =
          (a == code(query[size_t(j)]) && a != 'N') ? sc.match : -sc.mismatch;
      int64_t h = std::max({H(i - 1, j - 1) + s, e, f});
      band[size_t(i * width + (j - i + w))] = h;
      fNext[size_t(j - i + w)] = f;
    }
    std::swap(fRow, fNext);
  }
  for (int64_t r = 0; r <= n + m - 2; ++r) {
    int64_t st = std::max({int64_t(0), r - m + 1, (r - w + 1) >> 1});
    int64_t en = std::min({n - 1, r, (r + w) >> 1});
    if (st > en) {
      out.zdropped = 1;
      break;
    }
    int64_t bestI = st, best = H(st, r - st);
    for (int64_t i = st + 1; i <= en; ++i)
      if (H(i, r - i) > best)
        best = H(i, r - i), bestI = i;
    if (st == r - m + 1 && H(st, m - 1) > out.query_end_score)
      out.query_end_score = int32_t(H(st, m - 1)),
      out.query_end_target = int32_t(st);
    int64_t bestJ = r - bestI;
    if (best > out.max_score) {
      out.max_score = int32_t(best);
      out.max_target_end = int32_t(bestI);
      out.max_query_end = int32_t(bestJ);
    } else if (bestI >= out.max_target_end && bestJ >= out.max_query_end) {
      int64_t l = std::llabs((bestI - out.max_target_end) -
                             (bestJ - out.max_query_end));
      if (sc.zdrop >= 0 && out.max_score - best > sc.zdrop + l * ge) {
        out.zdropped = 1;
        break;
      }
    }
    if (r == n + m - 2 && en == n - 1)
      out.global_score = int32_t(H(n - 1, m - 1));
  }
  return out;
}

bool same(const sluice_align_result_t &a, const sluice_align_result_t &b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1) {
    std::fprintf(stderr, "usage: bench-align [rounds >= 1]\n");
    return 2;
  }
  const Workload workloads[] = {
      {"short reads (1 kb, band 100)", 4000, 1000, 100},
      {"long reads (10 kb, band 500)", 100, 10000, 500}};
  std::printf("%-30s %9s %9s %9s %9s %9s %7s %7s %7s %7s\n", "workload",
              "rows s", "serial s", "wave 1t s", "wave 2t s", "cmpl 1t s",
              "simd x", "rows/1t", "rows/2t", "cmpl/1t");
  for (const Workload &w : workloads) {
    std::vector<std::string> queries, targets;
    makeReads(w, queries, targets);
    std::vector<const char *> q, t;
    std::vector<uint32_t> ql, tl;
    for (size_t k = 0; k < w.pairs; ++k) {
      q.push_back(queries[k].data());
      t.push_back(targets[k].data());
      ql.push_back(uint32_t(queries[k].size()));
      tl.push_back(uint32_t(targets[k].size()));
    }
    sluice_align_scoring_t sc = {2, 4, 4, 2, w.band, 400};
    // The compiled kernel of the job with this workload's band.
    sluice_align_pair_kernel_t compiled =
        w.band == 100 ? sluice_align_short_pair : sluice_align_long_pair;
    const sluice_align_scoring_t baked =
        w.band == 100 ? sluice_align_scoring_t(SLUICE_ALIGN_short_SCORING)
                      : sluice_align_scoring_t(SLUICE_ALIGN_long_SCORING);
    if (std::memcmp(&baked, &sc, sizeof(sc)) != 0) {
      std::fprintf(stderr, "bench-align: bench.sluice's scoring differs\n");
      return 1;
    }
    struct Config {
      bool rowByRow; // else sluice_align_batch with `kernel`
      sluice_align_kernel_t kernel;
      uint32_t threads;
      sluice_align_pair_kernel_t compiled; // else the runtime's kernel
      std::vector<double> times;
      std::vector<sluice_align_result_t> out;
    } configs[] = {{true, SLUICE_ALIGN_SERIAL, 1, nullptr, {}, {}},
                   {false, SLUICE_ALIGN_SERIAL, 1, nullptr, {}, {}},
                   {false, SLUICE_ALIGN_WAVEFRONT, 1, nullptr, {}, {}},
                   {false, SLUICE_ALIGN_WAVEFRONT, 2, nullptr, {}, {}},
                   {false, SLUICE_ALIGN_SERIAL, 1, compiled, {}, {}}};
    std::vector<int64_t> bandBuffer;
    for (int r = 0; r < rounds; ++r)
      for (Config &c : configs) {
        c.out.assign(w.pairs, {});
        sluice_error_t error;
        auto start = std::chrono::steady_clock::now();
        if (c.rowByRow) {
          for (size_t k = 0; k < w.pairs; ++k)
            c.out[k] = rowByRow(queries[k], targets[k], sc, bandBuffer);
        } else if ((c.compiled
                        ? sluice_align_batch_compiled(
                              c.compiled, q.data(), ql.data(), t.data(),
                              tl.data(), w.pairs, c.threads, c.out.data(),
                              &error)
                        : sluice_align_batch(q.data(), ql.data(), t.data(),
                                             tl.data(), w.pairs, &sc, c.kernel,
                                             c.threads, c.out.data(),
                                             &error)) != SLUICE_STATUS_OK) {
          std::fprintf(stderr, "bench-align: %s\n", error.message);
          return 1;
        }
        c.times.push_back(seconds(start));
      }
    for (Config &c : configs)
      for (size_t k = 0; k < w.pairs; ++k)
        if (!same(c.out[k], configs[0].out[k])) {
          std::fprintf(stderr, "bench-align: %s pair %zu differs\n", w.name, k);
          return 1;
        }
    double median[5];
    for (int i = 0; i < 5; ++i) {
      std::vector<double> v = configs[i].times;
      std::sort(v.begin(), v.end());
      median[i] = v[v.size() / 2];
    }
    size_t zdropped = 0;
    for (const sluice_align_result_t &r : configs[0].out)
      zdropped += r.zdropped;
    std::printf("%-30s %9.4f %9.4f %9.4f %9.4f %9.4f %7.2f %7.2f %7.2f "
                "%7.2f   (%zu pairs, %zu zdropped, results equal)\n",
                w.name, median[0], median[1], median[2], median[3], median[4],
                median[1] / median[2], median[0] / median[2],
                median[0] / median[3], median[4] / median[2], w.pairs,
                zdropped);
  }
  return 0;
}
