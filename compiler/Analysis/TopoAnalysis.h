//===- TopoAnalysis.h - Connectivity, paths, cuts and totals ---*- C++ -*-===//
//
// Analyses over a TopoGraph (see docs/analysis.md):
//  - weakly connected components and per-pair reachability;
//  - per source, the widest path (maximum bottleneck bandwidth) to every
//    device, with the latency and hop count along it, and BFS hop counts;
//    a pair matrix over a device subset with the pair's max-flow bandwidth
//    and the measured ("attained") bandwidth next to the widest path;
//  - max-flow min-cut between two device sets, and the bisection of a set;
//  - totals per device kind.
//
// Only modeled arcs (TopoArc::measured == false) shape connectivity, paths
// and cuts; measured arcs supply the attained column of the pair matrix.
// The line rate of a NIC (TopoDevice::throughRate) limits widest paths and
// pair max-flows through it; the set cuts see links only.
// Every result is a deterministic function of the graph: ties go to the
// lower device index, then the lower arc index.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_TOPOANALYSIS_H
#define SLUICE_COMPILER_ANALYSIS_TOPOANALYSIS_H

#include "compiler/Analysis/TopoGraph.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace sluice::analysis {

/// Marks an unreachable device in hop counts and a missing arc index.
constexpr unsigned kUnreachable = ~0u;

//===----------------------------------------------------------------------===//
// Device selection
//===----------------------------------------------------------------------===//

/// Devices whose kind is `kind`, ascending.
std::vector<unsigned> devicesOfKind(const TopoGraph &g, llvm::StringRef kind);
/// Devices whose group is `group`, ascending.
std::vector<unsigned> devicesInGroup(const TopoGraph &g, llvm::StringRef group);
/// Devices whose name is `prefix` or starts with `prefix` followed by '.'
/// (so "server[1]" selects "server[1].gpu[0]" but not "server[10].gpu[0]"),
/// ascending.
std::vector<unsigned> devicesUnder(const TopoGraph &g, llvm::StringRef prefix);
/// Parses a selector: "kind:<kind>", "group:<group>", "under:<path prefix>"
/// or "all". Returns std::nullopt for an unknown selector form.
std::optional<std::vector<unsigned>> selectDevices(const TopoGraph &g,
                                                   llvm::StringRef selector);

//===----------------------------------------------------------------------===//
// Connectivity
//===----------------------------------------------------------------------===//

/// Weakly connected components of the modeled arcs.
struct Components {
  /// Component id of each device. Components are numbered in order of their
  /// smallest device index.
  std::vector<unsigned> componentOf;
  /// Members of each component, ascending.
  std::vector<std::vector<unsigned>> members;

  unsigned count() const { return static_cast<unsigned>(members.size()); }
  bool sameComponent(unsigned a, unsigned b) const {
    return componentOf[a] == componentOf[b];
  }
};

Components computeComponents(const TopoGraph &g);

/// BFS hop counts over modeled arcs from `source` (kUnreachable where no
/// directed path exists). O(V + E).
std::vector<unsigned> computeHopCounts(const TopoGraph &g, unsigned source);

/// Directed reachability from `source` over modeled arcs.
std::vector<bool> computeReachable(const TopoGraph &g, unsigned source);

//===----------------------------------------------------------------------===//
// Widest paths
//===----------------------------------------------------------------------===//

/// Single-source widest paths: for every device the maximum over directed
/// paths of the minimum arc bandwidth, where a path through (or from, or to)
/// a device with a through-rate (a NIC's line rate) is also limited by it.
/// Among paths of equal bottleneck the search keeps, at each device, the label
/// with lower accumulated latency, then fewer hops, then the one found first;
/// `latency` and `pathHops` are those of the path it keeps (see
/// docs/analysis.md for why that is not always the lowest latency among all
/// widest paths).
struct WidestPathTree {
  unsigned source = 0;
  /// Bottleneck bandwidth in B/s; +infinity at the source, 0 where
  /// unreachable.
  std::vector<double> bandwidth;
  /// Summed latency along the kept path, in s; 0 at the source and where
  /// unreachable.
  std::vector<double> latency;
  /// Hops along the kept path; kUnreachable where unreachable.
  std::vector<unsigned> pathHops;
  /// Every arc of the kept path has a known latency (true at the source).
  std::vector<bool> latencyKnown;
  /// The last arc of the kept path; kUnreachable at the source and where
  /// unreachable.
  std::vector<unsigned> predArc;

  bool reachable(unsigned v) const { return pathHops[v] != kUnreachable; }
  /// Arc indices from the source to `v`, in path order; empty for the
  /// source itself and for an unreachable device.
  std::vector<unsigned> pathTo(const TopoGraph &g, unsigned v) const;
};

/// Modified Dijkstra (max-bottleneck) from `source`. O(E log V).
WidestPathTree computeWidestPaths(const TopoGraph &g, unsigned source);

/// What the analyses say about one ordered device pair.
struct PairMetrics {
  /// A directed path of modeled arcs exists.
  bool reachable = false;
  /// Widest-path (modeled) bandwidth in B/s; +infinity on the diagonal, 0
  /// when unreachable.
  double bandwidth = 0;
  /// Latency along the widest path, in s; meaningful only when
  /// `latencyKnown`.
  double latency = 0;
  /// Every arc of the widest path has a known latency.
  bool latencyKnown = true;
  /// Fewest hops over any path (BFS); kUnreachable when unreachable.
  unsigned hops = kUnreachable;
  /// Hops along the widest path; kUnreachable when unreachable.
  unsigned pathHops = kUnreachable;
  /// The measured bandwidth of the pair, from the last measured arc
  /// from -> to, if any.
  std::optional<double> attained;
  /// The max-flow bandwidth from -> to in B/s (all paths at once, NICs
  /// limited to their line rate); +infinity on the diagonal, 0 when
  /// unreachable. Absent when the matrix was computed without max-flows.
  std::optional<double> maxFlow;
};

/// Pair metrics for every ordered pair of a device subset.
struct PairMatrix {
  /// The subset, in the order given.
  std::vector<unsigned> devices;
  /// Row-major, devices.size() squared: cells[row * n + col] describes
  /// devices[row] -> devices[col].
  std::vector<PairMetrics> cells;

  unsigned size() const { return static_cast<unsigned>(devices.size()); }
  const PairMetrics &at(unsigned row, unsigned col) const {
    return cells[row * devices.size() + col];
  }
  /// True if any cell has an attained value.
  bool hasAttained() const;
  /// True if the cells carry max-flow values.
  bool hasMaxFlow = false;
};

/// The most devices a report's pair matrix covers: it holds S^2 cells of
/// sizeof(PairMetrics) (64) bytes, 270 MB for 2048 devices, and costs one
/// widest-path search per device. Drivers report a larger subset as an
/// error instead of running out of memory.
constexpr unsigned kMaxPairMatrixDevices = 2048;

/// The most devices whose pair matrix gets max-flow values by default: a
/// max flow per ordered pair, S (S - 1) of them, costs about 0.6 s of CPU
/// at 128 devices in a 620-device graph (16256 max flows,
/// examples/machines/cluster-16x8.sluice) and grows as S^2 times the
/// graph. Larger matrices are reported without max-flows.
constexpr unsigned kMaxFlowMatrixDevices = 128;

/// One widest-path search and one BFS per subset device; O(S E log V) for
/// S = devices.size(); with `maxFlow`, also one max flow per ordered pair
/// of distinct devices (computeMaxFlowRow). Devices must be valid indices;
/// duplicates are kept.
PairMatrix computePairMatrix(const TopoGraph &g,
                             llvm::ArrayRef<unsigned> devices,
                             bool maxFlow = false);

/// Max-flow bandwidth from `source` to each of `sinks`, in B/s, over the
/// modeled arcs; a device with a through-rate (TopoDevice::throughRate) is
/// split into an in-half and an out-half joined by an arc of that rate, so
/// the rate bounds every flow through, from or to it. +infinity where the
/// sink is the source, 0 where it is unreachable. One Boykov-Kolmogorov
/// max flow per sink on one network.
std::vector<double> computeMaxFlowRow(const TopoGraph &g, unsigned source,
                                      llvm::ArrayRef<unsigned> sinks);

//===----------------------------------------------------------------------===//
// Cuts
//===----------------------------------------------------------------------===//

/// A minimum cut separating a source set from a sink set.
struct CutResult {
  std::string label;
  /// The source set A and the sink set B, ascending and deduplicated.
  std::vector<unsigned> sources;
  std::vector<unsigned> sinks;
  /// Max-flow = min-cut capacity from A to B in B/s: the summed bandwidth of
  /// `cutArcs`. 0 when A or B is empty or B is unreachable from A; +infinity
  /// when A and B share a device.
  double capacity = 0;
  /// Modeled arcs from the source side to the sink side, ascending.
  std::vector<unsigned> cutArcs;
  /// Per device: on the source side of the cut. The source side is the set
  /// reachable from A in the residual graph of a maximum flow, which is the
  /// same for every maximum flow (the cut closest to A).
  std::vector<bool> sourceSide;
};

/// Max-flow min-cut from `a` to `b` over modeled arcs, with a super source
/// feeding every device of `a` and a super sink drained by every device of
/// `b` (Boost.Graph's Boykov-Kolmogorov max flow). If a device is in both
/// sets the flow is unbounded: capacity +infinity, no cut arcs, and the
/// source side is `a`.
CutResult computeMinCut(const TopoGraph &g, llvm::ArrayRef<unsigned> a,
                        llvm::ArrayRef<unsigned> b, llvm::StringRef label = "");

/// The bisection of a device set: the set sorted by device index and split
/// into a first half (floor(n/2) devices) and a second half, with the min
/// cut in each direction.
struct BisectionResult {
  std::vector<unsigned> firstHalf;
  std::vector<unsigned> secondHalf;
  /// firstHalf -> secondHalf and secondHalf -> firstHalf.
  CutResult forward;
  CutResult backward;
  /// min(forward.capacity, backward.capacity).
  double bandwidth = 0;
};

BisectionResult computeBisection(const TopoGraph &g,
                                 llvm::ArrayRef<unsigned> devices);

//===----------------------------------------------------------------------===//
// Totals
//===----------------------------------------------------------------------===//

/// A quantity summed over the devices of a kind.
struct QuantityTotal {
  std::string name;
  Dim dim;
  double value = 0;
  /// How many devices contributed.
  unsigned count = 0;
};

/// An integer property summed over the devices of a kind.
struct IntTotal {
  std::string name;
  int64_t value = 0;
  unsigned count = 0;
};

/// Totals for one device kind.
struct KindTotals {
  std::string kind;
  unsigned count = 0;
  /// Summed per (name, dimension), in order of first appearance.
  std::vector<QuantityTotal> quantities;
  /// Summed per name, in order of first appearance.
  std::vector<IntTotal> ints;
  /// Modeled arcs leaving / entering devices of this kind, and their summed
  /// bandwidth in B/s.
  unsigned arcsOut = 0;
  unsigned arcsIn = 0;
  double egressBandwidth = 0;
  double ingressBandwidth = 0;
};

/// Totals over the whole graph.
struct GraphTotals {
  unsigned devices = 0;
  unsigned links = 0;
  unsigned modeledArcs = 0;
  unsigned measuredArcs = 0;
  /// Summed bandwidth of all modeled arcs, in B/s.
  double arcBandwidth = 0;
  /// One entry per kind, in order of first appearance.
  std::vector<KindTotals> kinds;
};

GraphTotals computeTotals(const TopoGraph &g);

//===----------------------------------------------------------------------===//
// Everything at once
//===----------------------------------------------------------------------===//

/// A cut the caller asks for, by device sets.
struct CutRequest {
  std::string label;
  std::vector<unsigned> sources;
  std::vector<unsigned> sinks;
};

struct TopoAnalysisOptions {
  /// Kind of the devices in the pair matrix and the bisection; an empty
  /// string selects every device.
  std::string matrixKind = "gpu";
  /// Compute the bisection of the matrix devices (needs two or more).
  bool bisection = true;
  /// Max-flow bandwidth per pair: always, never, or when the matrix has
  /// at most kMaxFlowMatrixDevices devices.
  enum class MaxFlow { Auto, Always, Never } maxFlow = MaxFlow::Auto;
  /// Extra cuts, reported in this order.
  std::vector<CutRequest> cuts;
};

/// The results the report writers print.
struct TopoAnalysisResult {
  /// The kind the pair matrix and the bisection cover ("" for all devices).
  std::string matrixKind;
  Components components;
  GraphTotals totals;
  PairMatrix matrix;
  /// Why the matrix has no max-flow values ("" when it has them, or when
  /// it is empty).
  std::string maxFlowSkipped;
  std::optional<BisectionResult> bisection;
  std::vector<CutResult> cuts;
};

TopoAnalysisResult analyzeTopology(const TopoGraph &g,
                                   const TopoAnalysisOptions &options = {});

} // namespace sluice::analysis

#endif // SLUICE_COMPILER_ANALYSIS_TOPOANALYSIS_H
