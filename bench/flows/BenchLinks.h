//===- BenchLinks.h - Flow benchmarks: link bandwidths ---------*- C++ -*-===//
//
// The attained bandwidths (bytes/s) the machines of sluice-bench-flows and
// sluice-bench-flow-exec are built from, so both benchmarks model the same
// hardware.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_BENCH_FLOWS_BENCHLINKS_H
#define SLUICE_BENCH_FLOWS_BENCHLINKS_H

namespace sluice::bench {

constexpr double GB = 1e9;
constexpr double kPcie16 = 25 * GB;  // PCIe Gen4 x16, attained
constexpr double kPcie4 = 7.88 * GB; // PCIe Gen4 x4 (one U.2 drive)
constexpr double kNvlink = 50 * GB;  // 2 x NVLink3 per GPU-switch pair
constexpr double kXgmi = 144 * GB;   // CPU-CPU

} // namespace sluice::bench

#endif // SLUICE_BENCH_FLOWS_BENCHLINKS_H
