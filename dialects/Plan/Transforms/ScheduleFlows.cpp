//===- ScheduleFlows.cpp - plan-schedule-flows ----------------------------===//
//
// Turns each plan.demands into a plan.schedule by calling the flow solvers
// (compiler/Analysis/Flow) on the flat topology's capacity network. See
// Passes.td for the contract and docs/flows.md for the model.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Pipelines/TopoPipeline.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include <cmath>
#include <deque>
#include <set>

namespace sluice::plan {
#define GEN_PASS_DEF_PLANSCHEDULEFLOWS
#include "dialects/Plan/Transforms/Passes.h.inc"
} // namespace sluice::plan

using namespace mlir;
using namespace sluice;
using namespace sluice::plan;

namespace {

struct ScheduleFlowsPass
    : public plan::impl::PlanScheduleFlowsBase<ScheduleFlowsPass> {
  void runOnOperation() override;

private:
  /// Point-to-point demands of one plan.demand; fails after reporting.
  LogicalResult expand(DemandOp op, const PlanNetwork &pn,
                       std::vector<flow::Demand> &out);
  LogicalResult schedule(DemandsOp op, const PlanNetwork &pn);
};

} // namespace

/// Devices matched by the patterns of `list`, deduplicated, in pattern then
/// node order.
static LogicalResult resolve(DemandOp op, ArrayAttr list, const PlanNetwork &pn,
                             StringRef topology, std::vector<unsigned> &out) {
  llvm::SetVector<unsigned> nodes;
  for (Attribute a : list) {
    StringRef pattern = cast<StringAttr>(a).getValue();
    auto matched = matchDevices(pn.net, pattern);
    if (!matched)
      return op.emitError() << llvm::toString(matched.takeError());
    if (matched->empty())
      return op.emitError() << "no device of topology '" << topology
                            << "' matches '" << pattern << "'";
    nodes.insert(matched->begin(), matched->end());
  }
  out.assign(nodes.begin(), nodes.end());
  return success();
}

/// Nodes reachable from `from` over the arcs of `net`.
static std::vector<bool> reachableFrom(const flow::FlowNetwork &net,
                                       unsigned from) {
  std::vector<std::vector<unsigned>> out(net.numNodes());
  for (const flow::FlowArc &a : net.arcs)
    out[a.from].push_back(a.to);
  std::vector<bool> seen(net.numNodes(), false);
  std::deque<unsigned> queue = {from};
  seen[from] = true;
  while (!queue.empty()) {
    unsigned v = queue.front();
    queue.pop_front();
    for (unsigned w : out[v])
      if (!seen[w]) {
        seen[w] = true;
        queue.push_back(w);
      }
  }
  return seen;
}

LogicalResult ScheduleFlowsPass::expand(DemandOp op, const PlanNetwork &pn,
                                        std::vector<flow::Demand> &out) {
  StringRef topology = op->getParentOfType<DemandsOp>().getTopology();
  std::vector<unsigned> sources, destinations;
  if (failed(resolve(op, op.getSources(), pn, topology, sources)) ||
      failed(resolve(op, op.getDestinations(), pn, topology, destinations)))
    return failure();
  double bytes = op.getBytes().convertToDouble();
  StringRef kind = op.getKind();
  std::vector<flow::Demand> demands;
  if (kind == "transfer") {
    demands = flow::allPairsDemands(sources, destinations, bytes);
  } else if (kind == "gather") {
    flow::GatherSpec spec;
    spec.destinations = destinations;
    spec.tiers.push_back({"sources", sources});
    flow::GatherItem item;
    item.bytes = bytes;
    item.tier = 0;
    item.accesses.assign(destinations.size(), 1.0);
    spec.items.push_back(item);
    auto built = flow::buildGatherDemands(pn.net, spec);
    if (!built)
      return op.emitError() << llvm::toString(built.takeError());
    demands = std::move(*built);
  } else {
    size_t n = sources.size();
    if (n < 2)
      return op.emitError() << "'" << kind << "' over a group of " << n
                            << " device moves nothing; the group needs at "
                               "least two devices";
    double perPair = bytes / static_cast<double>(n);
    if (kind == "allreduce")
      perPair *= 2;
    demands = flow::allPairsDemands(sources, sources, perPair);
  }
  if (demands.empty())
    return op.emitError() << "'" << kind
                          << "' moves nothing: every source is its own "
                             "destination";
  // Reachability, reported per demand with device names.
  std::map<unsigned, std::vector<bool>> reach;
  for (const flow::Demand &d : demands) {
    auto it = reach.find(d.source);
    if (it == reach.end())
      it = reach.emplace(d.source, reachableFrom(pn.net, d.source)).first;
    if (!it->second[d.destination])
      return op.emitError()
             << "no path with bandwidth from '" << pn.net.nodes[d.source]
             << "' to '" << pn.net.nodes[d.destination] << "' in topology '"
             << topology << "'";
  }
  out.insert(out.end(), demands.begin(), demands.end());
  return success();
}

LogicalResult ScheduleFlowsPass::schedule(DemandsOp op, const PlanNetwork &pn) {
  std::vector<flow::Demand> all;
  bool ok = true;
  for (DemandOp d : op.getBody().front().getOps<DemandOp>())
    ok &= succeeded(expand(d, pn, all));
  if (!ok)
    return failure();
  std::vector<flow::Demand> demands = flow::mergeDemands(all);
  if (demands.empty())
    return op.emitError() << "demand '" << op.getSymName() << "' moves nothing";

  auto best = flow::solveMinMakespan(pn.net, demands);
  if (!best)
    return op.emitError() << "cannot schedule demand '" << op.getSymName()
                          << "': " << llvm::toString(best.takeError());
  auto direct = flow::solveDirectPaths(pn.net, demands);
  if (!direct)
    return op.emitError() << "direct-path baseline of '" << op.getSymName()
                          << "' failed: " << llvm::toString(direct.takeError());
  std::optional<double> moment;
  std::set<unsigned> srcs, dsts;
  for (const flow::Demand &d : demands) {
    srcs.insert(d.source);
    dsts.insert(d.destination);
  }
  bool disjoint =
      llvm::none_of(srcs, [&](unsigned s) { return dsts.count(s); });
  if (disjoint) {
    auto m = flow::solveMomentGreedy(pn.net, flow::makeMomentProblem(demands));
    if (!m)
      return op.emitError() << "Moment baseline of '" << op.getSymName()
                            << "' failed: " << llvm::toString(m.takeError());
    moment = m->makespan;
  }
  double chunk = op.getChunkBytes().convertToDouble();
  flow::TimelineOptions topts;
  topts.chunkBytes = chunk;
  auto timeline = flow::buildTimeline(*best, topts);
  if (!timeline)
    return op.emitError() << "cannot cut demand '" << op.getSymName()
                          << "' into chunks: "
                          << llvm::toString(timeline.takeError());

  OpBuilder b(op);
  auto sched = b.create<ScheduleOp>(
      op.getLoc(), op.getSymNameAttr(), op.getTopologyAttr(),
      b.getF64FloatAttr(best->makespan),
      b.getStringAttr(flow::methodName(best->method)),
      best->lowerBound ? b.getF64FloatAttr(*best->lowerBound) : FloatAttr(),
      b.getF64FloatAttr(direct->makespan),
      moment ? b.getF64FloatAttr(*moment) : FloatAttr(),
      b.getF64FloatAttr(chunk));
  Block *body = new Block();
  sched.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  for (size_t r = 0; r < best->routes.size(); ++r) {
    const flow::DemandRoute &route = best->routes[r];
    for (size_t p = 0; p < route.paths.size(); ++p) {
      const flow::PathFlow &path = route.paths[p];
      if (path.bytes <= 0)
        continue;
      llvm::SmallVector<StringRef> nodes = {pn.net.nodes[route.demand.source]};
      for (unsigned a : path.arcs)
        nodes.push_back(pn.net.nodes[pn.net.arcs[a].to]);
      double start = path.segments.empty() ? 0 : path.segments.front().start;
      double end = path.finish;
      int64_t chunks = 1;
      for (const flow::PathTimeline &pt : *timeline)
        if (pt.demand == r && pt.path == p)
          chunks = std::max<int64_t>(1, pt.chunks.size());
      b.create<TransferOp>(
          op.getLoc(), b.getStringAttr(pn.net.nodes[route.demand.source]),
          b.getStringAttr(pn.net.nodes[route.demand.destination]),
          b.getF64FloatAttr(path.bytes), b.getStrArrayAttr(nodes),
          b.getF64FloatAttr(path.bytes / (end - start)),
          b.getF64FloatAttr(start), b.getF64FloatAttr(end),
          b.getI64IntegerAttr(chunks), b.getI64IntegerAttr(r), StringAttr());
    }
  }
  op.erase();
  return success();
}

void ScheduleFlowsPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto demandOps = llvm::to_vector(module.getOps<DemandsOp>());
  if (demandOps.empty())
    return;
  topo::TopologyOp flat;
  for (auto t : module.getOps<topo::TopologyOp>())
    if (t.getFlat())
      flat = t;
  if (!flat) {
    demandOps.front().emitError()
        << "demand '" << demandOps.front().getSymName()
        << "' needs a flat topology; run topo-flatten first";
    return signalPassFailure();
  }
  auto graph = extractTopoGraph(module);
  if (failed(graph))
    return signalPassFailure();
  PlanNetwork pn = buildPlanNetwork(*graph);
  bool ok = true;
  for (DemandsOp op : demandOps) {
    if (op.getTopology() != flat.getSymName()) {
      op.emitError() << "demand '" << op.getSymName() << "' is on topology '"
                     << op.getTopology()
                     << "', but the program was flattened around '"
                     << flat.getSymName()
                     << "' (choose it with --top=" << op.getTopology() << ")";
      ok = false;
      continue;
    }
    ok &= succeeded(schedule(op, pn));
  }
  if (!ok)
    signalPassFailure();
}
