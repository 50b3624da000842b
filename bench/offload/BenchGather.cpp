//===- BenchGather.cpp - sluice-bench-gather: feature-store gathers -------===//
//
//   sluice-bench-gather --file=F.f32 --dim=1024 [--rows=N] [--qd=64]
//       [--batch=1024] [--tickets=4] [--host-cache-mib=64] [--gathers=N]
//       [--backend=auto|uring|threads] [--uring-flags=...] [--seed=1]
//       [--in-memory] [--verify]
//   sluice-bench-gather --help | --version
//
// Opens the raw float32 file F (rows x dim; rows from the size when not
// given) as a FeatureStore (runtime/src/features/, docs/feature-store.md)
// with a host cache of --host-cache-mib (uniform counts: the lowest ids are
// cached) and gathers --gathers uniformly random rows (default: as many
// rows as the file has), --batch rows per ticket, --tickets tickets in
// flight: submit, and when the window is full wait for the oldest. Prints
// one JSON line: rows/s, MiB/s of rows delivered, MiB/s read from the file
// (whole 4 KiB blocks), hits per tier, engine busy time, time blocked in
// wait(). --verify compares every gathered row with pread of the file
// (not timed in the figures of record). Compare with fio: gather.sh.
//
// A bad command line is one message and exit status 2, a failed run one
// message and exit status 1.
//
//===----------------------------------------------------------------------===//
#include "bench/offload/BenchArgs.h"
#include "runtime/src/features/FeatureStore.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace sluice::bench;
using namespace sluice::rt::features;

namespace {

constexpr OptionSpec kOptions[] = {
    {"file", true, "raw float32 feature file (rows x dim), read only"},
    {"dim", true, "floats per row, 1..1048576"},
    {"rows", true, "rows, 1..4294967296 (default: file size / row size)"},
    {"qd", true, "I/O queue depth, 1..4096 (default 64)"},
    {"batch", true, "rows per ticket, 1..1048576 (default 1024)"},
    {"tickets", true, "tickets in flight, 1..64 (default 4)"},
    {"host-cache-mib", true, "host cache in MiB, 0..1048576 (default 64)"},
    {"gathers", true, "rows gathered in all (default: the file's rows)"},
    {"backend", true, "auto, uring or threads (default auto)"},
    {"uring-flags", true,
     "fixed-files, fixed-buffers, sqpoll, none (default fixed-buffers)"},
    {"seed", true, "seed of the random ids (default 1)"},
    {"in-memory", false, "load the whole file into memory instead"},
    {"verify", false, "check every gathered row against pread"},
};

struct Run {
  std::vector<uint32_t> ids;
  std::vector<float> out;
  FeatureStore::Ticket ticket = 0;
};

int run(const Args &args) {
  if (!args.has("file") || !args.has("dim"))
    throw UsageError{"--file and --dim are required"};
  const std::string path = args.text("file", "");
  const uint64_t dim = args.number("dim", 0, 1, uint64_t(1) << 20);
  const uint32_t qd = static_cast<uint32_t>(args.number("qd", 64, 1, 4096));
  const uint64_t batch = args.number("batch", 1024, 1, uint64_t(1) << 20);
  const uint32_t tickets =
      static_cast<uint32_t>(args.number("tickets", 4, 1, 64));
  const uint64_t hostMib =
      args.number("host-cache-mib", 64, 0, uint64_t(1) << 20);
  const uint64_t seed = args.number("seed", 1, 0, UINT64_MAX);
  FeatureStoreOptions o;
  o.path = path;
  o.format = FeatureFormat::RawF32;
  o.dim = dim;
  o.backend = backendOption(args);
  o.uringFlags = args.has("uring-flags")
                     ? uringFlagsOption(args)
                     : uint32_t(SLUICE_IO_URING_FIXED_BUFFERS);
  o.queueDepth = qd;
  o.maxTickets = tickets;
  o.maxRowsPerTicket = static_cast<uint32_t>(batch);
  o.hostCacheBytes = hostMib << 20;
  o.direct = !args.has("in-memory");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "sluice-bench-gather: --file '%s': %s\n", path.c_str(),
                 std::strerror(errno));
    return 1;
  }
  o.rows = args.number("rows", static_cast<uint64_t>(st.st_size) / (dim * 4), 1,
                       uint64_t(1) << 32);
  const uint64_t gathers = args.number("gathers", o.rows, 1, uint64_t(1) << 40);
  std::string error;
  auto openStart = std::chrono::steady_clock::now();
  std::unique_ptr<FeatureStore> store = FeatureStore::open(o, error);
  if (!store) {
    std::fprintf(stderr, "sluice-bench-gather: %s\n", error.c_str());
    return 1;
  }
  const double openSeconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - openStart)
                                 .count();
  const bool verify = args.has("verify");
  int verifyFd = verify ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  std::vector<float> expect(dim);
  uint64_t mismatches = 0;
  std::mt19937_64 rng(seed);
  std::deque<Run> window;
  std::vector<Run> spare;
  auto finish = [&]() -> bool {
    Run &r = window.front();
    if (!store->wait(r.ticket, error)) {
      std::fprintf(stderr, "sluice-bench-gather: %s\n", error.c_str());
      return false;
    }
    for (size_t i = 0; verify && i < r.ids.size(); ++i) {
      ssize_t n = ::pread(verifyFd, expect.data(), dim * 4,
                          static_cast<off_t>(uint64_t(r.ids[i]) * dim * 4));
      if (n != ssize_t(dim * 4) ||
          std::memcmp(expect.data(), r.out.data() + i * dim, dim * 4) != 0)
        ++mismatches;
    }
    spare.push_back(std::move(r));
    window.pop_front();
    return true;
  };
  FeatureStoreStats before = store->stats();
  auto start = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < gathers;) {
    if (window.size() == tickets && !finish())
      return 1;
    Run r;
    if (!spare.empty()) {
      r = std::move(spare.back());
      spare.pop_back();
    }
    size_t n = static_cast<size_t>(std::min(batch, gathers - done));
    r.ids.resize(n);
    for (uint32_t &id : r.ids)
      id = static_cast<uint32_t>(rng() % o.rows);
    r.out.resize(n * dim);
    r.ticket = store->submit(r.ids.data(), n, r.out.data());
    window.push_back(std::move(r));
    done += n;
  }
  while (!window.empty())
    if (!finish())
      return 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  FeatureStoreStats s = store->stats();
  if (verifyFd >= 0)
    ::close(verifyFd);
  const double mib = double(1 << 20);
  std::printf(
      "{\"tool\":\"sluice-gather\",\"mode\":\"%s\",\"rows\":%llu,\"dim\":%llu,"
      "\"qd\":%u,\"batch\":%llu,\"tickets\":%u,\"host_cache_MiB\":%llu,"
      "\"uring_flags\":\"%s\",\"gathers\":%llu,\"seconds\":%.4f,"
      "\"open_seconds\":%.2f,\"rows_per_s\":%.0f,\"MiBps\":%.1f,"
      "\"file_MiBps\":%.1f,\"host_hits\":%llu,\"device_hits\":%llu,"
      "\"file_rows\":%llu,\"file_requests\":%llu,\"io_busy_ms\":%.1f,"
      "\"wait_ms\":%.1f%s}\n",
      o.direct ? "direct" : "in-memory", (unsigned long long)o.rows,
      (unsigned long long)dim, qd, (unsigned long long)batch, tickets,
      (unsigned long long)hostMib,
      args.text("uring-flags", "fixed-buffers").c_str(),
      (unsigned long long)gathers, seconds, openSeconds,
      double(gathers) / seconds, double(gathers) * dim * 4 / mib / seconds,
      double(s.fileBytes - before.fileBytes) / mib / seconds,
      (unsigned long long)(s.hostHits - before.hostHits),
      (unsigned long long)(s.deviceHits - before.deviceHits),
      (unsigned long long)(s.fileRows - before.fileRows),
      (unsigned long long)(s.fileRequests - before.fileRequests),
      double(s.ioBusyNs - before.ioBusyNs) / 1e6,
      double(s.waitNs - before.waitNs) / 1e6,
      verify ? (",\"mismatches\":" + std::to_string(mismatches)).c_str() : "");
  return mismatches ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--version")) {
      std::printf("sluice-bench-gather (Sluice runtime %d.%d)\n",
                  SLUICE_RUNTIME_VERSION_MAJOR, SLUICE_RUNTIME_VERSION_MINOR);
      return 0;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: sluice-bench-gather --file=F --dim=D [--option=value "
                  "...]\n");
      for (const OptionSpec &spec : kOptions)
        std::printf(
            "  --%-16s %s\n",
            (std::string(spec.name) + (spec.takesValue ? "=..." : "")).c_str(),
            spec.help);
      return 0;
    }
  }
  try {
    return run(Args(argc, argv, 1, kOptions));
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "sluice-bench-gather: %s\n(sluice-bench-gather --help lists "
                 "the options)\n",
                 e.message.c_str());
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sluice-bench-gather: %s\n", e.what());
    return 1;
  }
}
