//===- TierManagerState.h - The tier manager's tensors and operations -----===//
//
// Internal to the runtime: the swap-file format, a tensor's state, the
// operation in flight on it and `sluice_tier_manager_t` itself, shared by
// TierSwap.cpp (starting and settling swap I/O, verifying copies) and
// TierManager.cpp (the C API of sluice/tier.h). See docs/offload-runtime.md.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_IO_TIERMANAGERSTATE_H
#define SLUICE_RUNTIME_IO_TIERMANAGERSTATE_H

#include "sluice/tier.h"

#include "runtime/src/Error.h"
#include "runtime/src/io/DeviceMemory.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace sluice::rt::tier {

inline constexpr uint64_t kHeaderBytes = 4096;
inline constexpr char kMagic[8] = {'S', 'L', 'U', 'I', 'C', 'E', 'S', 'W'};
inline constexpr uint32_t kVersion = 1;

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

uint64_t nowNs();

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

const char *tierName(sluice_tier_t tier);

bool validName(const char *name);

inline constexpr std::string_view kTempTag = ".swap.tmp-";

/// The process id in a swap-file temporary's name
/// (".<name>.<generation>.swap.tmp-<pid>"), else 0.
pid_t swapTemporaryOwner(std::string_view name);

uint32_t headerChecksum(SwapHeader header);

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

} // namespace sluice::rt::tier

struct sluice_tier_manager_t {
  using Buffer = sluice::rt::tier::Buffer;
  using Janitor = sluice::rt::tier::Janitor;
  using Op = sluice::rt::tier::Op;
  using Tensor = sluice::rt::tier::Tensor;

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
      return sluice::rt::failOutOfMemory(error, t.name);
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
      sluice_status_t status =
          gpu->upload(t.dev, t.data.get(), t.bytes, what, error);
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
           std::string(sluice::rt::tier::kTempTag) + std::to_string(::getpid());
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

#endif // SLUICE_RUNTIME_IO_TIERMANAGERSTATE_H
