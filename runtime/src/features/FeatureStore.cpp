//===- FeatureStore.cpp - Tiered GNN feature store: placement, gathers ----===//
//
// open(): check the file (FeatureFile.h), rank the rows (placeRows), size
// the tiers, fill the per-row (tier, slot) table, load the cached rows with
// sequential reads of consecutive ids, and upload the device tier.
// submit()/wait(): one batch of merged O_DIRECT block reads per ticket into
// a per-ticket bounce buffer (registered with the ring), copied out in
// wait().
//
//===----------------------------------------------------------------------===//
#include "runtime/src/features/FeatureStore.h"

#include "runtime/src/io/DeviceMemory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <new>
#include <numeric>
#include <unistd.h>

using namespace sluice::rt;
using namespace sluice::rt::features;

namespace {

constexpr uint64_t kAlign = 4096;        // O_DIRECT alignment of the engine
constexpr uint64_t kLoadChunk = 4 << 20; // sequential reads at open

uint64_t roundDown(uint64_t v, uint64_t a) { return v / a * a; }
uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string errorText(const sluice_error_t &err) {
  char text[2048];
  sluice_error_format(&err, text, sizeof(text));
  return text;
}

uint64_t nanosSince(std::chrono::steady_clock::time_point since) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - since)
          .count());
}

} // namespace

/// One ticket slot: the merged reads of a ticket in flight and where each
/// row lands. Slots (and their bounce buffers) are reused.
struct FeatureStore::Pending {
  Ticket ticket = 0; ///< 0: free
  float *out = nullptr;
  size_t n = 0;
  std::string error; ///< failed before any read was started
  struct Copy {
    uint32_t outIndex;
    uint64_t bounceOffset;
  };
  std::vector<Copy> copies;
  std::vector<std::pair<uint64_t, uint32_t>> misses; ///< (byte, position)
  std::vector<sluice_io_request_t> requests;
  sluice_io_batch_t *batch = nullptr;
  char *bounce = nullptr;
  uint64_t capacity = 0;
  bool registered = false;
};

bool sluice::rt::features::placeRows(uint64_t rows,
                                     const std::vector<double> &counts,
                                     uint64_t deviceRows, uint64_t hostRows,
                                     CachePlacement &out, std::string &error) {
  if (!counts.empty() && counts.size() != rows) {
    error = "expected access counts: " + std::to_string(counts.size()) +
            " values for " + std::to_string(rows) + " rows";
    return false;
  }
  for (size_t i = 0; i < counts.size(); ++i)
    if (!std::isfinite(counts[i]) || counts[i] < 0) {
      error = "expected access count of row " + std::to_string(i) + " is " +
              std::to_string(counts[i]) + "; counts must be finite and >= 0";
      return false;
    }
  out.order.resize(rows);
  std::iota(out.order.begin(), out.order.end(), 0u);
  // Highest count first; equal counts keep id order (stable sort).
  if (!counts.empty())
    std::stable_sort(
        out.order.begin(), out.order.end(),
        [&](uint32_t a, uint32_t b) { return counts[a] > counts[b]; });
  out.deviceRows = std::min(deviceRows, rows);
  out.hostRows = std::min(hostRows, rows - out.deviceRows);
  return true;
}

FeatureStore::~FeatureStore() {
  for (auto &p : pending) {
    if (p->batch)
      sluice_io_batch_release(p->batch);
    if (p->registered)
      sluice_io_unregister_buffer(io, p->bounce);
    sluice_io_free(p->bounce);
  }
  sluice_io_file_close(file);
  sluice_io_engine_destroy(io);
}

std::unique_ptr<FeatureStore>
FeatureStore::open(const FeatureStoreOptions &options, std::string &error) {
  const std::string &path = options.path;
  if (options.maxTickets < 1 || options.maxTickets > 64) {
    error = path + ": maxTickets " + std::to_string(options.maxTickets) +
            " is outside 1..64";
    return nullptr;
  }
  if (options.maxRowsPerTicket < 1) {
    error = path + ": maxRowsPerTicket must be at least 1";
    return nullptr;
  }
  if (options.maxMergedBytes < kAlign || options.maxMergedBytes % kAlign) {
    error = path + ": maxMergedBytes " +
            std::to_string(options.maxMergedBytes) +
            " is not a positive multiple of 4096";
    return nullptr;
  }
  std::unique_ptr<FeatureStore> store(new FeatureStore);
  store->opts = options;
  FeatureLayout &shape = store->shape;
  if (!readFeatureLayout(path, options.format, options.rows, options.dim, shape,
                         error))
    return nullptr;
  const uint64_t rowBytes = shape.rowBytes();

  // The device tier, when there is a GPU.
  uint64_t deviceRows = 0;
  if (options.deviceCacheBytes >= rowBytes) {
    sluice_error_t err;
    std::unique_ptr<DeviceMemory> device;
    if (DeviceMemory::open(options.cudaDevice, device, &err) !=
        SLUICE_STATUS_OK) {
      store->noDeviceReason = errorText(err);
    } else {
      uint64_t free = 0, total = 0;
      std::string gpu =
          "GPU " + std::to_string(options.cudaDevice) +
          (device->name().empty() ? "" : " (" + device->name() + ")");
      if (device->memoryInfo(free, total) && options.deviceCacheBytes > total) {
        error = path + ": the device cache of " +
                std::to_string(options.deviceCacheBytes) +
                " bytes is larger than " + gpu + ", which has " +
                std::to_string(total) + " bytes of memory";
        return nullptr;
      }
      deviceRows = std::min(options.deviceCacheBytes / rowBytes, shape.rows);
      if (device->allocate(deviceRows * rowBytes, store->deviceBase,
                           "the feature cache", &err) != SLUICE_STATUS_OK) {
        error = path + ": the device cache of " +
                std::to_string(deviceRows * rowBytes) + " bytes (" +
                std::to_string(deviceRows) + " rows) does not fit on " + gpu +
                ": " + errorText(err);
        return nullptr;
      }
      store->device = std::move(device);
    }
  }
  uint64_t hostRows = options.direct ? options.hostCacheBytes / rowBytes
                                     : shape.rows; // everything, in memory
  CachePlacement placement;
  if (!placeRows(shape.rows, options.expectedAccesses, deviceRows, hostRows,
                 placement, error)) {
    error = path + ": " + error;
    return nullptr;
  }
  if (!store->loadCaches(placement, error))
    return nullptr;
  for (uint32_t k = 0; k < options.maxTickets; ++k)
    store->pending.push_back(std::make_unique<Pending>());
  if (!options.direct)
    return store;

  sluice_io_options_t io;
  sluice_io_options_init(&io);
  io.backend = options.backend;
  io.queue_depth = options.queueDepth;
  io.uring_flags = options.uringFlags;
  io.block_size = options.maxMergedBytes;
  sluice_error_t err;
  if (sluice_io_engine_create(&io, &store->io, &err) != SLUICE_STATUS_OK) {
    error = path + ": cannot start the i/o engine: " + errorText(err);
    return nullptr;
  }
  if (sluice_io_file_open(store->io, path.c_str(),
                          SLUICE_IO_FILE_READ | SLUICE_IO_FILE_DIRECT,
                          &store->file, &err) != SLUICE_STATUS_OK) {
    error = errorText(err);
    return nullptr;
  }
  return store;
}

bool FeatureStore::readRange(int fd, uint64_t offset, uint64_t bytes, char *to,
                             std::string &error) {
  uint64_t done = 0;
  while (done < bytes) {
    ssize_t n =
        ::pread(fd, to + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = opts.path + ": read of " + std::to_string(bytes) +
              " bytes at offset " + std::to_string(offset) + " failed at " +
              std::to_string(offset + done) + ": " +
              (n < 0 ? std::strerror(errno) : "unexpected end of file");
      return false;
    }
    done += static_cast<uint64_t>(n);
  }
  return true;
}

bool FeatureStore::loadCaches(const CachePlacement &placement,
                              std::string &error) {
  const uint64_t rowBytes = shape.rowBytes();
  const uint64_t rows = shape.rows;
  // Rows whose aligned blocks run past the end of the file cannot be read
  // with O_DIRECT (the last block is partial): they join the host tier.
  const uint64_t directEnd = roundDown(shape.fileSize, kAlign);
  std::vector<uint32_t> hostIds(placement.order.begin() + placement.deviceRows,
                                placement.order.begin() + placement.deviceRows +
                                    placement.hostRows);
  if (hostIds.size() + kAlign > kSlotMask || placement.deviceRows > kSlotMask) {
    error = opts.path + ": more than " + std::to_string(kSlotMask - kAlign) +
            " rows in one cache tier";
    return false;
  }
  slots.assign(rows, uint32_t(Tier::File) << kSlotBits);
  for (uint64_t s = 0; s < placement.deviceRows; ++s)
    slots[placement.order[s]] =
        uint32_t(Tier::Device) << kSlotBits | static_cast<uint32_t>(s);
  for (uint64_t s = 0; s < hostIds.size(); ++s)
    slots[hostIds[s]] =
        uint32_t(Tier::Host) << kSlotBits | static_cast<uint32_t>(s);
  if (opts.direct)
    for (uint64_t id = rows; id-- > 0;) {
      uint64_t end = shape.dataOffset + (id + 1) * rowBytes;
      if (roundUp(end, kAlign) <= directEnd)
        break;
      if (Tier(slots[id] >> kSlotBits) == Tier::File) {
        slots[id] = uint32_t(Tier::Host) << kSlotBits |
                    static_cast<uint32_t>(hostIds.size());
        hostIds.push_back(static_cast<uint32_t>(id));
      }
    }
  hostRowCount = hostIds.size();
  deviceRowCount = placement.deviceRows;
  std::vector<float> deviceStaging;
  try {
    hostCache.resize(hostRowCount * shape.dim);
    deviceStaging.resize(deviceRowCount * shape.dim);
  } catch (const std::bad_alloc &) {
    error = opts.path + ": cannot allocate " +
            std::to_string((hostRowCount + deviceRowCount) * rowBytes) +
            " bytes of host memory for the caches";
    return false;
  }
  // Cached rows in id order; runs of consecutive ids read in chunks.
  std::vector<uint32_t> cached;
  cached.reserve(hostRowCount + deviceRowCount);
  for (uint64_t id = 0; id < rows; ++id)
    if (Tier(slots[id] >> kSlotBits) != Tier::File)
      cached.push_back(static_cast<uint32_t>(id));
  auto destination = [&](uint32_t id) -> char * {
    uint32_t slot = slots[id] & kSlotMask;
    float *base = Tier(slots[id] >> kSlotBits) == Tier::Device
                      ? deviceStaging.data()
                      : hostCache.data();
    return reinterpret_cast<char *>(base + uint64_t(slot) * shape.dim);
  };
  int fd = ::open(opts.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = opts.path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  const uint64_t chunkRows = std::max<uint64_t>(1, kLoadChunk / rowBytes);
  std::vector<char> staging;
  bool ok = true;
  for (size_t i = 0; ok && i < cached.size();) {
    size_t j = i + 1;
    while (j < cached.size() && cached[j] == cached[j - 1] + 1 &&
           j - i < chunkRows)
      ++j;
    uint64_t bytes = (j - i) * rowBytes;
    uint64_t offset = shape.dataOffset + uint64_t(cached[i]) * rowBytes;
    if (j - i == 1) {
      ok = readRange(fd, offset, bytes, destination(cached[i]), error);
    } else {
      staging.resize(bytes);
      ok = readRange(fd, offset, bytes, staging.data(), error);
      for (size_t k = i; ok && k < j; ++k)
        std::memcpy(destination(cached[k]), staging.data() + (k - i) * rowBytes,
                    rowBytes);
    }
    i = j;
  }
  // Drop what the load put in the page cache: the file is read with
  // O_DIRECT from now on.
  if (opts.direct)
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  if (!ok)
    return false;
  if (deviceRowCount) {
    sluice_error_t err;
    if (device->upload(deviceBase, deviceStaging.data(),
                       deviceRowCount * rowBytes, "the feature cache",
                       &err) != SLUICE_STATUS_OK) {
      error = opts.path + ": " + errorText(err);
      return false;
    }
  }
  return true;
}

FeatureStore::Pending *FeatureStore::findPending(Ticket ticket) const {
  for (const auto &p : pending)
    if (p->ticket == ticket)
      return p.get();
  return nullptr;
}

FeatureStore::Ticket FeatureStore::submit(const uint32_t *ids, size_t n,
                                          float *out) {
  const Ticket ticket = nextTicket++;
  ++counters.tickets;
  const uint64_t rowBytes = shape.rowBytes();
  // Errors found before a slot is taken wait in `rejected`.
  Pending *p = nullptr;
  for (const auto &slot : pending)
    if (!slot->ticket) {
      p = slot.get();
      break;
    }
  std::string failure;
  if (!p)
    failure = "ticket " + std::to_string(ticket) + ": " +
              std::to_string(opts.maxTickets) +
              " tickets are already in flight; wait for one first";
  else if (n > opts.maxRowsPerTicket)
    failure = "ticket " + std::to_string(ticket) + ": " + std::to_string(n) +
              " rows is more than the " +
              std::to_string(opts.maxRowsPerTicket) +
              " rows a ticket may gather";
  else
    for (size_t i = 0; i < n; ++i)
      if (ids[i] >= shape.rows) {
        failure = "ticket " + std::to_string(ticket) + ": id " +
                  std::to_string(ids[i]) + " at position " + std::to_string(i) +
                  " is out of range (" + std::to_string(shape.rows) + " rows)";
        break;
      }
  if (!failure.empty()) {
    rejected.emplace_back(ticket, opts.path + ": " + failure);
    return ticket;
  }
  p->ticket = ticket;
  p->out = out;
  p->n = n;
  p->error.clear();
  p->copies.clear();
  p->requests.clear();

  // Cached rows now; misses collected as (first byte, position).
  std::vector<std::pair<uint64_t, uint32_t>> &misses = p->misses;
  misses.clear();
  for (size_t i = 0; i < n; ++i) {
    uint32_t entry = slots[ids[i]];
    uint32_t slot = entry & kSlotMask;
    float *to = out + i * shape.dim;
    switch (Tier(entry >> kSlotBits)) {
    case Tier::Host:
      std::memcpy(to, hostCache.data() + uint64_t(slot) * shape.dim, rowBytes);
      ++counters.hostHits;
      break;
    case Tier::Device: {
      sluice_error_t err;
      if (p->error.empty() &&
          device->download(to, deviceBase + uint64_t(slot) * rowBytes, rowBytes,
                           "the feature cache", &err) != SLUICE_STATUS_OK)
        p->error = opts.path + ": ticket " + std::to_string(ticket) + ": " +
                   errorText(err);
      ++counters.deviceHits;
      break;
    }
    case Tier::File:
      misses.emplace_back(shape.dataOffset + uint64_t(ids[i]) * rowBytes,
                          static_cast<uint32_t>(i));
      break;
    }
  }
  if (misses.empty() || !p->error.empty())
    return ticket;

  // Merge: sorted by offset, a row joins the current read when its blocks
  // overlap or touch it and the read stays within maxMergedBytes.
  std::sort(misses.begin(), misses.end());
  uint64_t bounceBytes = 0;
  uint64_t runStart = 0, runEnd = 0;
  auto closeRun = [&] {
    sluice_io_request_t r{};
    r.op = SLUICE_IO_READ;
    r.file = file;
    r.offset = runStart;
    r.length = runEnd - runStart;
    r.buffer = reinterpret_cast<void *>(bounceBytes); // offset for now
    p->requests.push_back(r);
    bounceBytes += runEnd - runStart;
  };
  for (size_t k = 0; k < misses.size(); ++k) {
    uint64_t first = roundDown(misses[k].first, kAlign);
    uint64_t end = roundUp(misses[k].first + rowBytes, kAlign);
    if (k && first <= runEnd &&
        std::max(end, runEnd) - runStart <= opts.maxMergedBytes) {
      runEnd = std::max(end, runEnd);
    } else {
      if (k)
        closeRun();
      runStart = first;
      runEnd = end;
    }
    p->copies.push_back(
        {misses[k].second, bounceBytes + (misses[k].first - runStart)});
  }
  closeRun();

  if (p->capacity < bounceBytes) {
    if (p->registered)
      sluice_io_unregister_buffer(io, p->bounce);
    sluice_io_free(p->bounce);
    p->registered = false;
    p->capacity = std::max(bounceBytes, 2 * p->capacity);
    p->bounce = static_cast<char *>(sluice_io_alloc(p->capacity, kAlign));
    if (!p->bounce) {
      p->capacity = 0;
      p->error = opts.path + ": ticket " + std::to_string(ticket) +
                 ": cannot allocate " + std::to_string(bounceBytes) +
                 " bytes of bounce buffers";
      return ticket;
    }
    // Registration is an optimisation: unregistered buffers work too.
    p->registered = sluice_io_register_buffer(io, p->bounce, p->capacity,
                                              nullptr) == SLUICE_STATUS_OK;
  }
  for (sluice_io_request_t &r : p->requests)
    r.buffer = p->bounce + reinterpret_cast<uintptr_t>(r.buffer);
  counters.fileRows += misses.size();
  counters.fileRequests += p->requests.size();
  counters.fileBytes += bounceBytes;
  sluice_error_t err;
  if (sluice_io_submit(io, p->requests.data(), p->requests.size(), &p->batch,
                       &err) != SLUICE_STATUS_OK) {
    p->batch = nullptr;
    p->error =
        opts.path + ": ticket " + std::to_string(ticket) + ": " + err.message;
  }
  return ticket;
}

bool FeatureStore::poll(Ticket ticket) const {
  const Pending *p = findPending(ticket);
  return !p || !p->batch || sluice_io_batch_poll(p->batch);
}

bool FeatureStore::wait(Ticket ticket, std::string &error) {
  for (size_t k = 0; k < rejected.size(); ++k)
    if (rejected[k].first == ticket) {
      error = rejected[k].second;
      rejected.erase(rejected.begin() + static_cast<ptrdiff_t>(k));
      ++counters.failedTickets;
      return false;
    }
  Pending *p = findPending(ticket);
  if (!p) {
    error = opts.path + ": ticket " + std::to_string(ticket) +
            " is not in flight (never submitted, or already waited for)";
    return false;
  }
  auto start = std::chrono::steady_clock::now();
  const uint64_t rowBytes = shape.rowBytes();
  if (p->batch) {
    sluice_error_t err;
    if (sluice_io_batch_wait(p->batch, &err) != SLUICE_STATUS_OK)
      p->error = opts.path + ": ticket " + std::to_string(ticket) + " (" +
                 std::to_string(p->n) + " rows, " +
                 std::to_string(p->copies.size()) +
                 " from the file): " + err.message;
    sluice_io_batch_release(p->batch);
    p->batch = nullptr;
  }
  counters.waitNs += nanosSince(start);
  if (p->error.empty()) {
    for (const Pending::Copy &c : p->copies)
      std::memcpy(p->out + uint64_t(c.outIndex) * shape.dim,
                  p->bounce + c.bounceOffset, rowBytes);
  } else {
    // Never hand out stale or partial bytes: the file rows become NaN (all
    // rows when the ticket failed before its misses were listed).
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (p->copies.empty())
      std::fill_n(p->out, p->n * shape.dim, nan);
    for (const Pending::Copy &c : p->copies)
      std::fill_n(p->out + uint64_t(c.outIndex) * shape.dim, shape.dim, nan);
    ++counters.failedTickets;
    error = p->error;
  }
  p->ticket = 0;
  return p->error.empty();
}

FeatureStoreStats FeatureStore::stats() const {
  FeatureStoreStats s = counters;
  if (io) {
    sluice_io_stats_t e;
    sluice_io_engine_stats(io, &e);
    s.ioBusyNs = e.busy_ns;
  }
  return s;
}
