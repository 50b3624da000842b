//===- Progress.h - Rate-limited progress lines for long loads -*- C++ -*-===//
//
// A load reports nothing unless it runs longer than the delay (1 s by
// default); then one line per interval, to the user's callback or stderr,
// and a closing line when it ends. update() reads the clock (tens of
// nanoseconds): call it every few thousand items, not every item.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_PROGRESS_H
#define SLUICE_RUNTIME_SRC_PROGRESS_H

#include "sluice/runtime.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace sluice::rt {

class Progress {
public:
  /// `enabled` false makes every call a no-op.
  Progress(bool enabled, sluice_progress_fn_t callback, void *userData,
           uint32_t delayMs, uint32_t intervalMs, std::string subject);

  /// Reports `done` of `total` (total 0: unknown) `unit`s of `phase`, e.g.
  /// ("reading", 120000, 0, "lines") or ("reading", bytes, fileBytes,
  /// "bytes").
  void update(const char *phase, uint64_t done, uint64_t total,
              const char *unit) {
    if (!enabled)
      return;
    report(phase, done, total, unit);
  }

  /// Prints the closing line ("loaded ... in 2.3 s: <summary>") if any
  /// progress line was printed.
  void finish(const std::string &summary);

  /// Seconds since construction.
  double elapsedSeconds() const;

private:
  void report(const char *phase, uint64_t done, uint64_t total,
              const char *unit);
  void emit(const std::string &line);

  using Clock = std::chrono::steady_clock;
  bool enabled;
  sluice_progress_fn_t callback;
  void *userData;
  Clock::duration delay, interval;
  std::string subject;
  Clock::time_point start, last;
  uint64_t emitted = 0;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_PROGRESS_H
