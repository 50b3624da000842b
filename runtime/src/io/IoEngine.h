//===- IoEngine.h - Internals of the batched I/O engine ---------*- C++ -*-===//
//
// The engine (sluice/io.h) splits each request into blocks ("chunks") of at
// most block_size bytes and hands them to a backend: UringBackend (a control
// thread driving io_uring) or ThreadBackend (workers issuing pread/pwrite).
// Both report every kernel transfer through Engine::advance(), which retries
// short transfers and latches errors, and Engine::finish() when a chunk is
// done; the last chunk of a batch completes the batch.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_IO_IOENGINE_H
#define SLUICE_RUNTIME_SRC_IO_IOENGINE_H

#include "sluice/io.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <vector>

struct sluice_io_file_t {
  sluice_io_engine_t *engine = nullptr;
  int fd = -1;
  uint32_t flags = 0;
  int fixedSlot = -1; ///< index in the ring's file table, -1 when none
  std::string path;
};

namespace sluice::rt::io {



/// One kernel-sized piece of a request.
struct Chunk {
  sluice_io_batch_t *batch = nullptr;
  uint32_t request = 0;
  sluice_io_op_t op = SLUICE_IO_READ;
  bool dsync = false;
  int fd = -1;
  int fixedFile = -1;   ///< registered file slot, -1: use fd
  int fixedBuffer = -1; ///< registered buffer index (set by the backend)
  bool direct = false;
  char *buffer = nullptr;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t done = 0;
  int err = 0;           ///< errno of the failure, 0 while fine
  bool zeroTransfer = false;
  sluice_io_fault_t fault = SLUICE_IO_FAULT_NONE;
};

} // namespace sluice::rt::io

struct sluice_io_batch_t {
  sluice_io_engine_t *engine = nullptr;
  sluice_io_request_t *requests = nullptr;
  size_t count = 0;
  std::vector<sluice::rt::io::Chunk> chunks;
  std::vector<size_t> firstChunk; ///< per request, plus one sentinel
  std::atomic<size_t> remaining{0};
  std::atomic<bool> done{false};
  std::mutex mutex;
  std::condition_variable cv;
  std::chrono::steady_clock::time_point start;
  std::atomic<uint64_t> elapsedNs{0};
};

namespace sluice::rt::io {

class Backend {
public:
  virtual ~Backend() = default;
  /// Takes the chunks (owned by their batch) and starts them.
  virtual void enqueue(Chunk *const *chunks, size_t count) = 0;
  /// Registers an open file's descriptor: its slot, or -1 when the backend
  /// does not register files (or the table is full).
  virtual int registerFile(int /*fd*/) { return -1; }
  virtual void unregisterFile(int /*slot*/) {}
  /// Registers a buffer region (io_uring fixed buffers). Returns OK, also
  /// when the backend does not register buffers.
  virtual sluice_status_t registerBuffer(void * /*buffer*/, uint64_t /*bytes*/,
                                         sluice_error_t *error) {
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  }
  virtual void unregisterBuffer(void * /*buffer*/) {}
};

/// Creates the io_uring backend; on failure returns null and says why.
/// `flags` are the options' SLUICE_IO_URING_* bits.
std::unique_ptr<Backend> createUringBackend(sluice_io_engine_t *engine,
                                            uint32_t queueDepth, uint32_t flags,
                                            std::string &whyNot);
std::unique_ptr<Backend> createThreadBackend(sluice_io_engine_t *engine,
                                             uint32_t threads);

/// Applies an armed fault before a transfer of `chunk`: returns true and
/// sets `result` when the transfer must not reach the kernel; may shorten
/// `length` (SHORT).
bool applyFault(Chunk &chunk, uint64_t &length, ssize_t &result,
                uint32_t alignment);

} // namespace sluice::rt::io

struct sluice_io_engine_t {
  sluice_io_options_t options{};
  sluice_io_backend_t backend = SLUICE_IO_BACKEND_THREADS;
  std::string fallbackReason;
  std::unique_ptr<sluice::rt::io::Backend> impl;

  // Fault injection.
  std::mutex faultMutex;
  uint64_t requestSerial = 0;
  uint64_t faultAt = 0;
  sluice_io_fault_t fault = SLUICE_IO_FAULT_NONE;

  // Statistics.
  std::atomic<uint64_t> requests{0}, blocks{0}, bytesRead{0}, bytesWritten{0},
      shortRetries{0}, failedRequests{0};
  std::mutex busyMutex;
  uint64_t inFlight = 0;
  uint64_t busyNs = 0;
  std::chrono::steady_clock::time_point busySince;

  /// Accounts one kernel transfer of `chunk` that returned `result` (bytes
  /// or -errno). Returns true when the chunk is finished (done or failed),
  /// false when the rest must be submitted again.
  bool advance(sluice::rt::io::Chunk &chunk, ssize_t result);
  /// Called once per chunk when advance() said finished.
  void finish(sluice::rt::io::Chunk &chunk);
  void noteSubmitted(size_t chunks);
};

#endif // SLUICE_RUNTIME_SRC_IO_IOENGINE_H
