//===- GnnServers.h - Multi-server plan of GNN training -------*- C++ -*-===//
//
// What `sluicec --emit=plan` predicts for a gnn `train` job whose topology
// has several servers (docs/gnn.md, "Several servers"), over plain structs
// (no IR):
//
//  - the vertices (seeds and feature rows) partitioned over the servers
//    (GnnPartition.h: seed-balanced, few cut arcs);
//  - per server: the expected input rows of its batches (profileBatch over
//    its own seeds), split into local rows, remote rows it caches and remote
//    rows it fetches from each other server (countRowsByPart); its local
//    rows placed as one machine places them (memory, or the hottest in the
//    feature_cache and the rest on its drives); the hottest remote rows
//    cached in the memory its local rows leave (intra-server reads
//    preferred);
//  - the remote gathers of one synchronous step, a demand matrix between
//    the servers' cpus, routed over the topology by the flow scheduler
//    (solveMinMakespan: max flow or the multi-commodity LP);
//  - the gradient all-reduce of the parameters over the servers' cpus
//    (planRingCollective);
//  - per server its stages and epoch; the epoch is the slowest server's.
//
// The graph structure is taken as replicated on every server (sampling is
// local); only the feature rows are partitioned.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_GNN_GNNSERVERS_H
#define SLUICE_COMPILER_ANALYSIS_GNN_GNNSERVERS_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Gnn/GnnCost.h"
#include "compiler/Analysis/Gnn/GnnPartition.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace sluice::gnn {

/// One server: a group of the topology with a cpu.
struct GnnServer {
  std::string name;  ///< the group, e.g. "server[1]"
  unsigned node = 0; ///< its cpu's node in the flow network
  GnnMachine machine;
};

/// Per part, the expected input rows whose vertex lies in it:
/// out[p] = sum over v with partOf[v] == p of inputProbability[v].
std::vector<double> countRowsByPart(llvm::ArrayRef<double> inputProbability,
                                    llvm::ArrayRef<uint32_t> partOf,
                                    unsigned parts);

struct ServerPrediction {
  std::string name;
  unsigned node = 0;
  GnnMachine machine;
  uint64_t vertices = 0;    ///< local vertices (feature rows)
  double seeds = 0;         ///< expected training seeds an epoch
  double evalSeeds = 0;     ///< validation and test seeds
  double evalBatches = 0;   ///< its evaluation batches
  BatchProfile train, eval; ///< one batch of its seeds
  /// Expected input rows of one training batch: local, remote and cached
  /// here, remote and fetched (per source server; 0 at its own index).
  double localRows = 0, cachedRemoteRows = 0, remoteRows = 0;
  std::vector<double> remoteRowsFrom;
  double evalRemoteRows = 0; ///< fetched, per evaluation batch
  /// Placement: local rows in memory and on the drives, remote rows
  /// cached, and the memory the remote cache was offered.
  uint64_t localHostRows = 0, localSsdRows = 0, cachedRemote = 0;
  double remoteCacheCapacity = 0;
  IoLoad trainIo, evalIo;  ///< its drives, per batch
  StageTimes perBatch;     ///< sampling, gather (memory, nvme), compute, Adam
  double gatherRemote = 0; ///< routed remote rows of a training step
  double evalGatherRemote = 0; ///< of an evaluation step
  double allReduce = 0;        ///< the gradient all-reduce of a step
  double producer() const { return perBatch.producer() + gatherRemote; }
  double trainer() const { return perBatch.trainer() + allReduce; }
  double trainSeconds = 0, evalSeconds = 0, epochSeconds = 0;
  std::string bound; ///< its largest stage on its slower side
};

struct MultiServerPrediction {
  GraphPartition partition;
  std::vector<ServerPrediction> servers;
  /// Synchronous steps of an epoch: the most batches any server has.
  double batches = 0;
  /// Remote gather of one training step: bytes over the network, the
  /// routed makespan and how the flow scheduler solved it.
  double remoteBytesPerStep = 0, remoteSeconds = 0;
  double evalRemoteBytesPerStep = 0, evalRemoteSeconds = 0;
  std::string remoteMethod;
  /// Gradient all-reduce: bytes (4 per parameter) and the routed ring time.
  double allReduceBytes = 0, allReduceSeconds = 0;
  double epochSeconds = 0;
  unsigned slowest = 0; ///< index of the slowest server
};

/// The plan over `servers` (at least two) connected by `net`. Errors
/// (llvm::StringError) name the server whose rows do not fit, or the
/// servers the network cannot connect.
llvm::Expected<MultiServerPrediction>
predictServers(const GnnGraph &graph, const GnnJob &job,
               llvm::ArrayRef<GnnServer> servers, const flow::FlowNetwork &net,
               const GnnCostConstants &c = {},
               const PartitionOptions &partitioning = {});

} // namespace sluice::gnn

#endif // SLUICE_COMPILER_ANALYSIS_GNN_GNNSERVERS_H
