//===- BenchReads.h - The alignment benchmarks' generated reads -*- C++ -*-===//
//
// bench-align and bench-align-gpu align the same reads: a random target
// per pair and its query with 3% substitutions, 1% indels of 1-4 bases and
// every fifth with an unrelated tail (a chimera the Z-drop stops), from a
// fixed seed.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_BENCH_ALIGN_BENCHREADS_H
#define SLUICE_BENCH_ALIGN_BENCHREADS_H

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace sluice::bench {

struct Workload {
  const char *name;
  size_t pairs, length;
  int band;
};

inline std::string mutate(const std::string &target, std::mt19937_64 &rng,
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

inline double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The pairs of `w` (seed 42).
inline void makeReads(const Workload &w, std::vector<std::string> &queries,
                      std::vector<std::string> &targets) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> base(0, 3);
  for (size_t k = 0; k < w.pairs; ++k) {
    std::string t(w.length, 'A');
    for (char &c : t)
      c = "ACGT"[base(rng)];
    queries.push_back(mutate(t, rng, k % 5 == 4));
    targets.push_back(std::move(t));
  }
}

} // namespace sluice::bench

#endif // SLUICE_BENCH_ALIGN_BENCHREADS_H
