//===- BenchAlignGpu.cpp - The alignment kernel on the GPU, device time ---===//
//
// bench-align-gpu PTX [rounds]: the reads of bench-align (BenchReads.h)
// plus a batch large enough to fill a big GPU, aligned by the warp-per-pair
// kernel in PTX (sluicec --emit=ptx of examples/align/extend.sluice; the
// kernel reads the scoring from its argument, so one PTX serves every
// workload) through sluice_align_batch_gpu, `rounds` times (default 3).
// Printed per workload: the kernel's device time (events around the
// launch) with its GCUPS (band cells / kernel time), the whole call, and
// the context, PTX JIT and copies it also paid (medians). Every round's
// results must equal the CPU wavefront kernel's (else exit 1). Without a
// GPU it says why and exits 0 (scripts/device-stage.sh runs it).
//
//===----------------------------------------------------------------------===//
#include "bench/align/BenchReads.h"
#include "sluice/align.h"
#include "sluice/align_gpu.h"
#include "sluice/gpu.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace sluice::bench;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: bench-align-gpu PTX [rounds >= 1] [kernel]\n");
    return 2;
  }
  int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const char *kernel = argc > 3 ? argv[3] : "sluice_align_extend";
  std::ifstream in(argv[1]);
  if (!in || rounds < 1) {
    std::fprintf(stderr, "bench-align-gpu: cannot read '%s' (or rounds < 1)\n",
                 argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string ptx = text.str();
  sluice_error_t reason;
  if (!sluice_gpu_available(&reason)) {
    std::printf("bench-align-gpu: no GPU (%s); skipped\n", reason.message);
    return 0;
  }
  const Workload workloads[] = {
      {"short reads (1 kb, band 100)", 4000, 1000, 100},
      {"long reads (10 kb, band 500)", 100, 10000, 500},
      {"many short reads (1 kb, band 100)", 65536, 1000, 100}};
  std::printf("%-34s %7s %10s %8s %9s %8s %8s %9s %9s\n", "workload", "pairs",
              "kernel s", "GCUPS", "call s", "ctx s", "jit s", "up s",
              "back s");
  char device[128] = "";
  for (const Workload &w : workloads) {
    std::vector<std::string> queries, targets;
    makeReads(w, queries, targets);
    std::vector<const char *> q, t;
    std::vector<uint32_t> ql, tl;
    for (size_t k = 0; k < w.pairs; ++k) {
      q.push_back(queries[k].data());
      t.push_back(targets[k].data());
      ql.push_back(uint32_t(queries[k].size()));
      tl.push_back(uint32_t(targets[k].size()));
    }
    sluice_align_scoring_t sc = {2, 4, 4, 2, w.band, 400};
    std::vector<sluice_align_result_t> cpu(w.pairs), gpu(w.pairs);
    sluice_error_t error;
    if (sluice_align_batch(q.data(), ql.data(), t.data(), tl.data(), w.pairs,
                           &sc, SLUICE_ALIGN_WAVEFRONT, 0, cpu.data(),
                           &error) != SLUICE_STATUS_OK) {
      std::fprintf(stderr, "bench-align-gpu: %s\n", error.message);
      return 1;
    }
    std::vector<double> kernelS, callS, ctxS, jitS, upS, backS;
    uint64_t cells = 0;
    for (int r = 0; r < rounds; ++r) {
      sluice_align_gpu_stats_t st;
      auto start = std::chrono::steady_clock::now();
      if (sluice_align_batch_gpu(ptx.c_str(), kernel, q.data(), ql.data(),
                                 t.data(), tl.data(), w.pairs, &sc, gpu.data(),
                                 device, &st, &error) != SLUICE_STATUS_OK) {
        std::fprintf(stderr, "bench-align-gpu: %s\n", error.message);
        return 1;
      }
      callS.push_back(seconds(start));
      for (size_t k = 0; k < w.pairs; ++k)
        if (std::memcmp(&cpu[k], &gpu[k], sizeof(cpu[k])) != 0) {
          std::fprintf(stderr, "bench-align-gpu: %s pair %zu differs\n", w.name,
                       k);
          return 1;
        }
      kernelS.push_back(st.kernel_seconds);
      ctxS.push_back(st.open_seconds);
      jitS.push_back(st.load_seconds);
      upS.push_back(st.copy_to_device_seconds);
      backS.push_back(st.copy_from_device_seconds);
      cells = st.cells;
    }
    double k = median(kernelS);
    std::printf("%-34s %7zu %10.6f %8.2f %9.4f %8.4f %8.4f %9.6f %9.6f   "
                "(%llu band cells, results equal the CPU's)\n",
                w.name, w.pairs, k, k > 0 ? double(cells) / k / 1e9 : 0.0,
                median(callS), median(ctxS), median(jitS), median(upS),
                median(backS), (unsigned long long)cells);
  }
  std::printf("device: %s (%s, a warp per pair; medians of %d rounds)\n",
              device, kernel, rounds);
  return 0;
}
