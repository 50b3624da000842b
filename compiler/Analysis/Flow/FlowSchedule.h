//===- FlowSchedule.h - Routed transfers, timelines and JSON ----*- C++ -*-===//
//
// What the flow solvers return (see docs/flows.md): for every demand the
// paths it takes with their bytes and rates, per-arc load and utilisation,
// the saturated arcs, the binding cut where the solver proves one, and the
// makespan. A timeline cuts each path's transfer into chunks with start and
// end times. Both print as JSON through llvm::json with keys in a fixed
// order, so equal schedules print byte-identical text.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSCHEDULE_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSCHEDULE_H

#include "compiler/Analysis/Flow/FlowProblem.h"
#include "dialects/Plan/IR/PlanSchema.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::flow {

/// Which algorithm produced a schedule: the plan dialect's ScheduleMethod
/// (PlanEnums.td), whose spelling (plan::stringifyScheduleMethod, e.g.
/// "single-commodity-parametric") is the JSON's "method".
using plan::ScheduleMethod;

/// A stretch of time in which a path sends at a constant rate.
struct RateSegment {
  double start = 0;
  double end = 0;
  /// Bytes per second.
  double rate = 0;
};

/// One path of a demand.
struct PathFlow {
  /// Network arc indices from the demand's source to its destination; the
  /// path is simple (no node twice).
  std::vector<unsigned> arcs;
  /// Bytes this path carries.
  double bytes = 0;
  /// Average rate, bytes / finish, in B/s.
  double rate = 0;
  /// When its last byte arrives, in s.
  double finish = 0;
  /// The rate over time: consecutive segments from 0 to `finish` whose
  /// rate times length sums to `bytes`. One segment for the optimal
  /// schedules (constant rate over the whole makespan).
  std::vector<RateSegment> segments;
};

/// How one demand is routed.
struct DemandRoute {
  Demand demand;
  /// Empty for a local or zero-byte demand. The bytes of the paths sum to
  /// demand.bytes.
  std::vector<PathFlow> paths;
  /// The latest path finish, 0 without paths.
  double finish = 0;
};

/// Load of one network arc over the schedule.
struct ArcUsage {
  /// Bytes crossing the arc over the whole schedule.
  double bytes = 0;
  /// bytes / (capacity * makespan), in [0, 1]; 0 for an empty schedule.
  double utilisation = 0;
  bool saturated = false;
};

/// A cut S | V \ S that limits the makespan: every schedule needs at least
/// bytes / capacity seconds, since `bytes` of demand must leave S through
/// arcs of total bandwidth `capacity`.
struct FlowCut {
  /// The nodes of S, ascending.
  std::vector<unsigned> sourceSide;
  /// Arcs from S to V \ S, ascending.
  std::vector<unsigned> arcs;
  /// Demand bytes that must cross from S to V \ S.
  double bytes = 0;
  /// Summed bandwidth of `arcs`, in B/s.
  double capacity = 0;

  /// bytes / capacity, in s.
  double bound() const { return capacity > 0 ? bytes / capacity : 0; }
};

/// What one source tier supplied (Moment's greedy only).
struct TierSupply {
  std::string name;
  /// Bytes the whole tier sent.
  double bytes = 0;
  /// Per device of the tier, in the tier's order.
  std::vector<unsigned> devices;
  std::vector<double> deviceBytes;
};

/// Counters of the work done (no wall times, so output stays
/// deterministic).
struct SolverStats {
  unsigned maxFlows = 0;
  unsigned commodities = 0;
  unsigned lpRows = 0;
  unsigned lpColumns = 0;
  unsigned lpNonzeros = 0;
  unsigned simplexIterations = 0;
  /// Rate re-allocations of the fair-sharing simulation.
  unsigned events = 0;
};

/// The result of a solver.
struct FlowSchedule {
  ScheduleMethod method = ScheduleMethod::SingleCommodityParametric;
  /// When the last byte arrives, in s. Computed from the routed bytes, so
  /// every arc carries at most capacity * makespan bytes.
  double makespan = 0;
  /// A proven lower bound on the optimal makespan, where the method has one
  /// (the binding cut's bound, or the LP optimum).
  std::optional<double> lowerBound;
  /// One route per input demand, in input order.
  std::vector<DemandRoute> routes;
  /// Parallel to the network's arcs.
  std::vector<ArcUsage> arcs;
  /// Arcs with utilisation >= 1 - saturation tolerance, ascending.
  std::vector<unsigned> saturatedArcs;
  /// The cut that proves `lowerBound` (max-flow methods only).
  std::optional<FlowCut> bindingCut;
  /// Moment's greedy: what each tier supplied, in priority order.
  std::vector<TierSupply> tiers;
  SolverStats stats;
};

//===----------------------------------------------------------------------===//
// Timeline
//===----------------------------------------------------------------------===//

/// One chunk of a path's transfer: bytes [offset, offset + bytes) of the
/// path leave the source during [start, end].
struct Chunk {
  double offset = 0;
  double bytes = 0;
  double start = 0;
  double end = 0;
};

struct PathTimeline {
  unsigned demand = 0;
  unsigned path = 0;
  std::vector<Chunk> chunks;
};

struct TimelineOptions {
  /// Chunk size in bytes; 0 sends each path as one chunk.
  double chunkBytes = 0;
  /// Refuse timelines with more chunks than this in total.
  uint64_t maxChunks = 1000000;
};

/// Every path in demand order, then path order; chunks follow the path's
/// rate segments (a fluid model: a chunk takes bytes / rate, latency and
/// store-and-forward are not modeled), and the last chunk of a path ends at
/// its finish, so no chunk ends after the makespan. Fails if the chunk size
/// is negative or not finite, or the count would exceed maxChunks.
llvm::Expected<std::vector<PathTimeline>>
buildTimeline(const FlowSchedule &schedule,
              const TimelineOptions &options = {});

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// Writes the schedule (and the timeline, if given) as one JSON object; see
/// docs/flows.md for the format. Numbers are in base units (bytes, s, B/s),
/// in the shortest form that reads back exactly. `indent` 0 writes one
/// line.
void writeScheduleJSON(llvm::raw_ostream &os, const FlowNetwork &net,
                       const FlowSchedule &schedule,
                       llvm::ArrayRef<PathTimeline> timeline = {},
                       unsigned indent = 2);

/// writeScheduleJSON into a string.
std::string scheduleToJSON(const FlowNetwork &net, const FlowSchedule &schedule,
                           llvm::ArrayRef<PathTimeline> timeline = {},
                           unsigned indent = 2);

} // namespace sluice::flow

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_FLOWSCHEDULE_H
