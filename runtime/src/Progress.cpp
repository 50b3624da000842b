//===- Progress.cpp - Rate-limited progress lines for long loads ----------===//
#include "runtime/src/Progress.h"

#include <cstdio>

using namespace sluice::rt;

Progress::Progress(bool enabled, sluice_progress_fn_t callback, void *userData,
                   uint32_t delayMs, uint32_t intervalMs, std::string subject)
    : enabled(enabled), callback(callback), userData(userData),
      delay(std::chrono::milliseconds(delayMs)),
      interval(std::chrono::milliseconds(intervalMs)),
      subject(std::move(subject)), start(Clock::now()), last(start) {}

double Progress::elapsedSeconds() const {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Progress::report(const char *phase, uint64_t done, uint64_t total,
                      const char *unit) {
  Clock::time_point now = Clock::now();
  if (now - start < delay)
    return;
  if (emitted && now - last < interval)
    return;
  last = now;
  char text[256];
  double seconds = std::chrono::duration<double>(now - start).count();
  if (total)
    std::snprintf(text, sizeof(text), "%s: %llu of %llu %s (%.0f%%), %.1f s",
                  phase, static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total), unit,
                  100.0 * static_cast<double>(done) /
                      static_cast<double>(total),
                  seconds);
  else
    std::snprintf(text, sizeof(text), "%s: %llu %s, %.1f s", phase,
                  static_cast<unsigned long long>(done), unit, seconds);
  emit("sluice: " + subject + ": " + text);
}

void Progress::finish(const std::string &summary) {
  if (!enabled || !emitted)
    return;
  char text[64];
  std::snprintf(text, sizeof(text), " in %.1f s", elapsedSeconds());
  emit("sluice: " + subject + ": done" + text + ": " + summary);
}

void Progress::emit(const std::string &line) {
  ++emitted;
  if (callback) {
    callback(userData, line.c_str());
    return;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}
