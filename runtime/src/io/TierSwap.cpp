//===- TierSwap.cpp - Swap I/O of the tier manager
//-------------------------===//
//
// Starting and settling a tensor's swap-file writes and reads (a batch of
// two requests: the 4 KiB header and the payload), reaping operations that
// finished in the background, and verifying a committed copy on restore.
// The C API is TierManager.cpp; the state is TierManagerState.h.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/TierManagerState.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/StaleTemporaries.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>

using namespace sluice::rt;
using namespace sluice::rt::tier;

uint64_t sluice::rt::tier::nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

const char *sluice::rt::tier::tierName(sluice_tier_t tier) {
  switch (tier) {
  case SLUICE_TIER_DEVICE:
    return "device";
  case SLUICE_TIER_HOST:
    return "host";
  case SLUICE_TIER_DISK:
    return "disk";
  }
  return "unknown";
}

bool sluice::rt::tier::validName(const char *name) {
  size_t n = std::strlen(name);
  if (n == 0 || n > 200 || name[0] == '.')
    return false;
  for (size_t i = 0; i < n; ++i) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return false;
  }
  return true;
}

/// The process id in a swap-file temporary's name
/// (".<name>.<generation>.swap.tmp-<pid>"), else 0.
pid_t sluice::rt::tier::swapTemporaryOwner(std::string_view name) {
  size_t tag = name.rfind(kTempTag);
  if (tag == std::string_view::npos || tag < 2 || name[0] != '.')
    return 0;
  std::string_view stem = name.substr(1, tag - 1); // <name>.<generation>
  size_t dot = stem.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == stem.size() ||
      stem.substr(dot + 1).find_first_not_of("0123456789") !=
          std::string_view::npos ||
      !validName(std::string(stem.substr(0, dot)).c_str()))
    return 0;
  pid_t pid = 0;
  return sluice::rt::parsePid(name.substr(tag + kTempTag.size()), pid) ? pid
                                                                       : 0;
}

uint32_t sluice::rt::tier::headerChecksum(SwapHeader header) {
  header.headerCrc = 0;
  std::vector<char> page(kHeaderBytes, 0);
  std::memcpy(page.data(), &header, sizeof(header));
  return sluice_crc32c(0, page.data(), page.size());
}

sluice_status_t
sluice_tier_manager_t::verifyCommittedCopy(const Tensor &t,
                                           sluice_error_t *error) {
  const std::string what = "the committed copy of tensor '" + t.name + "'";
  int fd = ::open(t.copyPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failErrno(error, errno, t.copyPath,
                     "the manifest names a missing swap file (" + what + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto corrupt = [&](uint64_t offset, const std::string &why) {
    return fail(error, SLUICE_STATUS_DATA_CORRUPT, {t.copyPath, 0, 0, offset},
                what + " is corrupt: " + why);
  };
  auto readAt = [&](char *into, size_t length, uint64_t offset,
                    sluice_status_t &status) {
    size_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd, into + done, length - done,
                          static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        status = failErrno(error, errno, t.copyPath, "cannot read " + what);
        return false;
      }
      if (n == 0) {
        status = corrupt(offset + done, "unexpected end of file");
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  };
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return failErrno(error, errno, t.copyPath, "cannot stat " + what);
  const uint64_t expectedSize = kHeaderBytes + t.padded;
  if (static_cast<uint64_t>(st.st_size) != expectedSize)
    return corrupt(0, "the file has " + std::to_string(st.st_size) +
                          " bytes, expected " + std::to_string(expectedSize));
  std::vector<char> chunk(size_t(1) << 20);
  sluice_status_t status = SLUICE_STATUS_OK;
  if (!readAt(chunk.data(), kHeaderBytes, 0, status))
    return status;
  SwapHeader h;
  std::memcpy(&h, chunk.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0)
    return corrupt(0, "not a swap file (bad magic)");
  if (h.headerCrc != headerChecksum(h))
    return corrupt(0, "header checksum mismatch");
  if (h.version != kVersion || h.bytes != t.bytes ||
      h.generation != t.generation || h.payloadCrc != t.crc ||
      h.nameLength != t.name.size() ||
      std::memcmp(h.name, t.name.data(), t.name.size()) != 0)
    return corrupt(0, "the header does not match the manifest");
  uint64_t start = nowNs();
  uint32_t crc = 0;
  for (uint64_t at = 0; at < t.bytes;) {
    size_t n =
        static_cast<size_t>(std::min<uint64_t>(chunk.size(), t.bytes - at));
    if (!readAt(chunk.data(), n, kHeaderBytes + at, status))
      return status;
    crc = sluice_crc32c(crc, chunk.data(), n);
    at += n;
  }
  stats.checksum_ns += nowNs() - start;
  if (crc != t.crc)
    return corrupt(kHeaderBytes, "checksum mismatch: expected CRC-32C " +
                                     hex(t.crc) + ", the data has " + hex(crc));
  return SLUICE_STATUS_OK;
}

void sluice_tier_manager_t::reap() {
  for (size_t k = 0; k < pending.size();) {
    uint32_t index = pending[k];
    Tensor &t = tensors[index];
    if (!t.op || !sluice_io_batch_poll(t.op->batch)) {
      ++k;
      continue;
    }
    sluice_error_t local;
    sluice_error_clear(&local);
    sluice_status_t status = settle(index, &local); // erases pending[k]
    if (status != SLUICE_STATUS_OK && t.deferredStatus == SLUICE_STATUS_OK) {
      t.deferredStatus = status;
      t.deferred = local;
    }
  }
}

sluice_status_t sluice_tier_manager_t::syncDirectory(sluice_error_t *error) {
  sluice::rt::DirectorySyncStep step;
  int err = sluice::rt::syncDirectory(dir, step);
  if (err == 0)
    return SLUICE_STATUS_OK;
  return failErrno(error, err, dir,
                   step == sluice::rt::DirectorySyncStep::Open
                       ? "cannot open the swap directory to flush it"
                   : step == sluice::rt::DirectorySyncStep::Fsync
                       ? "cannot flush the swap directory to disk (fsync)"
                       : "cannot close the swap directory");
}

void sluice_tier_manager_t::dropCopy(Tensor &t, uint64_t generation) {
  if (t.committed && generation == t.committedGeneration)
    return; // the manifest names it
  janitor.unlink(copyPath(t, generation));
}

sluice_status_t sluice_tier_manager_t::checkIds(const sluice_tensor_t *ids,
                                                size_t count,
                                                sluice_error_t *error,
                                                const char *what) {
  if (count && !ids)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                std::string(what) + ": NULL tensor list");
  for (size_t i = 0; i < count; ++i)
    if (ids[i] >= tensors.size())
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  std::string(what) + ": no tensor with id " +
                      std::to_string(ids[i]));
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice_tier_manager_t::reserve(Tensor &t,
                                               sluice_error_t *error) {
  const sluice_tier_t tier = t.home;
  // Pending writes free memory when they complete: settle the oldest ones
  // of this tier until the tensor fits.
  while (used[tier] + t.padded > budget[tier]) {
    bool settled = false;
    for (size_t k = 0; k < writeOrder.size(); ++k) {
      Tensor &w = tensors[writeOrder[k]];
      if (w.home != tier || !w.op || w.op->keepResident)
        continue;
      sluice_error_t ignored;
      // A failed write keeps its tensor resident; its error was recorded
      // when settled here and is reported again by wait (state unchanged).
      settle(writeOrder[k], &ignored);
      settled = true;
      break;
    }
    if (!settled)
      break;
  }
  if (used[tier] + t.padded > budget[tier])
    return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {},
                std::string(tierName(tier)) + " budget exceeded: tensor '" +
                    t.name + "' needs " + std::to_string(t.padded) +
                    " bytes, " + std::to_string(used[tier]) + " of " +
                    std::to_string(budget[tier]) + " are in use");
  account(tier, static_cast<int64_t>(t.padded));
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice_tier_manager_t::startWrite(uint32_t index,
                                                  sluice_error_t *error) {
  Tensor &t = tensors[index];
  sluice_status_t viewStatus = unpark(t, error);
  if (viewStatus != SLUICE_STATUS_OK)
    return viewStatus;
  auto op = std::make_unique<Op>();
  op->write = true;
  op->generation = t.nextGeneration;
  // Recycled buffers carry old bytes past the end: write zeros there.
  std::memset(t.data.get() + t.bytes, 0, t.padded - t.bytes);
  uint64_t start = nowNs();
  op->crc = sluice_crc32c(0, t.data.get(), t.bytes);
  stats.checksum_ns += nowNs() - start;
  op->header.reset(static_cast<char *>(sluice_io_alloc(kHeaderBytes, 4096)));
  if (!op->header)
    return failOutOfMemory(error, t.name);
  SwapHeader h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.bytes = t.bytes;
  h.generation = op->generation;
  h.payloadCrc = op->crc;
  h.nameLength = static_cast<uint32_t>(t.name.size());
  std::memcpy(h.name, t.name.data(), t.name.size());
  h.headerCrc = headerChecksum(h);
  std::memcpy(op->header.get(), &h, sizeof(h));

  op->path = tempPath(t, op->generation);
  uint32_t flags =
      SLUICE_IO_FILE_WRITE | SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_TRUNCATE;
  if (options.direct)
    flags |= SLUICE_IO_FILE_DIRECT;
  sluice_status_t status = sluice_io_file_open(options.engine, op->path.c_str(),
                                               flags, &op->file, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  uint32_t rflags = options.durable ? SLUICE_IO_REQUEST_DSYNC : 0;
  op->requests[0] = {
      SLUICE_IO_WRITE,  rflags,           op->file, 0, kHeaderBytes,
      op->header.get(), SLUICE_STATUS_OK, 0,        0};
  op->requests[1] = {SLUICE_IO_WRITE,  rflags,   op->file,
                     kHeaderBytes,     t.padded, t.data.get(),
                     SLUICE_STATUS_OK, 0,        0};
  status = sluice_io_submit(options.engine, op->requests, 2, &op->batch, error);
  if (status != SLUICE_STATUS_OK) {
    sluice_io_file_close(op->file);
    ::unlink(op->path.c_str());
    return status;
  }
  ++t.nextGeneration;
  ++stats.swap_outs;
  t.state = SLUICE_TENSOR_SWAPPING_OUT;
  t.op = std::move(op);
  writeOrder.push_back(index);
  pending.push_back(index);
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice_tier_manager_t::startRead(uint32_t index,
                                                 sluice_error_t *error) {
  Tensor &t = tensors[index];
  sluice_status_t status = reserve(t, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  auto op = std::make_unique<Op>();
  op->generation = t.generation;
  op->crc = t.crc;
  op->path = t.copyPath;
  op->header.reset(static_cast<char *>(sluice_io_alloc(kHeaderBytes, 4096)));
  op->payload = takeBuffer(t.padded, false);
  if (!op->header || !op->payload) {
    account(t.home, -static_cast<int64_t>(t.padded));
    return failOutOfMemory(error, t.name);
  }
  uint32_t flags = SLUICE_IO_FILE_READ;
  if (options.direct)
    flags |= SLUICE_IO_FILE_DIRECT;
  status = sluice_io_file_open(options.engine, op->path.c_str(), flags,
                               &op->file, error);
  if (status == SLUICE_STATUS_OK) {
    op->requests[0] = {
        SLUICE_IO_READ,   0, op->file, 0, kHeaderBytes, op->header.get(),
        SLUICE_STATUS_OK, 0, 0};
    op->requests[1] = {SLUICE_IO_READ,   0,        op->file,
                       kHeaderBytes,     t.padded, op->payload.get(),
                       SLUICE_STATUS_OK, 0,        0};
    status =
        sluice_io_submit(options.engine, op->requests, 2, &op->batch, error);
    if (status != SLUICE_STATUS_OK)
      sluice_io_file_close(op->file);
  }
  if (status != SLUICE_STATUS_OK) {
    account(t.home, -static_cast<int64_t>(t.padded));
    return status;
  }
  ++stats.prefetches;
  t.state = SLUICE_TENSOR_SWAPPING_IN;
  t.op = std::move(op);
  pending.push_back(index);
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice_tier_manager_t::settle(uint32_t index,
                                              sluice_error_t *error) {
  Tensor &t = tensors[index];
  if (!t.op) {
    sluice_status_t deferred = t.deferredStatus;
    if (deferred != SLUICE_STATUS_OK) {
      if (error)
        *error = t.deferred;
      t.deferredStatus = SLUICE_STATUS_OK;
    }
    return deferred;
  }
  for (size_t k = 0; k < pending.size(); ++k)
    if (pending[k] == index) {
      pending.erase(pending.begin() + static_cast<long>(k));
      break;
    }
  std::unique_ptr<Op> op = std::move(t.op);
  uint64_t start = nowNs();
  sluice_error_t ioError;
  sluice_error_clear(&ioError);
  sluice_status_t io = sluice_io_batch_wait(op->batch, &ioError);
  stats.stall_ns += nowNs() - start;
  sluice_io_batch_release(op->batch);
  op->batch = nullptr;
  if (op->write) {
    // A write error some file systems report only at close.
    sluice_error_t closeError;
    sluice_status_t closed =
        sluice_io_file_close_checked(op->file, &closeError);
    if (io == SLUICE_STATUS_OK && closed != SLUICE_STATUS_OK) {
      io = closed;
      ioError = closeError;
    }
  } else {
    sluice_io_file_close(op->file);
  }
  op->file = nullptr;
  if (op->write) {
    for (size_t k = 0; k < writeOrder.size(); ++k)
      if (writeOrder[k] == index) {
        writeOrder.erase(writeOrder.begin() + static_cast<long>(k));
        break;
      }
    return settleWrite(t, *op, io, &ioError, error);
  }
  return settleRead(t, *op, io, &ioError, error);
}

sluice_status_t sluice_tier_manager_t::settleWrite(Tensor &t, Op &op,
                                                   sluice_status_t io,
                                                   sluice_error_t *ioError,
                                                   sluice_error_t *error) {
  std::string finalPath = copyPath(t, op.generation);
  if (io == SLUICE_STATUS_OK && ::rename(op.path.c_str(), finalPath.c_str()))
    io = failErrno(ioError, errno, finalPath,
                   "cannot rename the written swap file into place");
  if (io != SLUICE_STATUS_OK) {
    ::unlink(op.path.c_str());
    t.state = SLUICE_TENSOR_RESIDENT; // still in memory, still changed
    std::string detail(ioError->message);
    return fail(error, io, {ioError->path, 0, 0, ioError->byte_offset},
                "swapping out tensor '" + t.name +
                    "' failed; it stays in memory and its previous copy is "
                    "intact: " +
                    detail);
  }
  if (t.hasCopy)
    dropCopy(t, t.generation);
  t.hasCopy = true;
  t.generation = op.generation;
  t.crc = op.crc;
  t.copyPath = finalPath;
  t.dirty = false;
  stats.bytes_written += t.padded + kHeaderBytes;
  stats.tier_bytes_written[t.home] += t.bytes;
  if (op.keepResident) {
    t.state = SLUICE_TENSOR_RESIDENT;
  } else {
    giveBuffer(std::move(t.data), t.padded);
    dropDevice(t);
    account(t.home, -static_cast<int64_t>(t.padded));
    t.state = SLUICE_TENSOR_ON_DISK;
  }
  return SLUICE_STATUS_OK;
}

sluice_status_t sluice_tier_manager_t::settleRead(Tensor &t, Op &op,
                                                  sluice_status_t io,
                                                  sluice_error_t *ioError,
                                                  sluice_error_t *error) {
  auto undo = [&](sluice_status_t status, const ErrorLocation &where,
                  const std::string &why) {
    giveBuffer(std::move(op.payload), t.padded);
    account(t.home, -static_cast<int64_t>(t.padded));
    t.state = SLUICE_TENSOR_ON_DISK;
    return fail(error, status, where,
                "prefetching tensor '" + t.name +
                    "' failed; it stays on disk: " + why);
  };
  if (io != SLUICE_STATUS_OK)
    return undo(io, {ioError->path, 0, 0, ioError->byte_offset},
                ioError->message);
  SwapHeader h;
  std::memcpy(&h, op.header.get(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0)
    return undo(SLUICE_STATUS_DATA_CORRUPT, {op.path},
                "not a swap file (bad magic)");
  if (h.headerCrc != headerChecksum(h))
    return undo(SLUICE_STATUS_DATA_CORRUPT, {op.path},
                "header checksum mismatch");
  if (h.version != kVersion || h.bytes != t.bytes ||
      h.generation != op.generation || h.nameLength != t.name.size() ||
      std::memcmp(h.name, t.name.data(), t.name.size()) != 0)
    return undo(SLUICE_STATUS_DATA_CORRUPT, {op.path},
                "the header names another tensor, size or generation");
  uint64_t start = nowNs();
  uint32_t crc = sluice_crc32c(0, op.payload.get(), t.bytes);
  stats.checksum_ns += nowNs() - start;
  if (crc != op.crc || h.payloadCrc != op.crc)
    return undo(SLUICE_STATUS_DATA_CORRUPT, {op.path, 0, 0, kHeaderBytes},
                "checksum mismatch: expected CRC-32C " + hex(op.crc) +
                    ", the data has " + hex(crc));
  t.data = std::move(op.payload);
  t.state = SLUICE_TENSOR_RESIDENT;
  t.dirty = false;
  if (onGpu(t)) {
    // Straight on to GPU memory; the staging copy is freed.
    dropDevice(t);
    sluice_status_t status = park(t, error);
    if (status != SLUICE_STATUS_OK) {
      dropDevice(t);
      op.payload = std::move(t.data);
      return undo(status, {op.path},
                  error ? error->message : "GPU copy failed");
    }
  }
  stats.bytes_read += t.padded + kHeaderBytes;
  stats.tier_bytes_read[t.home] += t.bytes;
  return SLUICE_STATUS_OK;
}
