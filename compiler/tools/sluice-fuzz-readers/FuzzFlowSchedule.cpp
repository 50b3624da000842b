//===- FuzzFlowSchedule.cpp - Fuzz target: flow schedule JSON -------------===//
//
// The reader of sluice-flow-exec (ScheduleLoader.h): a schedule or a plan
// file, as bytes. A schedule it accepts goes on to sluice_flow_validate, the
// executor's own checks, which must hold for whatever the loader builds.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluice-flow-exec/ScheduleLoader.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto loaded = sluice::flowexec::loadSchedule(text, "fuzz.json");
  if (!loaded) {
    llvm::consumeError(loaded.takeError());
    return 0;
  }
  sluice_flow_schedule_t schedule = loaded->view();
  sluice_error_t error;
  (void)sluice_flow_validate(&schedule, nullptr, &error);
  for (uint32_t i = 0; i < schedule.num_transfers; ++i)
    (void)loaded->label(i);
  return 0;
}
