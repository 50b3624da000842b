//===- FlowProblem.h - Capacity graphs and transfer demands -----*- C++ -*-===//
//
// The problem structs of the flow schedulers (see docs/flows.md): a capacity
// graph (nodes and directed arcs with a bandwidth in B/s) and a list of
// demands (move `bytes` from a source node to a destination node). A
// FlowNetwork is built from an analysis::TopoGraph, one node per device and
// one arc per modeled arc, or by hand in tests. Nothing here knows about
// MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPROBLEM_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPROBLEM_H

#include "compiler/Analysis/TopoGraph.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::flow {

/// Marks a FlowArc that does not come from a TopoGraph arc.
constexpr unsigned kNoTopoArc = ~0u;

/// One directed arc of the capacity graph.
struct FlowArc {
  unsigned from = 0;
  unsigned to = 0;
  /// Bandwidth in bytes per second; finite and positive.
  double capacity = 0;
  /// The TopoGraph arc it came from, or kNoTopoArc.
  unsigned topoArc = kNoTopoArc;
};

/// Nodes and directed arcs. Node indices are positions in `nodes`; arc
/// indices are positions in `arcs`. Every tie-break of the solvers goes by
/// node index, then arc index. Parallel arcs are distinct arcs; the two
/// directions of a link are independent arcs (full duplex).
struct FlowNetwork {
  /// Node names (device paths when built from a TopoGraph).
  std::vector<std::string> nodes;
  std::vector<FlowArc> arcs;

  unsigned numNodes() const { return static_cast<unsigned>(nodes.size()); }
  unsigned numArcs() const { return static_cast<unsigned>(arcs.size()); }

  /// Appends a node and returns its index.
  unsigned addNode(llvm::StringRef name);
  /// Appends an arc and returns its index. `capacity` must be finite and
  /// positive and the endpoints distinct valid nodes.
  unsigned addArc(unsigned from, unsigned to, double capacity,
                  unsigned topoArc = kNoTopoArc);
  /// The node named `name`, if any (linear search).
  std::optional<unsigned> findNode(llvm::StringRef name) const;
};

struct NetworkOptions {
  /// Also turn measured (attained, end-to-end) arcs into capacity arcs. Off
  /// by default: a measurement between two devices is not a wire between
  /// them, and modeling it as one would double-count the links under it.
  bool includeMeasured = false;
};

/// One node per device (same index, same name; switches are ordinary nodes)
/// and one arc per TopoGraph arc that is modeled (or measured, if asked),
/// joins two distinct devices and has a finite positive bandwidth, in arc
/// order. FlowArc::topoArc records the origin.
FlowNetwork buildNetwork(const analysis::TopoGraph &g,
                         const NetworkOptions &options = {});

/// Move `bytes` from `source` to `destination`.
struct Demand {
  unsigned source = 0;
  unsigned destination = 0;
  double bytes = 0;

  /// A demand that needs no network transfer.
  bool isLocal() const { return source == destination; }
  bool operator==(const Demand &o) const {
    return source == o.source && destination == o.destination &&
           bytes == o.bytes;
  }
};

/// Checks that every arc of `net` joins two distinct valid nodes with a
/// finite positive capacity (the fields are public, so a network need not
/// come from addArc).
llvm::Error validateNetwork(const FlowNetwork &net);

/// validateNetwork, then checks that every demand names valid nodes of `net`
/// and has finite, non-negative bytes, and that every non-local demand with
/// bytes > 0 has a directed path from its source to its destination. The
/// error names the first offending arc or demand.
llvm::Error validateDemands(const FlowNetwork &net,
                            llvm::ArrayRef<Demand> demands);

/// Sums demands of equal (source, destination), drops zero-byte and local
/// ones, and sorts by (source, destination).
std::vector<Demand> mergeDemands(llvm::ArrayRef<Demand> demands);

/// True if the non-local, non-zero demands all share one destination or all
/// share one source (vacuously true for none): then a single commodity
/// carries them and max-flow gives the optimum.
bool isSingleCommodity(llvm::ArrayRef<Demand> demands);

//===----------------------------------------------------------------------===//
// Demand builders
//===----------------------------------------------------------------------===//

/// One demand of `bytes` per (source, destination) pair, in the order given.
std::vector<Demand>
pointToPointDemands(llvm::ArrayRef<std::pair<unsigned, unsigned>> pairs,
                    double bytes);

/// One demand of `bytesPerPair` from every source to every destination
/// (source-major order), skipping pairs with source == destination: an
/// all-to-all or shuffle.
std::vector<Demand> allPairsDemands(llvm::ArrayRef<unsigned> sources,
                                    llvm::ArrayRef<unsigned> destinations,
                                    double bytesPerPair);

/// A storage tier of a gather: the devices that hold its items (e.g. the
/// NVMe drives, or the CPU sockets' memory).
struct GatherTier {
  std::string name;
  std::vector<unsigned> devices;
};

/// A class of items with the same size and tier, e.g. the feature vectors of
/// one hotness bucket of vertices.
struct GatherItem {
  /// Bytes moved per access (e.g. one feature vector times the item count).
  double bytes = 0;
  /// Index into GatherSpec::tiers.
  unsigned tier = 0;
  /// Accesses per destination, parallel to GatherSpec::destinations (from
  /// pre-sampling; fractional counts are allowed).
  std::vector<double> accesses;
};

/// How a tier spreads its items over its devices.
enum class TierPlacement {
  /// Every item is striped evenly over all devices of its tier.
  Striped,
  /// The i-th item of a tier (in item order) lives wholly on device
  /// i mod n of the tier.
  RoundRobin,
};

/// A gather (Moment's GNN feature loading): destinations read items that
/// live in source tiers.
struct GatherSpec {
  std::vector<unsigned> destinations;
  std::vector<GatherTier> tiers;
  std::vector<GatherItem> items;
  TierPlacement placement = TierPlacement::Striped;
};

/// The demands of a gather: from each tier device to each destination, the
/// accesses times bytes of the items placed there, merged (mergeDemands:
/// sorted, local reads by a destination that is itself a tier device
/// dropped). Fails on out-of-range indices, an empty tier, an access list
/// of the wrong length, or negative or non-finite numbers.
llvm::Expected<std::vector<Demand>> buildGatherDemands(const FlowNetwork &net,
                                                       const GatherSpec &spec);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPROBLEM_H
