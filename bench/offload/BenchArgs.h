//===- BenchArgs.h - Command lines of the offload benchmarks ---*- C++ -*-===//
//
// Every option is declared with whether it takes a value and a help line;
// numbers are range-checked; anything else on the command line is a
// UsageError (exit status 2) naming the option. Shared by sluice-bench-io
// and sluice-bench-gather.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_BENCH_OFFLOAD_BENCHARGS_H
#define SLUICE_BENCH_OFFLOAD_BENCHARGS_H

#include "sluice/io.h"

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::bench {

/// A bad command line: the message, printed with the usage hint (exit 2).
struct UsageError {
  std::string message;
};

struct OptionSpec {
  const char *name;
  bool takesValue;
  const char *help;
};

template <size_t N>
inline const OptionSpec *findOption(const OptionSpec (&specs)[N],
                                    const std::string &name) {
  for (const OptionSpec &spec : specs)
    if (name == spec.name)
      return &spec;
  return nullptr;
}

/// The options given to one command, checked against its specs.
class Args {
public:
  template <size_t N>
  Args(int argc, char **argv, int from, const OptionSpec (&specs)[N]) {
    for (int i = from; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0 || a.size() == 2)
        throw UsageError{"unexpected argument '" + a + "'"};
      size_t eq = a.find('=');
      std::string name = a.substr(2, eq == std::string::npos ? eq : eq - 2);
      const OptionSpec *spec = findOption(specs, name);
      if (!spec)
        throw UsageError{"unknown option '--" + name + "'"};
      if (values.count(name))
        throw UsageError{"--" + name + " is given twice"};
      if (spec->takesValue && eq == std::string::npos)
        throw UsageError{"--" + name + " needs a value (--" + name + "=...)"};
      if (!spec->takesValue && eq != std::string::npos)
        throw UsageError{"--" + name + " takes no value"};
      values[name] = eq == std::string::npos ? "" : a.substr(eq + 1);
      if (spec->takesValue && values[name].empty())
        throw UsageError{"--" + name + " needs a value, got ''"};
    }
  }

  bool has(const std::string &name) const { return values.count(name) != 0; }

  std::string text(const std::string &name, const std::string &fallback) const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }

  /// A decimal integer in [min, max].
  uint64_t number(const std::string &name, uint64_t fallback, uint64_t min,
                  uint64_t max) const {
    auto it = values.find(name);
    return it == values.end() ? fallback
                              : parseNumber("--" + name, it->second, min, max);
  }

  /// Comma-separated decimal integers, each in [min, max].
  std::vector<uint64_t> numbers(const std::string &name,
                                const std::string &fallback, uint64_t min,
                                uint64_t max) const {
    std::vector<uint64_t> out;
    for (const std::string &item : splitList("--" + name, text(name, fallback)))
      out.push_back(parseNumber("--" + name, item, min, max));
    return out;
  }

  /// The items of a comma-separated list; an empty item is an error.
  static std::vector<std::string> splitList(const std::string &option,
                                            const std::string &list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
      out.push_back(item);
    if (list.empty() || list.back() == ',')
      out.push_back("");
    for (const std::string &i : out)
      if (i.empty())
        throw UsageError{option + ": empty item in '" + list + "'"};
    return out;
  }

private:
  static uint64_t parseNumber(const std::string &option,
                              const std::string &value, uint64_t min,
                              uint64_t max) {
    const std::string range =
        std::to_string(min) + " to " + std::to_string(max);
    uint64_t v = 0;
    bool digits = !value.empty();
    bool tooLarge = false;
    for (char c : value) {
      if (c < '0' || c > '9') {
        digits = false;
        break;
      }
      uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10)
        tooLarge = true;
      else
        v = v * 10 + d;
    }
    if (!digits)
      throw UsageError{option + " needs a whole number (" + range + "), got '" +
                       value + "'"};
    if (tooLarge || v < min || v > max)
      throw UsageError{option + " must be " + range + ", got " + value};
    return v;
  }

  std::map<std::string, std::string> values;
};

inline sluice_io_backend_t backendOption(const Args &args) {
  std::string backend = args.text("backend", "auto");
  if (backend == "auto")
    return SLUICE_IO_BACKEND_AUTO;
  if (backend == "uring")
    return SLUICE_IO_BACKEND_URING;
  if (backend == "threads")
    return SLUICE_IO_BACKEND_THREADS;
  throw UsageError{"--backend must be auto, uring or threads, got '" + backend +
                   "'"};
}

/// --uring-flags: SLUICE_IO_URING_* bits.
inline uint32_t uringFlagsOption(const Args &args) {
  uint32_t flags = 0;
  if (!args.has("uring-flags"))
    return flags;
  for (const std::string &item :
       Args::splitList("--uring-flags", args.text("uring-flags", "")))
    if (item == "fixed-files")
      flags |= SLUICE_IO_URING_FIXED_FILES;
    else if (item == "fixed-buffers")
      flags |= SLUICE_IO_URING_FIXED_BUFFERS;
    else if (item == "sqpoll")
      flags |= SLUICE_IO_URING_SQPOLL;
    else if (item != "none")
      throw UsageError{"--uring-flags: unknown option '" + item +
                       "' (expected fixed-files, fixed-buffers, sqpoll or "
                       "none)"};
  return flags;
}

} // namespace sluice::bench

#endif // SLUICE_BENCH_OFFLOAD_BENCHARGS_H
