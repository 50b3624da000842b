//===- BenchAlign.cpp - The wavefront kernel against the serial one -------===//
//
// bench-align [rounds]: generated read pairs (a random target; its query
// with 3% substitutions, 1% indels of 1-4 bases, every fifth with an
// unrelated tail that the Z-drop stops on; fixed seeds) aligned with
// minimap2's scoring by sluice_align_batch: the serial kernel (one cell per
// instruction, 1 thread) and the wavefront kernel (SIMD across the
// anti-diagonal) on 1 and 2 threads. The three run alternately, `rounds`
// times (default 5); the median of each is printed with the speedups, and
// every run's results must equal the serial kernel's (else exit 1).
//
//===----------------------------------------------------------------------===//
#include "sluice/align.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Workload {
  const char *name;
  size_t pairs, length;
  int band;
};

std::string mutate(const std::string &target, std::mt19937_64 &rng,
                   bool chimera) {
  static const char kBases[] = "ACGT";
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> base(0, 3), len(1, 4);
  std::string read;
  for (size_t i = 0; i < target.size(); ++i) {
    if (u(rng) < 0.005) {
      i += len(rng) - 1;
      continue;
    }
    char c = target[i];
    if (u(rng) < 0.03)
      c = kBases[(std::strchr(kBases, c) - kBases + 1 + base(rng) % 3) % 4];
    read += c;
    if (u(rng) < 0.005)
      for (int k = len(rng); k > 0; --k)
        read += kBases[base(rng)];
  }
  if (chimera)
    for (size_t k = 0; k < target.size() / 5; ++k)
      read += kBases[base(rng)];
  return read;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

bool same(const sluice_align_result_t &a, const sluice_align_result_t &b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  if (rounds < 1) {
    std::fprintf(stderr, "usage: bench-align [rounds >= 1]\n");
    return 2;
  }
  const Workload workloads[] = {
      {"short reads (1 kb, band 100)", 4000, 1000, 100},
      {"long reads (10 kb, band 500)", 100, 10000, 500}};
  std::printf("%-30s %10s %10s %10s %8s %8s\n", "workload", "serial s",
              "wave 1t s", "wave 2t s", "simd x", "2t x");
  for (const Workload &w : workloads) {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<int> base(0, 3);
    std::vector<std::string> queries, targets;
    for (size_t k = 0; k < w.pairs; ++k) {
      std::string t(w.length, 'A');
      for (char &c : t)
        c = "ACGT"[base(rng)];
      queries.push_back(mutate(t, rng, k % 5 == 4));
      targets.push_back(std::move(t));
    }
    std::vector<const char *> q, t;
    std::vector<uint32_t> ql, tl;
    for (size_t k = 0; k < w.pairs; ++k) {
      q.push_back(queries[k].data());
      t.push_back(targets[k].data());
      ql.push_back(uint32_t(queries[k].size()));
      tl.push_back(uint32_t(targets[k].size()));
    }
    sluice_align_scoring_t sc = {2, 4, 4, 2, w.band, 400};
    struct Config {
      sluice_align_kernel_t kernel;
      uint32_t threads;
      std::vector<double> times;
      std::vector<sluice_align_result_t> out;
    } configs[] = {{SLUICE_ALIGN_SERIAL, 1, {}, {}},
                   {SLUICE_ALIGN_WAVEFRONT, 1, {}, {}},
                   {SLUICE_ALIGN_WAVEFRONT, 2, {}, {}}};
    for (int r = 0; r < rounds; ++r)
      for (Config &c : configs) {
        c.out.assign(w.pairs, {});
        sluice_error_t error;
        auto start = std::chrono::steady_clock::now();
        if (sluice_align_batch(q.data(), ql.data(), t.data(), tl.data(),
                               w.pairs, &sc, c.kernel, c.threads, c.out.data(),
                               &error) != SLUICE_STATUS_OK) {
          std::fprintf(stderr, "bench-align: %s\n", error.message);
          return 1;
        }
        c.times.push_back(seconds(start));
      }
    for (Config &c : configs)
      for (size_t k = 0; k < w.pairs; ++k)
        if (!same(c.out[k], configs[0].out[k])) {
          std::fprintf(stderr, "bench-align: %s pair %zu differs\n", w.name, k);
          return 1;
        }
    double median[3];
    for (int i = 0; i < 3; ++i) {
      std::vector<double> v = configs[i].times;
      std::sort(v.begin(), v.end());
      median[i] = v[v.size() / 2];
    }
    size_t zdropped = 0;
    for (const sluice_align_result_t &r : configs[0].out)
      zdropped += r.zdropped;
    std::printf("%-30s %10.4f %10.4f %10.4f %8.2f %8.2f   (%zu pairs, %zu "
                "zdropped, results equal)\n",
                w.name, median[0], median[1], median[2], median[0] / median[1],
                median[0] / median[2], w.pairs, zdropped);
  }
  return 0;
}
