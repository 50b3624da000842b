//===- UringBackend.cpp - A control thread driving io_uring ---------------===//
//
// Callers hand chunks over through a locked queue and an eventfd; the
// control thread keeps up to queue_depth chunks in the submission ring,
// reaps completions, resubmits the rest of short transfers, and finishes
// chunks. The eventfd is read through the ring itself, so the thread sleeps
// in one place (io_uring_submit_and_wait) for both new work and
// completions.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/IoEngine.h"

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

class UringBackend final : public Backend {
public:
  UringBackend(sluice_io_engine_t *engine, uint32_t queueDepth)
      : engine(engine), queueDepth(queueDepth) {}

  /// Sets up the ring and checks it works (a NOP round trip): seccomp
  /// filters and io_uring_disabled show up here.
  bool start(std::string &whyNot) {
    unsigned entries = 1;
    while (entries < queueDepth + 1)
      entries <<= 1;
    int rc = io_uring_queue_init(entries, &ring, 0);
    if (rc < 0) {
      whyNot = std::string("io_uring_queue_init: ") + std::strerror(-rc);
      return false;
    }
    ringReady = true;
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
      incoming.insert(incoming.end(), chunks, chunks + count);
    }
    wake();
  }

private:
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
    if (chunk->op == SLUICE_IO_WRITE) {
      io_uring_prep_write(sqe, chunk->fd, buffer,
                          static_cast<unsigned>(length), offset);
      if (chunk->dsync)
        sqe->rw_flags = RWF_DSYNC;
    } else {
      io_uring_prep_read(sqe, chunk->fd, buffer,
                         static_cast<unsigned>(length), offset);
    }
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
      std::vector<std::pair<Chunk *, ssize_t>> done;
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
  std::deque<Chunk *> backlog;  // control thread only
  uint32_t inFlight = 0;        // control thread only
};

} // namespace

std::unique_ptr<Backend>
sluice::rt::io::createUringBackend(sluice_io_engine_t *engine,
                                   uint32_t queueDepth, std::string &whyNot) {
  if (const char *env = std::getenv("SLUICE_IO_DISABLE_URING");
      env && *env && std::strcmp(env, "0") != 0) {
    whyNot = "disabled by SLUICE_IO_DISABLE_URING";
    return nullptr;
  }
  auto backend = std::make_unique<UringBackend>(engine, queueDepth);
  if (!backend->start(whyNot))
    return nullptr;
  return backend;
}
