//===- PlanFlow.h - Between plan IR and the flow library --------*- C++ -*-===//
//
// What plan-schedule-flows and the exporters share: the capacity network of
// a flat topology (parallel arcs merged, so that a path of devices names its
// arcs), device path patterns (`server[*].gpu[0..4]`), and the conversion of
// a plan.schedule back into the flow library's FlowSchedule.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANFLOW_H
#define SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANFLOW_H

#include "compiler/Analysis/Flow/FlowSchedule.h"
#include "compiler/Analysis/TopoGraph.h"
#include "dialects/Plan/IR/PlanOps.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <utility>
#include <vector>

namespace sluice::plan {

/// A flow network with at most one arc per ordered device pair: the arcs of
/// flow::buildNetwork with parallel arcs merged (bandwidths summed; the
/// first arc's topoArc kept), in first-occurrence order. `arcOf` finds the
/// arc of a pair.
struct PlanNetwork {
  flow::FlowNetwork net;
  std::map<std::pair<unsigned, unsigned>, unsigned> arcOf;
};
PlanNetwork buildPlanNetwork(const analysis::TopoGraph &graph);

/// The module's flat topology (`flat`) and its TopoGraph, for the demands
/// the module's passes plan; without a flat topology, a located error at
/// `first` ("run topo-flatten first").
mlir::FailureOr<analysis::TopoGraph> demandsTopoGraph(mlir::ModuleOp module,
                                                      DemandsOp first,
                                                      topo::TopologyOp &flat);

/// The nodes of `net` whose names match `pattern`, ascending. A pattern is
/// a dotted device path whose segments are `name`, `name[i]`, `name[*]` or
/// `name[a..b]` (half-open). Fails on a malformed pattern.
llvm::Expected<std::vector<unsigned>> matchDevices(const flow::FlowNetwork &net,
                                                   llvm::StringRef pattern);

/// The FlowSchedule that a plan.schedule describes: demands are the
/// transfers' (demand index, source, destination), bytes summed; paths map
/// to arcs of `pn`; arc usage recomputed. Fails if the schedule names no
/// method or a device or link of it is not in the network.
llvm::Expected<flow::FlowSchedule> scheduleFromIR(ScheduleOp op,
                                                  const PlanNetwork &pn);

} // namespace sluice::plan

#endif // SLUICE_DIALECTS_PLAN_TRANSFORMS_PLANFLOW_H
