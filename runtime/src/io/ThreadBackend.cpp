//===- ThreadBackend.cpp - pread/pwrite from a pool of threads ------------===//
//
// The fallback where io_uring is unavailable: each worker takes a chunk and
// loops on pread/pwrite (pwritev2 with RWF_DSYNC for durable writes) until
// the chunk is done or fails.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/IoEngine.h"

#include <cerrno>
#include <deque>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>

using namespace sluice::rt::io;

namespace {

class ThreadBackend final : public Backend {
public:
  ThreadBackend(sluice_io_engine_t *engine, uint32_t threads)
      : engine(engine) {
    for (uint32_t i = 0; i < threads; ++i)
      workers.emplace_back([this] { run(); });
  }

  ~ThreadBackend() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    cv.notify_all();
    for (std::thread &worker : workers)
      worker.join();
  }

  void enqueue(Chunk *const *chunks, size_t count) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.insert(queue.end(), chunks, chunks + count);
    }
    cv.notify_all();
  }

private:
  void run() {
    for (;;) {
      Chunk *chunk;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty())
          return; // stopping and drained
        chunk = queue.front();
        queue.pop_front();
      }
      transfer(*chunk);
      engine->finish(*chunk);
    }
  }

  void transfer(Chunk &chunk) {
    for (;;) {
      uint64_t length = chunk.length - chunk.done;
      ssize_t result = 0;
      if (chunk.fault == SLUICE_IO_FAULT_NONE ||
          !applyFault(chunk, length, result,
                      engine->options.direct_alignment)) {
        char *buffer = chunk.buffer + chunk.done;
        off_t offset = static_cast<off_t>(chunk.offset + chunk.done);
        if (chunk.op == SLUICE_IO_WRITE) {
          iovec iov{buffer, static_cast<size_t>(length)};
          result = ::pwritev2(chunk.fd, &iov, 1, offset,
                              chunk.dsync ? RWF_DSYNC : 0);
        } else {
          result = ::pread(chunk.fd, buffer, static_cast<size_t>(length),
                           offset);
        }
        if (result < 0)
          result = -errno;
      }
      if (engine->advance(chunk, result))
        return;
    }
  }

  sluice_io_engine_t *engine;
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Chunk *> queue;
  bool stopping = false;
};

} // namespace

std::unique_ptr<Backend>
sluice::rt::io::createThreadBackend(sluice_io_engine_t *engine,
                                    uint32_t threads) {
  return std::make_unique<ThreadBackend>(engine, threads ? threads : 1);
}
