//===- IoEngine.cpp - The batched I/O engine: API, requests, batches ------===//
//
// Validation, splitting into blocks, fault injection, completion and the
// per-request outcomes. The kernel side lives in UringBackend.cpp and
// ThreadBackend.cpp.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/IoEngine.h"

#include "runtime/src/Error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sluice::rt;
using namespace sluice::rt::io;

namespace {

uint64_t nanosSince(std::chrono::steady_clock::time_point since) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - since)
          .count());
}

const char *opName(sluice_io_op_t op) {
  return op == SLUICE_IO_WRITE ? "write" : "read";
}

} // namespace

bool sluice::rt::io::applyFault(Chunk &chunk, uint64_t &length,
                                ssize_t &result, uint32_t alignment) {
  sluice_io_fault_t fault = chunk.fault;
  chunk.fault = SLUICE_IO_FAULT_NONE;
  switch (fault) {
  case SLUICE_IO_FAULT_EIO:
    result = -EIO;
    return true;
  case SLUICE_IO_FAULT_ENOSPC:
    result = -ENOSPC;
    return true;
  case SLUICE_IO_FAULT_ZERO:
    result = 0;
    return true;
  case SLUICE_IO_FAULT_SHORT: {
    uint64_t half = length / 2;
    if (chunk.direct)
      half -= half % alignment;
    if (half)
      length = half;
    return false;
  }
  case SLUICE_IO_FAULT_NONE:
    break;
  }
  return false;
}

bool sluice_io_engine_t::advance(Chunk &chunk, ssize_t result) {
  if (result < 0) {
    int err = static_cast<int>(-result);
    if (err == EINTR || err == EAGAIN)
      return false;
    chunk.err = err;
    return true;
  }
  if (result == 0) {
    // No progress: end of file for a read, a device that takes nothing for
    // a write. Retrying would spin; report it.
    chunk.err = EIO;
    chunk.zeroTransfer = true;
    return true;
  }
  chunk.done += static_cast<uint64_t>(result);
  if (chunk.done < chunk.length) {
    shortRetries.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void sluice_io_engine_t::noteSubmitted(size_t chunks) {
  std::lock_guard<std::mutex> lock(busyMutex);
  if (inFlight == 0)
    busySince = std::chrono::steady_clock::now();
  inFlight += chunks;
}

void sluice_io_engine_t::finish(Chunk &chunk) {
  if (chunk.op == SLUICE_IO_WRITE)
    bytesWritten.fetch_add(chunk.done, std::memory_order_relaxed);
  else
    bytesRead.fetch_add(chunk.done, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(busyMutex);
    if (--inFlight == 0)
      busyNs += nanosSince(busySince);
  }
  sluice_io_batch_t *batch = chunk.batch;
  if (batch->remaining.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  // Last chunk: settle every request's outcome, then wake the waiter.
  for (size_t r = 0; r < batch->count; ++r) {
    sluice_io_request_t &request = batch->requests[r];
    uint64_t transferred = 0;
    int err = 0;
    bool prefix = true;
    for (size_t c = batch->firstChunk[r]; c < batch->firstChunk[r + 1]; ++c) {
      const Chunk &piece = batch->chunks[c];
      if (prefix)
        transferred += piece.done;
      if (piece.done != piece.length)
        prefix = false;
      if (piece.err && !err)
        err = piece.err;
    }
    request.transferred = transferred;
    request.sys_errno = err;
    request.status = err ? statusFromErrno(err) : SLUICE_STATUS_OK;
    if (err)
      failedRequests.fetch_add(1, std::memory_order_relaxed);
  }
  batch->elapsedNs.store(std::max<uint64_t>(1, nanosSince(batch->start)));
  // Notify under the lock: once it is released the waiter may free the
  // batch, so nothing here touches it afterwards.
  std::lock_guard<std::mutex> lock(batch->mutex);
  batch->done.store(true, std::memory_order_release);
  batch->cv.notify_all();
}

extern "C" void sluice_io_options_init(sluice_io_options_t *options) {
  if (!options)
    return;
  options->backend = SLUICE_IO_BACKEND_AUTO;
  options->queue_depth = 32;
  options->block_size = uint64_t(1) << 20;
  options->threads = 0;
  options->direct_alignment = 4096;
  options->uring_flags = 0;
}

extern "C" sluice_status_t
sluice_io_engine_create(const sluice_io_options_t *options,
                        sluice_io_engine_t **out_engine,
                        sluice_error_t *error) {
  if (!options || !out_engine)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_engine_create: NULL argument");
  return guarded(error, "", [&]() -> sluice_status_t {
    sluice_io_options_t o = *options;
    int64_t backend = enumValue(o.backend);
    if (backend < SLUICE_IO_BACKEND_AUTO || backend > SLUICE_IO_BACKEND_THREADS)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "unknown i/o backend " + std::to_string(backend));
    if (o.queue_depth < 1 || o.queue_depth > 4096)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "queue depth " + std::to_string(o.queue_depth) +
                      " is outside 1..4096");
    if (o.direct_alignment < 512 ||
        (o.direct_alignment & (o.direct_alignment - 1)))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "direct alignment " + std::to_string(o.direct_alignment) +
                      " is not a power of two >= 512");
    if (o.block_size == 0 || o.block_size % o.direct_alignment ||
        o.block_size > (uint64_t(1) << 30))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "block size " + std::to_string(o.block_size) +
                      " is not a multiple of the direct alignment (" +
                      std::to_string(o.direct_alignment) +
                      ") of at most 1 GiB");
    const uint32_t knownUring = SLUICE_IO_URING_FIXED_FILES |
                                SLUICE_IO_URING_FIXED_BUFFERS |
                                SLUICE_IO_URING_SQPOLL;
    if (o.uring_flags & ~knownUring)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "unknown io_uring flags " + hex(o.uring_flags & ~knownUring));
    if (o.threads > 1024)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "thread count " + std::to_string(o.threads) +
                      " is above 1024");
    auto engine = std::make_unique<sluice_io_engine_t>();
    engine->options = o;
    if (o.backend != SLUICE_IO_BACKEND_THREADS) {
      std::string whyNot;
      engine->impl = createUringBackend(engine.get(), o.queue_depth,
                                        o.uring_flags, whyNot);
      if (engine->impl) {
        engine->backend = SLUICE_IO_BACKEND_URING;
      } else if (o.backend == SLUICE_IO_BACKEND_URING) {
        return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                    "io_uring is not available: " + whyNot);
      } else {
        engine->fallbackReason = whyNot;
      }
    }
    if (!engine->impl) {
      uint32_t threads = o.threads ? o.threads : std::min<uint32_t>(o.queue_depth, 8);
      engine->impl = createThreadBackend(engine.get(), threads);
      engine->backend = SLUICE_IO_BACKEND_THREADS;
    }
    *out_engine = engine.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_io_engine_destroy(sluice_io_engine_t *engine) {
  if (!engine)
    return;
  engine->impl.reset(); // joins the control thread / workers
  delete engine;
}

extern "C" sluice_io_backend_t
sluice_io_engine_backend(const sluice_io_engine_t *engine) {
  return engine ? engine->backend : SLUICE_IO_BACKEND_AUTO;
}

extern "C" const char *
sluice_io_engine_fallback_reason(const sluice_io_engine_t *engine) {
  return engine ? engine->fallbackReason.c_str() : "";
}

extern "C" void sluice_io_engine_stats(const sluice_io_engine_t *engine,
                                       sluice_io_stats_t *out) {
  if (!engine || !out)
    return;
  auto *e = const_cast<sluice_io_engine_t *>(engine);
  out->requests = e->requests.load();
  out->blocks = e->blocks.load();
  out->bytes_read = e->bytesRead.load();
  out->bytes_written = e->bytesWritten.load();
  out->short_transfers_retried = e->shortRetries.load();
  out->failed_requests = e->failedRequests.load();
  std::lock_guard<std::mutex> lock(e->busyMutex);
  out->busy_ns = e->busyNs + (e->inFlight ? nanosSince(e->busySince) : 0);
}

extern "C" void sluice_io_engine_inject_fault(sluice_io_engine_t *engine,
                                              uint64_t nth,
                                              sluice_io_fault_t fault) {
  if (!engine)
    return;
  std::lock_guard<std::mutex> lock(engine->faultMutex);
  int64_t value = enumValue(fault);
  engine->fault = value >= SLUICE_IO_FAULT_NONE && value <= SLUICE_IO_FAULT_ZERO
                      ? fault
                      : SLUICE_IO_FAULT_NONE;
  engine->faultAt = engine->requestSerial + nth;
}

//===--- Files -------------------------------------------------------------===//

extern "C" sluice_status_t sluice_io_file_open(sluice_io_engine_t *engine,
                                               const char *path,
                                               uint32_t flags,
                                               sluice_io_file_t **out_file,
                                               sluice_error_t *error) {
  if (!engine || !path || !out_file)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path ? path : ""},
                "sluice_io_file_open: NULL argument");
  const uint32_t known = SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                         SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_TRUNCATE |
                         SLUICE_IO_FILE_DIRECT | SLUICE_IO_FILE_EXCLUSIVE;
  if (flags & ~known)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "unknown file flags " + hex(flags & ~known));
  if (!(flags & (SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE)))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "a file must be opened for reading, writing or both");
  if ((flags & (SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_TRUNCATE)) &&
      !(flags & SLUICE_IO_FILE_WRITE))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                "create and truncate need write access");
  return guarded(error, path, [&]() -> sluice_status_t {
    int oflags = O_CLOEXEC;
    if ((flags & SLUICE_IO_FILE_READ) && (flags & SLUICE_IO_FILE_WRITE))
      oflags |= O_RDWR;
    else if (flags & SLUICE_IO_FILE_WRITE)
      oflags |= O_WRONLY;
    else
      oflags |= O_RDONLY;
    if (flags & SLUICE_IO_FILE_CREATE)
      oflags |= O_CREAT;
    if (flags & SLUICE_IO_FILE_EXCLUSIVE)
      oflags |= O_EXCL;
    if (flags & SLUICE_IO_FILE_TRUNCATE)
      oflags |= O_TRUNC;
    if (flags & SLUICE_IO_FILE_DIRECT)
      oflags |= O_DIRECT;
    int fd = ::open(path, oflags, 0666);
    if (fd < 0) {
      int err = errno;
      if (err == EINVAL && (flags & SLUICE_IO_FILE_DIRECT))
        return fail(error, SLUICE_STATUS_UNSUPPORTED, {path},
                    "the file system refuses O_DIRECT");
      return failErrno(error, err, path, "cannot open");
    }
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                  "is a directory");
    }
    auto *file = new sluice_io_file_t;
    file->engine = engine;
    file->fd = fd;
    file->flags = flags;
    file->path = path;
    file->fixedSlot = engine->impl->registerFile(fd);
    *out_file = file;
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_io_file_close(sluice_io_file_t *file) {
  if (!file)
    return;
  if (file->fixedSlot >= 0)
    file->engine->impl->unregisterFile(file->fixedSlot);
  if (file->fd >= 0)
    ::close(file->fd);
  delete file;
}

extern "C" sluice_status_t sluice_io_file_close_checked(sluice_io_file_t *file,
                                                        sluice_error_t *error) {
  if (!file)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_file_close_checked: NULL file");
  if (file->fixedSlot >= 0)
    file->engine->impl->unregisterFile(file->fixedSlot);
  int rc = file->fd >= 0 ? ::close(file->fd) : 0;
  int err = errno;
  std::string path = file->path;
  delete file;
  if (rc != 0)
    return failErrno(error, err, path, "cannot close");
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" sluice_status_t sluice_io_file_sync(sluice_io_file_t *file,
                                               sluice_error_t *error) {
  if (!file)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_file_sync: NULL file");
  if (::fsync(file->fd) != 0)
    return failErrno(error, errno, file->path, "cannot flush to disk (fsync)");
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" sluice_status_t sluice_io_file_truncate(sluice_io_file_t *file,
                                                   uint64_t size,
                                                   sluice_error_t *error) {
  if (!file)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_file_truncate: NULL file");
  if (::ftruncate(file->fd, static_cast<off_t>(size)) != 0)
    return failErrno(error, errno, file->path,
                     "cannot set the size to " + std::to_string(size));
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" const char *sluice_io_file_path(const sluice_io_file_t *file) {
  return file ? file->path.c_str() : "";
}

//===--- Buffers -----------------------------------------------------------===//

extern "C" void *sluice_io_alloc(size_t bytes, size_t alignment) {
  if (alignment == 0)
    alignment = 4096;
  if (alignment & (alignment - 1) || alignment < sizeof(void *))
    return nullptr;
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes)
    return nullptr;
  void *p = nullptr;
  if (::posix_memalign(&p, alignment, rounded ? rounded : alignment) != 0)
    return nullptr;
  std::memset(p, 0, rounded ? rounded : alignment);
  return p;
}

extern "C" void sluice_io_free(void *buffer) { std::free(buffer); }

extern "C" sluice_status_t sluice_io_register_buffer(sluice_io_engine_t *engine,
                                                     void *buffer,
                                                     uint64_t bytes,
                                                     sluice_error_t *error) {
  if (!engine || !buffer || bytes == 0)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_register_buffer: NULL engine or buffer, or 0 bytes");
  if (bytes > (uint64_t(1) << 30))
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "sluice_io_register_buffer: " + std::to_string(bytes) +
                    " bytes is more than the 1 GiB a registered buffer may "
                    "have");
  return guarded(error, "", [&] {
    return engine->impl->registerBuffer(buffer, bytes, error);
  });
}

extern "C" void sluice_io_unregister_buffer(sluice_io_engine_t *engine,
                                            void *buffer) {
  if (engine && buffer)
    engine->impl->unregisterBuffer(buffer);
}

//===--- Batches -----------------------------------------------------------===//

extern "C" sluice_status_t sluice_io_submit(sluice_io_engine_t *engine,
                                            sluice_io_request_t *requests,
                                            size_t count,
                                            sluice_io_batch_t **out_batch,
                                            sluice_error_t *error) {
  if (!engine || !requests || !out_batch)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_submit: NULL argument");
  if (count == 0)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_submit: empty batch");
  return guarded(error, "", [&]() -> sluice_status_t {
    const uint64_t align = engine->options.direct_alignment;
    const uint64_t block = engine->options.block_size;
    size_t chunkCount = 0;
    for (size_t r = 0; r < count; ++r) {
      const sluice_io_request_t &q = requests[r];
      std::string where = "request " + std::to_string(r) + ": ";
      int64_t op = enumValue(q.op);
      if (op != SLUICE_IO_READ && op != SLUICE_IO_WRITE)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    where + "unknown operation " + std::to_string(op));
      if (!q.file)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                    where + "no file");
      const std::string &path = q.file->path;
      if (q.file->engine != engine)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                    where + "the file was opened by another engine");
      if (q.flags & ~uint32_t(SLUICE_IO_REQUEST_DSYNC))
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                    where + "unknown request flags " +
                        hex(q.flags & ~uint32_t(SLUICE_IO_REQUEST_DSYNC)));
      if (!q.buffer || q.length == 0)
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                    where + "no buffer or zero length");
      if (q.offset + q.length < q.offset ||
          q.offset + q.length > uint64_t(INT64_MAX))
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {path},
                    where + "offset + length overflows");
      uint32_t need = q.op == SLUICE_IO_WRITE ? SLUICE_IO_FILE_WRITE
                                               : SLUICE_IO_FILE_READ;
      if (!(q.file->flags & need))
        return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {path},
                    where + "a " + opName(q.op) +
                        " on a file not opened for it");
      if (q.file->flags & SLUICE_IO_FILE_DIRECT) {
        const char *what = nullptr;
        uint64_t value = 0;
        if (reinterpret_cast<uintptr_t>(q.buffer) % align) {
          what = "buffer address";
          value = reinterpret_cast<uintptr_t>(q.buffer);
        } else if (q.offset % align) {
          what = "offset";
          value = q.offset;
        } else if (q.length % align) {
          what = "length";
          value = q.length;
        }
        if (what)
          return fail(error, SLUICE_STATUS_INVALID_ARGUMENT,
                      {path, 0, 0, q.offset},
                      where + "O_DIRECT needs buffer, offset and length "
                              "aligned to " +
                          std::to_string(align) + " bytes; " + what + " " +
                          std::to_string(value) + " is not");
      }
      chunkCount += (q.length + block - 1) / block;
    }

    auto batch = std::make_unique<sluice_io_batch_t>();
    batch->engine = engine;
    batch->requests = requests;
    batch->count = count;
    batch->chunks.resize(chunkCount);
    batch->firstChunk.resize(count + 1);
    size_t c = 0;
    {
      std::lock_guard<std::mutex> lock(engine->faultMutex);
      for (size_t r = 0; r < count; ++r) {
        sluice_io_request_t &q = requests[r];
        q.status = SLUICE_STATUS_OK;
        q.sys_errno = 0;
        q.transferred = 0;
        batch->firstChunk[r] = c;
        uint64_t serial = engine->requestSerial++;
        bool faulty =
            engine->fault != SLUICE_IO_FAULT_NONE && serial == engine->faultAt;
        for (uint64_t at = 0; at < q.length; at += block, ++c) {
          Chunk &k = batch->chunks[c];
          k.batch = batch.get();
          k.request = static_cast<uint32_t>(r);
          k.op = q.op;
          k.dsync = q.flags & SLUICE_IO_REQUEST_DSYNC;
          k.fd = q.file->fd;
          k.fixedFile = q.file->fixedSlot;
          k.direct = q.file->flags & SLUICE_IO_FILE_DIRECT;
          k.buffer = static_cast<char *>(q.buffer) + at;
          k.offset = q.offset + at;
          k.length = std::min(block, q.length - at);
          if (faulty && at == 0) {
            k.fault = engine->fault;
            engine->fault = SLUICE_IO_FAULT_NONE;
          }
        }
      }
    }
    batch->firstChunk[count] = c;
    batch->remaining.store(chunkCount);
    batch->start = std::chrono::steady_clock::now();
    engine->requests.fetch_add(count, std::memory_order_relaxed);
    engine->blocks.fetch_add(chunkCount, std::memory_order_relaxed);

    std::vector<Chunk *> pointers(chunkCount);
    for (size_t i = 0; i < chunkCount; ++i)
      pointers[i] = &batch->chunks[i];
    sluice_io_batch_t *handle = batch.release();
    engine->noteSubmitted(chunkCount);
    engine->impl->enqueue(pointers.data(), pointers.size());
    *out_batch = handle;
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" int sluice_io_batch_poll(const sluice_io_batch_t *batch) {
  return batch && batch->done.load(std::memory_order_acquire) ? 1 : 0;
}

extern "C" sluice_status_t sluice_io_batch_wait(sluice_io_batch_t *batch,
                                                sluice_error_t *error) {
  if (!batch)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_io_batch_wait: NULL batch");
  {
    std::unique_lock<std::mutex> lock(batch->mutex);
    batch->cv.wait(lock, [&] { return batch->done.load(); });
  }
  for (size_t r = 0; r < batch->count; ++r) {
    const sluice_io_request_t &q = batch->requests[r];
    if (q.status == SLUICE_STATUS_OK)
      continue;
    // The failing piece: the first chunk with an error.
    uint64_t at = q.offset + q.transferred;
    bool zero = false;
    for (size_t c = batch->firstChunk[r]; c < batch->firstChunk[r + 1]; ++c) {
      const Chunk &piece = batch->chunks[c];
      if (piece.err) {
        at = piece.offset + piece.done;
        zero = piece.zeroTransfer;
        break;
      }
    }
    std::string cause =
        zero ? (q.op == SLUICE_IO_READ ? "unexpected end of file"
                                       : "the device accepted no bytes")
             : std::string(std::strerror(q.sys_errno));
    return fail(error, q.status, {q.file->path, 0, 0, at},
                "request " + std::to_string(r) + ": " + opName(q.op) + " of " +
                    std::to_string(q.length) + " bytes at offset " +
                    std::to_string(q.offset) + " failed at offset " +
                    std::to_string(at) + " after " +
                    std::to_string(q.transferred) + " bytes: " + cause);
  }
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" uint64_t
sluice_io_batch_elapsed_ns(const sluice_io_batch_t *batch) {
  return batch ? batch->elapsedNs.load() : 0;
}

extern "C" void sluice_io_batch_release(sluice_io_batch_t *batch) {
  if (!batch)
    return;
  {
    std::unique_lock<std::mutex> lock(batch->mutex);
    batch->cv.wait(lock, [&] { return batch->done.load(); });
  }
  delete batch;
}
