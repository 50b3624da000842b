//===- FeatureStore.h - A tiered GNN feature store -------------*- C++ -*-===//
//
// The node features of a GNN (a rows x dim float32 array in a .npy or raw
// .f32 file, FeatureFile.h) behind a unified static cache in the style of
// CAM and Hyperion: rows are ranked by their expected access count (ties by
// id), the hottest go to GPU memory (when a GPU is found) up to
// deviceCacheBytes, the next to host memory up to hostCacheBytes, and the
// rest stay in the file. One lookup path serves every row: a per-row table
// of (tier, slot).
//
// Gathers are batched and asynchronous (CAM): submit() copies the cached
// rows at once and hands every miss of the batch to the I/O engine
// (sluice/io.h) as one batch of O_DIRECT block reads — the aligned blocks
// covering each row, requests that touch the same or adjacent blocks merged
// — and returns; the caller keeps working while the engine's control thread
// drives the disk; wait() completes the ticket, copying the rows out of the
// bounce buffers. Up to maxTickets tickets may be in flight.
//
// A failed read (I/O error, injected fault) fails its ticket with a message
// naming the file, the ticket and the request; the rows of a failed ticket
// that were to come from the file are set to NaN (all its rows when it
// failed before its reads were listed, e.g. a failed GPU copy), never to
// stale or partial bytes, and the store stays usable for later tickets.
// Tickets refused at submit (bad id, too many rows or tickets) leave `out`
// untouched.
//
// Thread safety: one thread submits and waits (the trainer's); the engine's
// control thread does the I/O. See docs/feature-store.md.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_FEATURES_FEATURESTORE_H
#define SLUICE_RUNTIME_SRC_FEATURES_FEATURESTORE_H

#include "runtime/src/features/FeatureFile.h"
#include "sluice/io.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice::rt {
class DeviceMemory;
}

namespace sluice::rt::features {

enum class Tier : uint8_t { Device = 0, Host = 1, File = 2 };

struct FeatureStoreOptions {
  std::string path;
  FeatureFormat format = FeatureFormat::Auto;
  /// Expected shape; 0 = what the .npy header says (raw files need both).
  uint64_t rows = 0;
  uint64_t dim = 0;
  /// Cache capacities. The device tier is used only when the CUDA driver
  /// finds GPU `cudaDevice`; otherwise it holds 0 bytes.
  uint64_t hostCacheBytes = 0;
  uint64_t deviceCacheBytes = 0;
  int cudaDevice = 0;
  /// Expected accesses per row (e.g. GatherAccess's counts from the
  /// sampling fanouts); empty: uniform (rows cached in id order).
  std::vector<double> expectedAccesses;
  /// true: rows not cached are read from the file with O_DIRECT through the
  /// I/O engine (the out-of-core case); false: the whole array is loaded
  /// into host memory at open (the in-memory case; hostCacheBytes ignored).
  bool direct = true;
  /// I/O engine: queue depth, backend, io_uring options (registered
  /// buffers measured best on 4 KiB reads, registered files no better than
  /// none: docs/offload-runtime.md, "io_uring options").
  uint32_t queueDepth = 64;
  sluice_io_backend_t backend = SLUICE_IO_BACKEND_AUTO;
  uint32_t uringFlags = SLUICE_IO_URING_FIXED_BUFFERS;
  /// Tickets in flight at once, 1..64, and rows per ticket.
  uint32_t maxTickets = 4;
  uint32_t maxRowsPerTicket = 1u << 16;
  /// Largest merged read, bytes (a multiple of 4096).
  uint32_t maxMergedBytes = 128 << 10;
};

struct FeatureStoreStats {
  uint64_t deviceHits = 0, hostHits = 0; ///< rows served from each cache
  uint64_t fileRows = 0;                 ///< rows read from the file
  uint64_t fileRequests = 0;             ///< block reads after merging
  uint64_t fileBytes = 0;                ///< bytes read (whole blocks)
  uint64_t ioBusyNs = 0;                 ///< engine time with a read in flight
  uint64_t waitNs = 0; ///< time callers were blocked in wait()
  uint64_t tickets = 0, failedTickets = 0;
};

/// Where the rows go: the first `deviceRows` of `order` to the device, the
/// next `hostRows` to the host, the rest stay in the file. `order` is the
/// row ids by expected accesses, highest first, ties by smaller id.
struct CachePlacement {
  std::vector<uint32_t> order;
  uint64_t deviceRows = 0;
  uint64_t hostRows = 0;
};

/// Ranks `rows` rows by `counts` (empty: all equal) and fills the tiers up
/// to their capacities in rows. Counts must be finite and >= 0, one per row.
bool placeRows(uint64_t rows, const std::vector<double> &counts,
               uint64_t deviceRows, uint64_t hostRows, CachePlacement &out,
               std::string &error);

class FeatureStore {
public:
  using Ticket = uint64_t;

  ~FeatureStore();
  /// Checks the file and the options, places the rows and loads the caches.
  /// Null with a message naming the file (or the option) on error.
  static std::unique_ptr<FeatureStore> open(const FeatureStoreOptions &options,
                                            std::string &error);

  /// Starts gathering rows `ids[0..n)` into `out` (n * dim floats, kept
  /// alive and untouched until wait()). Cached rows are copied before it
  /// returns; misses go to the engine as one batch. Errors (an id out of
  /// range, too many rows, too many tickets in flight) are reported by
  /// wait() on the returned ticket.
  Ticket submit(const uint32_t *ids, size_t n, float *out);
  /// True once the ticket's reads are done (never blocks).
  bool poll(Ticket ticket) const;
  /// Blocks until the ticket is complete and copies its file rows out.
  /// false with the reason (file rows of `out` then NaN). A ticket is waited
  /// for once.
  bool wait(Ticket ticket, std::string &error);

  const FeatureLayout &layout() const { return shape; }
  uint64_t rows() const { return shape.rows; }
  uint64_t dim() const { return shape.dim; }
  /// The tier of row `id` (the lookup table).
  Tier tierOf(uint32_t id) const {
    return static_cast<Tier>(slots[id] >> kSlotBits);
  }
  /// Bytes held in each cache (device: 0 without a GPU).
  uint64_t deviceBytes() const { return deviceRowCount * shape.rowBytes(); }
  uint64_t hostBytes() const { return hostRowCount * shape.rowBytes(); }
  /// Why there is no device tier ("" when there is one or none was asked).
  const std::string &deviceNote() const { return noDeviceReason; }
  FeatureStoreStats stats() const;
  /// The engine (null for an in-memory store), e.g. to inject faults.
  sluice_io_engine_t *engine() const { return io; }
  uint32_t maxTickets() const { return opts.maxTickets; }
  uint32_t maxRowsPerTicket() const { return opts.maxRowsPerTicket; }

private:
  struct Pending;
  static constexpr unsigned kSlotBits = 30;
  static constexpr uint32_t kSlotMask = (1u << kSlotBits) - 1;

  FeatureStore() = default;
  bool loadCaches(const CachePlacement &placement, std::string &error);
  bool readRange(int fd, uint64_t offset, uint64_t bytes, char *to,
                 std::string &error);
  Pending *findPending(Ticket ticket) const;

  FeatureStoreOptions opts;
  FeatureLayout shape;
  std::vector<uint32_t> slots; ///< per row: tier << 30 | slot
  std::vector<float> hostCache;
  uint64_t hostRowCount = 0, deviceRowCount = 0;
  std::unique_ptr<DeviceMemory> device;
  uint64_t deviceBase = 0;
  std::string noDeviceReason;
  sluice_io_engine_t *io = nullptr;
  sluice_io_file_t *file = nullptr;
  std::vector<std::unique_ptr<Pending>> pending; ///< maxTickets slots
  std::vector<std::pair<Ticket, std::string>> rejected;
  Ticket nextTicket = 1;
  FeatureStoreStats counters;
};

} // namespace sluice::rt::features

#endif // SLUICE_RUNTIME_SRC_FEATURES_FEATURESTORE_H
