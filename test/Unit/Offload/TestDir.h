//===- TestDir.h - A scratch directory per test -----------------*- C++ -*-===//
#ifndef SLUICE_TEST_UNIT_OFFLOAD_TESTDIR_H
#define SLUICE_TEST_UNIT_OFFLOAD_TESTDIR_H

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace sluice::test {

/// A fresh directory under the build tree, removed with its contents.
class ScratchDir {
public:
  ScratchDir() {
    const testing::TestInfo *info =
        testing::UnitTest::GetInstance()->current_test_info();
    static int serial = 0;
    std::string name = std::string(info->test_suite_name()) + "." +
                       info->name() + "." + std::to_string(::getpid()) + "." +
                       std::to_string(serial++);
    for (char &c : name)
      if (c == '/')
        c = '_';
    path = std::string(SLUICE_OFFLOAD_TEST_DIR) + "/" + name;
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name) const { return path + "/" + name; }
  /// Names of the files in the directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(path))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string path;
};

inline std::vector<char> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

/// Flips one byte of a file in place.
inline void flipByte(const std::string &path, uint64_t offset) {
  std::FILE *f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr) << path;
  std::fseek(f, static_cast<long>(offset), SEEK_SET);
  int c = std::fgetc(f);
  std::fseek(f, static_cast<long>(offset), SEEK_SET);
  std::fputc(c ^ 0x5a, f);
  std::fclose(f);
}

} // namespace sluice::test

#endif
