//===- ScheduleFile.h - Offload schedules read from JSON files --*- C++ -*-===//
//
// The runtime side of `sluice-plan-offload --format=schedule`: a planned
// OffloadSchedule as a small versioned JSON document (docs/offload-runtime.md
// has the format):
//
//   {"format": "sluice-offload-schedule", "version": 1, "layers": 3,
//    "homes": {"param": "device", "grad": "device", "adam_m": "host",
//              "adam_v": "host", "act": "device"},
//    "device_budget": 1048576, "host_budget": 4194304,      (optional)
//    "predicted_step_io": {"device": {"read": 0, "written": 0},
//                          "host": {"read": 0, "written": 0}}, (optional)
//    "plan": {...},                            (optional, not interpreted)
//    "entries": [{"layer": 0, "phase": "forward",
//                 "prefetch": ["L0.param", "L1.param"], "swap_out": [],
//                 "discard": [], "keep": [], "io_hidden": false}, ...]}
//
// Every error names the file, line and column of the offending value
// ("plan.json:14:19: unknown tensor 'L9.param' (the model has 3 layers)").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_TRAIN_SCHEDULEFILE_H
#define SLUICE_RUNTIME_SRC_TRAIN_SCHEDULEFILE_H

#include "runtime/src/train/OffloadSchedule.h"

#include <string>

namespace sluice::train {

constexpr const char *kScheduleFormat = "sluice-offload-schedule";
constexpr unsigned kScheduleVersion = 1;

/// Parses schedule text; `name` is the file name used in messages. On
/// failure returns false and sets `error` ("name:line:col: what").
bool parseSchedule(const std::string &text, const std::string &name,
                   OffloadSchedule &out, std::string &error);

/// Reads and parses the file at `path`.
bool loadSchedule(const std::string &path, OffloadSchedule &out,
                  std::string &error);

/// The layer count a parsed schedule was made for.
inline uint32_t scheduleLayers(const OffloadSchedule &s) {
  return static_cast<uint32_t>(s.entries.size() / 3);
}

} // namespace sluice::train

#endif // SLUICE_RUNTIME_SRC_TRAIN_SCHEDULEFILE_H
