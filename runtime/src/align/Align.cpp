//===- Align.cpp - sluice/align.h: batches, FASTA files, TSV results ------===//
//
// Pairs are claimed one at a time from a shared counter by the threads of
// an AlgoThreadPool, each with its own kernel buffers: a long pair keeps
// one thread busy while the others take the next pairs (the load balance
// AGAThA gets from rebalancing work between warps).
//
//===----------------------------------------------------------------------===//
#include "sluice/align.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/Error.h"
#include "runtime/src/algo/AlgoInternal.h"
#include "runtime/src/align/AlignGpu.h"
#include "runtime/src/align/Fasta.h"
#include "runtime/src/align/Wavefront.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace sluice::rt;
using namespace sluice::rt::align;

namespace {

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
}

sluice_status_t checkRange(sluice_error_t *error, const char *field,
                           int32_t value, int32_t low, int32_t high) {
  if (value >= low && value <= high)
    return SLUICE_STATUS_OK;
  return invalid(error, std::string(field) + " must be in [" +
                            std::to_string(low) + ", " + std::to_string(high) +
                            "], got " + std::to_string(value));
}

/// OUT_OF_RANGE at the first pair with a sequence over the limit.
sluice_status_t checkLengths(const uint32_t *queryLengths,
                             const uint32_t *targetLengths, uint64_t count,
                             sluice_error_t *error) {
  for (uint64_t k = 0; k < count; ++k)
    if (queryLengths[k] > kMaxSequenceLength ||
        targetLengths[k] > kMaxSequenceLength)
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "pair " + std::to_string(k) + " has a sequence longer than " +
                      std::to_string(kMaxSequenceLength) + " bases");
  return SLUICE_STATUS_OK;
}

/// The threads a batch of `count` pairs uses (0: every hardware thread).
uint32_t threadsFor(uint32_t threads, uint64_t count) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  if (uint64_t(threads) > count)
    threads = static_cast<uint32_t>(std::max<uint64_t>(count, 1));
  return threads;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

extern "C" {

SLUICE_API sluice_status_t sluice_align_check_scoring(
    const sluice_align_scoring_t *scoring, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!scoring)
    return invalid(error, "scoring is NULL");
  const sluice_align_scoring_t &s = *scoring;
  if (sluice_status_t st = checkRange(error, "match", s.match, 1, 255))
    return st;
  if (sluice_status_t st = checkRange(error, "mismatch", s.mismatch, 1, 255))
    return st;
  if (sluice_status_t st = checkRange(error, "gap_open", s.gap_open, 0, 255))
    return st;
  if (sluice_status_t st =
          checkRange(error, "gap_extend", s.gap_extend, 1, 255))
    return st;
  if (sluice_status_t st =
          checkRange(error, "band", s.band, 1, int32_t(kMaxSequenceLength)))
    return st;
  if (s.zdrop > (1 << 28))
    return invalid(error, "zdrop must be at most " + std::to_string(1 << 28) +
                              ", got " + std::to_string(s.zdrop));
  return SLUICE_STATUS_OK;
}

SLUICE_API sluice_status_t sluice_align_batch(
    const char *const *queries, const uint32_t *query_lengths,
    const char *const *targets, const uint32_t *target_lengths, uint64_t count,
    const sluice_align_scoring_t *scoring, sluice_align_kernel_t kernel,
    uint32_t threads, sluice_align_result_t *results, sluice_error_t *error) {
  if (sluice_status_t s = sluice_align_check_scoring(scoring, error))
    return s;
  if (count > 0 &&
      (!queries || !query_lengths || !targets || !target_lengths || !results))
    return invalid(error, "a sequence, length or result array is NULL");
  int64_t kernelValue = enumValue(kernel);
  if (kernelValue != SLUICE_ALIGN_WAVEFRONT &&
      kernelValue != SLUICE_ALIGN_SERIAL)
    return invalid(error, "unknown kernel " + std::to_string(kernelValue));
  if (sluice_status_t s =
          checkLengths(query_lengths, target_lengths, count, error))
    return s;
  threads = threadsFor(threads, count);
  auto align =
      kernelValue == SLUICE_ALIGN_SERIAL ? alignSerial : alignWavefront;
  std::atomic<uint64_t> next{0};
  AlgoThreadPool pool(threads);
  pool.run([&](uint32_t) {
    WavefrontBuffers buffers;
    for (uint64_t k = next.fetch_add(1, std::memory_order_relaxed); k < count;
         k = next.fetch_add(1, std::memory_order_relaxed))
      align(queries[k], query_lengths[k], targets[k], target_lengths[k],
            *scoring, buffers, results[k]);
  });
  return SLUICE_STATUS_OK;
}

SLUICE_API sluice_status_t sluice_align_batch_compiled(
    sluice_align_pair_kernel_t kernel, const char *const *queries,
    const uint32_t *query_lengths, const char *const *targets,
    const uint32_t *target_lengths, uint64_t count, uint32_t threads,
    sluice_align_result_t *results, sluice_error_t *error) {
  sluice_error_clear(error);
  if (!kernel)
    return invalid(error, "the kernel is NULL");
  if (count > 0 &&
      (!queries || !query_lengths || !targets || !target_lengths || !results))
    return invalid(error, "a sequence, length or result array is NULL");
  if (sluice_status_t s =
          checkLengths(query_lengths, target_lengths, count, error))
    return s;
  threads = threadsFor(threads, count);
  std::atomic<uint64_t> next{0};
  AlgoThreadPool pool(threads);
  pool.run([&](uint32_t) {
    std::vector<uint8_t> query, target;
    std::vector<int32_t> scratch;
    for (uint64_t k = next.fetch_add(1, std::memory_order_relaxed); k < count;
         k = next.fetch_add(1, std::memory_order_relaxed)) {
      query.resize(query_lengths[k]);
      target.resize(target_lengths[k]);
      for (uint32_t j = 0; j < query_lengths[k]; ++j)
        query[j] = baseCode(queries[k][j]);
      for (uint32_t i = 0; i < target_lengths[k]; ++i)
        target[i] = baseCode(targets[k][i]);
      scratch.resize(SLUICE_ALIGN_SCRATCH_ROWS *
                     (uint64_t(target_lengths[k]) + 2));
      kernel(query.data(), query_lengths[k], target.data(), target_lengths[k],
             scratch.data(), &results[k]);
    }
  });
  return SLUICE_STATUS_OK;
}

SLUICE_API sluice_status_t sluice_align_fasta_compiled(
    sluice_align_pair_kernel_t kernel, const char *query_path,
    const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, uint32_t threads,
    sluice_align_report_t *report, sluice_error_t *error) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  return alignFasta(
      query_path, target_path, output, scoring, threads,
      [&](const char *const *q, const uint32_t *ql, const char *const *t,
          const uint32_t *tl, uint64_t n, sluice_align_result_t *results,
          sluice_error_t *error) {
        return sluice_align_batch_compiled(kernel, q, ql, t, tl, n, threads,
                                           results, error);
      },
      report, error);
}

SLUICE_API uint64_t sluice_align_band_cells(uint32_t query_length,
                                            uint32_t target_length,
                                            int32_t band) {
  // The kernels' band of anti-diagonal r (WavefrontBody.inc).
  const int64_t qlen = query_length, tlen = target_length;
  uint64_t cells = 0;
  for (int64_t r = 0; r <= qlen + tlen - 2; ++r) {
    int64_t st = std::max({int64_t(0), r - qlen + 1, (r - band + 1) >> 1});
    int64_t en = std::min({tlen - 1, r, (r + band) >> 1});
    if (st > en)
      break;
    cells += uint64_t(en - st + 1);
  }
  return cells;
}

SLUICE_API sluice_status_t sluice_align_fasta(
    const char *query_path, const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, uint32_t threads,
    sluice_align_report_t *report, sluice_error_t *error) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  return alignFasta(
      query_path, target_path, output, scoring, threads,
      [&](const char *const *q, const uint32_t *ql, const char *const *t,
          const uint32_t *tl, uint64_t n, sluice_align_result_t *results,
          sluice_error_t *error) {
        return sluice_align_batch(q, ql, t, tl, n, scoring,
                                  SLUICE_ALIGN_WAVEFRONT, threads, results,
                                  error);
      },
      report, error);
}

} // extern "C"

sluice_status_t sluice::rt::align::alignFasta(
    const char *query_path, const char *target_path, const char *output,
    const sluice_align_scoring_t *scoring, uint32_t threads,
    const BatchAligner &align, sluice_align_report_t *report,
    sluice_error_t *error) {
  if (sluice_status_t s = sluice_align_check_scoring(scoring, error))
    return s;
  if (!query_path || !target_path)
    return invalid(error, "a FASTA path is NULL");
  auto start = std::chrono::steady_clock::now();
  std::vector<FastaRecord> queries, targets;
  if (sluice_status_t s = readFasta(query_path, queries, error))
    return s;
  if (sluice_status_t s = readFasta(target_path, targets, error))
    return s;
  if (queries.size() != targets.size()) {
    bool moreQueries = queries.size() > targets.size();
    const FastaRecord &extra =
        moreQueries ? queries[targets.size()] : targets[queries.size()];
    return fail(
        error, SLUICE_STATUS_PARSE_ERROR,
        {moreQueries ? query_path : target_path, extra.line, 1, 0},
        "record '" + extra.id + "' has no partner: the query file has " +
            std::to_string(queries.size()) + " records, the target file " +
            std::to_string(targets.size()));
  }
  double readSeconds = secondsSince(start);
  size_t n = queries.size();
  std::vector<const char *> q(n), t(n);
  std::vector<uint32_t> ql(n), tl(n);
  sluice_align_report_t summary{};
  for (size_t k = 0; k < n; ++k) {
    q[k] = queries[k].bases.data();
    t[k] = targets[k].bases.data();
    ql[k] = static_cast<uint32_t>(queries[k].bases.size());
    tl[k] = static_cast<uint32_t>(targets[k].bases.size());
    summary.query_bases += ql[k];
    summary.target_bases += tl[k];
  }
  std::vector<sluice_align_result_t> results(n);
  start = std::chrono::steady_clock::now();
  if (sluice_status_t s = align(q.data(), ql.data(), t.data(), tl.data(), n,
                                results.data(), error))
    return s;
  summary.align_seconds = secondsSince(start);
  summary.read_seconds = readSeconds;
  summary.pairs = n;
  summary.threads = static_cast<uint32_t>(std::min<uint64_t>(threads, n));
  for (const sluice_align_result_t &r : results)
    summary.zdropped += r.zdropped != 0;
  if (output) {
    AtomicFile file;
    if (sluice_status_t s = file.open(output, error))
      return s;
    std::string text = "query\ttarget\tquery_length\ttarget_length\tscore\t"
                       "query_end\ttarget_end\tquery_end_score\t"
                       "query_end_target\tglobal_score\tzdropped\n";
    auto score = [](int32_t v) {
      return v <= SLUICE_ALIGN_NEG_INF ? std::string("*") : std::to_string(v);
    };
    for (size_t k = 0; k < n; ++k) {
      const sluice_align_result_t &r = results[k];
      text +=
          queries[k].id + "\t" + targets[k].id + "\t" + std::to_string(ql[k]) +
          "\t" + std::to_string(tl[k]) + "\t" + std::to_string(r.max_score) +
          "\t" + std::to_string(r.max_query_end + 1) + "\t" +
          std::to_string(r.max_target_end + 1) + "\t" +
          score(r.query_end_score) + "\t" +
          (r.query_end_target < 0 ? std::string("*")
                                  : std::to_string(r.query_end_target + 1)) +
          "\t" + score(r.global_score) + "\t" + std::to_string(r.zdropped) +
          "\n";
      if (text.size() > (1 << 20) || k + 1 == n) {
        if (sluice_status_t s = file.write(text.data(), text.size(), error))
          return s;
        text.clear();
      }
    }
    if (n == 0)
      if (sluice_status_t s = file.write(text.data(), text.size(), error))
        return s;
    if (sluice_status_t s = file.commit(error))
      return s;
  }
  if (report)
    *report = summary;
  return SLUICE_STATUS_OK;
}
