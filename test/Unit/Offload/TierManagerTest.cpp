//===- TierManagerTest.cpp - Tensors swapped to disk (sluice/tier.h) -------===//
//
// Round trips, checksums that catch a flipped byte, failed writes that keep
// the previous copy, budgets, commit and reopen; on both I/O backends.
//
//===----------------------------------------------------------------------===//
#include "sluice/tier.h"

#include "test/Unit/Offload/IoBackends.h"
#include "test/Unit/Offload/TestDir.h"
#include "test/Unit/Support/SyscallFaults.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using sluice::test::failSyscall;
using sluice::test::ioBackendName;
using sluice::test::ioBackends;
using sluice::test::PathMatch;
using sluice::test::ScratchDir;
using sluice::test::Syscall;

namespace {

class TierTest : public testing::TestWithParam<sluice_io_backend_t> {
protected:
  void SetUp() override {
    sluice_io_options_t o;
    sluice_io_options_init(&o);
    o.backend = GetParam();
    o.block_size = 16384; // several blocks per tensor
    ASSERT_EQ(sluice_io_engine_create(&o, &engine, nullptr), SLUICE_STATUS_OK);
  }
  void TearDown() override {
    sluice_tier_manager_destroy(manager);
    sluice_io_engine_destroy(engine);
  }
  void open(uint64_t deviceBudget = UINT64_MAX) {
    sluice_tier_options_t o;
    sluice_tier_options_init(&o);
    o.swap_dir = dir.path.c_str();
    o.engine = engine;
    o.device_budget = deviceBudget;
    sluice_error_t err;
    ASSERT_EQ(sluice_tier_manager_create(&o, &manager, &err), SLUICE_STATUS_OK)
        << err.message;
  }
  sluice_tensor_t make(const char *name, uint64_t bytes, unsigned seed,
                       sluice_tier_t tier = SLUICE_TIER_HOST,
                       uint32_t flags = 0) {
    sluice_tensor_t id = 0;
    sluice_error_t err;
    EXPECT_EQ(sluice_tier_tensor_create(manager, name, bytes, tier, flags, &id,
                                        &err),
              SLUICE_STATUS_OK)
        << err.message;
    fill(id, seed);
    return id;
  }
  void fill(sluice_tensor_t id, unsigned seed) {
    auto *p = static_cast<unsigned char *>(sluice_tier_tensor_write(manager, id));
    ASSERT_NE(p, nullptr);
    std::mt19937 rng(seed);
    for (uint64_t i = 0; i < sluice_tier_tensor_bytes(manager, id); ++i)
      p[i] = static_cast<unsigned char>(rng());
  }
  std::vector<unsigned char> expected(uint64_t bytes, unsigned seed) {
    std::vector<unsigned char> v(bytes);
    std::mt19937 rng(seed);
    for (auto &b : v)
      b = static_cast<unsigned char>(rng());
    return v;
  }
  sluice_status_t out(sluice_tensor_t id, sluice_error_t *err = nullptr) {
    sluice_status_t s = sluice_tier_swap_out(manager, &id, 1, err);
    return s ? s : sluice_tier_wait(manager, &id, 1, err);
  }
  sluice_status_t in(sluice_tensor_t id, sluice_error_t *err = nullptr) {
    sluice_status_t s = sluice_tier_prefetch(manager, &id, 1, err);
    return s ? s : sluice_tier_wait(manager, &id, 1, err);
  }
  bool holds(sluice_tensor_t id, const std::vector<unsigned char> &want) {
    const void *p = sluice_tier_tensor_read(manager, id);
    return p && std::memcmp(p, want.data(), want.size()) == 0;
  }

  ScratchDir dir;
  sluice_io_engine_t *engine = nullptr;
  sluice_tier_manager_t *manager = nullptr;
};

TEST_P(TierTest, SwapOutAndBackAgain) {
  open();
  const uint64_t bytes = 100000; // not a multiple of 4096
  sluice_tensor_t a = make("a", bytes, 1), b = make("b", 5000, 2);
  sluice_tensor_t both[] = {a, b};
  ASSERT_EQ(sluice_tier_swap_out(manager, both, 2, nullptr), SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_SWAPPING_OUT);
  EXPECT_NE(sluice_tier_tensor_read(manager, a), nullptr); // still readable
  EXPECT_EQ(sluice_tier_tensor_write(manager, a), nullptr);
  ASSERT_EQ(sluice_tier_wait_all(manager, nullptr), SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_ON_DISK);
  EXPECT_EQ(sluice_tier_tensor_read(manager, a), nullptr);
  int has = 0;
  uint32_t crc = sluice_tier_tensor_disk_crc(manager, a, &has);
  EXPECT_EQ(has, 1);
  auto want = expected(bytes, 1);
  EXPECT_EQ(crc, sluice_crc32c(0, want.data(), bytes));
  EXPECT_EQ(std::string(sluice_tier_tensor_disk_path(manager, a)),
            dir.file("a.1.swap"));
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"a.1.swap", "b.1.swap"}));
  ASSERT_EQ(sluice_tier_prefetch(manager, both, 2, nullptr), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_wait_all(manager, nullptr), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(a, want));
  EXPECT_TRUE(holds(b, expected(5000, 2)));
  // Unchanged: leaving memory needs no write.
  sluice_tier_stats_t stats;
  sluice_tier_stats(manager, &stats);
  uint64_t writes = stats.swap_outs;
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  sluice_tier_stats(manager, &stats);
  EXPECT_EQ(stats.swap_outs, writes);
  EXPECT_EQ(stats.swap_outs_clean, 1u);
  // Changed: a new generation replaces the old file.
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  fill(a, 3);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_wait_all(manager, nullptr), SLUICE_STATUS_OK);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"a.2.swap", "b.1.swap"}));
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(a, expected(bytes, 3)));
}

TEST_P(TierTest, AFlippedByteIsDetectedAndTheTensorStaysOnDisk) {
  open();
  sluice_tensor_t a = make("a", 50000, 4);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  std::string path = sluice_tier_tensor_disk_path(manager, a);
  for (uint64_t where : {uint64_t(4096 + 12345), uint64_t(40)}) {
    sluice::test::flipByte(path, where);
    sluice_tier_stats_t before, after;
    sluice_tier_stats(manager, &before);
    sluice_error_t err;
    EXPECT_EQ(in(a, &err), SLUICE_STATUS_DATA_CORRUPT);
    std::string m = err.message;
    EXPECT_NE(m.find("prefetching tensor 'a' failed; it stays on disk"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(where > 4096 ? "checksum mismatch: expected CRC-32C"
                                  : "header checksum mismatch"),
              std::string::npos)
        << m;
    EXPECT_EQ(std::string(err.path), path);
    EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_ON_DISK);
    EXPECT_EQ(sluice_tier_tensor_read(manager, a), nullptr);
    sluice_tier_stats(manager, &after);
    EXPECT_EQ(after.host_used, before.host_used);
    sluice::test::flipByte(path, where); // repair
    ASSERT_EQ(in(a), SLUICE_STATUS_OK);
    EXPECT_TRUE(holds(a, expected(50000, 4)));
    ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  }
}

TEST_P(TierTest, AFailedWriteKeepsThePreviousCopyAndTheTensor) {
  open();
  const uint64_t bytes = 70000;
  sluice_tensor_t a = make("a", bytes, 5);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  const std::string good = sluice_tier_tensor_disk_path(manager, a);
  const std::vector<char> goodBytes = sluice::test::readAll(good);
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  fill(a, 6);
  for (sluice_io_fault_t fault :
       {SLUICE_IO_FAULT_EIO, SLUICE_IO_FAULT_ENOSPC, SLUICE_IO_FAULT_ZERO}) {
    for (uint64_t nth : {0, 1}) { // header, payload
      sluice_io_engine_inject_fault(engine, nth, fault);
      sluice_error_t err;
      EXPECT_EQ(out(a, &err), SLUICE_STATUS_IO_ERROR);
      EXPECT_NE(std::string(err.message)
                    .find("swapping out tensor 'a' failed; it stays in memory "
                          "and its previous copy is intact"),
                std::string::npos)
          << err.message;
      EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_RESIDENT);
      EXPECT_TRUE(holds(a, expected(bytes, 6)));
      EXPECT_EQ(std::string(sluice_tier_tensor_disk_path(manager, a)), good);
      EXPECT_EQ(sluice::test::readAll(good), goodBytes);
      EXPECT_EQ(dir.list(), (std::vector<std::string>{"a.1.swap"}));
    }
  }
  // A short write is retried and succeeds.
  sluice_io_engine_inject_fault(engine, 1, SLUICE_IO_FAULT_SHORT);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(a, expected(bytes, 6)));
  // A failed read leaves it on disk, and a retry works.
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  sluice_io_engine_inject_fault(engine, 1, SLUICE_IO_FAULT_EIO);
  EXPECT_EQ(in(a), SLUICE_STATUS_IO_ERROR);
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_ON_DISK);
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(a, expected(bytes, 6)));
}

TEST_P(TierTest, DeviceBudget) {
  open(3 * 8192);
  sluice_tensor_t a = make("a", 8000, 1, SLUICE_TIER_DEVICE);
  sluice_tensor_t b = make("b", 8192, 2, SLUICE_TIER_DEVICE);
  sluice_tensor_t h = make("h", 1 << 20, 3, SLUICE_TIER_HOST);
  (void)h;
  sluice_tensor_t c = 0;
  sluice_error_t err;
  EXPECT_EQ(sluice_tier_tensor_create(manager, "c", 8193, SLUICE_TIER_DEVICE,
                                      0, &c, &err),
            SLUICE_STATUS_OUT_OF_MEMORY);
  EXPECT_STREQ(err.message, "device budget exceeded: tensor 'c' needs 12288 "
                            "bytes, 16384 of 24576 are in use");
  // A pending swap-out frees its memory when the budget needs it.
  ASSERT_EQ(sluice_tier_swap_out(manager, &a, 1, nullptr), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_tensor_create(manager, "c", 8193, SLUICE_TIER_DEVICE,
                                      0, &c, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_ON_DISK);
  EXPECT_EQ(sluice_tier_prefetch(manager, &a, 1, &err),
            SLUICE_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_ON_DISK);
  ASSERT_EQ(out(b), SLUICE_STATUS_OK);
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(a, expected(8000, 1)));
  sluice_tier_stats_t stats;
  sluice_tier_stats(manager, &stats);
  EXPECT_EQ(stats.device_used, 8192u + 12288u);
  EXPECT_EQ(stats.device_peak, 8192u + 12288u);
  EXPECT_EQ(stats.host_used, uint64_t(1) << 20);
}

TEST_P(TierTest, DiscardDropsMemoryAndCopy) {
  open();
  sluice_tensor_t a = make("a", 10000, 1);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_discard(manager, &a, 1, nullptr), SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_EMPTY);
  ASSERT_EQ(sluice_tier_wait_all(manager, nullptr), SLUICE_STATUS_OK);
  EXPECT_TRUE(dir.list().empty());
  ASSERT_EQ(in(a), SLUICE_STATUS_OK); // zero-filled, no read
  EXPECT_TRUE(holds(a, std::vector<unsigned char>(10000, 0)));
}

TEST_P(TierTest, CommitAndReopen) {
  open();
  sluice_tensor_t p = make("p", 30000, 1, SLUICE_TIER_HOST,
                           SLUICE_TIER_PERSISTENT);
  sluice_tensor_t t = make("scratch", 3000, 2);
  const std::string manifest = dir.file("manifest");
  sluice_error_t err;
  EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(std::string(err.message).find("persistent tensor 'p' has no "
                                          "current disk copy"),
            std::string::npos);
  ASSERT_EQ(out(p), SLUICE_STATUS_OK);
  ASSERT_EQ(out(t), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_OK)
      << err.message;
  // A newer, uncommitted copy: the committed one must survive it.
  ASSERT_EQ(in(p), SLUICE_STATUS_OK);
  fill(p, 9);
  ASSERT_EQ(out(p), SLUICE_STATUS_OK);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"manifest", "p.1.swap",
                                                  "p.2.swap",
                                                  "scratch.1.swap"}));
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"manifest", "p.1.swap"}));
  sluice_tier_options_t o;
  sluice_tier_options_init(&o);
  o.swap_dir = dir.path.c_str();
  o.engine = engine;
  ASSERT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_OK)
      << err.message;
  ASSERT_EQ(sluice_tier_tensor_count(manager), 1u);
  sluice_tensor_t q;
  ASSERT_EQ(sluice_tier_tensor_find(manager, "p", &q, nullptr),
            SLUICE_STATUS_OK);
  EXPECT_EQ(sluice_tier_tensor_state(manager, q), SLUICE_TENSOR_ON_DISK);
  ASSERT_EQ(in(q), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(q, expected(30000, 1)));
  // A malformed manifest: a located parse error.
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  const std::string bad = dir.file("bad-manifest");
  {
    std::ofstream out(bad);
    out << "sluice-tier-manifest 1\np 30000 host 1 zz\n";
  }
  EXPECT_EQ(sluice_tier_manager_open(&o, bad.c_str(), &manager, &err),
            SLUICE_STATUS_PARSE_ERROR);
  EXPECT_EQ(err.line, 2u);
  EXPECT_NE(std::string(err.message).find("'p 30000 host 1 zz'"),
            std::string::npos)
      << err.message;
  EXPECT_EQ(manager, nullptr);
  ASSERT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_OK)
      << err.message;
  // A manifest that names a damaged file is refused: a damaged payload as
  // well as a damaged header (the payload is read whole at open, not only
  // when the tensor is prefetched), and a truncated file.
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  const std::string copy = dir.file("p.1.swap");
  const std::vector<char> good = sluice::test::readAll(copy);
  sluice::test::flipByte(copy, 4096 + 29999);
  EXPECT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(manager, nullptr);
  EXPECT_EQ(std::string(err.path), copy);
  EXPECT_EQ(err.byte_offset, 4096u);
  EXPECT_EQ(std::string(err.message)
                .rfind("the committed copy of tensor 'p' is corrupt: checksum "
                       "mismatch: expected CRC-32C 0x",
                       0),
            0u)
      << err.message;
  sluice::test::flipByte(copy, 4096 + 29999);
  sluice::test::flipByte(copy, 20);
  EXPECT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_EQ(manager, nullptr);
  EXPECT_STREQ(err.message, "the committed copy of tensor 'p' is corrupt: "
                            "header checksum mismatch");
  sluice::test::flipByte(copy, 20);
  {
    std::ofstream cut(copy, std::ios::binary | std::ios::trunc);
    cut.write(good.data(), 4096 + 8192);
  }
  EXPECT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_DATA_CORRUPT);
  EXPECT_STREQ(err.message, "the committed copy of tensor 'p' is corrupt: the "
                            "file has 12288 bytes, expected 36864");
  {
    std::ofstream whole(copy, std::ios::binary | std::ios::trunc);
    whole.write(good.data(), static_cast<std::streamsize>(good.size()));
  }
  ASSERT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_OK)
      << err.message;
}

/// Every fsync, close and rename of a commit is checked: a failure fails
/// the commit cleanly. Before the new manifest is in place nothing changes;
/// once it is in place but not durable, the copies both manifests name are
/// kept, so that whichever one a crash leaves can be opened.
TEST_P(TierTest, CommitFailsOnEveryUnflushedStepAndKeepsBothStates) {
  sluice::test::SyscallFaultScope scope;
  open();
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir.path.c_str(), real), nullptr);
  const std::string root = real;
  const std::string manifest = dir.file("manifest");
  sluice_tensor_t p =
      make("p", 30000, 1, SLUICE_TIER_HOST, SLUICE_TIER_PERSISTENT);
  ASSERT_EQ(out(p), SLUICE_STATUS_OK);
  sluice_error_t err;
  ASSERT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_OK)
      << err.message;
  const std::vector<char> first = sluice::test::readAll(manifest);
  ASSERT_EQ(in(p), SLUICE_STATUS_OK);
  fill(p, 9);
  ASSERT_EQ(out(p), SLUICE_STATUS_OK);
  const std::vector<std::string> files = {"manifest", "p.1.swap", "p.2.swap"};

  // The swap directory's fsync before the manifest is written.
  failSyscall(Syscall::Fsync, EIO, root, 0, PathMatch::Exactly);
  EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_IO_ERROR);
  EXPECT_EQ(std::string(err.message),
            "cannot flush the swap directory to disk (fsync): Input/output "
            "error");
  EXPECT_EQ(sluice::test::readAll(manifest), first);
  EXPECT_EQ(dir.list(), files);
  // The new manifest's own fsync, close or rename.
  for (Syscall call : {Syscall::Fsync, Syscall::Close}) {
    failSyscall(call, EIO, "/.manifest.tmp-");
    EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
              SLUICE_STATUS_IO_ERROR);
    EXPECT_EQ(sluice::test::readAll(manifest), first) << err.message;
    EXPECT_EQ(dir.list(), files);
  }
  failSyscall(Syscall::Rename, EIO, manifest, 0, PathMatch::Exactly);
  EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(err.message).find("cannot rename"), std::string::npos)
      << err.message;
  EXPECT_EQ(sluice::test::readAll(manifest), first);

  // The directory's fsync after the rename: the commit fails, the new
  // manifest is in place, and both generations stay on disk.
  failSyscall(Syscall::Fsync, EIO, root, 1, PathMatch::Exactly);
  EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(err.message)
                .find("the file is in place but flushing "
                      "(fsync) its directory"),
            std::string::npos)
      << err.message;
  EXPECT_NE(sluice::test::readAll(manifest), first);
  ASSERT_EQ(sluice_tier_wait_all(manager, &err), SLUICE_STATUS_OK);
  EXPECT_EQ(dir.list(), files);
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  EXPECT_EQ(dir.list(), files) << "both committed states are kept";
  // A crash that brought the first manifest back: its copy is there.
  {
    std::ofstream back(manifest, std::ios::binary | std::ios::trunc);
    back.write(first.data(), static_cast<std::streamsize>(first.size()));
  }
  sluice_tier_options_t o;
  sluice_tier_options_init(&o);
  o.swap_dir = dir.path.c_str();
  o.engine = engine;
  ASSERT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_OK)
      << err.message;
  sluice_tensor_t q;
  ASSERT_EQ(sluice_tier_tensor_find(manager, "p", &q, nullptr),
            SLUICE_STATUS_OK);
  ASSERT_EQ(in(q), SLUICE_STATUS_OK);
  EXPECT_TRUE(holds(q, expected(30000, 1)));

  // Without a crash: the next durable commit removes the copy only the
  // unconfirmed one kept.
  fill(q, 9);
  ASSERT_EQ(out(q), SLUICE_STATUS_OK);
  failSyscall(Syscall::Fsync, EIO, root, 1, PathMatch::Exactly);
  EXPECT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_IO_ERROR);
  ASSERT_EQ(in(q), SLUICE_STATUS_OK);
  fill(q, 10);
  ASSERT_EQ(out(q), SLUICE_STATUS_OK);
  ASSERT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_OK)
      << err.message;
  ASSERT_EQ(sluice_tier_wait_all(manager, &err), SLUICE_STATUS_OK);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"manifest", "p.3.swap"}));
}

/// A swap file whose close(2) fails was not written: the swap-out fails
/// like a failed write (the tensor stays in memory, the previous copy
/// stays).
TEST_P(TierTest, AFailedCloseFailsTheSwapOut) {
  sluice::test::SyscallFaultScope scope;
  open();
  sluice_tensor_t a = make("a", 20000, 3);
  ASSERT_EQ(out(a), SLUICE_STATUS_OK);
  ASSERT_EQ(in(a), SLUICE_STATUS_OK);
  fill(a, 4);
  failSyscall(Syscall::Close, EIO, "/.a.2.swap");
  sluice_error_t err;
  EXPECT_EQ(out(a, &err), SLUICE_STATUS_IO_ERROR);
  EXPECT_NE(std::string(err.message)
                .find("swapping out tensor 'a' failed; it stays in memory and "
                      "its previous copy is intact: cannot close: "
                      "Input/output error"),
            std::string::npos)
      << err.message;
  EXPECT_EQ(sluice_tier_tensor_state(manager, a), SLUICE_TENSOR_RESIDENT);
  EXPECT_TRUE(holds(a, expected(20000, 4)));
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"a.1.swap"}));
}

/// Swap-file temporaries carry the writer's pid; a run that was killed
/// while writing leaves them, and the next manager on the directory
/// (created or opened) removes them, and only them.
TEST_P(TierTest, TemporariesOfKilledRunsAreRemoved) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A run killed with a swap-out in flight (never waited on).
    sluice_io_options_t io;
    sluice_io_options_init(&io);
    io.backend = SLUICE_IO_BACKEND_THREADS;
    sluice_io_engine_t *e = nullptr;
    sluice_tier_options_t o;
    sluice_tier_options_init(&o);
    o.swap_dir = dir.path.c_str();
    sluice_tier_manager_t *m = nullptr;
    sluice_tensor_t id = 0;
    bool ok = sluice_io_engine_create(&io, &e, nullptr) == SLUICE_STATUS_OK;
    o.engine = e;
    ok = ok &&
         sluice_tier_manager_create(&o, &m, nullptr) == SLUICE_STATUS_OK &&
         sluice_tier_tensor_create(m, "big", 1 << 22, SLUICE_TIER_HOST, 0, &id,
                                   nullptr) == SLUICE_STATUS_OK &&
         sluice_tier_swap_out(m, &id, 1, nullptr) == SLUICE_STATUS_OK;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string dead = std::to_string(child);
  const std::string stale = ".big.1.swap.tmp-" + dead;
  ASSERT_EQ(dir.list(), (std::vector<std::string>{stale}));
  const std::string live = std::to_string(getppid());
  const std::vector<std::string> kept = {
      ".a.1.swap.tmp-" + live,                     // alive
      ".a.1.swap.tmp-" + std::to_string(getpid()), // this process
      ".a.x.swap.tmp-" + dead,                     // no generation
      ".a$.1.swap.tmp-" + dead,                    // not a tensor name
      ".a.1.swap.tmp-" + dead + "z",               // not a pid
      "a.1.swap.tmp-" + dead,                      // not hidden
  };
  for (const std::string &name : kept) {
    std::ofstream(dir.file(name)) << "x";
  }
  // Another dead temporary, of a tensor with dots in its name.
  const std::string dotted = ".L0.param.7.swap.tmp-" + dead;
  std::ofstream(dir.file(dotted)) << "x";
  open();
  std::vector<std::string> want = kept;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(dir.list(), want);
  // Opening from a manifest removes them too.
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  for (const std::string &name : kept)
    std::remove(dir.file(name).c_str());
  sluice_error_t err;
  open();
  sluice_tensor_t p =
      make("p", 5000, 1, SLUICE_TIER_HOST, SLUICE_TIER_PERSISTENT);
  ASSERT_EQ(out(p), SLUICE_STATUS_OK);
  const std::string manifest = dir.file("manifest");
  ASSERT_EQ(sluice_tier_commit(manager, manifest.c_str(), &err),
            SLUICE_STATUS_OK)
      << err.message;
  sluice_tier_manager_destroy(manager);
  manager = nullptr;
  std::ofstream(dir.file(stale)) << "x";
  sluice_tier_options_t o;
  sluice_tier_options_init(&o);
  o.swap_dir = dir.path.c_str();
  o.engine = engine;
  ASSERT_EQ(sluice_tier_manager_open(&o, manifest.c_str(), &manager, &err),
            SLUICE_STATUS_OK)
      << err.message;
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"manifest", "p.1.swap"}));
}

TEST_P(TierTest, BadArguments) {
  open();
  sluice_tensor_t id;
  sluice_error_t err;
  EXPECT_EQ(sluice_tier_tensor_create(manager, "a/b", 10, SLUICE_TIER_HOST, 0,
                                      &id, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_tier_tensor_create(manager, "x", 0, SLUICE_TIER_HOST, 0,
                                      &id, &err),
            SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(sluice_tier_tensor_create(manager, "x", 10, SLUICE_TIER_DISK, 0,
                                      &id, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  make("x", 10, 1);
  EXPECT_EQ(sluice_tier_tensor_create(manager, "x", 10, SLUICE_TIER_HOST, 0,
                                      &id, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err.message).find("already exists"), std::string::npos);
  // No device tier configured.
  EXPECT_EQ(sluice_tier_tensor_create(manager, "d", 10, SLUICE_TIER_DEVICE, 0,
                                      &id, &err),
            SLUICE_STATUS_OK); // UINT64_MAX budget in open()
  sluice_tensor_t bad = 99;
  EXPECT_EQ(sluice_tier_swap_out(manager, &bad, 1, &err),
            SLUICE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_tier_tensor_find(manager, "nope", &id, &err),
            SLUICE_STATUS_NOT_FOUND);
  sluice_tier_options_t o;
  sluice_tier_options_init(&o);
  o.engine = engine;
  o.swap_dir = "/nonexistent/dir";
  sluice_tier_manager_t *m = nullptr;
  EXPECT_EQ(sluice_tier_manager_create(&o, &m, &err), SLUICE_STATUS_NOT_FOUND);
}

INSTANTIATE_TEST_SUITE_P(Backends, TierTest, testing::ValuesIn(ioBackends()),
                         ioBackendName);

} // namespace
