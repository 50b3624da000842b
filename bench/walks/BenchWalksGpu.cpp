//===- BenchWalksGpu.cpp - Compiled walks on the GPU vs the CPU engine ----===//
//
// sluice-bench-walks-gpu: steps per second of the walks of
// test/Unit/WalkGpu/Inputs/gpu-walks.sluice (node2vec p=2 q=0.5, DeepWalk),
// compiled at build time by sluicec to PTX and to a CPU object, on real
// graphs:
//   - GPU: sluice_walk_run_gpu (one thread per walker, rejection sampling),
//     K walkers per vertex (--walkers-per-vertex=1,8,...: one walker per
//     vertex rarely fills an H200). "kernel" is the launch alone
//     (stats.seconds); "e2e" is the whole call: context, PTX JIT, uploads,
//     launch, copy back.
//   - CPU: sluice_walk_run with the same compiled kernel and the rejection
//     sampler (the same random numbers as the GPU), at --threads (default
//     all cores and 2), --cpu-walkers-per-vertex (default 1).
//   - node2vec_reservoir: node2vec with the warp-per-walker reservoir
//     kernel of test/Unit/WalkGpu/Inputs/reservoir-walks.sluice
//     (sluice_walk_n2v_reservoir, launched with the sampler its JSON's
//     "threads_per_walker" names) against the CPU engine running the
//     compiled node2vec with the reservoir sampler. Other numbers than the
//     CPU's, the same law; the steps must still agree (no stop rule).
//     Its CPU rows run once, at the first --threads value only.
// No output is written (writer NULL). Each case runs --repeat times, the
// best is reported. The GPU and CPU runs with the same seed and K must
// take the same number of steps ("same" column). Without a GPU it prints
// the reason and the CPU rows and exits 0; a GPU error (PTX JIT, launch)
// is printed with the driver's message and the exit status is 1.
//
// Runtime only (libsluicert + the compiled object), no LLVM: it runs on a
// GPU machine without the toolchain (scripts/device-stage.sh). Not a test.
//
//===----------------------------------------------------------------------===//
#include "bench/walks/BenchSupport.h"
#include "dialects/Common/Version.h"
#include "test/Unit/WalkGpu/GpuWalkSupport.h"

#include "sluice/gpu.h"
#include "sluice/walk_gpu.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace sluice::gpuwalks;

namespace {

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "sluice-bench-walks-gpu: %s\n", message.c_str());
  std::exit(2);
}

std::string errorText(const sluice_error_t &error) {
  char text[4096];
  sluice_error_format(&error, text, sizeof(text));
  return text;
}

using sluice::benchwalks::split;

std::vector<uint32_t> numbers(const std::string &s, const char *what) {
  std::vector<uint32_t> out;
  for (const std::string &item : split(s)) {
    char *end = nullptr;
    unsigned long v = std::strtoul(item.c_str(), &end, 10);
    if (!end || *end || v == 0 || v > 0xffffffffu)
      die(std::string(what) + ": not a positive number: " + item);
    out.push_back(static_cast<uint32_t>(v));
  }
  if (out.empty())
    die(std::string(what) + ": empty list");
  return out;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const char *ext : {".gz", ".txt", ".el"})
    if (name.size() > std::strlen(ext) &&
        name.compare(name.size() - std::strlen(ext), std::string::npos, ext) ==
            0)
      name.resize(name.size() - std::strlen(ext));
  return name;
}

/// A graph file as a simple undirected graph (compacted ids, no loops, no
/// duplicates; as sluice-bench-walks loads them). `.el(.gz)`: Matrix
/// Market body (1-based); otherwise SNAP.
sluice_graph_t *loadGraph(const std::string &path) {
  sluice_graph_load_options_t o;
  sluice_graph_load_options_init(&o);
  bool el = path.find(".el") != std::string::npos;
  o.format = el ? SLUICE_GRAPH_FORMAT_MTX_BODY : SLUICE_GRAPH_FORMAT_SNAP;
  o.flags = SLUICE_GRAPH_LOAD_UNDIRECTED | SLUICE_GRAPH_LOAD_DROP_SELF_LOOPS |
            SLUICE_GRAPH_LOAD_DEDUPLICATE | SLUICE_GRAPH_LOAD_COMPACT_IDS |
            SLUICE_GRAPH_LOAD_QUIET;
  sluice_graph_t *g = nullptr;
  sluice_error_t error;
  if (sluice_graph_load(path.c_str(), &o, &g, &error) != SLUICE_STATUS_OK)
    die(errorText(error));
  return g;
}

struct Row {
  std::string graph, walk, device;
  uint32_t threads = 0, walkersPerVertex = 0;
  uint64_t walks = 0, steps = 0;
  double kernelSeconds = 0, e2eSeconds = 0;
  std::string same;
};

double rate(uint64_t steps, double s) { return s > 0 ? double(steps) / s : 0; }

void printRow(const Row &r) {
  std::printf("| %s | %s | %s | %s | %u | %llu | %llu | %.4f | %.3e | %.4f | "
              "%.3e | %s |\n",
              r.graph.c_str(), r.walk.c_str(), r.device.c_str(),
              r.device == "gpu" ? "-" : std::to_string(r.threads).c_str(),
              r.walkersPerVertex, (unsigned long long)r.walks,
              (unsigned long long)r.steps, r.kernelSeconds,
              rate(r.steps, r.kernelSeconds), r.e2eSeconds,
              rate(r.steps, r.e2eSeconds), r.same.c_str());
  std::fflush(stdout);
}

void usage() {
  std::printf(
      "usage: sluice-bench-walks-gpu --graph=FILE[,FILE...] [options]\n"
      "  --graph=F,G         SNAP edge lists (.txt[.gz]) or Matrix Market "
      "bodies (.el[.gz])\n"
      "  --ptx=FILE          default $SLUICE_GPU_ARTIFACTS/gpu-walks.ptx or "
      "the build's\n"
      "  --reservoir-ptx=FILE  default $SLUICE_GPU_ARTIFACTS/"
      "reservoir-walks.ptx or the build's\n"
      "  --walks=a,b         node2vec,deepwalk,node2vec_reservoir (default "
      "all three)\n"
      "  --length=N          vertices per walk (default 80)\n"
      "  --walkers-per-vertex=K,...  GPU walkers per vertex (default 1,16)\n"
      "  --threads=N,...     CPU threads (default: all cores and 2)\n"
      "  --cpu-walkers-per-vertex=K,...  (default 1)\n"
      "  --repeat=N          runs per case, best reported (default 3)\n"
      "  --seed=S            default 42\n"
      "  --no-cpu | --no-gpu skip one side\n"
      "  --json=FILE         also write the rows as JSON\n");
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> graphs,
      walks = {"node2vec", "deepwalk", "node2vec_reservoir"};
  std::string ptxFile = ptxPath(), jsonFile;
  std::string reservoirPtxFile = artifactsDir() + "/reservoir-walks.ptx";
  uint32_t length = 80, repeat = 3;
  uint64_t seed = 42;
  std::vector<uint32_t> gpuK = {1, 16}, cpuK = {1};
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint32_t> threads = {cores};
  if (cores != 2)
    threads.push_back(2);
  bool cpu = true, gpu = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *prefix) -> const char * {
      size_t n = std::strlen(prefix);
      return arg.compare(0, n, prefix) == 0 ? argv[i] + n : nullptr;
    };
    if (const char *v = value("--graph="))
      for (const std::string &g : split(v))
        graphs.push_back(g);
    else if (const char *v = value("--ptx="))
      ptxFile = v;
    else if (const char *v = value("--reservoir-ptx="))
      reservoirPtxFile = v;
    else if (const char *v = value("--walks="))
      walks = split(v);
    else if (const char *v = value("--length="))
      length = numbers(v, "--length")[0];
    else if (const char *v = value("--walkers-per-vertex="))
      gpuK = numbers(v, "--walkers-per-vertex");
    else if (const char *v = value("--cpu-walkers-per-vertex="))
      cpuK = numbers(v, "--cpu-walkers-per-vertex");
    else if (const char *v = value("--threads="))
      threads = numbers(v, "--threads");
    else if (const char *v = value("--repeat="))
      repeat = numbers(v, "--repeat")[0];
    else if (const char *v = value("--seed="))
      seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("--json="))
      jsonFile = v;
    else if (arg == "--no-cpu")
      cpu = false;
    else if (arg == "--no-gpu")
      gpu = false;
    else if (arg == "--version") {
      std::fputs("sluice-bench-walks-gpu (Sluice) " SLUICE_VERSION_STRING "\n",
                 stdout);
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    } else {
      usage();
      die("unknown argument " + arg);
    }
  }
  if (graphs.empty()) {
    usage();
    die("no --graph given");
  }
  const std::string kReservoir = "node2vec_reservoir";
  for (const std::string &w : walks)
    if (w != kReservoir && (!findWalk(w) || findWalk(w)->start))
      die("--walks: " + w +
          " is not one of node2vec, deepwalk, ppr2, node2vec_reservoir");

  // The device, or why not.
  std::string ptx, reservoirPtx;
  sluice_walk_sampler_t reservoirSampler = SLUICE_WALK_SAMPLER_AUTO;
  const std::string reservoirKernel = "sluice_walk_n2v_reservoir";
  if (gpu) {
    sluice_error_t reason;
    sluice_gpu_device_t *device = nullptr;
    if (sluice_gpu_open(nullptr, &device, &reason) != SLUICE_STATUS_OK) {
      std::printf("GPU: not available: %s\n(CPU rows only)\n",
                  errorText(reason).c_str());
      gpu = false;
    } else {
      std::printf("GPU: %s, compute capability %d\n",
                  sluice_gpu_device_name(device),
                  sluice_gpu_compute_capability(device));
      sluice_gpu_close(device);
      bool ok = false;
      ptx = readFile(ptxFile, ok);
      if (!ok || ptx.empty())
        die("cannot read the PTX " + ptxFile +
            " (--ptx, or set SLUICE_GPU_ARTIFACTS)");
      std::printf("PTX: %s\n", ptxFile.c_str());
      if (std::find(walks.begin(), walks.end(), kReservoir) != walks.end()) {
        reservoirPtx = readFile(reservoirPtxFile, ok);
        if (!ok || reservoirPtx.empty())
          die("cannot read the PTX " + reservoirPtxFile +
              " (--reservoir-ptx, or set SLUICE_GPU_ARTIFACTS)");
        std::string json = readFile(reservoirPtxFile + ".json", ok);
        if (!ok || !samplerFromJson(json, reservoirKernel, reservoirSampler))
          die(reservoirPtxFile + ".json does not describe " +
              reservoirKernel);
        std::printf("PTX: %s (%s: %d threads per walker)\n",
                    reservoirPtxFile.c_str(), reservoirKernel.c_str(),
                    threadsPerWalker(json, reservoirKernel));
      }
    }
  }
  std::printf("CPU: %u hardware threads\n\n", cores);
  std::printf("| graph | walk | device | threads | K | walks | steps | "
              "kernel s | kernel steps/s | e2e s | e2e steps/s | same steps "
              "as CPU |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");

  std::vector<Row> rows;
  int status = 0;
  for (const std::string &path : graphs) {
    auto t0 = std::chrono::steady_clock::now();
    sluice_graph_t *g = loadGraph(path);
    std::fprintf(stderr, "loaded %s: %llu vertices, %llu arcs in %.2f s\n",
                 path.c_str(),
                 (unsigned long long)sluice_graph_num_vertices(g),
                 (unsigned long long)sluice_graph_num_edges(g),
                 std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0)
                     .count());
    std::string gname = baseName(path);
    for (const std::string &wname : walks) {
      // node2vec_reservoir: the CPU kernel and setup of node2vec.
      const bool reservoir = wname == kReservoir;
      const CompiledWalk &walk = *findWalk(reservoir ? "node2vec" : wname);
      // Defaults of the walk: node2vec p = 2, q = 0.5.
      std::vector<uint64_t> params(walk.kernel->num_params);
      if (wname == "node2vec" || reservoir) {
        sluice_walk_params_node2vec_t p = SLUICE_WALK_PARAMS_NODE2VEC_DEFAULTS;
        std::memcpy(params.data(), &p, sizeof(p));
      } else if (wname == "ppr2") {
        sluice_walk_params_ppr2_t p = SLUICE_WALK_PARAMS_PPR2_DEFAULTS;
        std::memcpy(params.data(), &p, sizeof(p));
      }
      sluice_walk_options_t options;
      sluice_walk_options_init(&options);
      std::vector<uint32_t> starts;
      std::string why;
      if (!walkOptions(walk, g, params.data(), options, starts, why))
        die(why);
      options.max_length = length;
      options.seed = seed;
      options.sampler = reservoir ? SLUICE_WALK_SAMPLER_RESERVOIR
                                  : SLUICE_WALK_SAMPLER_REJECTION;
      options.quiet = 1;
      options.cost_ratio = 1.0;
      std::vector<uint64_t> cpuSteps; // by K, for the "same" column
      std::vector<uint32_t> cpuStepsK;
      // The CPU reservoir sampler is ~30x slower than rejection here: its
      // rows run once, at the first --threads only (the staged bench has a
      // timeout per graph).
      const std::vector<uint32_t> cpuThreads =
          reservoir ? std::vector<uint32_t>{threads[0]} : threads;
      const uint32_t cpuRepeat = reservoir ? 1 : repeat;
      if (cpu)
        for (uint32_t k : cpuK)
          for (uint32_t t : cpuThreads) {
            Row r{gname, wname, "cpu", t, k, 0, 0, 1e30, 1e30, "-"};
            for (uint32_t rep = 0; rep < cpuRepeat; ++rep) {
              sluice_walk_options_t o = options;
              o.threads = t;
              o.walks_per_vertex = k;
              sluice_walk_stats_t stats;
              sluice_error_t error;
              auto c0 = std::chrono::steady_clock::now();
              if (sluice_walk_run(g, walk.kernel, params.data(), &o, nullptr,
                                  &stats, &error) != SLUICE_STATUS_OK)
                die(wname + " on the CPU: " + errorText(error));
              double e2e = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - c0)
                               .count();
              r.walks = stats.walks;
              r.steps = stats.steps;
              r.kernelSeconds = std::min(r.kernelSeconds, stats.seconds);
              r.e2eSeconds = std::min(r.e2eSeconds, e2e);
            }
            cpuSteps.push_back(r.steps);
            cpuStepsK.push_back(k);
            printRow(r);
            rows.push_back(r);
          }
      if (gpu)
        for (uint32_t k : gpuK) {
          Row r{gname, wname, "gpu", 0, k, 0, 0, 1e30, 1e30, "-"};
          bool failed = false;
          for (uint32_t rep = 0; rep < repeat && !failed; ++rep) {
            sluice_walk_options_t o = options;
            o.walks_per_vertex = k;
            if (reservoir)
              o.sampler = reservoirSampler;
            sluice_walk_stats_t stats;
            sluice_error_t error;
            auto c0 = std::chrono::steady_clock::now();
            sluice_status_t st = sluice_walk_run_gpu(
                g, reservoir ? reservoirPtx.c_str() : ptx.c_str(),
                reservoir ? reservoirKernel.c_str() : walk.ptxKernel().c_str(),
                params.data(), walk.kernel->num_params, &o, nullptr, &stats,
                &error);
            double e2e = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - c0)
                             .count();
            if (st != SLUICE_STATUS_OK) {
              std::printf("GPU ERROR: %s on %s, K=%u: %s\n", wname.c_str(),
                          gname.c_str(), k, errorText(error).c_str());
              status = 1;
              failed = true;
              break;
            }
            r.walks = stats.walks;
            r.steps = stats.steps;
            r.kernelSeconds = std::min(r.kernelSeconds, stats.seconds);
            r.e2eSeconds = std::min(r.e2eSeconds, e2e);
          }
          if (failed)
            continue;
          for (size_t i = 0; i < cpuStepsK.size(); ++i)
            if (cpuStepsK[i] == k)
              r.same = cpuSteps[i] == r.steps ? "yes" : "NO";
          if (r.same == "NO")
            status = 1;
          printRow(r);
          rows.push_back(r);
        }
    }
    sluice_graph_release(g);
  }
  std::printf("\n(%s; length %u, seed %u, best of %u; rejection sampler on "
              "both sides, reservoir for node2vec_reservoir)\n",
              gpu ? "GPU and CPU" : "CPU only", length, unsigned(seed),
              repeat);

  if (!jsonFile.empty()) {
    FILE *f = std::fopen(jsonFile.c_str(), "w");
    if (!f)
      die("cannot write " + jsonFile);
    std::fprintf(f, "{\"length\": %u, \"seed\": %llu, \"gpu\": %s, "
                    "\"rows\": [\n",
                 length, (unsigned long long)seed, gpu ? "true" : "false");
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      std::fprintf(
          f,
          "  {\"graph\": \"%s\", \"walk\": \"%s\", \"device\": \"%s\", "
          "\"threads\": %u, \"walkers_per_vertex\": %u, \"walks\": %llu, "
          "\"steps\": %llu, \"kernel_seconds\": %.6f, \"kernel_steps_per_s\": "
          "%.6e, \"e2e_seconds\": %.6f, \"e2e_steps_per_s\": %.6e, "
          "\"same_steps_as_cpu\": \"%s\"}%s\n",
          r.graph.c_str(), r.walk.c_str(), r.device.c_str(), r.threads,
          r.walkersPerVertex, (unsigned long long)r.walks,
          (unsigned long long)r.steps, r.kernelSeconds,
          rate(r.steps, r.kernelSeconds), r.e2eSeconds,
          rate(r.steps, r.e2eSeconds), r.same.c_str(),
          i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    if (std::fclose(f) != 0)
      die("cannot write " + jsonFile);
  }
  return status;
}
