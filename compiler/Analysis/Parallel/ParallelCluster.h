//===- ParallelCluster.h - GPUs and links for 3D-parallel plans -*- C++ -*-===//
//
// The 3D-parallel planner's view of a machine: N identical GPUs grouped in
// hosts (the topology's top-level groups: servers, instances), their memory,
// peak FLOP/s and memory bandwidth, and an N x N matrix of the bandwidth and
// latency one GPU attains sending to another. The matrix holds the measured
// (attained) value of a pair when the topology gives one (a `bandwidths`
// matrix, e.g. nvbandwidth or Pipette's pairwise send/recv tests), else the
// widest-path bandwidth of the modeled links (NVLink/NVSwitch inside a
// server, PCIe through the CPU, NIC line rates and the fabric between
// hosts). Plain data: tests and benchmarks build it with uniform(),
// sluicec with clusterFromTopo().
//
// GPUs are ordered host by host, as Megatron-LM's default rank order sees
// them (host h, local GPU l is GPU h * gpusPerHost + l).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELCLUSTER_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELCLUSTER_H

#include "compiler/Analysis/TopoGraph.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sluice::parallel {

struct ParallelCluster {
  std::string name;
  int64_t hosts = 0;
  int64_t gpusPerHost = 0;
  /// Per GPU (host-major): its topology path and its host's name.
  std::vector<std::string> gpuNames;
  std::vector<std::string> hostNames; ///< one per host
  double gpuMemory = 0;               ///< bytes per GPU
  double gpuPeakFlops = 0;            ///< dense fp16/bf16 tensor FLOP/s
  double gpuMemoryBandwidth = 0;      ///< B/s; 0 = GEMMs are compute-bound
  /// What GPU a attains sending to GPU b: bandwidth in B/s (0 on the
  /// diagonal) and latency in s, side by side (one cache line per lookup:
  /// the placement search reads both for every pair it costs).
  struct Link {
    float bandwidth = 0;
    float latency = 0;
  };
  /// Row-major N x N: links[a * N + b].
  std::vector<Link> links;
  /// How many matrix cells came from a measured matrix.
  int64_t measuredPairs = 0;
  /// Optimizer offload (ZeRO-Offload): per host, the memory of its CPUs
  /// (bytes; 0 = the topology gives none, no offload), their optimizer
  /// rate (parameters/s, from their memory bandwidth as the offload
  /// planner derives it) and what each GPU attains to and from its host
  /// while all of the host's GPUs stream at once (B/s). The least over the
  /// hosts.
  double hostMemory = 0;
  double hostAdamRate = 0;
  double hostLinkBandwidth = 0;
  bool canOffload() const {
    return hostMemory > 0 && hostAdamRate > 0 && hostLinkBandwidth > 0;
  }

  int64_t gpus() const { return hosts * gpusPerHost; }
  int64_t hostOf(int64_t gpu) const { return gpu / gpusPerHost; }
  double bw(int64_t a, int64_t b) const {
    return links[static_cast<size_t>(a * gpus() + b)].bandwidth;
  }
  Link &link(int64_t a, int64_t b) {
    return links[static_cast<size_t>(a * gpus() + b)];
  }
  double lat(int64_t a, int64_t b) const {
    return links[static_cast<size_t>(a * gpus() + b)].latency;
  }

  /// Empty when usable, else what is wrong ("GPU memory must be positive").
  std::string validate() const;

  /// `hosts` x `gpusPerHost` GPUs with bandwidth `intra` inside a host and
  /// `inter` between hosts (latencies `intraLatency`, `interLatency`).
  static ParallelCluster uniform(int64_t hosts, int64_t gpusPerHost,
                                 double gpuMemory, double gpuPeakFlops,
                                 double gpuMemoryBandwidth, double intra,
                                 double inter, double intraLatency = 2e-6,
                                 double interLatency = 5e-6);
};

/// A host and its GPUs' paths, in device order.
struct HostGpus {
  std::string host;
  std::vector<std::string> gpus;
  std::vector<unsigned> devices; ///< their indices in the graph
};

/// The GPUs of `g` grouped by host as clusterFromTopo() groups them: by
/// top-level group (GPUs at the top level form one host named `name`), hosts
/// in order of their first GPU.
std::vector<HostGpus> gpusByHost(const analysis::TopoGraph &g,
                                 llvm::StringRef name);

/// Builds the cluster from topology `g`: every "gpu" device, grouped by its
/// top-level group (GPUs at the top level of the topology form one host,
/// named after the topology). Every host must hold
/// the same number of GPUs, and every GPU must have the same `memory` and
/// `compute` (a heterogeneous cluster is reported as an error naming the
/// first GPU that differs); `memory_bandwidth` is read when present. The
/// bandwidth of a pair is its measured arc when there is one, else the max
/// flow (same host) or the widest path (other hosts) over the modeled links;
/// an unreachable pair is an error. The host figures (hostMemory, ...)
/// come from the CPUs of each host (its group's `cpu` devices: memory and
/// memory_bandwidth summed; the GPU link share is the min cut between them
/// and the host's GPUs over the GPUs, capped by each GPU's widest path);
/// a host without a CPU that has both leaves them 0.
llvm::Expected<ParallelCluster> clusterFromTopo(const analysis::TopoGraph &g,
                                                llvm::StringRef name);

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELCLUSTER_H
