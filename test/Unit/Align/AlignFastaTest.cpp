//===- AlignFastaTest.cpp - sluice_align_fasta: files, errors, output -----===//
#include "sluice/align.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

constexpr sluice_align_scoring_t kScoring = {2, 4, 4, 2, 100, 400};

class AlignFasta : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("sluice-align-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string &name, const std::string &text) {
    std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
  /// "LINE:COLUMN: MESSAGE" of a failing run.
  std::string runError(const std::string &queries, const std::string &targets) {
    std::string q = write("q.fa", queries), t = write("t.fa", targets);
    sluice_error_t error;
    sluice_status_t s = sluice_align_fasta(q.c_str(), t.c_str(), nullptr,
                                           &kScoring, 1, nullptr, &error);
    EXPECT_EQ(s, SLUICE_STATUS_PARSE_ERROR);
    std::string file = std::filesystem::path(error.path).filename().string();
    return file + ":" + std::to_string(error.line) + ":" +
           std::to_string(error.column) + ": " + error.message;
  }
  std::filesystem::path dir;
};

TEST_F(AlignFasta, WritesOneLinePerPair) {
  std::string q =
      write("q.fa", ">r1 first read\nACGT\nACGT\n\n>r2\nacgttcgt\r\n");
  std::string t = write("t.fa", ">ref1\nACGTACGT\n>ref2\nACGTACGT\n");
  std::string out = (dir / "out.tsv").string();
  sluice_align_report_t report;
  sluice_error_t error;
  ASSERT_EQ(sluice_align_fasta(q.c_str(), t.c_str(), out.c_str(), &kScoring, 2,
                               &report, &error),
            SLUICE_STATUS_OK)
      << error.message;
  EXPECT_EQ(report.pairs, 2u);
  EXPECT_EQ(report.query_bases, 16u);
  EXPECT_EQ(report.target_bases, 16u);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  EXPECT_EQ(text.str(),
            "query\ttarget\tquery_length\ttarget_length\tscore\tquery_end\t"
            "target_end\tquery_end_score\tquery_end_target\tglobal_score\t"
            "zdropped\n"
            "r1\tref1\t8\t8\t16\t8\t8\t16\t8\t16\t0\n"
            "r2\tref2\t8\t8\t10\t8\t8\t10\t8\t10\t0\n");
}

TEST_F(AlignFasta, BadCharacterIsLocated) {
  EXPECT_EQ(runError(">a\nACGT\nACXT\n", ">b\nACGT\n"),
            "q.fa:3:3: expected a base (A, C, G, T or N), got 'X'");
}

TEST_F(AlignFasta, EmptyRecordIsLocated) {
  EXPECT_EQ(runError(">a\nACGT\n", ">b\n>c\nACGT\n"),
            "t.fa:1:1: record 'b' has no bases");
  EXPECT_EQ(runError(">a\nACGT\n>last\n", ">b\nACGT\n"),
            "q.fa:3:1: record 'last' has no bases");
}

TEST_F(AlignFasta, TextBeforeHeaderAndMissingId) {
  EXPECT_EQ(runError("ACGT\n", ">b\nACGT\n"),
            "q.fa:1:1: expected a '>' header line before the bases, got "
            "'ACGT'");
  EXPECT_EQ(runError(">a\nACGT\n", ">  \nACGT\n"),
            "t.fa:1:1: expected a sequence id after '>'");
}

TEST_F(AlignFasta, MismatchedCountsNameTheExtraRecord) {
  EXPECT_EQ(runError(">a\nACGT\n>b\nACGT\n", ">x\nACGT\n"),
            "q.fa:3:1: record 'b' has no partner: the query file has 2 "
            "records, the target file 1");
}

TEST_F(AlignFasta, MissingFileIsNotFound) {
  std::string t = write("t.fa", ">b\nACGT\n");
  sluice_error_t error;
  EXPECT_EQ(sluice_align_fasta((dir / "none.fa").c_str(), t.c_str(), nullptr,
                               &kScoring, 1, nullptr, &error),
            SLUICE_STATUS_NOT_FOUND);
}

} // namespace
