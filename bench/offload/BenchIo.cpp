//===- BenchIo.cpp - sluice-bench-io: engine throughput, hidden I/O -------===//
//
//   sluice-bench-io io --dir=D --size-mib=2048 --bs-kib=1024 --qd=32
//       [--backend=uring|threads] [--patterns=write,read,randread,randwrite]
//   sluice-bench-io train --dir=D [--widths=1024,1024,...] [--batch=256]
//       [--steps=4] [--lookahead=1] [--backend=...] [--entries]
//       [--schedule=plan.json] [--cuda]
//
// `io` creates D/sluice-bench-io.dat, runs each pattern over the whole file
// with O_DIRECT, block size bs and queue depth qd (one batch per pattern:
// the engine keeps qd blocks in flight), prints one JSON line per pattern
// and deletes the file. Random patterns visit every block once in a random
// order, like fio's default random map. Compare with fio: bench/offload/run.sh.
//
// `train` trains the MLP under OffloadSchedule::swapAll (all parameters,
// gradients, Adam moments and activations on disk between uses) and reports
// compute time, time blocked on I/O and the engine's busy time; the hidden
// share is 1 - blocked / busy, with the time blocked in the entries the plan
// marks hidden, and in all entries; the end-of-step commit (last writes and
// the manifest's fsync) is reported apart.
//
// With --schedule the MLP trains under a planned schedule instead
// (sluice-plan-offload --format=schedule, docs/offload-runtime.md), with
// the plan's homes and memory budgets; the time blocked is also reported
// per phase (forward, backward, optimizer entries) and the payload bytes
// each home tier moved per step next to the plan's prediction. --cuda
// puts the device tier in GPU memory (docs/offload-runtime.md, "CUDA
// device tier"); without a GPU it stops with the reason.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/ScheduleFile.h"
#include "sluice/io.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace sluice::train;

namespace {

std::map<std::string, std::string> parseArgs(int argc, char **argv, int from) {
  std::map<std::string, std::string> args;
  for (int i = from; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      std::fprintf(stderr, "sluice-bench-io: unexpected argument '%s'\n",
                   a.c_str());
      std::exit(2);
    }
    size_t eq = a.find('=');
    if (eq == std::string::npos)
      args[a.substr(2)] = "1";
    else
      args[a.substr(2, eq - 2)] = a.substr(eq + 1);
  }
  return args;
}

uint64_t number(const std::map<std::string, std::string> &args,
                const std::string &key, uint64_t fallback) {
  auto it = args.find(key);
  if (it == args.end())
    return fallback;
  char *end = nullptr;
  unsigned long long v = std::strtoull(it->second.c_str(), &end, 10);
  if (!end || *end || it->second.empty()) {
    std::fprintf(stderr, "sluice-bench-io: --%s needs a number, got '%s'\n",
                 key.c_str(), it->second.c_str());
    std::exit(2);
  }
  return v;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

[[noreturn]] void die(const char *what, const sluice_error_t &err) {
  char text[2048];
  sluice_error_format(&err, text, sizeof(text));
  std::fprintf(stderr, "sluice-bench-io: %s: %s\n", what, text);
  std::exit(1);
}

sluice_io_engine_t *makeEngine(const std::map<std::string, std::string> &args,
                               uint32_t qd, uint64_t block) {
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  o.queue_depth = qd;
  o.block_size = block;
  std::string backend = args.count("backend") ? args.at("backend") : "auto";
  o.backend = backend == "uring"     ? SLUICE_IO_BACKEND_URING
              : backend == "threads" ? SLUICE_IO_BACKEND_THREADS
                                     : SLUICE_IO_BACKEND_AUTO;
  if (args.count("threads"))
    o.threads = static_cast<uint32_t>(number(args, "threads", 0));
  sluice_io_engine_t *engine = nullptr;
  sluice_error_t err;
  if (sluice_io_engine_create(&o, &engine, &err) != SLUICE_STATUS_OK)
    die("creating the engine", err);
  return engine;
}

const char *backendName(sluice_io_engine_t *e) {
  return sluice_io_engine_backend(e) == SLUICE_IO_BACKEND_URING ? "uring"
                                                                : "threads";
}

int runIo(const std::map<std::string, std::string> &args) {
  const std::string dir = args.count("dir") ? args.at("dir") : "/tmp";
  const uint64_t size = number(args, "size-mib", 2048) << 20;
  const uint64_t bs = number(args, "bs-kib", 1024) << 10;
  const uint32_t qd = static_cast<uint32_t>(number(args, "qd", 32));
  const std::vector<std::string> patterns =
      split(args.count("patterns") ? args.at("patterns")
                                   : "write,read,randread,randwrite");
  if (bs == 0 || size < bs || size % bs) {
    std::fprintf(stderr, "sluice-bench-io: the size must be a multiple of "
                         "the block size\n");
    return 2;
  }
  const std::string path = dir + "/sluice-bench-io.dat";
  // Like fio (its default fallocate=native), reserve the file's blocks
  // first: O_DIRECT writes that extend a file are serialised by ext4.
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                    0666);
    int rc = fd < 0 ? errno
                    : ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (fd >= 0)
      ::close(fd);
    if (rc != 0) {
      std::fprintf(stderr, "sluice-bench-io: cannot reserve %s: %s\n",
                   path.c_str(), std::strerror(rc));
      return 1;
    }
  }
  sluice_io_engine_t *engine = makeEngine(args, qd, bs);
  sluice_io_file_t *file = nullptr;
  sluice_error_t err;
  if (sluice_io_file_open(engine, path.c_str(),
                          SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                              SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_DIRECT,
                          &file, &err) != SLUICE_STATUS_OK)
    die("opening the file", err);
  const uint64_t blocks = size / bs;
  const size_t ring = 2 * size_t(qd);
  std::vector<char *> buffers(ring);
  std::mt19937_64 rng(12345);
  for (char *&b : buffers) {
    b = static_cast<char *>(sluice_io_alloc(bs, 4096));
    for (uint64_t i = 0; i < bs; i += 8) {
      uint64_t v = rng();
      std::memcpy(b + i, &v, 8);
    }
  }
  int status = 0;
  for (const std::string &pattern : patterns) {
    bool write = pattern == "write" || pattern == "randwrite";
    bool random = pattern == "randread" || pattern == "randwrite";
    if (!write && !random && pattern != "read") {
      std::fprintf(stderr, "sluice-bench-io: unknown pattern '%s'\n",
                   pattern.c_str());
      status = 2;
      break;
    }
    std::vector<uint64_t> order(blocks);
    for (uint64_t i = 0; i < blocks; ++i)
      order[i] = i;
    if (random)
      std::shuffle(order.begin(), order.end(), rng);
    std::vector<sluice_io_request_t> requests(blocks);
    for (uint64_t i = 0; i < blocks; ++i) {
      sluice_io_request_t &r = requests[i];
      r = {};
      r.op = write ? SLUICE_IO_WRITE : SLUICE_IO_READ;
      r.file = file;
      r.offset = order[i] * bs;
      r.length = bs;
      r.buffer = buffers[i % ring];
    }
    sluice_io_stats_t before, after;
    sluice_io_engine_stats(engine, &before);
    auto start = std::chrono::steady_clock::now();
    sluice_io_batch_t *batch = nullptr;
    if (sluice_io_submit(engine, requests.data(), requests.size(), &batch,
                         &err) != SLUICE_STATUS_OK)
      die("submitting", err);
    if (sluice_io_batch_wait(batch, &err) != SLUICE_STATUS_OK)
      die(pattern.c_str(), err);
    sluice_io_batch_release(batch);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (write && sluice_io_file_sync(file, &err) != SLUICE_STATUS_OK)
      die("fsync", err);
    sluice_io_engine_stats(engine, &after);
    std::printf("{\"tool\":\"sluice\",\"backend\":\"%s\",\"pattern\":\"%s\","
                "\"bytes\":%llu,\"bs\":%llu,\"qd\":%u,\"seconds\":%.4f,"
                "\"MiBps\":%.1f,\"short_retries\":%llu}\n",
                backendName(engine), pattern.c_str(),
                static_cast<unsigned long long>(size),
                static_cast<unsigned long long>(bs), qd, seconds,
                double(size) / (1 << 20) / seconds,
                static_cast<unsigned long long>(after.short_transfers_retried -
                                                before.short_transfers_retried));
    std::fflush(stdout);
  }
  for (char *b : buffers)
    sluice_io_free(b);
  sluice_io_file_close(file);
  sluice_io_engine_destroy(engine);
  if (!args.count("keep"))
    std::filesystem::remove(path);
  return status;
}

int runTrain(const std::map<std::string, std::string> &args) {
  const std::string base = args.count("dir") ? args.at("dir") : "/tmp";
  MlpConfig config;
  config.widths.clear();
  for (const std::string &w :
       split(args.count("widths") ? args.at("widths")
                                  : "1024,1024,1024,1024,1024,1024"))
    config.widths.push_back(static_cast<uint32_t>(std::stoul(w)));
  config.batch = static_cast<uint32_t>(number(args, "batch", 256));
  const uint64_t steps = number(args, "steps", 4);
  const uint32_t lookahead =
      static_cast<uint32_t>(number(args, "lookahead", 1));
  const std::string dir = base + "/sluice-bench-train";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  sluice_io_engine_t *engine = makeEngine(args, 32, 1 << 20);
  OffloadOptions options;
  options.swapDir = dir;
  options.engine = engine;
  options.schedule = OffloadSchedule::swapAll(config.layers(), lookahead);
  const bool planned = args.count("schedule") != 0;
  if (planned) {
    std::string error;
    if (!loadSchedule(args.at("schedule"), options.schedule, error)) {
      std::fprintf(stderr, "sluice-bench-io: %s\n", error.c_str());
      return 1;
    }
    if (scheduleLayers(options.schedule) != config.layers()) {
      std::fprintf(stderr,
                   "sluice-bench-io: %s: the schedule has %u layers, "
                   "--widths %u\n",
                   args.at("schedule").c_str(),
                   scheduleLayers(options.schedule), config.layers());
      return 1;
    }
  }
  options.durable = !args.count("no-durable");
  options.cudaDevice = args.count("cuda") != 0;
  std::unique_ptr<OffloadTrainer> trainer;
  sluice_error_t err;
  if (OffloadTrainer::create(config, options, trainer, &err) !=
      SLUICE_STATUS_OK)
    die("creating the trainer", err);
  // Step 1 warms up (first touches, file creation); measure the rest.
  float loss = 0;
  if (trainer->step(&loss, &err) != SLUICE_STATUS_OK)
    die("step 1", err);
  OffloadStats first = trainer->stats();
  sluice_tier_stats_t tierBefore, tierAfter;
  sluice_tier_stats(trainer->manager(), &tierBefore);
  auto start = std::chrono::steady_clock::now();
  for (uint64_t s = 1; s < steps; ++s)
    if (trainer->step(&loss, &err) != SLUICE_STATUS_OK)
      die("training", err);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  sluice_tier_stats(trainer->manager(), &tierAfter);
  OffloadStats last = trainer->stats();
  auto ms = [](uint64_t ns) { return double(ns) / 1e6; };
  uint64_t busy = last.ioBusyNs - first.ioBusyNs;
  uint64_t stall = last.stallNs - first.stallNs;
  uint64_t stallHidden = last.stallHiddenNs - first.stallHiddenNs;
  uint64_t commit = last.commitNs - first.commitNs;
  bool anyHidden = false;
  for (const ScheduleEntry &e : options.schedule.entries)
    anyHidden |= e.ioHidden;
  double hiddenShare = busy ? 1.0 - double(stallHidden) / double(busy) : 0;
  double overallShare = busy ? 1.0 - double(stall) / double(busy) : 0;
  // Commit time: waiting for the last writes, then the manifest's fsync.
  std::printf(
      "{\"tool\":\"sluice-train\",\"backend\":\"%s\",\"layers\":%u,"
      "\"batch\":%u,\"lookahead\":%u,\"steps\":%llu,\"seconds\":%.3f,"
      "\"compute_ms\":%.1f,\"stall_ms\":%.1f,\"stall_hidden_entries_ms\":%.1f,"
      "\"commit_ms\":%.1f,\"io_busy_ms\":%.1f,\"MiB_moved\":%.1f,"
      "\"demand_fetches\":%llu,\"hidden_share_planned\":%s,"
      "\"hidden_share_all_entries\":%.3f,\"loss\":%.5f}\n",
      backendName(engine), config.layers(), config.batch, lookahead,
      static_cast<unsigned long long>(steps - 1), seconds,
      ms(last.computeNs - first.computeNs), ms(stall), ms(stallHidden),
      ms(commit), ms(busy),
      double(tierAfter.bytes_read + tierAfter.bytes_written -
             tierBefore.bytes_read - tierBefore.bytes_written) /
          (1 << 20),
      static_cast<unsigned long long>(last.demandFetches - first.demandFetches),
      anyHidden ? std::to_string(hiddenShare).substr(0, 5).c_str() : "null",
      overallShare, loss);
  if (planned) {
    // Blocked time per phase, and bytes per tier and step against the
    // plan's prediction (+8 B for the trainer's step counter on the host).
    uint64_t phaseStall[3] = {0, 0, 0}, phaseCompute[3] = {0, 0, 0};
    for (size_t k = 0; k < options.schedule.entries.size(); ++k) {
      unsigned p = static_cast<unsigned>(options.schedule.entries[k].phase);
      phaseStall[p] += last.entryStallNs[k] - first.entryStallNs[k];
      phaseCompute[p] += last.entryComputeNs[k] - first.entryComputeNs[k];
    }
    const double n = double(steps - 1), mib = 1 << 20;
    auto moved = [&](uint64_t *a, uint64_t *b, sluice_tier_t t) {
      return double(a[t] - b[t]) / n / mib;
    };
    const OffloadSchedule &sc = options.schedule;
    std::printf(
        "{\"tool\":\"sluice-train-planned\",\"plan\":\"%s\","
        "\"device_budget_MiB\":%.2f,\"host_budget_MiB\":%.2f,"
        "\"device_peak_MiB\":%.2f,\"host_peak_MiB\":%.2f,"
        "\"checksum_ms\":%.1f,\"forward\":{\"compute_ms\":%.1f,\"blocked_ms\":%.1f},"
        "\"backward\":{\"compute_ms\":%.1f,\"blocked_ms\":%.1f},"
        "\"optimizer\":{\"compute_ms\":%.1f,\"blocked_ms\":%.1f},"
        "\"per_step_MiB\":{\"device_written\":%.3f,\"device_read\":%.3f,"
        "\"host_written\":%.3f,\"host_read\":%.3f},"
        "\"predicted_per_step_MiB\":{\"device_written\":%.3f,"
        "\"device_read\":%.3f,\"host_written\":%.3f,\"host_read\":%.3f}}\n",
        sc.origin.c_str(), double(sc.deviceBudget) / mib,
        double(sc.hostBudget) / mib, double(tierAfter.device_peak) / mib,
        double(tierAfter.host_peak) / mib,
        ms(tierAfter.checksum_ns - tierBefore.checksum_ns), ms(phaseCompute[0]),
        ms(phaseStall[0]), ms(phaseCompute[1]), ms(phaseStall[1]),
        ms(phaseCompute[2]), ms(phaseStall[2]),
        moved(tierAfter.tier_bytes_written, tierBefore.tier_bytes_written,
              SLUICE_TIER_DEVICE),
        (double(tierAfter.tier_bytes_read[0] + tierAfter.tier_bytes_reused[0] -
                tierBefore.tier_bytes_read[0] -
                tierBefore.tier_bytes_reused[0])) /
            n / mib,
        moved(tierAfter.tier_bytes_written, tierBefore.tier_bytes_written,
              SLUICE_TIER_HOST),
        (double(tierAfter.tier_bytes_read[1] + tierAfter.tier_bytes_reused[1] -
                tierBefore.tier_bytes_read[1] -
                tierBefore.tier_bytes_reused[1])) /
            n / mib,
        double(sc.predicted[0].written) / mib,
        double(sc.predicted[0].read) / mib,
        double(sc.predicted[1].written + 8) / mib,
        double(sc.predicted[1].read + 8) / mib);
  }
  if (args.count("entries")) {
    const OffloadSchedule &plan = options.schedule;
    for (size_t k = 0; k < plan.entries.size(); ++k)
      std::printf("  entry %2zu %-9s layer %u  hidden=%d  compute %8.1f ms  "
                  "blocked %7.1f ms\n",
                  k, phaseName(plan.entries[k].phase), plan.entries[k].layer,
                  int(plan.entries[k].ioHidden),
                  ms(last.entryComputeNs[k] - first.entryComputeNs[k]),
                  ms(last.entryStallNs[k] - first.entryStallNs[k]));
  }
  trainer.reset();
  sluice_io_engine_destroy(engine);
  std::filesystem::remove_all(dir);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || (std::strcmp(argv[1], "io") && std::strcmp(argv[1], "train"))) {
    std::fprintf(stderr, "usage: sluice-bench-io io|train [--options]\n"
                         "(see the comment at the top of BenchIo.cpp)\n");
    return 2;
  }
  auto args = parseArgs(argc, argv, 2);
  return std::strcmp(argv[1], "io") == 0 ? runIo(args) : runTrain(args);
}
