//===- IoUringOptionsTest.cpp - Registered files and buffers, SQPOLL ------===//
//
// The io_uring options of sluice/io.h (SLUICE_IO_URING_*): data read and
// written through registered files and buffers (requests inside, outside
// and across a registered region, short transfers retried inside one) and
// with a polling submission thread equals what pread sees; the limits of
// the registration tables and their messages.
//
//===----------------------------------------------------------------------===//
#include "sluice/io.h"

#include "test/Unit/Offload/TestDir.h"

#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <random>
#include <unistd.h>

using sluice::test::ScratchDir;

namespace {

sluice_io_engine_t *makeEngine(sluice_io_backend_t backend, uint32_t flags,
                               sluice_error_t *err) {
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  o.backend = backend;
  o.queue_depth = 16;
  o.block_size = 65536;
  o.uring_flags = flags;
  sluice_io_engine_t *e = nullptr;
  if (sluice_io_engine_create(&o, &e, err) != SLUICE_STATUS_OK)
    return nullptr;
  return e;
}

bool uringAvailable() {
  sluice_error_t err;
  sluice_io_engine_t *e = makeEngine(SLUICE_IO_BACKEND_URING, 0, &err);
  sluice_io_engine_destroy(e);
  return e != nullptr;
}

sluice_status_t runBatch(sluice_io_engine_t *e,
                         std::vector<sluice_io_request_t> &rs,
                         sluice_error_t *err) {
  sluice_io_batch_t *b = nullptr;
  sluice_status_t s = sluice_io_submit(e, rs.data(), rs.size(), &b, err);
  if (s != SLUICE_STATUS_OK)
    return s;
  s = sluice_io_batch_wait(b, err);
  sluice_io_batch_release(b);
  return s;
}

class UringOptions : public testing::TestWithParam<uint32_t> {};

TEST_P(UringOptions, DataRoundTripsInsideAndOutsideRegisteredRegions) {
  if (!uringAvailable())
    GTEST_SKIP() << "io_uring is not available here";
  ScratchDir dir;
  sluice_error_t err;
  sluice_io_engine_t *e = makeEngine(SLUICE_IO_BACKEND_URING, GetParam(), &err);
  ASSERT_NE(e, nullptr) << err.message;
  sluice_io_file_t *f = nullptr;
  ASSERT_EQ(sluice_io_file_open(e, dir.file("data").c_str(),
                                SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                                    SLUICE_IO_FILE_CREATE |
                                    SLUICE_IO_FILE_DIRECT,
                                &f, &err),
            SLUICE_STATUS_OK)
      << err.message;
  // 64 blocks of 16 KiB; the region registers the middle half of the
  // buffer, so requests fall inside, outside and across its ends.
  const uint64_t block = 16384, blocks = 64, bytes = block * blocks;
  char *data = static_cast<char *>(sluice_io_alloc(bytes, 4096));
  char *back = static_cast<char *>(sluice_io_alloc(bytes, 4096));
  std::mt19937_64 rng(GetParam() + 1);
  for (uint64_t i = 0; i < bytes; ++i)
    data[i] = static_cast<char>(rng());
  ASSERT_EQ(sluice_io_register_buffer(e, data + bytes / 4, bytes / 2, &err),
            SLUICE_STATUS_OK)
      << err.message;
  ASSERT_EQ(
      sluice_io_register_buffer(e, back + bytes / 4 + 4096, bytes / 2, &err),
      SLUICE_STATUS_OK)
      << err.message;
  std::vector<sluice_io_request_t> writes, reads;
  for (uint64_t k = 0; k < blocks; ++k) {
    uint64_t at = ((k * 37) % blocks) * block; // scattered order
    sluice_io_request_t r{};
    r.op = SLUICE_IO_WRITE;
    r.file = f;
    r.offset = at;
    r.length = block;
    r.buffer = data + at;
    writes.push_back(r);
    r.op = SLUICE_IO_READ;
    r.buffer = back + at;
    reads.push_back(r);
  }
  ASSERT_EQ(runBatch(e, writes, &err), SLUICE_STATUS_OK) << err.message;
  // A short transfer inside a registered region is resumed inside it.
  sluice_io_engine_inject_fault(e, 40, SLUICE_IO_FAULT_SHORT);
  ASSERT_EQ(runBatch(e, reads, &err), SLUICE_STATUS_OK) << err.message;
  EXPECT_EQ(std::memcmp(data, back, bytes), 0);
  std::vector<char> viaPread(bytes);
  int fd = ::open(dir.file("data").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pread(fd, viaPread.data(), bytes, 0), ssize_t(bytes));
  ::close(fd);
  EXPECT_EQ(std::memcmp(data, viaPread.data(), bytes), 0);
  sluice_io_stats_t stats;
  sluice_io_engine_stats(e, &stats);
  EXPECT_EQ(stats.short_transfers_retried, 1u);
  sluice_io_unregister_buffer(e, data + bytes / 4);
  sluice_io_unregister_buffer(e, back + bytes / 4 + 4096);
  sluice_io_file_close(f);
  sluice_io_engine_destroy(e);
  sluice_io_free(data);
  sluice_io_free(back);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, UringOptions,
    testing::Values(
        0u, uint32_t(SLUICE_IO_URING_FIXED_FILES),
        uint32_t(SLUICE_IO_URING_FIXED_BUFFERS),
        uint32_t(SLUICE_IO_URING_FIXED_FILES | SLUICE_IO_URING_FIXED_BUFFERS),
        uint32_t(SLUICE_IO_URING_SQPOLL | SLUICE_IO_URING_FIXED_FILES |
                 SLUICE_IO_URING_FIXED_BUFFERS)),
    [](const testing::TestParamInfo<uint32_t> &i) {
      return "flags" + std::to_string(i.param);
    });

TEST(UringOptionLimits, RegistrationTablesAndMessages) {
  sluice_error_t err;
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  EXPECT_EQ(o.uring_flags, 0u);
  o.uring_flags = 1u << 7;
  sluice_io_engine_t *e = nullptr;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(err.message, "unknown io_uring flags 0x80");
  // The thread backend ignores the options; registering does nothing.
  e = makeEngine(SLUICE_IO_BACKEND_THREADS, SLUICE_IO_URING_FIXED_BUFFERS,
                 &err);
  ASSERT_NE(e, nullptr);
  char byte = 0;
  EXPECT_EQ(sluice_io_register_buffer(e, &byte, 1, &err), SLUICE_STATUS_OK);
  sluice_io_unregister_buffer(e, &byte);
  EXPECT_EQ(sluice_io_register_buffer(e, &byte, (uint64_t(1) << 30) + 1, &err),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(err.message, "sluice_io_register_buffer: 1073741825 bytes is "
                            "more than the 1 GiB a registered buffer may have");
  sluice_io_engine_destroy(e);
  if (!uringAvailable())
    GTEST_SKIP() << "io_uring is not available here";
  e = makeEngine(SLUICE_IO_BACKEND_URING,
                 SLUICE_IO_URING_FIXED_BUFFERS | SLUICE_IO_URING_FIXED_FILES,
                 &err);
  ASSERT_NE(e, nullptr) << err.message;
  char *region = static_cast<char *>(sluice_io_alloc(65 * 4096, 4096));
  for (int k = 0; k < 64; ++k)
    ASSERT_EQ(sluice_io_register_buffer(e, region + k * 4096, 4096, &err),
              SLUICE_STATUS_OK)
        << "region " << k << ": " << err.message;
  EXPECT_EQ(sluice_io_register_buffer(e, region + 64 * 4096, 4096, &err),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(err.message, "cannot register another i/o buffer: all 64 "
                            "registered-buffer slots are taken");
  sluice_io_unregister_buffer(e, region + 3 * 4096);
  EXPECT_EQ(sluice_io_register_buffer(e, region + 64 * 4096, 4096, &err),
            SLUICE_STATUS_OK)
      << err.message;
  for (int k = 0; k < 65; ++k)
    sluice_io_unregister_buffer(e, region + k * 4096);
  // More files than the 64 table slots: the rest work unregistered.
  ScratchDir dir;
  std::vector<sluice_io_file_t *> files;
  for (int k = 0; k < 70; ++k) {
    sluice_io_file_t *f = nullptr;
    ASSERT_EQ(sluice_io_file_open(e, dir.file("f" + std::to_string(k)).c_str(),
                                  SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                                      SLUICE_IO_FILE_CREATE,
                                  &f, &err),
              SLUICE_STATUS_OK)
        << err.message;
    files.push_back(f);
  }
  std::vector<sluice_io_request_t> writes;
  for (sluice_io_file_t *f : files) {
    sluice_io_request_t r{};
    r.op = SLUICE_IO_WRITE;
    r.file = f;
    r.length = 4096;
    r.buffer = region;
    writes.push_back(r);
  }
  EXPECT_EQ(runBatch(e, writes, &err), SLUICE_STATUS_OK) << err.message;
  for (sluice_io_file_t *f : files)
    sluice_io_file_close(f);
  sluice_io_engine_destroy(e);
  sluice_io_free(region);
}

} // namespace
