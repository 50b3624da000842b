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

namespace sluice::analysis {

/// The "cat" of metadata events (process_name, thread_name, ...).
inline constexpr const char *kTraceMetadataCategory = "__metadata";

} // namespace sluice::analysis

#endif // SLUICE_COMPILER_ANALYSIS_TRACEEVENTS_H
