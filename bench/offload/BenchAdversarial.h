//===- BenchAdversarial.h - sluice-bench-io adversarial ---------*- C++ -*-===//
//
// The `adversarial` command of sluice-bench-io (BenchAdversarial.cpp): the
// MLP trained with PGD, DBAC and PeerAiD for real, each epoch's measured
// time against the cost model's prediction (docs/adversarial.md).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_BENCH_OFFLOAD_BENCHADVERSARIAL_H
#define SLUICE_BENCH_OFFLOAD_BENCHADVERSARIAL_H

#include <cstdio>

namespace sluice::bench {

void printAdversarialUsage(std::FILE *to);
/// argv[1] is "adversarial"; throws UsageError for a bad command line.
int runAdversarial(int argc, char **argv);

} // namespace sluice::bench

#endif // SLUICE_BENCH_OFFLOAD_BENCHADVERSARIAL_H
