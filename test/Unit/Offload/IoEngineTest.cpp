//===- IoEngineTest.cpp - The batched I/O engine (sluice/io.h) -------------===//
//
// Both backends: random batches read back equal (and equal to what pread
// sees), O_DIRECT alignment errors, end of file, and each injected fault.
//
//===----------------------------------------------------------------------===//
#include "sluice/io.h"

#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <unistd.h>

using sluice::test::ioBackendName;
using sluice::test::ScratchDir;

namespace {

struct EngineDeleter {
  void operator()(sluice_io_engine_t *e) const { sluice_io_engine_destroy(e); }
};
using Engine = std::unique_ptr<sluice_io_engine_t, EngineDeleter>;
struct FileDeleter {
  void operator()(sluice_io_file_t *f) const { sluice_io_file_close(f); }
};
using File = std::unique_ptr<sluice_io_file_t, FileDeleter>;
struct BufferDeleter {
  void operator()(void *p) const { sluice_io_free(p); }
};
using Buffer = std::unique_ptr<char, BufferDeleter>;

Buffer alloc(size_t bytes) {
  return Buffer(static_cast<char *>(sluice_io_alloc(bytes, 4096)));
}

Engine makeEngine(sluice_io_backend_t backend, uint64_t blockSize = 65536,
                  uint32_t depth = 8) {
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  o.backend = backend;
  o.block_size = blockSize;
  o.queue_depth = depth;
  sluice_io_engine_t *e = nullptr;
  sluice_error_t err;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err), SLUICE_STATUS_OK)
      << err.message;
  return Engine(e);
}

File openFile(sluice_io_engine_t *e, const std::string &path, uint32_t flags) {
  sluice_io_file_t *f = nullptr;
  sluice_error_t err;
  EXPECT_EQ(sluice_io_file_open(e, path.c_str(), flags, &f, &err),
            SLUICE_STATUS_OK)
      << err.message;
  return File(f);
}

sluice_io_request_t request(sluice_io_op_t op, sluice_io_file_t *f,
                            uint64_t offset, uint64_t length, void *buffer) {
  sluice_io_request_t r{};
  r.op = op;
  r.file = f;
  r.offset = offset;
  r.length = length;
  r.buffer = buffer;
  return r;
}

/// Submits and waits; returns the batch status and fills `err`.
sluice_status_t run(sluice_io_engine_t *e, std::vector<sluice_io_request_t> &rs,
                    sluice_error_t *err) {
  sluice_io_batch_t *b = nullptr;
  sluice_status_t s = sluice_io_submit(e, rs.data(), rs.size(), &b, err);
  if (s != SLUICE_STATUS_OK)
    return s;
  s = sluice_io_batch_wait(b, err);
  EXPECT_EQ(sluice_io_batch_poll(b), 1);
  EXPECT_GT(sluice_io_batch_elapsed_ns(b), 0u);
  sluice_io_batch_release(b);
  return s;
}

class IoEngineTest : public testing::TestWithParam<sluice_io_backend_t> {};

std::vector<sluice_io_backend_t> backends() {
  std::vector<sluice_io_backend_t> list = {SLUICE_IO_BACKEND_THREADS};
  // io_uring where this kernel allows it (the AUTO choice says).
  Engine probe = makeEngine(SLUICE_IO_BACKEND_AUTO);
  if (probe && sluice_io_engine_backend(probe.get()) == SLUICE_IO_BACKEND_URING)
    list.push_back(SLUICE_IO_BACKEND_URING);
  return list;
}

/// Random non-overlapping, aligned requests covering parts of a file, as
/// several batches in flight at once; read back with the engine and with
/// pread.
void randomRoundTrip(sluice_io_backend_t backend, bool direct,
                     unsigned seed) {
  ScratchDir dir;
  Engine e = makeEngine(backend, 65536, 8);
  const uint64_t fileBytes = 8 << 20;
  const uint64_t unit = direct ? 4096 : 1;
  std::mt19937_64 rng(seed);
  File f = openFile(e.get(), dir.file("data"),
                    SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                        SLUICE_IO_FILE_CREATE |
                        (direct ? SLUICE_IO_FILE_DIRECT : 0));
  ASSERT_TRUE(f);
  // Cut [0, fileBytes) into random pieces; keep ~70% of them.
  struct Piece {
    uint64_t offset, length;
  };
  std::vector<Piece> pieces;
  for (uint64_t at = 0; at < fileBytes;) {
    uint64_t len = (1 + rng() % (300000 / unit)) * unit;
    len = std::min(len, fileBytes - at);
    if (rng() % 10 < 7)
      pieces.push_back({at, len});
    at += len;
  }
  std::shuffle(pieces.begin(), pieces.end(), rng);
  std::vector<Buffer> data, back;
  for (const Piece &p : pieces) {
    data.push_back(alloc(p.length));
    back.push_back(alloc(p.length));
    for (uint64_t i = 0; i < p.length; ++i)
      data.back().get()[i] = static_cast<char>(rng());
  }
  // Writes: split into 3 batches, all in flight together.
  std::vector<sluice_io_request_t> writes;
  for (size_t i = 0; i < pieces.size(); ++i)
    writes.push_back(request(SLUICE_IO_WRITE, f.get(), pieces[i].offset,
                             pieces[i].length, data[i].get()));
  size_t third = writes.size() / 3;
  std::vector<sluice_io_batch_t *> batches;
  sluice_error_t err;
  for (size_t from : {size_t(0), third, 2 * third}) {
    size_t to = from == 2 * third ? writes.size() : from + third;
    sluice_io_batch_t *b;
    ASSERT_EQ(sluice_io_submit(e.get(), writes.data() + from, to - from, &b,
                               &err),
              SLUICE_STATUS_OK)
        << err.message;
    batches.push_back(b);
  }
  for (sluice_io_batch_t *b : batches) {
    EXPECT_EQ(sluice_io_batch_wait(b, &err), SLUICE_STATUS_OK) << err.message;
    sluice_io_batch_release(b);
  }
  for (const sluice_io_request_t &r : writes) {
    EXPECT_EQ(r.status, SLUICE_STATUS_OK);
    EXPECT_EQ(r.transferred, r.length);
  }
  std::vector<sluice_io_request_t> reads;
  for (size_t i = 0; i < pieces.size(); ++i)
    reads.push_back(request(SLUICE_IO_READ, f.get(), pieces[i].offset,
                            pieces[i].length, back[i].get()));
  ASSERT_EQ(run(e.get(), reads, &err), SLUICE_STATUS_OK) << err.message;
  int fd = ::open(dir.file("data").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_EQ(reads[i].transferred, pieces[i].length);
    ASSERT_EQ(std::memcmp(data[i].get(), back[i].get(), pieces[i].length), 0)
        << "piece " << i;
    std::vector<char> viaPread(pieces[i].length);
    ASSERT_EQ(::pread(fd, viaPread.data(), pieces[i].length,
                      static_cast<off_t>(pieces[i].offset)),
              static_cast<ssize_t>(pieces[i].length));
    ASSERT_EQ(std::memcmp(data[i].get(), viaPread.data(), pieces[i].length),
              0);
  }
  ::close(fd);
  sluice_io_stats_t stats;
  sluice_io_engine_stats(e.get(), &stats);
  EXPECT_EQ(stats.requests, 2 * pieces.size());
  EXPECT_GT(stats.blocks, stats.requests); // requests were split
  EXPECT_EQ(stats.failed_requests, 0u);
  EXPECT_GT(stats.busy_ns, 0u);
}

TEST_P(IoEngineTest, RandomBatchesDirect) { randomRoundTrip(GetParam(), true, 1); }
TEST_P(IoEngineTest, RandomBatchesBuffered) {
  randomRoundTrip(GetParam(), false, 2);
}

TEST_P(IoEngineTest, DirectMisalignmentIsRejectedBeforeAnyIo) {
  ScratchDir dir;
  Engine e = makeEngine(GetParam());
  File f = openFile(e.get(), dir.file("d"),
                    SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                        SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_DIRECT);
  Buffer buf = alloc(16384);
  struct Case {
    uint64_t offset, length;
    size_t shift;
    const char *what;
  } cases[] = {{100, 4096, 0, "offset 100 is not"},
               {0, 1000, 0, "length 1000 is not"},
               {0, 4096, 8, "buffer address"}};
  for (const Case &c : cases) {
    std::vector<sluice_io_request_t> rs = {
        request(SLUICE_IO_WRITE, f.get(), 0, 4096, buf.get()),
        request(SLUICE_IO_WRITE, f.get(), c.offset, c.length,
                buf.get() + c.shift)};
    sluice_error_t err;
    sluice_io_batch_t *b = nullptr;
    EXPECT_EQ(sluice_io_submit(e.get(), rs.data(), rs.size(), &b, &err),
              SLUICE_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(b, nullptr);
    std::string m = err.message;
    EXPECT_NE(m.find("request 1: O_DIRECT needs buffer, offset and length "
                     "aligned to 4096 bytes"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(c.what), std::string::npos) << m;
    EXPECT_EQ(std::string(err.path), dir.file("d"));
  }
  // Nothing of the batches ran: the file is still empty.
  EXPECT_EQ(sluice::test::readAll(dir.file("d")).size(), 0u);
}

TEST_P(IoEngineTest, ReadPastEndOfFileIsAnErrorWithThePrefix) {
  ScratchDir dir;
  {
    std::ofstream out(dir.file("short"), std::ios::binary);
    out << std::string(5000, 'x');
  }
  Engine e = makeEngine(GetParam());
  File f = openFile(e.get(), dir.file("short"), SLUICE_IO_FILE_READ);
  Buffer buf = alloc(8192);
  std::vector<sluice_io_request_t> rs = {
      request(SLUICE_IO_READ, f.get(), 0, 8192, buf.get())};
  sluice_error_t err;
  EXPECT_EQ(run(e.get(), rs, &err), SLUICE_STATUS_IO_ERROR);
  EXPECT_EQ(rs[0].transferred, 5000u);
  EXPECT_EQ(rs[0].sys_errno, EIO);
  EXPECT_EQ(err.byte_offset, 5000u);
  EXPECT_NE(std::string(err.message).find("unexpected end of file"),
            std::string::npos)
      << err.message;
  EXPECT_EQ(std::string(buf.get(), 5000), std::string(5000, 'x'));
}

/// A batch of 4 writes of 64 KiB with the fault on request `nth`.
void faultCase(sluice_io_backend_t backend, sluice_io_fault_t fault,
               sluice_io_op_t op, sluice_status_t expect, int expectErrno,
               const char *expectText) {
  ScratchDir dir;
  Engine e = makeEngine(backend, 16384, 4);
  File f = openFile(e.get(), dir.file("f"),
                    SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                        SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_DIRECT);
  const uint64_t n = 65536;
  Buffer src = alloc(4 * n), dst = alloc(4 * n);
  for (uint64_t i = 0; i < 4 * n; ++i)
    src.get()[i] = static_cast<char>(i * 7 + 3);
  std::vector<sluice_io_request_t> rs;
  for (int i = 0; i < 4; ++i)
    rs.push_back(request(SLUICE_IO_WRITE, f.get(), i * n, n, src.get() + i * n));
  sluice_error_t err;
  if (op == SLUICE_IO_READ) {
    ASSERT_EQ(run(e.get(), rs, &err), SLUICE_STATUS_OK) << err.message;
    for (auto &r : rs) {
      r.op = SLUICE_IO_READ;
      r.buffer = dst.get() + r.offset;
    }
  }
  sluice_io_engine_inject_fault(e.get(), 2, fault);
  sluice_status_t s = run(e.get(), rs, &err);
  EXPECT_EQ(s, expect) << err.message;
  for (int i = 0; i < 4; ++i) {
    if (i == 2 && expect != SLUICE_STATUS_OK) {
      EXPECT_EQ(rs[i].status, expect);
      EXPECT_EQ(rs[i].sys_errno, expectErrno);
      EXPECT_LT(rs[i].transferred, n);
      continue;
    }
    EXPECT_EQ(rs[i].status, SLUICE_STATUS_OK) << i;
    EXPECT_EQ(rs[i].transferred, n) << i;
  }
  if (expect != SLUICE_STATUS_OK) {
    std::string m = err.message;
    EXPECT_NE(m.find("request 2: "), std::string::npos) << m;
    EXPECT_NE(m.find(expectText), std::string::npos) << m;
    EXPECT_EQ(std::string(err.path), dir.file("f"));
    EXPECT_EQ(err.byte_offset, 2 * n);
  } else {
    // The short transfer was retried: the data is whole.
    sluice_io_stats_t stats;
    sluice_io_engine_stats(e.get(), &stats);
    EXPECT_GE(stats.short_transfers_retried, 1u);
    std::vector<char> file = sluice::test::readAll(dir.file("f"));
    ASSERT_EQ(file.size(), 4 * n);
    EXPECT_EQ(std::memcmp(file.data(), src.get(), 4 * n), 0);
    if (op == SLUICE_IO_READ) {
      EXPECT_EQ(std::memcmp(dst.get(), src.get(), 4 * n), 0);
    }
  }
}

TEST_P(IoEngineTest, InjectedEioOnWrite) {
  faultCase(GetParam(), SLUICE_IO_FAULT_EIO, SLUICE_IO_WRITE,
            SLUICE_STATUS_IO_ERROR, EIO, "Input/output error");
}
TEST_P(IoEngineTest, InjectedEioOnRead) {
  faultCase(GetParam(), SLUICE_IO_FAULT_EIO, SLUICE_IO_READ,
            SLUICE_STATUS_IO_ERROR, EIO, "read of 65536 bytes at offset 131072");
}
TEST_P(IoEngineTest, InjectedEnospc) {
  faultCase(GetParam(), SLUICE_IO_FAULT_ENOSPC, SLUICE_IO_WRITE,
            SLUICE_STATUS_IO_ERROR, ENOSPC, "No space left on device");
}
TEST_P(IoEngineTest, InjectedZeroTransferOnRead) {
  faultCase(GetParam(), SLUICE_IO_FAULT_ZERO, SLUICE_IO_READ,
            SLUICE_STATUS_IO_ERROR, EIO, "unexpected end of file");
}
TEST_P(IoEngineTest, InjectedZeroTransferOnWrite) {
  faultCase(GetParam(), SLUICE_IO_FAULT_ZERO, SLUICE_IO_WRITE,
            SLUICE_STATUS_IO_ERROR, EIO, "the device accepted no bytes");
}
TEST_P(IoEngineTest, ShortReadIsRetried) {
  faultCase(GetParam(), SLUICE_IO_FAULT_SHORT, SLUICE_IO_READ,
            SLUICE_STATUS_OK, 0, "");
}
TEST_P(IoEngineTest, ShortWriteIsRetried) {
  faultCase(GetParam(), SLUICE_IO_FAULT_SHORT, SLUICE_IO_WRITE,
            SLUICE_STATUS_OK, 0, "");
}

TEST_P(IoEngineTest, FaultIndexCountsAcrossBatches) {
  ScratchDir dir;
  Engine e = makeEngine(GetParam());
  File f = openFile(e.get(), dir.file("f"),
                    SLUICE_IO_FILE_WRITE | SLUICE_IO_FILE_CREATE);
  Buffer buf = alloc(4096);
  sluice_io_engine_inject_fault(e.get(), 3, SLUICE_IO_FAULT_EIO);
  sluice_error_t err;
  std::vector<sluice_io_request_t> first = {
      request(SLUICE_IO_WRITE, f.get(), 0, 100, buf.get()),
      request(SLUICE_IO_WRITE, f.get(), 100, 100, buf.get())};
  EXPECT_EQ(run(e.get(), first, &err), SLUICE_STATUS_OK);
  std::vector<sluice_io_request_t> second = first;
  EXPECT_EQ(run(e.get(), second, &err), SLUICE_STATUS_IO_ERROR);
  EXPECT_EQ(second[0].status, SLUICE_STATUS_OK);
  EXPECT_EQ(second[1].status, SLUICE_STATUS_IO_ERROR);
  std::vector<sluice_io_request_t> third = first; // disarmed after firing
  EXPECT_EQ(run(e.get(), third, &err), SLUICE_STATUS_OK);
}

TEST_P(IoEngineTest, RequestsAreValidated) {
  ScratchDir dir;
  Engine e = makeEngine(GetParam());
  File ro = openFile(e.get(), dir.file("ro"),
                     SLUICE_IO_FILE_WRITE | SLUICE_IO_FILE_CREATE);
  Buffer buf = alloc(4096);
  sluice_error_t err;
  std::vector<sluice_io_request_t> rs = {
      request(SLUICE_IO_READ, ro.get(), 0, 10, buf.get())};
  EXPECT_EQ(run(e.get(), rs, &err), SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("a read on a file not opened for it"),
            std::string::npos)
      << err.message;
  rs[0].op = SLUICE_IO_WRITE;
  rs[0].length = 0;
  EXPECT_EQ(run(e.get(), rs, &err), SLUICE_STATUS_INVALID_ARGUMENT);
  rs[0].length = 10;
  rs[0].file = nullptr;
  EXPECT_EQ(run(e.get(), rs, &err), SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_io_batch_t *b;
  EXPECT_EQ(sluice_io_submit(e.get(), rs.data(), 0, &b, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_io_file_t *f = nullptr;
  EXPECT_EQ(sluice_io_file_open(e.get(), dir.file("missing").c_str(),
                                SLUICE_IO_FILE_READ, &f, &err),
            SLUICE_STATUS_NOT_FOUND);
  EXPECT_EQ(f, nullptr);
  EXPECT_EQ(sluice_io_file_open(e.get(), dir.path.c_str(), SLUICE_IO_FILE_READ,
                                &f, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(Backends, IoEngineTest, testing::ValuesIn(backends()),
                         ioBackendName);

TEST(IoEngineOptions, BadOptionsAreRejected) {
  sluice_io_options_t o;
  sluice_io_engine_t *e = nullptr;
  sluice_error_t err;
  sluice_io_options_init(&o);
  o.queue_depth = 0;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("queue depth 0"), std::string::npos);
  sluice_io_options_init(&o);
  o.block_size = 5000;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  sluice_io_options_init(&o);
  o.direct_alignment = 1000;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
}

TEST(IoEngineOptions, ForcedFallbackAndDetection) {
  Engine threads = makeEngine(SLUICE_IO_BACKEND_THREADS);
  EXPECT_EQ(sluice_io_engine_backend(threads.get()), SLUICE_IO_BACKEND_THREADS);
  EXPECT_STREQ(sluice_io_engine_fallback_reason(threads.get()), "");
  Engine autoEngine = makeEngine(SLUICE_IO_BACKEND_AUTO);
  if (sluice_io_engine_backend(autoEngine.get()) ==
      SLUICE_IO_BACKEND_THREADS) {
    EXPECT_STRNE(sluice_io_engine_fallback_reason(autoEngine.get()), "");
  }
  // A refusal at start-up (as from seccomp) falls back with the reason.
  ::setenv("SLUICE_IO_DISABLE_URING", "1", 1);
  Engine refused = makeEngine(SLUICE_IO_BACKEND_AUTO);
  EXPECT_EQ(sluice_io_engine_backend(refused.get()), SLUICE_IO_BACKEND_THREADS);
  EXPECT_STREQ(sluice_io_engine_fallback_reason(refused.get()),
               "disabled by SLUICE_IO_DISABLE_URING");
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  o.backend = SLUICE_IO_BACKEND_URING;
  sluice_io_engine_t *e = nullptr;
  sluice_error_t err;
  EXPECT_EQ(sluice_io_engine_create(&o, &e, &err), SLUICE_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(err.message).find("io_uring is not available"),
            std::string::npos);
  ::unsetenv("SLUICE_IO_DISABLE_URING");
}

/// Bitwise CRC-32C, the definition.
uint32_t referenceCrc(const unsigned char *p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return ~crc;
}

TEST(Crc32c, KnownAnswers) {
  EXPECT_EQ(sluice_crc32c(0, "123456789", 9), 0xE3069283u);
  // RFC 3720, B.4.
  unsigned char zeros[32] = {}, ones[32], inc[32];
  for (int i = 0; i < 32; ++i) {
    ones[i] = 0xff;
    inc[i] = static_cast<unsigned char>(i);
  }
  EXPECT_EQ(sluice_crc32c(0, zeros, 32), 0x8A9136AAu);
  EXPECT_EQ(sluice_crc32c(0, ones, 32), 0x62A8AB43u);
  EXPECT_EQ(sluice_crc32c(0, inc, 32), 0x46DD794Eu);
}

TEST(Crc32c, MatchesTheBitwiseDefinitionAtAllSizesAndAlignments) {
  std::mt19937 rng(7);
  std::vector<unsigned char> data(200000 + 16);
  for (auto &b : data)
    b = static_cast<unsigned char>(rng());
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(63),
                   size_t(24575), size_t(24576), size_t(24577), size_t(49152),
                   size_t(100003), size_t(200000)})
    for (size_t shift : {0, 1, 5})
      EXPECT_EQ(sluice_crc32c(0, data.data() + shift, n),
                referenceCrc(data.data() + shift, n))
          << n << " " << shift;
  // Continuing a CRC equals one pass.
  uint32_t part = sluice_crc32c(0, data.data(), 30000);
  EXPECT_EQ(sluice_crc32c(part, data.data() + 30000, 70000),
            sluice_crc32c(0, data.data(), 100000));
}

} // namespace
