//===- FuzzOffloadSchedule.cpp - Fuzz target: offload schedule JSON -------===//
//
// The runtime's reader of `sluice-plan-offload --format=schedule` files
// (runtime/src/train/ScheduleFile.h, over the runtime's own JSON parser,
// runtime/src/train/Json.h), as bytes.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/ScheduleFile.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  sluice::train::OffloadSchedule schedule;
  std::string error;
  if (sluice::train::parseSchedule(text, "fuzz.json", schedule, error))
    (void)sluice::train::scheduleLayers(schedule);
  return 0;
}
