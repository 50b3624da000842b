//===- TierManager.cpp - Tensors in memory tiers, swapped to disk ---------===//
//
// See sluice/tier.h for the contract and docs/offload-runtime.md for the
// design. Each tensor has at most one operation in flight (an Op: a batch of
// two requests, header and payload); operations are completed ("settled")
// by wait, by a call that needs their memory, or by commit.
//
//===----------------------------------------------------------------------===//
#include "sluice/tier.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/Error.h"
#include "runtime/src/StaleTemporaries.h"
#include "runtime/src/io/DeviceMemory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

using namespace sluice::rt;

namespace {

constexpr uint64_t kHeaderBytes = 4096;
constexpr char kMagic[8] = {'S', 'L', 'U', 'I', 'C', 'E', 'S', 'W'};
constexpr uint32_t kVersion = 1;

struct SwapHeader {
  char magic[8];
  uint32_t version;
  uint32_t headerCrc; // CRC-32C of the 4 KiB header with this field 0
  uint64_t bytes;
  uint64_t generation;
  uint32_t payloadCrc;
  uint32_t nameLength;
  char name[256];
};
static_assert(sizeof(SwapHeader) <= kHeaderBytes);

uint64_t nowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

struct AlignedFree {
  void operator()(char *p) const { sluice_io_free(p); }
};
using Buffer = std::unique_ptr<char, AlignedFree>;

struct Op {
  bool write = false;
  bool keepResident = false; // a prefetch came while writing
  sluice_io_file_t *file = nullptr;
  sluice_io_batch_t *batch = nullptr;
  sluice_io_request_t requests[2]{};
  Buffer header;
  Buffer payload; // reads: the buffer being filled
  uint64_t generation = 0;
  uint32_t crc = 0;
  std::string path; // writes: the temporary; reads: the copy
};

struct Tensor {
  std::string name;
  uint64_t bytes = 0;
  uint64_t padded = 0;
  sluice_tier_t home = SLUICE_TIER_HOST;
  uint32_t flags = 0;
  sluice_tensor_state_t state = SLUICE_TENSOR_EMPTY;
  Buffer data;
  bool dirty = true;
  bool hasCopy = false;
  uint64_t generation = 0;
  uint32_t crc = 0;
  uint64_t nextGeneration = 1;
  bool committed = false;
  uint64_t committedGeneration = 0;
  std::unique_ptr<Op> op;
  /// CUDA device tier: the GPU memory of a resident device tensor (0 =
  /// none). `data` is then a host view (or null).
  uint64_t dev = 0;
  bool viewDirty = false;
  std::string copyPath; // current copy
  // The outcome of an operation completed in the background (reap), kept
  // for the next wait on this tensor.
  sluice_status_t deferredStatus = SLUICE_STATUS_OK;
  sluice_error_t deferred{};
  bool persistent() const { return flags & SLUICE_TIER_PERSISTENT; }
};

const char *tierName(sluice_tier_t tier) {
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

bool validName(const char *name) {
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

constexpr std::string_view kTempTag = ".swap.tmp-";

/// The process id in a swap-file temporary's name
/// (".<name>.<generation>.swap.tmp-<pid>"), else 0.
pid_t swapTemporaryOwner(std::string_view name) {
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

uint32_t headerChecksum(SwapHeader header) {
  header.headerCrc = 0;
  std::vector<char> page(kHeaderBytes, 0);
  std::memcpy(page.data(), &header, sizeof(header));
  return sluice_crc32c(0, page.data(), page.size());
}

/// Deletes superseded swap files on its own thread: on a busy disk an
/// unlink takes milliseconds that the trainer's critical path should not
/// pay. Only files no longer named by any tensor or manifest are queued, and
/// generation numbers never repeat, so a late unlink cannot hit a live file.
class Janitor {
public:
  ~Janitor() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    cv.notify_all();
    if (thread.joinable())
      thread.join();
  }
  void unlink(std::string path) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!thread.joinable())
      thread = std::thread([this] { run(); });
    queue.push_back(std::move(path));
    cv.notify_all();
  }
  /// Returns once every queued file is deleted.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [&] { return queue.empty() && busy == 0; });
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      cv.wait(lock, [&] { return stopping || !queue.empty(); });
      if (queue.empty())
        return;
      std::string path = std::move(queue.front());
      queue.pop_front();
      ++busy;
      lock.unlock();
      ::unlink(path.c_str());
      lock.lock();
      --busy;
      if (queue.empty())
        idle.notify_all();
    }
  }
  std::mutex mutex;
  std::condition_variable cv, idle;
  std::deque<std::string> queue;
  int busy = 0;
  bool stopping = false;
  std::thread thread;
};

} // namespace

struct sluice_tier_manager_t {
  Janitor janitor;
  // Freed tensor buffers by size, for reuse: on a VM fresh pages from the
  // kernel cost a fault each (a 4 MiB buffer can take 100 ms), so buffers
  // are recycled, like the pinned buffer pools of offloading systems.
  std::unordered_map<uint64_t, std::vector<Buffer>> pool;
  uint64_t pooledBytes = 0;
  static constexpr uint64_t kPoolLimit = uint64_t(1) << 30;

  /// A buffer of `padded` bytes; zero-filled when `zero`.
  Buffer takeBuffer(uint64_t padded, bool zero) {
    auto it = pool.find(padded);
    if (it != pool.end() && !it->second.empty()) {
      Buffer b = std::move(it->second.back());
      it->second.pop_back();
      pooledBytes -= padded;
      if (zero)
        std::memset(b.get(), 0, padded);
      return b;
    }
    return Buffer(static_cast<char *>(sluice_io_alloc(padded, 4096)));
  }
  void giveBuffer(Buffer b, uint64_t padded) {
    if (!b || pooledBytes + padded > kPoolLimit)
      return; // freed
    pooledBytes += padded;
    pool[padded].push_back(std::move(b));
  }

  sluice_tier_options_t options{};
  /// The CUDA device tier (options.device_cuda), else null.
  std::unique_ptr<sluice::rt::DeviceMemory> gpu;
  bool onGpu(const Tensor &t) const {
    return gpu && t.home == SLUICE_TIER_DEVICE;
  }
  /// The host view of a device tensor on the GPU (device -> host).
  sluice_status_t unpark(Tensor &t, sluice_error_t *error) {
    if (!onGpu(t) || t.data || !t.dev)
      return SLUICE_STATUS_OK;
    Buffer view = takeBuffer(t.padded, false);
    if (!view)
      return failOutOfMemory(error, t.name);
    sluice_status_t status = gpu->download(view.get(), t.dev, t.bytes,
                                           "tensor '" + t.name + "'", error);
    if (status != SLUICE_STATUS_OK) {
      giveBuffer(std::move(view), t.padded);
      return status;
    }
    t.data = std::move(view);
    t.viewDirty = false;
    return SLUICE_STATUS_OK;
  }
  /// Moves a resident device tensor's host data to the GPU (host ->
  /// device) and frees the host memory.
  sluice_status_t park(Tensor &t, sluice_error_t *error) {
    if (!onGpu(t) || !t.data || t.state != SLUICE_TENSOR_RESIDENT)
      return SLUICE_STATUS_OK;
    const std::string what = "tensor '" + t.name + "'";
    bool fresh = !t.dev;
    if (fresh) {
      sluice_status_t status = gpu->allocate(t.bytes, t.dev, what, error);
      if (status != SLUICE_STATUS_OK)
        return status;
    }
    if (fresh || t.viewDirty) {
      sluice_status_t status = gpu->upload(t.dev, t.data.get(), t.bytes, what,
                                           error);
      if (status != SLUICE_STATUS_OK)
        return status; // the host view stays the data
    }
    giveBuffer(std::move(t.data), t.padded);
    t.viewDirty = false;
    return SLUICE_STATUS_OK;
  }
  void dropDevice(Tensor &t) {
    if (gpu && t.dev)
      gpu->release(t.dev);
    t.dev = 0;
  }
  std::string dir;
  std::vector<Tensor> tensors;
  std::unordered_map<std::string, uint32_t> byName;
  uint64_t used[2] = {0, 0};
  uint64_t peak[2] = {0, 0};
  uint64_t budget[2] = {0, 0};
  sluice_tier_stats_t stats{};
  // Tensors with a write in flight, oldest first (for budget pressure).
  std::vector<uint32_t> writeOrder;
  // Tensors with any operation in flight.
  std::vector<uint32_t> pending;

  /// Completes, without blocking, every operation whose I/O has finished,
  /// so that memory is released as soon as possible; errors wait for the
  /// next wait() on the tensor.
  void reap();

  std::string copyPath(const Tensor &t, uint64_t generation) const {
    return dir + "/" + t.name + "." + std::to_string(generation) + ".swap";
  }
  /// ".<name>.<generation>.swap.tmp-<pid>": the pid lets a later run tell
  /// the temporaries of a killed process (swapTemporaryOwner).
  std::string tempPath(const Tensor &t, uint64_t generation) const {
    return dir + "/." + t.name + "." + std::to_string(generation) +
           std::string(kTempTag) + std::to_string(::getpid());
  }

  void account(sluice_tier_t tier, int64_t delta) {
    used[tier] += static_cast<uint64_t>(delta);
    if (used[tier] > peak[tier])
      peak[tier] = used[tier];
  }

  sluice_status_t reserve(Tensor &t, sluice_error_t *error);
  sluice_status_t startWrite(uint32_t index, sluice_error_t *error);
  sluice_status_t startRead(uint32_t index, sluice_error_t *error);
  sluice_status_t settle(uint32_t index, sluice_error_t *error);
  sluice_status_t settleWrite(Tensor &t, Op &op, sluice_status_t io,
                              sluice_error_t *ioError, sluice_error_t *error);
  sluice_status_t settleRead(Tensor &t, Op &op, sluice_status_t io,
                             sluice_error_t *ioError, sluice_error_t *error);
  void dropCopy(Tensor &t, uint64_t generation);
  /// fsync of the swap directory (the names of renamed swap files).
  sluice_status_t syncDirectory(sluice_error_t *error);
  /// Copies named by the manifest before a commit whose new manifest was
  /// renamed into place but not made durable: a crash may bring that
  /// manifest back, so they stay until a commit is durable.
  std::vector<std::string> unconfirmed;
  /// The manifest in place is not known to be durable (see unconfirmed).
  bool manifestUnconfirmed = false;
  /// Reports (once) the error of an operation completed in the background.
  sluice_status_t takeDeferred(Tensor &t, sluice_error_t *error) {
    sluice_status_t status = t.deferredStatus;
    if (status != SLUICE_STATUS_OK) {
      if (error)
        *error = t.deferred;
      t.deferredStatus = SLUICE_STATUS_OK;
    }
    return status;
  }
  sluice_status_t checkIds(const sluice_tensor_t *ids, size_t count,
                           sluice_error_t *error, const char *what);
  /// Reads the committed copy of `t` whole: size, header and payload CRC
  /// against the manifest's (restore).
  sluice_status_t verifyCommittedCopy(const Tensor &t, sluice_error_t *error);
};

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
  uint32_t flags = SLUICE_IO_FILE_WRITE | SLUICE_IO_FILE_CREATE |
                   SLUICE_IO_FILE_TRUNCATE;
  if (options.direct)
    flags |= SLUICE_IO_FILE_DIRECT;
  sluice_status_t status =
      sluice_io_file_open(options.engine, op->path.c_str(), flags, &op->file,
                          error);
  if (status != SLUICE_STATUS_OK)
    return status;
  uint32_t rflags = options.durable ? SLUICE_IO_REQUEST_DSYNC : 0;
  op->requests[0] = {SLUICE_IO_WRITE, rflags, op->file, 0, kHeaderBytes,
                     op->header.get(), SLUICE_STATUS_OK, 0, 0};
  op->requests[1] = {SLUICE_IO_WRITE, rflags, op->file, kHeaderBytes,
                     t.padded, t.data.get(), SLUICE_STATUS_OK, 0, 0};
  status = sluice_io_submit(options.engine, op->requests, 2, &op->batch,
                            error);
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
    op->requests[0] = {SLUICE_IO_READ, 0, op->file, 0, kHeaderBytes,
                       op->header.get(), SLUICE_STATUS_OK, 0, 0};
    op->requests[1] = {SLUICE_IO_READ, 0, op->file, kHeaderBytes, t.padded,
                       op->payload.get(), SLUICE_STATUS_OK, 0, 0};
    status = sluice_io_submit(options.engine, op->requests, 2, &op->batch,
                              error);
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
      return undo(status, {op.path}, error ? error->message : "GPU copy failed");
    }
  }
  stats.bytes_read += t.padded + kHeaderBytes;
  stats.tier_bytes_read[t.home] += t.bytes;
  return SLUICE_STATUS_OK;
}

//===--- C API -------------------------------------------------------------===//

extern "C" void sluice_tier_options_init(sluice_tier_options_t *options) {
  if (!options)
    return;
  options->swap_dir = nullptr;
  options->engine = nullptr;
  options->device_budget = 0;
  options->host_budget = UINT64_MAX;
  options->direct = 1;
  options->durable = 1;
  options->device_cuda = 0;
  options->cuda_ordinal = 0;
}

static sluice_status_t makeManager(const sluice_tier_options_t *options,
                                   std::unique_ptr<sluice_tier_manager_t> &m,
                                   sluice_error_t *error) {
  if (!options->swap_dir || !options->engine)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "the tier manager needs a swap directory and an i/o engine");
  struct stat st;
  if (::stat(options->swap_dir, &st) != 0)
    return failErrno(error, errno, options->swap_dir,
                     "cannot use the swap directory");
  if (!S_ISDIR(st.st_mode))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {options->swap_dir},
                "the swap directory is not a directory");
  m = std::make_unique<sluice_tier_manager_t>();
  m->options = *options;
  m->dir = options->swap_dir;
  while (m->dir.size() > 1 && m->dir.back() == '/')
    m->dir.pop_back();
  m->options.swap_dir = nullptr; // not kept: the caller's string
  m->budget[SLUICE_TIER_DEVICE] = options->device_budget;
  m->budget[SLUICE_TIER_HOST] = options->host_budget;
  // Swap-file temporaries of killed runs (hundreds of MB each).
  removeStaleTemporaries(m->dir, swapTemporaryOwner);
  if (options->device_cuda)
    return sluice::rt::DeviceMemory::open(options->cuda_ordinal, m->gpu,
                                          error);
  return SLUICE_STATUS_OK;
}

extern "C" sluice_status_t
sluice_tier_manager_create(const sluice_tier_options_t *options,
                           sluice_tier_manager_t **out_manager,
                           sluice_error_t *error) {
  if (!options || !out_manager)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_manager_create: NULL argument");
  return guarded(error, "", [&]() -> sluice_status_t {
    std::unique_ptr<sluice_tier_manager_t> m;
    sluice_status_t status = makeManager(options, m, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    *out_manager = m.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_tier_manager_open(const sluice_tier_options_t *options,
                         const char *manifest_path,
                         sluice_tier_manager_t **out_manager,
                         sluice_error_t *error) {
  if (!options || !manifest_path || !out_manager)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_manager_open: NULL argument");
  return guarded(error, manifest_path, [&]() -> sluice_status_t {
    std::unique_ptr<sluice_tier_manager_t> m;
    sluice_status_t status = makeManager(options, m, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    std::ifstream in(manifest_path);
    if (!in)
      return failErrno(error, errno ? errno : ENOENT, manifest_path,
                       "cannot open the manifest");
    std::string line;
    uint64_t lineNo = 1;
    if (!std::getline(in, line) || line != "sluice-tier-manifest 1")
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {manifest_path, 1, 1},
                  "expected 'sluice-tier-manifest 1'");
    std::set<std::string> keep;
    while (std::getline(in, line)) {
      ++lineNo;
      if (line.empty())
        continue;
      std::istringstream fields(line);
      Tensor t;
      std::string home, crc;
      std::string rest;
      bool parsed = static_cast<bool>(fields >> t.name >> t.bytes >> home >>
                                      t.generation >> crc) &&
                    !(fields >> rest);
      bool hexCrc = crc.size() == 8 &&
                    crc.find_first_not_of("0123456789abcdefABCDEF") ==
                        std::string::npos;
      if (!parsed || !hexCrc || !validName(t.name.c_str()) ||
          (home != "device" && home != "host") || m->byName.count(t.name) ||
          t.bytes == 0 || t.bytes > (uint64_t(1) << 40))
        return fail(error, SLUICE_STATUS_PARSE_ERROR,
                    {manifest_path, lineNo, 1},
                    "expected '<name> <bytes> device|host <generation> "
                    "<crc32c as 8 hex digits>' with a new name, got " +
                        quote(line));
      t.home = home == "device" ? SLUICE_TIER_DEVICE : SLUICE_TIER_HOST;
      t.crc = static_cast<uint32_t>(std::stoul(crc, nullptr, 16));
      t.padded = (t.bytes + 4095) / 4096 * 4096;
      t.flags = SLUICE_TIER_PERSISTENT;
      t.state = SLUICE_TENSOR_ON_DISK;
      t.dirty = false;
      t.hasCopy = true;
      t.committed = true;
      t.committedGeneration = t.generation;
      t.nextGeneration = t.generation + 1;
      t.copyPath = m->copyPath(t, t.generation);
      // The copy must exist, with a header that matches the manifest and
      // a payload with the CRC it records: a restore that succeeds leaves
      // a committed state that is whole, not one that fails when read.
      status = m->verifyCommittedCopy(t, error);
      if (status != SLUICE_STATUS_OK)
        return status;
      keep.insert(t.copyPath);
      m->byName[t.name] = static_cast<uint32_t>(m->tensors.size());
      m->tensors.push_back(std::move(t));
    }
    // Remove copies and temporaries the manifest does not name.
    if (DIR *d = ::opendir(m->dir.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string name = e->d_name;
        auto endsWith = [&](const char *suffix) {
          size_t n = std::strlen(suffix);
          return name.size() > n &&
                 name.compare(name.size() - n, n, suffix) == 0;
        };
        std::string path = m->dir + "/" + name;
        // ".swap.tmp": a temporary named before they carried the pid.
        if ((endsWith(".swap") || endsWith(".swap.tmp")) && !keep.count(path))
          ::unlink(path.c_str());
      }
      ::closedir(d);
    }
    *out_manager = m.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_tier_manager_destroy(sluice_tier_manager_t *m) {
  if (!m)
    return;
  for (uint32_t i = 0; i < m->tensors.size(); ++i) {
    sluice_error_t ignored;
    m->settle(i, &ignored);
    Tensor &t = m->tensors[i];
    if (t.hasCopy && !(t.committed && t.generation == t.committedGeneration))
      ::unlink(t.copyPath.c_str());
  }
  delete m;
}

extern "C" sluice_status_t
sluice_tier_tensor_create(sluice_tier_manager_t *m, const char *name,
                          uint64_t bytes, sluice_tier_t home, uint32_t flags,
                          sluice_tensor_t *out_tensor, sluice_error_t *error) {
  if (!m || !name || !out_tensor)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_tensor_create: NULL argument");
  return guarded(error, "", [&]() -> sluice_status_t {
    if (!validName(name))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "tensor name " + quote(name) +
                      " is not 1-200 characters of [A-Za-z0-9_.-] (not "
                      "starting with '.')");
    if (m->byName.count(name))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "a tensor named " + quote(name) + " already exists");
    int64_t tier = enumValue(home);
    if (tier != SLUICE_TIER_DEVICE && tier != SLUICE_TIER_HOST)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "tensor " + quote(name) +
                      ": the home tier must be device or host");
    if (flags & ~uint32_t(SLUICE_TIER_PERSISTENT))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "unknown tensor flags " + hex(flags));
    if (bytes == 0 || bytes > (uint64_t(1) << 40))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "tensor " + quote(name) + ": size " +
                      std::to_string(bytes) + " is outside 1..2^40 bytes");
    Tensor t;
    t.name = name;
    t.bytes = bytes;
    t.padded = (bytes + 4095) / 4096 * 4096;
    t.home = home;
    t.flags = flags;
    sluice_status_t status = m->reserve(t, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    t.data = m->takeBuffer(t.padded, true);
    if (!t.data) {
      m->account(home, -static_cast<int64_t>(t.padded));
      return failOutOfMemory(error, name);
    }
    t.state = SLUICE_TENSOR_RESIDENT;
    *out_tensor = static_cast<sluice_tensor_t>(m->tensors.size());
    m->byName[t.name] = *out_tensor;
    m->tensors.push_back(std::move(t));
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_tier_tensor_find(const sluice_tier_manager_t *m, const char *name,
                        sluice_tensor_t *out_tensor, sluice_error_t *error) {
  if (!m || !name || !out_tensor)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_tensor_find: NULL argument");
  auto it = m->byName.find(name);
  if (it == m->byName.end())
    return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                "no tensor named " + quote(name));
  *out_tensor = it->second;
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" uint32_t sluice_tier_tensor_count(const sluice_tier_manager_t *m) {
  return m ? static_cast<uint32_t>(m->tensors.size()) : 0;
}

#define SLUICE_TENSOR_OR(m, id, fallback)                                      \
  if (!(m) || (id) >= (m)->tensors.size())                                     \
    return fallback;                                                           \
  const Tensor &t = (m)->tensors[id];

extern "C" const char *sluice_tier_tensor_name(const sluice_tier_manager_t *m,
                                               sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, "")
  return t.name.c_str();
}

extern "C" uint64_t sluice_tier_tensor_bytes(const sluice_tier_manager_t *m,
                                             sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, 0)
  return t.bytes;
}

extern "C" sluice_tensor_state_t
sluice_tier_tensor_state(const sluice_tier_manager_t *m, sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, SLUICE_TENSOR_EMPTY)
  return t.state;
}

extern "C" const void *sluice_tier_tensor_read(const sluice_tier_manager_t *m,
                                               sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, nullptr)
  if (t.state == SLUICE_TENSOR_RESIDENT ||
      t.state == SLUICE_TENSOR_SWAPPING_OUT) {
    // A CUDA device tensor: its host view (a copy from the GPU).
    auto *mm = const_cast<sluice_tier_manager_t *>(m);
    if (mm->unpark(mm->tensors[id], nullptr) != SLUICE_STATUS_OK)
      return nullptr;
    return t.data.get();
  }
  return nullptr;
}

extern "C" void *sluice_tier_tensor_write(sluice_tier_manager_t *m,
                                          sluice_tensor_t id) {
  if (!m || id >= m->tensors.size())
    return nullptr;
  Tensor &t = m->tensors[id];
  if (t.state != SLUICE_TENSOR_RESIDENT)
    return nullptr;
  if (m->unpark(t, nullptr) != SLUICE_STATUS_OK)
    return nullptr;
  t.dirty = true;
  t.viewDirty = true;
  return t.data.get();
}

extern "C" uint32_t sluice_tier_tensor_disk_crc(const sluice_tier_manager_t *m,
                                                sluice_tensor_t id,
                                                int *has_copy) {
  if (has_copy)
    *has_copy = 0;
  SLUICE_TENSOR_OR(m, id, 0)
  if (has_copy)
    *has_copy = t.hasCopy;
  return t.hasCopy ? t.crc : 0;
}

extern "C" const char *
sluice_tier_tensor_disk_path(const sluice_tier_manager_t *m,
                             sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, "")
  return t.hasCopy ? t.copyPath.c_str() : "";
}

/// The frame every batch call shares: a NULL-manager check, the exception
/// guard, reaping finished I/O and validating `ids` (`action` names the call
/// in that error), then `body()`.
template <typename Body>
static sluice_status_t batchCall(sluice_tier_manager_t *m,
                                 const sluice_tensor_t *ids, size_t count,
                                 sluice_error_t *error, const char *function,
                                 const char *action, Body body) {
  if (!m)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                std::string(function) + ": NULL manager");
  return guarded(error, "", [&]() -> sluice_status_t {
    m->reap();
    sluice_status_t status = m->checkIds(ids, count, error, action);
    if (status != SLUICE_STATUS_OK)
      return status;
    return body();
  });
}

/// batchCall() whose body runs `step(id, tensor)` on each tensor in order,
/// stopping at the first failure; on success it clears `error`.
template <typename Step>
static sluice_status_t forEachTensor(sluice_tier_manager_t *m,
                                     const sluice_tensor_t *ids, size_t count,
                                     sluice_error_t *error,
                                     const char *function, const char *action,
                                     Step step) {
  return batchCall(m, ids, count, error, function, action,
                   [&]() -> sluice_status_t {
                     for (size_t i = 0; i < count; ++i) {
                       sluice_status_t status =
                           step(ids[i], m->tensors[ids[i]]);
                       if (status != SLUICE_STATUS_OK)
                         return status;
                     }
                     sluice_error_clear(error);
                     return SLUICE_STATUS_OK;
                   });
}

extern "C" sluice_status_t sluice_tier_swap_out(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *ids,
                                                size_t count,
                                                sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_swap_out", "swap out",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_status_t status = m->takeDeferred(t, error);
        if (status != SLUICE_STATUS_OK)
          return status;
        if (t.state == SLUICE_TENSOR_SWAPPING_IN) {
          status = m->settle(id, error);
          if (status != SLUICE_STATUS_OK)
            return status;
        }
        if (t.state == SLUICE_TENSOR_SWAPPING_OUT) {
          t.op->keepResident = false;
          return SLUICE_STATUS_OK;
        }
        if (t.state != SLUICE_TENSOR_RESIDENT)
          return SLUICE_STATUS_OK; // already out, or empty
        if (!t.dirty && t.hasCopy) {
          m->giveBuffer(std::move(t.data), t.padded);
          m->dropDevice(t);
          m->account(t.home, -static_cast<int64_t>(t.padded));
          t.state = SLUICE_TENSOR_ON_DISK;
          ++m->stats.swap_outs_clean;
          return SLUICE_STATUS_OK;
        }
        return m->startWrite(id, error);
      });
}

extern "C" sluice_status_t sluice_tier_prefetch(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *ids,
                                                size_t count,
                                                sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_prefetch", "prefetch",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_status_t status = m->takeDeferred(t, error);
        if (status != SLUICE_STATUS_OK)
          return status;
        switch (t.state) {
        case SLUICE_TENSOR_RESIDENT:
        case SLUICE_TENSOR_SWAPPING_IN:
          break;
        case SLUICE_TENSOR_SWAPPING_OUT:
          if (!t.op->keepResident)
            m->stats.tier_bytes_reused[t.home] += t.bytes;
          t.op->keepResident = true;
          break;
        case SLUICE_TENSOR_EMPTY:
          status = m->reserve(t, error);
          if (status != SLUICE_STATUS_OK)
            return status;
          t.data = m->takeBuffer(t.padded, true);
          if (!t.data) {
            m->account(t.home, -static_cast<int64_t>(t.padded));
            return failOutOfMemory(error, t.name);
          }
          t.state = SLUICE_TENSOR_RESIDENT;
          t.dirty = true;
          break;
        case SLUICE_TENSOR_ON_DISK:
          return m->startRead(id, error);
        }
        return SLUICE_STATUS_OK;
      });
}

extern "C" sluice_status_t sluice_tier_park(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return forEachTensor(m, ids, count, error, "sluice_tier_park", "park",
                       [&](sluice_tensor_t, Tensor &t) -> sluice_status_t {
                         return m->park(t, error);
                       });
}

extern "C" sluice_status_t sluice_tier_view(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return forEachTensor(m, ids, count, error, "sluice_tier_view", "view",
                       [&](sluice_tensor_t, Tensor &t) -> sluice_status_t {
                         if (t.state != SLUICE_TENSOR_RESIDENT &&
                             t.state != SLUICE_TENSOR_SWAPPING_OUT)
                           return SLUICE_STATUS_OK;
                         return m->unpark(t, error);
                       });
}

extern "C" sluice_status_t sluice_tier_discard(sluice_tier_manager_t *m,
                                               const sluice_tensor_t *ids,
                                               size_t count,
                                               sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_discard", "discard",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_error_t ignored; // its outcome no longer matters
        m->settle(id, &ignored);
        m->takeDeferred(t, &ignored);
        if (t.data || t.dev) {
          m->giveBuffer(std::move(t.data), t.padded);
          m->dropDevice(t);
          m->account(t.home, -static_cast<int64_t>(t.padded));
        }
        if (t.hasCopy)
          m->dropCopy(t, t.generation);
        t.hasCopy = false;
        t.copyPath.clear();
        t.dirty = true;
        t.state = SLUICE_TENSOR_EMPTY;
        return SLUICE_STATUS_OK;
      });
}

extern "C" sluice_status_t sluice_tier_wait(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return batchCall(
      m, ids, count, error, "sluice_tier_wait", "wait",
      [&]() -> sluice_status_t {
        sluice_status_t first = SLUICE_STATUS_OK;
        for (size_t i = 0; i < count; ++i) {
          sluice_error_t local;
          sluice_status_t s = m->settle(ids[i], &local);
          if (s != SLUICE_STATUS_OK && first == SLUICE_STATUS_OK) {
            first = s;
            if (error)
              *error = local;
          }
        }
        if (first == SLUICE_STATUS_OK)
          sluice_error_clear(error);
        return first;
      });
}

extern "C" sluice_status_t sluice_tier_wait_all(sluice_tier_manager_t *m,
                                                sluice_error_t *error) {
  if (!m)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_wait_all: NULL manager");
  std::vector<sluice_tensor_t> all(m->tensors.size());
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = i;
  sluice_status_t status = sluice_tier_wait(m, all.data(), all.size(), error);
  m->janitor.drain();
  return status;
}

extern "C" sluice_status_t sluice_tier_commit(sluice_tier_manager_t *m,
                                              const char *manifest_path,
                                              sluice_error_t *error) {
  if (!m || !manifest_path)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_commit: NULL argument");
  sluice_status_t status = sluice_tier_wait_all(m, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  return guarded(error, manifest_path, [&]() -> sluice_status_t {
    std::string text = "sluice-tier-manifest 1\n";
    for (const Tensor &t : m->tensors) {
      if (!t.persistent())
        continue;
      if (!t.hasCopy || (t.state == SLUICE_TENSOR_RESIDENT && t.dirty))
        return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {manifest_path},
                    "persistent tensor '" + t.name +
                        "' has no current disk copy; swap it out before "
                        "committing");
      char crc[16];
      std::snprintf(crc, sizeof(crc), "%08" PRIx32, t.crc);
      text += t.name + " " + std::to_string(t.bytes) + " " +
              tierName(t.home) + " " + std::to_string(t.generation) + " " +
              crc + "\n";
    }
    // The swap files' data is on disk (RWF_DSYNC); make their names
    // durable before the manifest that points at them. A failure here
    // changes nothing: the previous manifest and its copies stay.
    if (m->options.durable) {
      sluice_status_t s = m->syncDirectory(error);
      if (s != SLUICE_STATUS_OK)
        return s;
    }
    AtomicFile file;
    sluice_status_t s = file.open(manifest_path, error);
    if (s == SLUICE_STATUS_OK)
      s = file.write(text.data(), text.size(), error);
    if (s == SLUICE_STATUS_OK)
      s = file.commit(error);
    if (s != SLUICE_STATUS_OK && !file.renamed())
      return s; // the previous manifest is in place
    // The new manifest is in place. Unless it is durable, a crash may bring
    // back the previous one, so the copies that one names stay too.
    const bool durable = s == SLUICE_STATUS_OK;
    m->manifestUnconfirmed = !durable;
    if (durable) {
      for (const std::string &path : m->unconfirmed)
        m->janitor.unlink(path);
      m->unconfirmed.clear();
    }
    for (Tensor &t : m->tensors) {
      if (!t.persistent())
        continue;
      if (t.committed && t.committedGeneration != t.generation) {
        std::string previous = m->copyPath(t, t.committedGeneration);
        if (durable)
          m->janitor.unlink(std::move(previous));
        else
          m->unconfirmed.push_back(std::move(previous));
      }
      t.committed = true;
      t.committedGeneration = t.generation;
    }
    if (!durable)
      return s;
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" int sluice_tier_commit_unconfirmed(const sluice_tier_manager_t *m) {
  return m && m->manifestUnconfirmed ? 1 : 0;
}

extern "C" void sluice_tier_stats(const sluice_tier_manager_t *m,
                                  sluice_tier_stats_t *out) {
  if (!m || !out)
    return;
  *out = m->stats;
  if (m->gpu) {
    out->gpu_allocated = m->gpu->allocated();
    out->gpu_peak = m->gpu->peak();
    out->gpu_bytes_h2d = m->gpu->uploaded();
    out->gpu_bytes_d2h = m->gpu->downloaded();
  }
  out->device_used = m->used[SLUICE_TIER_DEVICE];
  out->device_peak = m->peak[SLUICE_TIER_DEVICE];
  out->host_used = m->used[SLUICE_TIER_HOST];
  out->host_peak = m->peak[SLUICE_TIER_HOST];
}
