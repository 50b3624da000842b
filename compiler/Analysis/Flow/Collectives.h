//===- Collectives.h - Ring, tree and in-network collectives ----*- C++ -*-===//
//
// Schedules for all-gather, reduce-scatter and all-reduce of N bytes over a
// group of devices on a FlowNetwork (see docs/flows.md, "Collectives"):
//  - planRingCollective: the group in a ring order that maximises the
//    bottleneck hop bandwidth (each hop's standalone max flow), optionally
//    two rings (the order and its reverse, half the data each, like NCCL's
//    rings in both directions); every step's ring shift is routed over the
//    topology multi-path (max flow or the path LP);
//  - planTreeCollective: all-reduce on two complementary binary trees over
//    that order (NCCL's double binary tree), reduce and broadcast pipelined;
//  - planInNetworkCollective: every member sends its data once to the
//    reduce-capable device(s) and receives the result once (SHARP / DisDP);
//  - planCollectives: all of them that apply, for comparison.
// Every plan carries the alpha-beta prediction, the time from the routed
// flows (each phase: max over arcs of bytes / capacity), a certified lower
// bound of that schedule's routing, and the algorithm-independent bandwidth
// bound for reductions done by the members only.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_COLLECTIVES_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_COLLECTIVES_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/TopoGraph.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace sluice::flow {

/// All-gather, reduce-scatter or all-reduce: the plan dialect's
/// CollectiveKind (PlanEnums.td), spelled by plan::stringifyCollectiveKind
/// ("all-gather", "reduce-scatter", "all-reduce").
using plan::CollectiveKind;
enum class CollectiveAlgorithm {
  Ring,
  DoubleBinaryTree,
  InNetwork,
  /// Reduce-scatter inside subgroups, all-reduce of the shards across them
  /// (ring, or in the network), all-gather inside subgroups.
  Hierarchical,
};

/// "ring", "double-binary-tree", "in-network", "hierarchical".
llvm::StringRef collectiveAlgorithmName(CollectiveAlgorithm a);

struct CollectiveOptions {
  /// Per-step latency (the alpha of the alpha-beta model), in s.
  double alpha = 0;
  /// 1: one ring; 2: also the reverse ring, each carrying half the data
  /// (chosen only if its routed time is shorter).
  unsigned maxRings = 2;
  /// Up to this many members the ring order is searched exhaustively
  /// (member 0 first); beyond, greedy nearest neighbour plus swaps.
  unsigned exhaustiveLimit = 9;
  /// Best-bottleneck orders whose ring steps are routed to pick the best.
  unsigned candidateOrders = 4;
  /// Up to this many members the hop bandwidths are max flows; beyond,
  /// widest-path bottlenecks (one path).
  unsigned maxFlowHopLimit = 24;
  /// Relative gap of the path LP that routes multi-commodity phases.
  double relativeGap = 1e-4;
};

/// One kind of step of a schedule, executed `repeats` times in sequence
/// (the pipelined tree and in-network phases run once).
struct CollectivePhase {
  std::string name;
  unsigned repeats = 1;
  std::vector<Demand> demands;
  /// The routed demands; schedule.makespan is the phase's time.
  FlowSchedule schedule;
};

struct CollectivePlan {
  CollectiveKind kind = CollectiveKind::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  double bytes = 0;
  std::vector<unsigned> group;
  /// Ring: the orders (node indices) and the share of the data each
  /// carries. Tree: the orders the trees are laid over.
  std::vector<std::vector<unsigned>> rings;
  std::vector<double> shares;
  /// Tree: per tree, the parent of each node of `group` (a node index), or
  /// the root itself for the root.
  std::vector<std::vector<unsigned>> treeParents;
  /// In-network: the reducing devices and the share each reduces.
  std::vector<unsigned> reducers;
  /// The bandwidth B of the alpha-beta formula (standalone bottleneck).
  double bandwidth = 0;
  /// Alpha-beta prediction, in s.
  double alphaBetaTime = 0;
  /// From the routed flows: sum over phases of repeats * (alpha + time).
  double flowTime = 0;
  /// Certified: no routing of these phases is faster (LP / cut bounds).
  double scheduleBound = 0;
  /// Any schedule in which only members combine data needs at least this
  /// long (all-gather: (n-1)/n N into each member; reduce-scatter: out of
  /// each; all-reduce: 2 (n-1) N over the members' summed bandwidth). An
  /// in-network plan may beat it.
  double endpointBound = 0;
  std::vector<CollectivePhase> phases;
};

/// Devices of `g` with the boolean property `reduce` set (switches that
/// reduce in the network), ascending.
std::vector<unsigned> findReducers(const analysis::TopoGraph &g);

/// The bandwidth bound for reductions done by members only (see
/// CollectivePlan::endpointBound). Fails on an invalid group.
llvm::Expected<double> endpointBound(const FlowNetwork &net,
                                     llvm::ArrayRef<unsigned> group,
                                     CollectiveKind kind, double bytes);

/// Standalone hop bandwidth bw[i][j] from group[i] to group[j] (max flow,
/// or the widest path beyond options.maxFlowHopLimit), 0 on the diagonal.
llvm::Expected<std::vector<std::vector<double>>>
hopBandwidths(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
              const CollectiveOptions &options = {});

/// The ring order (positions into `bw`, starting at 0) with the largest
/// bottleneck min_i bw[o_i][o_i+1], then the largest summed hop bandwidth,
/// then lexicographically smallest; exhaustive up to `exhaustiveLimit`.
std::vector<unsigned> bestRingOrder(const std::vector<std::vector<double>> &bw,
                                    unsigned exhaustiveLimit);

llvm::Expected<CollectivePlan>
planRingCollective(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                   CollectiveKind kind, double bytes,
                   const CollectiveOptions &options = {});

/// All-reduce only (the other kinds fail with an error naming the ring).
llvm::Expected<CollectivePlan>
planTreeCollective(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                   CollectiveKind kind, double bytes,
                   const CollectiveOptions &options = {});

/// Each member sends up (all-reduce, reduce-scatter: N; all-gather: N/n) and
/// receives down (all-reduce, all-gather: N; reduce-scatter: N/n), split
/// over the reducers; up and down stream concurrently. Among the single
/// reducers and all of them with equal shares, the fastest routed plan.
/// Fails if `reducers` is empty or a reducer is a member or unreachable.
llvm::Expected<CollectivePlan>
planInNetworkCollective(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                        CollectiveKind kind, double bytes,
                        llvm::ArrayRef<unsigned> reducers,
                        const CollectiveOptions &options = {});

/// The members of `group` split by the prefix of their node names before
/// the first '.' (e.g. "server[3]" of "server[3].gpu[2]"), in order of first
/// appearance; members without a '.' form one subgroup each.
std::vector<std::vector<unsigned>>
subgroupsByPrefix(const FlowNetwork &net, llvm::ArrayRef<unsigned> group);

/// Hierarchical all-reduce over equal-sized `subgroups` (e.g. the GPUs of
/// each server): a ring reduce-scatter inside every subgroup (all at once),
/// then the all-reduce of each N/g shard across the subgroups among the
/// members holding it (rings over the subgroups, all shards at once; or,
/// with `reducers`, in the network: each member sends its shard up once
/// and receives the result once), then a ring all-gather inside every
/// subgroup. Fails unless there are at least two subgroups of equal,
/// non-zero size.
llvm::Expected<CollectivePlan>
planHierarchicalAllReduce(const FlowNetwork &net,
                          const std::vector<std::vector<unsigned>> &subgroups,
                          double bytes, llvm::ArrayRef<unsigned> reducers,
                          const CollectiveOptions &options = {});

/// Ring, tree (all-reduce), in-network (if `reducers` is not empty), and
/// for an all-reduce whose members split by name prefix into at least two
/// equal subgroups of two or more, hierarchical (ring across, and in the
/// network if `reducers` is not empty), in that order.
llvm::Expected<std::vector<CollectivePlan>>
planCollectives(const FlowNetwork &net, llvm::ArrayRef<unsigned> group,
                CollectiveKind kind, double bytes,
                llvm::ArrayRef<unsigned> reducers,
                const CollectiveOptions &options = {});

/// The plans as one JSON object (deterministic key order).
std::string collectivesToJSON(const FlowNetwork &net,
                              llvm::ArrayRef<CollectivePlan> plans,
                              unsigned indent = 2);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_COLLECTIVES_H
