//===- AlignCompileTest.cpp - sluicec -c's alignment kernels, linked ------===//
//
// Inputs/jobs.sluice compiled by `sluicec -c` at build time (align-jobs.o,
// align-jobs.h: align-to-llvm's one-lane kernels, the scoring baked in),
// linked here with libsluicert only. Every field of every pair equals the
// independent row-by-row reference (test/Unit/Align/AlignReference.h) on
// generated reads with known mutations, through the header's batch
// wrapper (1 and 3 threads) and the pair function called directly on
// poisoned scratch; the FASTA wrapper's TSV equals sluice_align_fasta's.
// Built once per CPU the object is compiled for (sluicec --mcpu,
// SLUICE_ALIGN_JOBS_MCPU); an object for x86-64-v3 (AVX2) is only run on
// a machine that has its instructions, else every test skips.
//
//===----------------------------------------------------------------------===//
#include "align-jobs.h"

#include "test/Unit/Align/AlignCases.h"
#include "test/Unit/Align/AlignReference.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace sluice::test;

namespace {

/// Skips every test when this machine lacks the instructions of the CPU
/// the object was compiled for (it would fault on the first one).
class ObjectCpuEnvironment : public testing::Environment {
public:
  void SetUp() override {
#if defined(__x86_64__)
    if (std::strcmp(SLUICE_ALIGN_JOBS_MCPU, "x86-64-v3") == 0 &&
        !__builtin_cpu_supports("x86-64-v3"))
      GTEST_SKIP() << "align-jobs.o is compiled for x86-64-v3 (AVX2), which "
                      "this CPU does not support";
#endif
  }
};
testing::Environment *const objectCpu =
    testing::AddGlobalTestEnvironment(new ObjectCpuEnvironment);

using BatchFn = sluice_status_t (*)(const char *const *, const uint32_t *,
                                    const char *const *, const uint32_t *,
                                    uint64_t, uint32_t, sluice_align_result_t *,
                                    sluice_error_t *);

struct Job {
  const char *name;
  sluice_align_scoring_t scoring;
  BatchFn batch;
  sluice_align_pair_kernel_t pair;
};

const Job kJobs[] = {
    {"minimap", SLUICE_ALIGN_minimap_SCORING, sluice_align_minimap,
     sluice_align_minimap_pair},
    {"narrow", SLUICE_ALIGN_narrow_SCORING, sluice_align_narrow,
     sluice_align_narrow_pair},
    {"gappy", SLUICE_ALIGN_gappy_SCORING, sluice_align_gappy,
     sluice_align_gappy_pair},
    {"thin", SLUICE_ALIGN_thin_SCORING, sluice_align_thin,
     sluice_align_thin_pair},
};

std::vector<sluice_align_result_t> runBatch(const Job &job, const Pairs &pairs,
                                            uint32_t threads) {
  PairArrays a(pairs);
  std::vector<sluice_align_result_t> out(pairs.size());
  sluice_error_t error;
  EXPECT_EQ(job.batch(a.q.data(), a.ql.data(), a.t.data(), a.tl.data(),
                      pairs.size(), threads, out.data(), &error),
            SLUICE_STATUS_OK)
      << error.message;
  return out;
}

/// The pair function on base codes and scratch full of garbage.
sluice_align_result_t runPair(const Job &job, const std::string &query,
                              const std::string &target) {
  auto codes = [](const std::string &s) {
    std::vector<uint8_t> c;
    for (char b : s) {
      const char *at = std::strchr("ACGT", b & ~0x20);
      c.push_back(b && at ? uint8_t(at - "ACGT") : 4);
    }
    return c;
  };
  std::vector<uint8_t> q = codes(query), t = codes(target);
  std::vector<int32_t> scratch(SLUICE_ALIGN_SCRATCH_ROWS * (t.size() + 2),
                               0x5a5a5a5a);
  sluice_align_result_t r;
  std::memset(&r, 0x7f, sizeof(r));
  job.pair(q.data(), uint32_t(q.size()), t.data(), uint32_t(t.size()),
           scratch.data(), &r);
  return r;
}

TEST(AlignCompile, HeaderScoringIsTheJobs) {
  const sluice_align_scoring_t minimap = SLUICE_ALIGN_minimap_SCORING;
  EXPECT_EQ(minimap.match, 2);
  EXPECT_EQ(minimap.band, 100);
  EXPECT_EQ(minimap.zdrop, 400);
  const sluice_align_scoring_t gappy = SLUICE_ALIGN_gappy_SCORING;
  EXPECT_EQ(gappy.gap_open, 0);
  EXPECT_EQ(gappy.zdrop, -1);
}

TEST(AlignCompile, HeaderNamesTheObjectsCpu) {
  std::ifstream in(SLUICE_ALIGN_JOBS_HEADER);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find(std::string(", CPU ") + SLUICE_ALIGN_JOBS_MCPU),
            std::string::npos)
      << text.str();
}

TEST(AlignCompile, HandCasesMatchTheReference) {
  const Pairs cases = {{"ACGTACGT", "ACGTACGT"},
                       {"ACGTTCGT", "ACGTACGT"},
                       {"ACGTGTACGTAC", "ACGTACGTACGTAC"},
                       {"AAAA", "CCCC"},
                       {"ANGT", "ANGT"},
                       {"acgt", "ACGT"},
                       {"A", "C"},
                       {"", "ACGT"},
                       {"ACGT", ""},
                       {"ACGTACGTACGTACGT", "ACGT"},
                       {"ACGTTGCAACGTTGCAACGTCCCCCCCCCCCCCCCCCCCC",
                        "ACGTTGCAACGTTGCAACGTGGGGGGGGGGGGGGGGGGGG"}};
  for (const Job &job : kJobs) {
    auto got = runBatch(job, cases, 2);
    for (size_t k = 0; k < cases.size(); ++k) {
      std::string what = std::string(job.name) + ": " + cases[k].first + " / " +
                         cases[k].second;
      std::string want = describe(
          referenceAlign(cases[k].first, cases[k].second, job.scoring));
      EXPECT_EQ(want, describe(got[k])) << what;
      EXPECT_EQ(want, describe(runPair(job, cases[k].first, cases[k].second)))
          << what << " (pair function)";
    }
  }
}

TEST(AlignCompile, GeneratedReadsMatchTheReference) {
  // Substitutions, indels of 1-4 bases, chimeric tails every third pair,
  // roles swapped every second: 4 jobs x 3 seeds x 40 pairs.
  size_t zdropped = 0, pairsChecked = 0;
  for (const Job &job : kJobs) {
    for (uint64_t seed : {7, 8, 9}) {
      Pairs pairs = generatePairs(seed, 40, 300, 0.04, 0.02, 60);
      auto one = runBatch(job, pairs, 1);
      auto three = runBatch(job, pairs, 3);
      for (size_t k = 0; k < pairs.size(); ++k) {
        sluice_align_result_t want =
            referenceAlign(pairs[k].first, pairs[k].second, job.scoring);
        std::string what = std::string(job.name) + " seed " +
                           std::to_string(seed) + " pair " + std::to_string(k);
        EXPECT_EQ(describe(want), describe(one[k])) << what;
        EXPECT_EQ(describe(want), describe(three[k])) << what << " (3 threads)";
        zdropped += want.zdropped;
        ++pairsChecked;
      }
    }
  }
  EXPECT_EQ(pairsChecked, 480u);
  EXPECT_GT(zdropped, 0u); // the chimeras exercise the Z-drop
}

TEST(AlignCompile, LongReadsMatchTheRuntimeKernel) {
  // ~3 kb reads with the minimap2 job: the compiled kernel equals the
  // runtime's wavefront kernel (itself checked against the reference).
  const Job &job = kJobs[0];
  Pairs pairs = generatePairs(21, 12, 3000, 0.03, 0.01, 600);
  auto got = runBatch(job, pairs, 2);
  PairArrays a(pairs);
  std::vector<sluice_align_result_t> want(pairs.size());
  sluice_error_t error;
  ASSERT_EQ(sluice_align_batch(a.q.data(), a.ql.data(), a.t.data(), a.tl.data(),
                               pairs.size(), &job.scoring,
                               SLUICE_ALIGN_WAVEFRONT, 2, want.data(), &error),
            SLUICE_STATUS_OK)
      << error.message;
  for (size_t k = 0; k < pairs.size(); ++k)
    EXPECT_EQ(describe(want[k]), describe(got[k])) << "pair " << k;
}

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AlignCompile, FastaWrapperWritesWhatTheRuntimeWrites) {
  std::string dir = SLUICE_ALIGN_JOBS_INPUTS;
  std::string compiled = testing::TempDir() + "align-compiled.tsv";
  std::string runtime = testing::TempDir() + "align-runtime.tsv";
  sluice_align_report_t report;
  sluice_error_t error;
  ASSERT_EQ(sluice_align_narrow_fasta((dir + "/q.fa").c_str(),
                                      (dir + "/t.fa").c_str(), compiled.c_str(),
                                      1, &report, &error),
            SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(report.pairs, 3u);
  const sluice_align_scoring_t narrow = SLUICE_ALIGN_narrow_SCORING;
  ASSERT_EQ(sluice_align_fasta((dir + "/q.fa").c_str(), (dir + "/t.fa").c_str(),
                               runtime.c_str(), &narrow, 1, &report, &error),
            SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(slurp(runtime), slurp(compiled));
  EXPECT_NE(slurp(compiled).find("r3\tt3\t40\t40\t"), std::string::npos);
}

TEST(AlignCompile, BatchErrors) {
  const char *q[] = {"ACGT"};
  const char *t[] = {"ACGT"};
  uint32_t len[] = {4};
  uint32_t huge[] = {(1u << 24) + 1};
  sluice_align_result_t r[1];
  sluice_error_t error;
  EXPECT_EQ(
      sluice_align_batch_compiled(nullptr, q, len, t, len, 1, 1, r, &error),
      SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "the kernel is NULL");
  EXPECT_EQ(sluice_align_minimap(nullptr, len, t, len, 1, 1, r, &error),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "a sequence, length or result array is NULL");
  EXPECT_EQ(sluice_align_minimap(q, huge, t, len, 1, 1, r, &error),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(sluice_align_minimap(q, len, t, len, 0, 1, nullptr, &error),
            SLUICE_STATUS_OK); // no pairs
}

} // namespace
