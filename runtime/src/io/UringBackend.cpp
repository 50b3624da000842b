//===- UringBackend.cpp - A control thread driving io_uring ---------------===//
//
// Callers hand chunks over through a locked queue and an eventfd; the
// control thread keeps up to queue_depth chunks in the submission ring,
// reaps completions, resubmits the rest of short transfers, and finishes
// chunks. The eventfd is read through the ring itself, so the thread sleeps
// in one place (io_uring_submit_and_wait) for both new work and
// completions.
//
// Options (SLUICE_IO_URING_*): registered files (a sparse table filled as
// files open), registered buffers (a sparse table filled by
// sluice_io_register_buffer; enqueue() marks the chunks inside a region),
// and a kernel submission-polling thread.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/IoEngine.h"

#include "runtime/src/Error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <liburing.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>

using namespace sluice::rt::io;

namespace {

constexpr uint64_t kWakeTag = 0;
constexpr unsigned kFileSlots = 64;
constexpr unsigned kBufferSlots = 64;

/// A registered buffer region.
struct Region {
  char *base;
  uint64_t bytes;
  int slot;
};

class UringBackend final : public Backend {
public:
  UringBackend(sluice_io_engine_t *engine, uint32_t queueDepth, uint32_t flags)
      : engine(engine), queueDepth(queueDepth), flags(flags) {}

  /// Sets up the ring and checks it works (a NOP round trip): seccomp
  /// filters and io_uring_disabled show up here.
  bool start(std::string &whyNot) {
    unsigned entries = 1;
    while (entries < queueDepth + 1)
      entries <<= 1;
    io_uring_params params{};
    if (flags & SLUICE_IO_URING_SQPOLL) {
      params.flags |= IORING_SETUP_SQPOLL;
      params.sq_thread_idle = 50; // ms
    }
    int rc = io_uring_queue_init_params(entries, &ring, &params);
    if (rc < 0) {
      whyNot = std::string("io_uring_queue_init: ") + std::strerror(-rc);
      return false;
    }
    ringReady = true;
    if (flags & SLUICE_IO_URING_FIXED_FILES) {
      rc = io_uring_register_files_sparse(&ring, kFileSlots);
      if (rc < 0) {
        whyNot = std::string("io_uring_register_files_sparse: ") +
                 std::strerror(-rc);
        return false;
      }
      fileSlots.assign(kFileSlots, false);
    }
    if (flags & SLUICE_IO_URING_FIXED_BUFFERS) {
      rc = io_uring_register_buffers_sparse(&ring, kBufferSlots);
      if (rc < 0) {
        whyNot = std::string("io_uring_register_buffers_sparse: ") +
                 std::strerror(-rc);
        return false;
      }
      bufferSlots.assign(kBufferSlots, false);
    }
    io_uring_probe *probe = io_uring_get_probe_ring(&ring);
    bool ok = probe && io_uring_opcode_supported(probe, IORING_OP_READ) &&
              io_uring_opcode_supported(probe, IORING_OP_WRITE);
    if (probe)
      io_uring_free_probe(probe);
    if (!ok) {
      whyNot = "the kernel's io_uring lacks IORING_OP_READ/WRITE";
      return false;
    }
    io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, 1);
    rc = io_uring_submit_and_wait(&ring, 1);
    io_uring_cqe *cqe = nullptr;
    if (rc >= 0)
      rc = io_uring_peek_cqe(&ring, &cqe);
    if (rc < 0 || !cqe || cqe->res < 0) {
      whyNot = std::string("io_uring NOP failed: ") +
               std::strerror(rc < 0 ? -rc : cqe ? -cqe->res : EIO);
      return false;
    }
    io_uring_cqe_seen(&ring, cqe);
    wakeFd = ::eventfd(0, EFD_CLOEXEC);
    if (wakeFd < 0) {
      whyNot = std::string("eventfd: ") + std::strerror(errno);
      return false;
    }
    thread = std::thread([this] { run(); });
    return true;
  }

  ~UringBackend() override {
    if (thread.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        stopping = true;
      }
      wake();
      thread.join();
    }
    if (wakeFd >= 0)
      ::close(wakeFd);
    if (ringReady)
      io_uring_queue_exit(&ring);
  }

  void enqueue(Chunk *const *chunks, size_t count) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!regions.empty())
        for (size_t i = 0; i < count; ++i)
          chunks[i]->fixedBuffer =
              regionOf(chunks[i]->buffer, chunks[i]->length);
      incoming.insert(incoming.end(), chunks, chunks + count);
    }
    wake();
  }

  int registerFile(int fd) override {
    if (fileSlots.empty())
      return -1;
    std::lock_guard<std::mutex> lock(mutex);
    for (unsigned slot = 0; slot < fileSlots.size(); ++slot) {
      if (fileSlots[slot])
        continue;
      if (io_uring_register_files_update(&ring, slot, &fd, 1) != 1)
        return -1; // used unregistered
      fileSlots[slot] = true;
      return static_cast<int>(slot);
    }
    return -1;
  }

  void unregisterFile(int slot) override {
    std::lock_guard<std::mutex> lock(mutex);
    int none = -1;
    io_uring_register_files_update(&ring, static_cast<unsigned>(slot), &none,
                                   1);
    fileSlots[static_cast<size_t>(slot)] = false;
  }

  sluice_status_t registerBuffer(void *buffer, uint64_t bytes,
                                 sluice_error_t *error) override {
    sluice_error_clear(error);
    if (bufferSlots.empty())
      return SLUICE_STATUS_OK;
    std::lock_guard<std::mutex> lock(mutex);
    unsigned slot = 0;
    while (slot < bufferSlots.size() && bufferSlots[slot])
      ++slot;
    if (slot == bufferSlots.size())
      return sluice::rt::fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                              "cannot register another i/o buffer: all " +
                                  std::to_string(kBufferSlots) +
                                  " registered-buffer slots are "
                                  "taken");
    iovec iov{buffer, static_cast<size_t>(bytes)};
    __u64 tag = 0;
    int rc = io_uring_register_buffers_update_tag(&ring, slot, &iov, &tag, 1);
    if (rc < 0)
      return sluice::rt::failErrno(
          error, -rc, {},
          "cannot register an i/o buffer of " + std::to_string(bytes) +
              " bytes with io_uring (the locked-memory limit, ulimit -l?)");
    bufferSlots[slot] = true;
    regions.push_back(
        {static_cast<char *>(buffer), bytes, static_cast<int>(slot)});
    std::sort(regions.begin(), regions.end(),
              [](const Region &a, const Region &b) { return a.base < b.base; });
    return SLUICE_STATUS_OK;
  }

  void unregisterBuffer(void *buffer) override {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < regions.size(); ++i) {
      if (regions[i].base != buffer)
        continue;
      iovec iov{nullptr, 0};
      __u64 tag = 0;
      unsigned slot = static_cast<unsigned>(regions[i].slot);
      io_uring_register_buffers_update_tag(&ring, slot, &iov, &tag, 1);
      bufferSlots[slot] = false;
      regions.erase(regions.begin() + static_cast<ptrdiff_t>(i));
      return;
    }
  }

private:
  /// The registered region holding [buffer, buffer + length), or -1.
  /// Called with `mutex` held.
  int regionOf(const char *buffer, uint64_t length) const {
    auto it = std::upper_bound(
        regions.begin(), regions.end(), buffer,
        [](const char *p, const Region &r) { return p < r.base; });
    if (it == regions.begin())
      return -1;
    --it;
    uint64_t at = static_cast<uint64_t>(buffer - it->base);
    return at < it->bytes && length <= it->bytes - at ? it->slot : -1;
  }

  void wake() {
    uint64_t one = 1;
    while (::write(wakeFd, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
  }

  /// Puts the rest of `chunk` into the ring. Returns false when a fault
  /// completed it without a kernel call (then it is already handled).
  void prepare(Chunk *chunk) {
    uint64_t length = chunk->length - chunk->done;
    ssize_t result = 0;
    if (chunk->fault != SLUICE_IO_FAULT_NONE &&
        applyFault(*chunk, length, result,
                   engine->options.direct_alignment)) {
      settle(chunk, result);
      return;
    }
    io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) { // cannot happen: in flight + 1 <= entries
      io_uring_submit(&ring);
      sqe = io_uring_get_sqe(&ring);
    }
    char *buffer = chunk->buffer + chunk->done;
    uint64_t offset = chunk->offset + chunk->done;
    int fd = chunk->fixedFile >= 0 ? chunk->fixedFile : chunk->fd;
    unsigned bytes = static_cast<unsigned>(length);
    if (chunk->op == SLUICE_IO_WRITE) {
      if (chunk->fixedBuffer >= 0)
        io_uring_prep_write_fixed(sqe, fd, buffer, bytes, offset,
                                  chunk->fixedBuffer);
      else
        io_uring_prep_write(sqe, fd, buffer, bytes, offset);
      if (chunk->dsync)
        sqe->rw_flags = RWF_DSYNC;
    } else if (chunk->fixedBuffer >= 0) {
      io_uring_prep_read_fixed(sqe, fd, buffer, bytes, offset,
                               chunk->fixedBuffer);
    } else {
      io_uring_prep_read(sqe, fd, buffer, bytes, offset);
    }
    if (chunk->fixedFile >= 0)
      sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, chunk);
    ++inFlight;
  }

  /// One transfer of `chunk` ended with `result`.
  void settle(Chunk *chunk, ssize_t result) {
    if (engine->advance(*chunk, result))
      engine->finish(*chunk);
    else
      backlog.push_front(chunk); // the rest, first in line
  }

  void run() {
    bool wakeArmed = false;
    uint64_t wakeValue = 0;
    for (;;) {
      bool stop;
      {
        std::lock_guard<std::mutex> lock(mutex);
        backlog.insert(backlog.end(), incoming.begin(), incoming.end());
        incoming.clear();
        stop = stopping;
      }
      while (inFlight < queueDepth && !backlog.empty()) {
        Chunk *chunk = backlog.front();
        backlog.pop_front();
        prepare(chunk);
      }
      if (stop && inFlight == 0 && backlog.empty())
        break;
      if (!wakeArmed) {
        io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        io_uring_prep_read(sqe, wakeFd, &wakeValue, sizeof(wakeValue), 0);
        io_uring_sqe_set_data64(sqe, kWakeTag);
        wakeArmed = true;
      }
      int rc = io_uring_submit_and_wait(&ring, 1);
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
        // The ring itself broke: fail everything we hold rather than hang.
        failAll(-rc);
        continue;
      }
      io_uring_cqe *cqe;
      unsigned head, seen = 0;
      done.clear();
      io_uring_for_each_cqe(&ring, head, cqe) {
        ++seen;
        if (cqe->user_data == kWakeTag) {
          wakeArmed = false;
          continue;
        }
        done.emplace_back(static_cast<Chunk *>(io_uring_cqe_get_data(cqe)),
                          static_cast<ssize_t>(cqe->res));
      }
      io_uring_cq_advance(&ring, seen);
      for (auto &[chunk, result] : done) {
        --inFlight;
        settle(chunk, result);
      }
    }
  }

  void failAll(int err) {
    while (!backlog.empty()) {
      Chunk *chunk = backlog.front();
      backlog.pop_front();
      chunk->err = err;
      engine->finish(*chunk);
    }
  }

  sluice_io_engine_t *engine;
  uint32_t queueDepth;
  io_uring ring{};
  bool ringReady = false;
  int wakeFd = -1;
  std::thread thread;
  std::mutex mutex;
  std::deque<Chunk *> incoming; // guarded by mutex
  bool stopping = false;        // guarded by mutex
  std::vector<bool> fileSlots;  // guarded by mutex; empty: no file table
  std::vector<bool> bufferSlots; // guarded by mutex; empty: no buffer table
  std::vector<Region> regions;   // guarded by mutex, sorted by base
  std::deque<Chunk *> backlog;   // control thread only
  std::vector<std::pair<Chunk *, ssize_t>> done; // control thread only
  uint32_t inFlight = 0;                         // control thread only
  uint32_t flags;
};

} // namespace

std::unique_ptr<Backend>
sluice::rt::io::createUringBackend(sluice_io_engine_t *engine,
                                   uint32_t queueDepth, uint32_t flags,
                                   std::string &whyNot) {
  if (const char *env = std::getenv("SLUICE_IO_DISABLE_URING");
      env && *env && std::strcmp(env, "0") != 0) {
    whyNot = "disabled by SLUICE_IO_DISABLE_URING";
    return nullptr;
  }
  auto backend = std::make_unique<UringBackend>(engine, queueDepth, flags);
  if (!backend->start(whyNot))
    return nullptr;
  return backend;
}
