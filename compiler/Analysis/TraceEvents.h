//===- TraceEvents.h - The Chrome trace-event format ------------*- C++ -*-===//
//
// The trace exporters (plan schedules, offload iterations) write the Chrome
// trace-event JSON that ui.perfetto.dev and chrome://tracing load. Loaders
// such as tracerbench require every event to have a "cat", metadata ("ph":
// "M") events included; Chrome's own traces give those the category below.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_TRACEEVENTS_H
#define SLUICE_COMPILER_ANALYSIS_TRACEEVENTS_H

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace sluice::analysis {

/// The "cat" of metadata events (process_name, thread_name, ...).
inline constexpr const char *kTraceMetadataCategory = "__metadata";

/// A metadata event `what` ("process_name", "thread_name", ...) naming
/// process `pid` (and thread `tid` when >= 0) `name`.
inline void traceMetadata(llvm::json::OStream &j, llvm::StringRef what,
                          int64_t pid, int64_t tid, const std::string &name) {
  j.object([&] {
    j.attribute("name", what);
    j.attribute("cat", kTraceMetadataCategory);
    j.attribute("ph", "M");
    j.attribute("pid", pid);
    if (tid >= 0)
      j.attribute("tid", tid);
    j.attributeObject("args", [&] { j.attribute("name", name); });
  });
}

} // namespace sluice::analysis

#endif // SLUICE_COMPILER_ANALYSIS_TRACEEVENTS_H
