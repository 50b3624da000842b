//===- ScheduleLoader.h - Flow schedule JSON to the executor's structs ---===//
//
// Reads the JSON that SluiceFlow's writeScheduleJSON prints (docs/flows.md,
// "Output") and builds the plain C structs of the runtime's flow executor
// (runtime/include/sluice/flow.h). The conversion lives with the compiler,
// not in libsluicert: llvm::json is a strict, well-tested parser, and the
// runtime takes schedules as structs (see docs/flows.md, "Executor").
//
// Layout: every node is a device; every demand is a commodity. A device's
// region holds, in demand order, the source bytes of the demands leaving
// it, then the destination bytes of the demands arriving at it. A demand's
// paths split its range in path order: path k takes bytes
// [round(b_0 + ... + b_{k-1}), round(b_0 + ... + b_k)) of it, so the paths
// cover the demand exactly once in whole bytes. Each path becomes one
// transfer with the path's arcs as links, its rate segments as the rate
// profile and its finish as the prediction.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_TOOLS_FLOWEXEC_SCHEDULELOADER_H
#define SLUICE_COMPILER_TOOLS_FLOWEXEC_SCHEDULELOADER_H

#include "sluice/flow.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::flowexec {

struct LoadOptions {
  /// Multiplies every byte count and every time by this (rates stay): a
  /// schedule of gigabytes can run in megabytes of memory. Finite, > 0.
  double byteScale = 1;
  /// Chunk size of every transfer; 0 takes the chunk size of the JSON's
  /// timeline (its first chunk per path), else one chunk per transfer.
  uint64_t chunkBytes = 0;
  /// If chunkBytes is 0 and this is not: every transfer in this many chunks
  /// (ceil(bytes / this) bytes each), overriding the timeline.
  uint64_t chunksPerPath = 0;
  /// Nodes whose last name component starts with this get GPU memory (the
  /// i-th such node GPU ordinal i); the others host memory.
  std::string gpuPrefix = "gpu";
  /// For a plan file (`sluicec --emit=plan --format=json`: {"schedules":
  /// [{"name": ..., "schedule": {...}}]}), the schedule to run; empty takes
  /// the only one.
  std::string scheduleName;
};

/// A schedule for sluice_flow_execute, owning its arrays.
class LoadedSchedule {
public:
  /// The structs, pointing into this object (valid while it lives and is
  /// not modified; call again after a copy or move).
  sluice_flow_schedule_t view() const;
  /// "demands[3].paths[1] (gpu[2] -> gpu[0])" for transfer `i`.
  const std::string &label(uint32_t i) const { return labels[i]; }
  /// The JSON's method and makespan (scaled).
  std::string method;
  double makespan = 0;
  uint64_t totalBytes = 0;

  /// Parallel to devices / transfers; view() points the structs at them.
  std::vector<std::string> names;
  mutable std::vector<sluice_flow_device_t> devices;
  std::vector<sluice_flow_link_t> links;
  mutable std::vector<sluice_flow_transfer_t> transfers;
  std::vector<std::vector<uint32_t>> paths;
  std::vector<std::vector<sluice_flow_segment_t>> segments;
  std::vector<std::string> labels;
};

/// Parses `json` (its name `file` for messages): one schedule as
/// writeScheduleJSON prints it, or a plan file holding several. Errors name the JSON path
/// of the offending value: "schedule.json: demands[2].paths[0].arcs[1]:
/// expected a non-negative integer".
llvm::Expected<LoadedSchedule> loadSchedule(llvm::StringRef json,
                                            llvm::StringRef file,
                                            const LoadOptions &options = {});

} // namespace sluice::flowexec

#endif // SLUICE_COMPILER_TOOLS_FLOWEXEC_SCHEDULELOADER_H
