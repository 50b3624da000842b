//===- BenchIo.cpp - sluice-bench-io: engine throughput, hidden I/O -------===//
//
//   sluice-bench-io io --dir=D --size-mib=2048 --bs-kib=1024 --qd=32
//       [--backend=uring|threads] [--patterns=write,read,randread,randwrite]
//       [--file=PATH] [--uring-flags=fixed-files,fixed-buffers,sqpoll]
//   sluice-bench-io train --dir=D [--widths=1024,1024,...] [--batch=256]
//       [--steps=4] [--lookahead=1] [--backend=...] [--entries]
//       [--schedule=plan.json] [--cuda] [--in-memory]
//       [--model=transformer --blocks=2 --d-model=256 --heads=8 --seq=128
//        --vocab=1024 --ffn=0]
//   sluice-bench-io adversarial [...] (BenchAdversarial.cpp)
//   sluice-bench-io [io|train|adversarial] --help | --version
//
// Every option is range-checked (`--help` lists the ranges); a bad command
// line is one message naming the option and exit status 2, a failed run
// (a missing or read-only --dir, an I/O error) one message and exit status
// 1; --help and --version print and exit without touching the disk.
//
// `io` creates D/sluice-bench-io.dat, runs each pattern over the whole file
// with O_DIRECT, block size bs and queue depth qd (one batch per pattern:
// the engine keeps qd blocks in flight), prints one JSON line per pattern
// and deletes the file. Random patterns visit every block once in a random
// order, like fio's default random map. Compare with fio: bench/offload/run.sh.
// With --file, an existing file is read instead (read and randread only;
// not written or deleted): bench/offload/randread.sh compares small random
// reads with fio's on one written file. --uring-flags sets the engine's
// io_uring options (SLUICE_IO_URING_*); the buffers are one region,
// registered with sluice_io_register_buffer (a no-op without
// fixed-buffers). Each JSON line has the process's CPU time per block.
//
// `train` trains the MLP under OffloadSchedule::swapAll (all parameters,
// gradients, Adam moments and activations on disk between uses) and reports
// the wall and the training thread's CPU time per step (step_ms,
// step_cpu_ms), compute time, time blocked on I/O and the engine's busy
// time; with --abft or injected faults, the checks' counts and time; the hidden
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
// --model=transformer trains the decoder-only transformer of
// runtime/src/train/Transformer.h instead of the MLP (--batch sequences,
// default 8); --in-memory trains either model with every tensor in memory
// (InMemoryTrainer, no disk) and prints the time per step, the baseline of
// the offloaded runs (docs/offload-runtime.md, "Transformer").
//
//===----------------------------------------------------------------------===//
#include "bench/offload/BenchAdversarial.h"
#include "bench/offload/BenchArgs.h"
#include "runtime/src/train/OffloadTrainer.h"
#include "runtime/src/train/ScheduleFile.h"
#include "runtime/src/train/Transformer.h"
#include "sluice/io.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <vector>

using namespace sluice::train;
using namespace sluice::bench;

namespace {

//===--- Options ---------------------------------------------------------===//
//
// Every option is declared with its command, whether it takes a value, and
// (for numbers) its range; anything else on the command line is a usage
// error (exit status 2) naming the option. --help and --version print and
// exit before anything is parsed further or touched on disk.

constexpr OptionSpec kIoOptions[] = {
    {"dir", true, "directory of the test file (default /tmp)"},
    {"size-mib", true, "file size in MiB, 1..4194304 (default 2048)"},
    {"bs-kib", true,
     "block size in KiB, 4..1048576, a multiple of 4 "
     "(default 1024)"},
    {"qd", true, "queue depth, 1..4096 (default 32)"},
    {"backend", true, "auto, uring or threads (default auto)"},
    {"threads", true,
     "threads of the threads backend, 0..1024 (0: "
     "min(qd, 8))"},
    {"patterns", true,
     "comma-separated write, read, randread, randwrite "
     "(default all four)"},
    {"keep", false, "keep the test file"},
    {"file", true,
     "read this existing file instead (read and randread only; its size, "
     "rounded down to --bs-kib, unless --size-mib; never written or "
     "deleted)"},
    {"uring-flags", true,
     "comma-separated io_uring options: fixed-files, fixed-buffers, sqpoll "
     "(default none)"},
};

constexpr OptionSpec kTrainOptions[] = {
    {"dir", true, "directory for the swap files (default /tmp)"},
    {"widths", true,
     "comma-separated layer widths, 2..1025 of them, each "
     "1..65536 (default 1024 x 6)"},
    {"batch", true, "batch size, 1..65536 (default 256)"},
    {"steps", true,
     "training steps, 2..1000000; step 1 warms up and is not "
     "measured (default 4)"},
    {"lookahead", true,
     "swapAll prefetch distance in entries, 0..65536 "
     "(default 1)"},
    {"backend", true, "auto, uring or threads (default auto)"},
    {"threads", true, "threads of the threads backend, 0..1024"},
    {"schedule", true,
     "train under this planned schedule "
     "(sluice-plan-offload --format=schedule)"},
    {"entries", false, "print the time per schedule entry"},
    {"cuda", false, "device tier in GPU memory"},
    {"no-durable", false, "no RWF_DSYNC, no fsync"},
    {"abft", true,
     "checksums on the layer GEMMs: off, fail or recompute (default off)"},
    {"abft-retries", true,
     "recomputes of a GEMM whose check failed before the step fails, "
     "0..1000 (default 2)"},
    {"fault-ppm", true,
     "inject a bit flip into a GEMM output with this probability per GEMM, "
     "in millionths, 0..1000000 (default 0)"},
    {"fault-bits", true,
     "lowest,highest bit a flip may hit, 0..31 (default "
     "0,31)"},
    {"fault-window-us", true,
     "start,length of the injection window after each step's start, in "
     "microseconds (default: always)"},
    {"model", true, "mlp or transformer (default mlp)"},
    {"blocks", true, "transformer blocks, 1..1024 (default 2)"},
    {"d-model", true, "transformer width, 1..8192 (default 256)"},
    {"heads", true, "attention heads, dividing --d-model (default 8)"},
    {"seq", true, "transformer context length, 1..4096 (default 128)"},
    {"vocab", true, "transformer vocabulary, 2..65536 (default 1024)"},
    {"ffn", true, "transformer MLP width, 0..65536 (0: 4 x d-model)"},
    {"in-memory", false,
     "train with every tensor in memory (no disk): the baseline"},
};

template <size_t N>
void printUsage(std::FILE *to, const char *command,
                const OptionSpec (&specs)[N]) {
  std::fprintf(to, "usage: sluice-bench-io %s [--option=value ...]\n", command);
  for (const OptionSpec &spec : specs) {
    std::string option =
        std::string("--") + spec.name + (spec.takesValue ? "=..." : "");
    std::fprintf(to, "  %-16s %s\n", option.c_str(), spec.help);
  }
}

void printUsage(std::FILE *to) {
  std::fprintf(to, "usage: sluice-bench-io io|train|adversarial "
                   "[--option=value ...]\n"
                   "       sluice-bench-io [io|train|adversarial] --help | "
                   "--version\n"
                   "  io     I/O engine throughput over one file (compare "
                   "with fio: bench/offload/run.sh)\n"
                   "  train  the small MLP trained under an offload schedule\n"
                   "  adversarial  the MLP trained with PGD, DBAC and "
                   "PeerAiD, measured against the cost model\n"
                   "Exit status: 0 done, 1 the benchmark failed, 2 bad "
                   "command line.\n");
}

void printVersion() {
  std::printf("sluice-bench-io (Sluice runtime %d.%d)\n",
              SLUICE_RUNTIME_VERSION_MAJOR, SLUICE_RUNTIME_VERSION_MINOR);
}

/// --dir must name an existing directory (a run-time failure, exit 1).
bool checkDirectory(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) {
    std::fprintf(stderr, "sluice-bench-io: --dir '%s': %s\n", dir.c_str(),
                 std::strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "sluice-bench-io: --dir '%s' is not a directory\n",
                 dir.c_str());
    return false;
  }
  return true;
}

[[noreturn]] void die(const char *what, const sluice_error_t &err) {
  char text[2048];
  sluice_error_format(&err, text, sizeof(text));
  std::fprintf(stderr, "sluice-bench-io: %s: %s\n", what, text);
  std::exit(1);
}

/// CPU time of the calling thread (the trainer's compute), seconds: unlike
/// wall time, not stretched by other processes on a busy machine.
double threadCpuSeconds() {
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

/// User + system CPU time of the process (all its threads), seconds.
double processCpuSeconds() {
  rusage u;
  ::getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

sluice_io_engine_t *makeEngine(sluice_io_backend_t backend, uint32_t threads,
                               uint32_t qd, uint64_t block,
                               uint32_t uringFlags = 0) {
  sluice_io_options_t o;
  sluice_io_options_init(&o);
  o.uring_flags = uringFlags;
  o.queue_depth = qd;
  o.block_size = block;
  o.backend = backend;
  o.threads = threads;
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

int runIo(const Args &args) {
  const std::string dir = args.text("dir", "/tmp");
  const bool existing = args.has("file");
  uint64_t size = args.number("size-mib", 2048, 1, uint64_t(1) << 22) << 20;
  const uint64_t bsKib = args.number("bs-kib", 1024, 4, uint64_t(1) << 20);
  if (bsKib % 4)
    throw UsageError{"--bs-kib must be a multiple of 4 (O_DIRECT transfers "
                     "are 4 KiB aligned), got " +
                     std::to_string(bsKib)};
  const uint64_t bs = bsKib << 10;
  const uint32_t qd = static_cast<uint32_t>(args.number("qd", 32, 1, 4096));
  const uint32_t threads =
      static_cast<uint32_t>(args.number("threads", 0, 0, 1024));
  const sluice_io_backend_t backend = backendOption(args);
  const uint32_t uringFlags = uringFlagsOption(args);
  const std::vector<std::string> patterns = Args::splitList(
      "--patterns",
      args.text("patterns",
                existing ? "read,randread" : "write,read,randread,randwrite"));
  for (const std::string &pattern : patterns) {
    if (pattern != "write" && pattern != "read" && pattern != "randread" &&
        pattern != "randwrite")
      throw UsageError{"--patterns: unknown pattern '" + pattern +
                       "' (expected write, read, randread or randwrite)"};
    if (existing && (pattern == "write" || pattern == "randwrite"))
      throw UsageError{"--patterns: '" + pattern +
                       "' would overwrite --file; only read and randread "
                       "run on an existing file"};
  }
  std::string path = dir + "/sluice-bench-io.dat";
  if (existing) {
    path = args.text("file", "");
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      std::fprintf(stderr, "sluice-bench-io: --file '%s': %s\n", path.c_str(),
                   std::strerror(errno));
      return 1;
    }
    if (!args.has("size-mib"))
      size = static_cast<uint64_t>(st.st_size) / bs * bs;
    if (size > static_cast<uint64_t>(st.st_size) || size < bs) {
      std::fprintf(stderr,
                   "sluice-bench-io: --file '%s' has %lld bytes, fewer than "
                   "%llu (--size-mib, at least one block)\n",
                   path.c_str(), static_cast<long long>(st.st_size),
                   static_cast<unsigned long long>(std::max(size, bs)));
      return 1;
    }
  }
  if (size < bs || size % bs)
    throw UsageError{"--size-mib (" + std::to_string(size >> 20) +
                     " MiB) must be a multiple of --bs-kib (" +
                     std::to_string(bsKib) + " KiB)"};
  if (!existing && !checkDirectory(dir))
    return 1;
  // Like fio (its default fallocate=native), reserve the file's blocks
  // first: O_DIRECT writes that extend a file are serialised by ext4.
  if (!existing) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                    0666);
    if (fd < 0) {
      std::fprintf(stderr, "sluice-bench-io: cannot create %s: %s\n",
                   path.c_str(), std::strerror(errno));
      return 1;
    }
    int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc == 0 && ::close(fd) != 0)
      rc = errno;
    else if (rc != 0)
      ::close(fd);
    if (rc != 0) {
      std::fprintf(stderr, "sluice-bench-io: cannot reserve %s: %s\n",
                   path.c_str(), std::strerror(rc));
      ::unlink(path.c_str());
      return 1;
    }
  }
  sluice_io_engine_t *engine = makeEngine(backend, threads, qd, bs, uringFlags);
  sluice_io_file_t *file = nullptr;
  sluice_error_t err;
  if (sluice_io_file_open(
          engine, path.c_str(),
          existing ? SLUICE_IO_FILE_READ | SLUICE_IO_FILE_DIRECT
                   : SLUICE_IO_FILE_READ | SLUICE_IO_FILE_WRITE |
                         SLUICE_IO_FILE_CREATE | SLUICE_IO_FILE_DIRECT,
          &file, &err) != SLUICE_STATUS_OK)
    die("opening the file", err);
  const uint64_t blocks = size / bs;
  // Twice the queue depth, but no more buffers than blocks.
  const size_t ring = static_cast<size_t>(std::min<uint64_t>(2 * qd, blocks));
  // One region (registered with the ring under fixed-buffers), sliced.
  char *region = static_cast<char *>(sluice_io_alloc(ring * bs, 4096));
  if (!region) {
    std::fprintf(stderr,
                 "sluice-bench-io: cannot allocate %zu buffers of %llu bytes\n",
                 ring, static_cast<unsigned long long>(bs));
    sluice_io_file_close(file);
    sluice_io_engine_destroy(engine);
    if (!existing)
      ::unlink(path.c_str());
    return 1;
  }
  std::mt19937_64 rng(12345);
  for (uint64_t i = 0; i < ring * bs; i += 8) {
    uint64_t v = rng();
    std::memcpy(region + i, &v, 8);
  }
  std::vector<char *> buffers(ring);
  for (size_t i = 0; i < ring; ++i)
    buffers[i] = region + i * bs;
  const bool registered = ring * bs <= (uint64_t(1) << 30);
  if (registered && sluice_io_register_buffer(engine, region, ring * bs,
                                              &err) != SLUICE_STATUS_OK)
    die("registering the buffers", err);
  for (const std::string &pattern : patterns) {
    bool write = pattern == "write" || pattern == "randwrite";
    bool random = pattern == "randread" || pattern == "randwrite";
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
    const double cpuBefore = processCpuSeconds();
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
    const double cpu = processCpuSeconds() - cpuBefore;
    if (write && sluice_io_file_sync(file, &err) != SLUICE_STATUS_OK)
      die("fsync", err);
    sluice_io_engine_stats(engine, &after);
    std::printf(
        "{\"tool\":\"sluice\",\"backend\":\"%s\",\"pattern\":\"%s\","
        "\"uring_flags\":\"%s\",\"bytes\":%llu,\"bs\":%llu,"
        "\"qd\":%u,\"seconds\":%.4f,\"MiBps\":%.1f,"
        "\"cpu_us_per_block\":%.2f,\"short_retries\":%llu}\n",
        backendName(engine), pattern.c_str(),
        args.text("uring-flags", "none").c_str(),
        static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(bs), qd, seconds,
        double(size) / (1 << 20) / seconds, cpu * 1e6 / double(blocks),
        static_cast<unsigned long long>(after.short_transfers_retried -
                                        before.short_transfers_retried));
    std::fflush(stdout);
  }
  if (registered)
    sluice_io_unregister_buffer(engine, region);
  sluice_io_free(region);
  sluice_io_file_close(file);
  sluice_io_engine_destroy(engine);
  if (!existing && !args.has("keep") && ::unlink(path.c_str()) != 0) {
    std::fprintf(stderr, "sluice-bench-io: cannot remove %s: %s\n",
                 path.c_str(), std::strerror(errno));
    return 1;
  }
  return 0;
}

/// The model `train` trains: --model=mlp (--widths, --batch rows) or
/// transformer (--blocks ... --batch sequences); `batch` receives --batch.
std::unique_ptr<TrainModel> trainModel(const Args &args, uint32_t &batch) {
  const std::string kind = args.text("model", "mlp");
  if (kind == "transformer") {
    if (args.has("widths"))
      throw UsageError{"--widths is for --model=mlp"};
    TransformerConfig c;
    auto n = [&](const char *name, uint64_t dflt, uint64_t lo, uint64_t hi) {
      return static_cast<uint32_t>(args.number(name, dflt, lo, hi));
    };
    c.blocks = n("blocks", 2, 1, 1024);
    c.dModel = n("d-model", 256, 1, 8192);
    c.heads = n("heads", 8, 1, 1024);
    c.seq = n("seq", 128, 1, 4096);
    c.vocab = n("vocab", 1024, 2, 65536);
    c.ffn = n("ffn", 0, 0, 65536);
    c.batch = batch = n("batch", 8, 1, 65536);
    if (std::string bad = c.check(); !bad.empty())
      throw UsageError{"the transformer: " + bad};
    return std::make_unique<TransformerModel>(c);
  }
  if (kind != "mlp")
    throw UsageError{"--model must be mlp or transformer, not '" + kind + "'"};
  for (const char *t : {"blocks", "d-model", "heads", "seq", "vocab", "ffn"})
    if (args.has(t))
      throw UsageError{std::string("--") + t + " is for --model=transformer"};
  MlpConfig config;
  config.widths.clear();
  const std::vector<uint64_t> widths =
      args.numbers("widths", "1024,1024,1024,1024,1024,1024", 1, 65536);
  if (widths.size() < 2 || widths.size() > 1025)
    throw UsageError{"--widths needs 2 to 1025 widths (1 to 1024 layers), "
                     "got " +
                     std::to_string(widths.size())};
  for (uint64_t w : widths)
    config.widths.push_back(static_cast<uint32_t>(w));
  config.batch = batch =
      static_cast<uint32_t>(args.number("batch", 256, 1, 65536));
  if (std::string bad = config.check(); !bad.empty())
    throw UsageError{"the MLP: " + bad};
  return std::make_unique<MlpModel>(config);
}

/// --in-memory: every tensor in memory; the time per step after step 1.
int runInMemory(const TrainModel &model, uint64_t steps) {
  InMemoryTrainer trainer(model);
  float loss = trainer.step(); // warm-up
  auto start = std::chrono::steady_clock::now();
  for (uint64_t s = 1; s < steps; ++s)
    loss = trainer.step();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("{\"tool\":\"sluice-train-in-memory\",\"model\":\"%s\","
              "\"layers\":%u,\"steps\":%llu,\"seconds\":%.3f,"
              "\"step_ms\":%.1f,\"loss\":%.5f}\n",
              model.kind(), model.layers(),
              static_cast<unsigned long long>(steps - 1), seconds,
              1e3 * seconds / double(steps - 1), loss);
  return 0;
}

int runTrain(const Args &args) {
  const std::string base = args.text("dir", "/tmp");
  uint32_t batch = 0;
  const std::unique_ptr<TrainModel> model = trainModel(args, batch);
  const uint64_t steps = args.number("steps", 4, 2, 1000000);
  const uint32_t lookahead =
      static_cast<uint32_t>(args.number("lookahead", 1, 0, 65536));
  const uint32_t threads =
      static_cast<uint32_t>(args.number("threads", 0, 0, 1024));
  const sluice_io_backend_t backend = backendOption(args);
  if (args.has("in-memory")) {
    for (const char *o : {"schedule", "cuda", "abft", "fault-ppm", "entries"})
      if (args.has(o))
        throw UsageError{std::string("--") + o +
                         " is for training under a schedule, not "
                         "--in-memory"};
    return runInMemory(*model, steps);
  }
  if (!checkDirectory(base))
    return 1;
  const std::string dir = base + "/sluice-bench-train";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ec)
    std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "sluice-bench-io: cannot create %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  sluice_io_engine_t *engine = makeEngine(backend, threads, 32, 1 << 20);
  OffloadOptions options;
  options.swapDir = dir;
  options.engine = engine;
  options.schedule = OffloadSchedule::swapAll(model->layers(), lookahead);
  const bool planned = args.has("schedule");
  if (planned) {
    std::string error;
    if (!loadSchedule(args.text("schedule", ""), options.schedule, error)) {
      std::fprintf(stderr, "sluice-bench-io: %s\n", error.c_str());
      return 1;
    }
    if (scheduleLayers(options.schedule) != model->layers()) {
      std::fprintf(stderr,
                   "sluice-bench-io: %s: the schedule has %u layers, the "
                   "%s %u\n",
                   args.text("schedule", "").c_str(),
                   scheduleLayers(options.schedule), model->kind(),
                   model->layers());
      return 1;
    }
  }
  options.durable = !args.has("no-durable");
  options.cudaDevice = args.has("cuda");
  if (!parseAbftMode(args.text("abft", "off"), options.abft))
    throw UsageError{"--abft must be off, fail or recompute"};
  options.abftRetries =
      static_cast<uint32_t>(args.number("abft-retries", 2, 0, 1000));
  options.faults.probability =
      double(args.number("fault-ppm", 0, 0, 1000000)) / 1e6;
  const std::vector<uint64_t> bits = args.numbers("fault-bits", "0,31", 0, 31);
  if (bits.size() != 2 || bits[0] > bits[1])
    throw UsageError{"--fault-bits needs LOW,HIGH with LOW <= HIGH"};
  options.faults.minBit = static_cast<uint32_t>(bits[0]);
  options.faults.maxBit = static_cast<uint32_t>(bits[1]);
  if (args.has("fault-window-us")) {
    const std::vector<uint64_t> w =
        args.numbers("fault-window-us", "", 0, 3600000000ull);
    if (w.size() != 2 || w[1] == 0)
      throw UsageError{"--fault-window-us needs START,LENGTH with LENGTH > 0"};
    options.faults.windowStartNs = w[0] * 1000;
    options.faults.windowNs = w[1] * 1000;
  }
  std::unique_ptr<OffloadTrainer> trainer;
  sluice_error_t err;
  if (OffloadTrainer::create(*model, options, trainer, &err) !=
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
  const double cpuStart = threadCpuSeconds();
  for (uint64_t s = 1; s < steps; ++s)
    if (trainer->step(&loss, &err) != SLUICE_STATUS_OK)
      die("training", err);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const double cpuSeconds = threadCpuSeconds() - cpuStart;
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
      "{\"tool\":\"sluice-train\",\"model\":\"%s\",\"backend\":\"%s\","
      "\"layers\":%u,\"batch\":%u,\"lookahead\":%u,\"steps\":%llu,"
      "\"seconds\":%.3f,"
      "\"step_ms\":%.1f,\"step_cpu_ms\":%.1f,"
      "\"compute_ms\":%.1f,\"stall_ms\":%.1f,\"stall_hidden_entries_ms\":%.1f,"
      "\"commit_ms\":%.1f,\"io_busy_ms\":%.1f,\"MiB_moved\":%.1f,"
      "\"demand_fetches\":%llu,\"hidden_share_planned\":%s,"
      "\"hidden_share_all_entries\":%.3f,\"loss\":%.5f}\n",
      model->kind(), backendName(engine), model->layers(), batch, lookahead,
      static_cast<unsigned long long>(steps - 1), seconds,
      1e3 * seconds / double(steps - 1), 1e3 * cpuSeconds / double(steps - 1),
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
  // The schedule's "abft" applies when --abft leaves the checks off.
  const AbftMode abft =
      options.abft != AbftMode::Off ? options.abft : options.schedule.abft;
  if (abft != AbftMode::Off || options.faults.probability > 0) {
    const AbftStats &a = last.abft, &b = first.abft;
    const uint64_t detectable = a.injectedDetectable - b.injectedDetectable;
    std::printf(
        "{\"tool\":\"sluice-train-abft\",\"abft\":\"%s\",\"gemms\":%llu,"
        "\"gemm_ms\":%.1f,\"check_ms\":%.1f,\"check_over_gemm\":%.4f,"
        "\"injected\":%llu,\"injected_detectable\":%llu,"
        "\"detected\":%llu,\"detection_rate\":%s,\"recomputed\":%llu}\n",
        abftModeName(abft), static_cast<unsigned long long>(a.gemms - b.gemms),
        ms(a.gemmNs - b.gemmNs), ms(a.checkNs - b.checkNs),
        a.gemmNs > b.gemmNs
            ? double(a.checkNs - b.checkNs) / double(a.gemmNs - b.gemmNs)
            : 0.0,
        static_cast<unsigned long long>(a.injected - b.injected),
        static_cast<unsigned long long>(detectable),
        static_cast<unsigned long long>(a.detected - b.detected),
        detectable
            ? std::to_string(double(a.detectedInjected - b.detectedInjected) /
                             double(detectable))
                  .substr(0, 6)
                  .c_str()
            : "null",
        static_cast<unsigned long long>(a.recomputed - b.recomputed));
  }
  if (args.has("entries")) {
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
  std::filesystem::remove_all(dir, ec);
  if (ec) {
    std::fprintf(stderr, "sluice-bench-io: cannot remove %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  return 0;
}

/// --help or --version anywhere on the command line: print, do nothing
/// else. Returns true when one was handled.
bool helpOrVersion(int argc, char **argv, const char *command) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--version")) {
      printVersion();
      return true;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      if (command && !std::strcmp(command, "io"))
        printUsage(stdout, "io", kIoOptions);
      else if (command && !std::strcmp(command, "train"))
        printUsage(stdout, "train", kTrainOptions);
      else if (command && !std::strcmp(command, "adversarial"))
        printAdversarialUsage(stdout);
      else
        printUsage(stdout);
      return true;
    }
  }
  return false;
}

int run(int argc, char **argv) {
  const char *command = argc >= 2 && (!std::strcmp(argv[1], "io") ||
                                      !std::strcmp(argv[1], "train") ||
                                      !std::strcmp(argv[1], "adversarial"))
                            ? argv[1]
                            : nullptr;
  if (helpOrVersion(argc, argv, command))
    return 0;
  if (!command) {
    if (argc >= 2)
      std::fprintf(stderr, "sluice-bench-io: unknown command '%s'\n", argv[1]);
    printUsage(stderr);
    return 2;
  }
  try {
    if (!std::strcmp(command, "io"))
      return runIo(Args(argc, argv, 2, kIoOptions));
    if (!std::strcmp(command, "adversarial"))
      return runAdversarial(argc, argv);
    return runTrain(Args(argc, argv, 2, kTrainOptions));
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "sluice-bench-io: %s\n(sluice-bench-io %s --help lists the "
                 "options)\n",
                 e.message.c_str(), command);
    return 2;
  }
}

} // namespace

int main(int argc, char **argv) {
  // No exception leaves main: a failure is a message and exit status 1.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "sluice-bench-io: out of memory\n");
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sluice-bench-io: %s\n", e.what());
  }
  return 1;
}
