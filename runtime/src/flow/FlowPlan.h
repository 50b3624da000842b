//===- FlowPlan.h - A checked flow schedule cut into chunks -----*- C++ -*-===//
//
// Internal to the flow executor (sluice/flow.h): the schedule checked and
// turned into chunks with release times, the data patterns, and the two
// backends (host threads, CUDA driver) that move the chunks.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_FLOW_FLOWPLAN_H
#define SLUICE_RUNTIME_SRC_FLOW_FLOWPLAN_H

#include "sluice/flow.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice::rt::flow {

/// One chunk of a transfer: bytes [offset, offset + bytes) of the transfer
/// leave the source at `release` (schedule seconds).
struct ChunkPlan {
  uint32_t transfer = 0;
  uint64_t index = 0; // within the transfer
  uint64_t offset = 0;
  uint64_t bytes = 0;
  double release = 0;
};

struct Plan {
  const sluice_flow_schedule_t *schedule = nullptr;
  /// Every chunk, by release time (ties: transfer, then index).
  std::vector<ChunkPlan> chunks;
  /// Per transfer: its first chunk's slot in the per-chunk counters
  /// (transfer order, then index) and its chunk count.
  std::vector<uint64_t> chunkBase, chunkCount;
  /// Per transfer, schedule seconds.
  std::vector<double> predicted;
  double makespan = 0;
  uint64_t totalChunks = 0;
  uint64_t totalMemory = 0;
};

/// Checks the schedule (see sluice_flow_validate) and cuts it into chunks.
sluice_status_t buildPlan(const sluice_flow_schedule_t *schedule,
                          const sluice_flow_options_t &options, Plan &plan,
                          sluice_error_t *error);

/// The "where" of a device in messages: "device 3 ('gpu[3]')".
std::string deviceName(const sluice_flow_schedule_t &s, uint32_t d);

/// A number in the shortest form that reads back exactly, spelled as the
/// compiler's sluice::formatNumber (support/NumberFormat.h) spells
/// it: the runtime links nothing of ours, so it keeps this twin, and
/// test/Unit/Common/NumberFormatTest.cpp holds both to one table.
std::string formatNumber(double v);

/// Writes bytes [offset, offset + n) of device `device`'s pattern.
void fillPattern(uint8_t *out, uint64_t seed, uint32_t device, uint64_t offset,
                 uint64_t n);

/// What the backends fill in while running.
struct RunState {
  /// Per chunk slot (Plan::chunkBase order): deliveries seen.
  std::unique_ptr<std::atomic<uint32_t>[]> deliveries;
  /// Per chunk slot: wall seconds since the start of its (last) delivery,
  /// -1 if none.
  std::vector<double> deliveredAt;
  uint64_t chunkHops = 0;
  double wallSeconds = 0;
};

/// Host memory of every device's region (NULL for size 0), readable after
/// the run for the checks.
using Regions = std::vector<uint8_t *>;

/// Whether chunk `index` of `transfer` is the one the fault hook targets.
inline bool isFaulty(const sluice_flow_options_t &o, uint32_t transfer,
                     uint64_t index) {
  return o.fault.kind != SLUICE_FLOW_FAULT_NONE && o.fault.transfer == transfer &&
         o.fault.chunk == index;
}

/// The host backend: runs the plan over `regions` (already filled).
sluice_status_t runHost(const Plan &plan, const sluice_flow_options_t &options,
                        const Regions &regions, RunState &state,
                        sluice_error_t *error);

/// The CUDA backend: copies `regions` (filled) to their memories, runs the
/// plan, and copies every region back into `regions` for the checks.
sluice_status_t runCuda(const Plan &plan, const sluice_flow_options_t &options,
                        const Regions &regions, RunState &state,
                        sluice_error_t *error);

} // namespace sluice::rt::flow

#endif // SLUICE_RUNTIME_SRC_FLOW_FLOWPLAN_H
