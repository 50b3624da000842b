//===- FlowPaths.h - Widest paths, decomposition, finishing -----*- C++ -*-===//
//
// Internal to SluiceFlow: the pieces every solver shares.
//  - makeError, formatNumber, checkOptions: error messages and option checks;
//  - widestPath: the maximum-bottleneck simple path between two nodes of an
//    arc list, with deterministic tie-breaks;
//  - decomposeFlow: a flow from one node to another split into paths, the
//    widest remaining path first;
//  - finishConstantRate: per-demand paths with bytes turned into a schedule
//    where every path sends at a constant rate until the makespan;
//  - fillArcUsage: per-arc load, utilisation and saturation.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPATHS_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPATHS_H

#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sluice::flow::detail {

inline llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// A number in the shortest form that reads back exactly, for messages.
using ::sluice::formatNumber;

/// Checks the tolerances of `options`.
llvm::Error checkOptions(const SolveOptions &options);

/// A directed arc with a width (a capacity or a flow amount).
struct WidthArc {
  unsigned from = 0;
  unsigned to = 0;
  double width = 0;
};

/// The widest simple path from `source` to `sink` over arcs wider than
/// `minWidth`: largest bottleneck, then fewest hops; among equal labels the
/// first one found wins, with nodes settled in (bottleneck descending, hops
/// ascending, node ascending) order and arcs scanned by index. Returns the
/// arc indices in path order and sets `bottleneck`; empty (and bottleneck
/// 0) if `sink` is unreachable or equals `source`. O(E log V).
std::vector<unsigned> widestPath(unsigned numNodes,
                                 llvm::ArrayRef<WidthArc> arcs, unsigned source,
                                 unsigned sink, double minWidth,
                                 double &bottleneck);

/// One path of a decomposed flow.
struct FlowPath {
  std::vector<unsigned> arcs;
  double amount = 0;
};

/// Splits the flow on `arcs` (width = flow) from `source` to `sink` into
/// simple paths: repeatedly the widest path over arcs carrying more than
/// `epsilon`, its bottleneck subtracted. Flow on cycles and remainders below
/// `epsilon` are left over. At most one path per arc, each O(E log V).
std::vector<FlowPath> decomposeFlow(unsigned numNodes,
                                    std::vector<WidthArc> arcs, unsigned source,
                                    unsigned sink, double epsilon);

/// Decomposed paths of every (source, destination) pair: the network arcs
/// (terminal arcs stripped) and the amount each carried.
using PairPaths =
    std::map<std::pair<unsigned, unsigned>, std::vector<FlowPath>>;

/// The schedule for `demands` (one route per demand, in order): each
/// non-local demand with bytes takes the paths of its pair in `paths`, their
/// amounts scaled to the demand's share of the pair so that its paths carry
/// exactly its bytes. A pair without paths whose bytes are below 1e-6 of the
/// largest pair's (lost to the solver's precision) takes the widest path of
/// the capacity left over; a larger one is an error. The makespan is the
/// smallest T with load(e) <= capacity(e) * T for every arc (checked after
/// rounding); every path sends at rate bytes / T over [0, T].
llvm::Expected<FlowSchedule> finishConstantRate(const FlowNetwork &net,
                                                llvm::ArrayRef<Demand> demands,
                                                PairPaths paths,
                                                ScheduleMethod method,
                                                double saturationTolerance);

/// Fills schedule.arcs and schedule.saturatedArcs from the routes and the
/// makespan.
void fillArcUsage(const FlowNetwork &net, FlowSchedule &schedule,
                  double saturationTolerance);

} // namespace sluice::flow::detail

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_FLOWPATHS_H
