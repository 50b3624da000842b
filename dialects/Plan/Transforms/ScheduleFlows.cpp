//===- ScheduleFlows.cpp - plan-schedule-flows ----------------------------===//
//
// Turns each plan.demands into a plan.schedule by calling the flow solvers
// (compiler/Analysis/Flow) on the flat topology's capacity network. See
// Passes.td for the contract and docs/flows.md for the model.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Collectives.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "compiler/Analysis/Flow/PathLP.h"
#include "dialects/Plan/Transforms/GatherJob.h"
#include "dialects/Plan/Transforms/GatherSlots.h"
#include "dialects/Plan/Transforms/Passes.h"
#include "dialects/Plan/Transforms/PlanFlow.h"
#include "dialects/Topo/Analysis/ExtractTopoGraph.h"
#include "dialects/Topo/IR/TopoOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
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

/// A collective demand item and the plans of every algorithm for it.
struct CollectiveItem {
  DemandOp op;
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::vector<unsigned> group;
  std::vector<flow::CollectivePlan> plans;
  /// Index into plans of the fastest routed plan.
  size_t best = 0;
};

struct ScheduleFlowsPass
    : public plan::impl::PlanScheduleFlowsBase<ScheduleFlowsPass> {
  using PlanScheduleFlowsBase::PlanScheduleFlowsBase;
  void runOnOperation() override;

private:
  /// Point-to-point demands of one plan.demand; fails after reporting.
  LogicalResult expand(DemandOp op, const PlanNetwork &pn,
                       std::vector<flow::Demand> &out);
  /// Plans every algorithm for a collective item; fails after reporting.
  LogicalResult planCollective(CollectiveItem &item, const PlanNetwork &pn,
                               llvm::ArrayRef<unsigned> reducers);
  /// The minimum-makespan routing of point-to-point demands: the arc LP or,
  /// beyond the size thresholds, the path LP.
  llvm::Expected<flow::FlowSchedule> solve(DemandsOp op, const PlanNetwork &pn,
                                           llvm::ArrayRef<flow::Demand> d);
  LogicalResult schedule(DemandsOp op, const PlanNetwork &pn,
                         llvm::ArrayRef<unsigned> reducers);
  /// The flat topology's graph while the pass runs (device kinds).
  const analysis::TopoGraph *graph = nullptr;
  /// The gather jobs of the plan.demands being scheduled.
  std::vector<GatherJobPlan> jobs;
};

std::string fmt(const char *spec, double v) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::format(spec, v);
  return out;
}

/// "ring", ..., and "hierarchical-in-network" for the hierarchical plan
/// whose cross-subgroup step reduces in the network.
std::string algorithmName(const flow::CollectivePlan &p) {
  std::string name = flow::collectiveAlgorithmName(p.algorithm).str();
  if (p.algorithm == flow::CollectiveAlgorithm::Hierarchical &&
      !p.reducers.empty())
    name += "-in-network";
  return name;
}

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
  if (op.getKind() == DemandKind::BlockIO)
    return op.emitError() << "a 'blockio' demand is planned by "
                             "plan-middle-tier; run it first";
  StringRef topology = op->getParentOfType<DemandsOp>().getTopology();
  std::vector<unsigned> sources, destinations;
  if (failed(resolve(op, op.getSources(), pn, topology, sources)) ||
      failed(resolve(op, op.getDestinations(), pn, topology, destinations)))
    return failure();
  double bytes = op.getBytes().convertToDouble();
  DemandKind kind = op.getKind();
  std::vector<flow::Demand> demands;
  if (kind == DemandKind::Transfer) {
    demands = flow::allPairsDemands(sources, destinations, bytes);
  } else if (kind == DemandKind::Gather && op.getJobAttr()) {
    // A gather job: place the items, then gather from where they are.
    auto job = planGatherJob(op, pn, *graph);
    if (failed(job))
      return failure();
    job->label = (op->getParentOfType<DemandsOp>().getSymName() + "." +
                  llvm::Twine(jobs.size()))
                     .str();
    demands = job->demands;
    if (remarks) {
      auto diag = op.emitRemark()
                  << "gather job: " << job->items << " items of "
                  << fmt("%g", job->itemBytes) << " bytes, "
                  << fmt("%g", job->accesses) << " accesses in "
                  << job->classes << " classes; placement: Moment's greedy "
                  << fmt("%.6g", job->greedy) << " s, integral MIP "
                  << fmt("%.6g", job->integral) << " s"
                  << (job->provedOptimal ? " (proved optimal)"
                      : job->integral <= job->relaxation * (1 + 1.0001e-4)
                          ? " (within 0.01% of the LP bound)"
                          : " (time limit reached, not proved)")
                  << ", LP relaxation bound " << fmt("%.6g", job->relaxation)
                  << " s; chosen: " << job->method << " ("
                  << fmt("%.3g", job->greedy /
                                     std::max(1e-300, std::min(job->greedy,
                                                               job->integral)))
                  << "x the greedy's speed); items per tier:";
      for (size_t t = 0; t < job->tiers.size(); ++t)
        diag << " " << job->tiers[t] << " " << fmt("%.0f", job->tierItems[t])
             << (t + 1 < job->tiers.size() ? "," : "");
    }
    jobs.push_back(std::move(*job));
  } else if (kind == DemandKind::Gather) {
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
    // With remarks: which slots the gather's devices should be in.
    if (remarks && graph) {
      auto slots =
          recommendGatherSlots(pn, *graph, sources, destinations, bytes);
      if (slots)
        op.emitRemark() << "slot recommendation for the gather: "
                        << describeGatherSlots(*slots);
      else
        op.emitRemark() << "no slot recommendation for the gather: "
                        << llvm::toString(slots.takeError());
    }
  } else {
    size_t n = sources.size();
    if (n < 2)
      return op.emitError()
             << "'" << stringifyDemandKind(kind) << "' over a group of " << n
             << " device moves nothing; the group needs at "
                "least two devices";
    // alltoall: every member sends bytes / n to each other member.
    demands = flow::allPairsDemands(sources, sources,
                                    bytes / static_cast<double>(n));
  }
  if (demands.empty())
    return op.emitError() << "'" << stringifyDemandKind(kind)
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

LogicalResult ScheduleFlowsPass::planCollective(
    CollectiveItem &item, const PlanNetwork &pn,
    llvm::ArrayRef<unsigned> reducers) {
  DemandOp op = item.op;
  StringRef topology = op->getParentOfType<DemandsOp>().getTopology();
  if (failed(resolve(op, op.getSources(), pn, topology, item.group)))
    return failure();
  size_t n = item.group.size();
  if (n < 2)
    return op.emitError() << "'" << stringifyDemandKind(op.getKind())
                          << "' over a group of " << n
                          << " device moves nothing; the group needs at "
                             "least two devices";
  // Every member must reach every other (a ring needs it; so does any
  // algorithm that reduces on the members).
  for (unsigned from : item.group) {
    std::vector<bool> reach = reachableFrom(pn.net, from);
    for (unsigned to : item.group)
      if (!reach[to])
        return op.emitError()
               << "no path with bandwidth from '" << pn.net.nodes[from]
               << "' to '" << pn.net.nodes[to] << "' in topology '"
               << topology << "'";
  }
  // The reducing devices this group can use: outside the group, reachable
  // from it and back.
  std::vector<unsigned> usable;
  std::vector<bool> fromFirst = reachableFrom(pn.net, item.group.front());
  for (unsigned r : reducers) {
    if (llvm::is_contained(item.group, r) || !fromFirst[r])
      continue;
    if (reachableFrom(pn.net, r)[item.group.front()])
      usable.push_back(r);
  }
  double bytes = op.getBytes().convertToDouble();
  auto plans =
      flow::planCollectives(pn.net, item.group, item.kind, bytes, usable);
  if (!plans)
    return op.emitError() << "cannot plan the "
                          << stringifyDemandKind(op.getKind()) << ": "
                          << llvm::toString(plans.takeError());
  if (plans->empty())
    return op.emitError() << "no algorithm applies to the "
                          << stringifyDemandKind(op.getKind());
  item.plans = std::move(*plans);
  item.best = 0;
  // Fastest; within rounding (relative 1e-9) the earlier (simpler) one.
  for (size_t i = 1; i < item.plans.size(); ++i)
    if (item.plans[i].flowTime <
        item.plans[item.best].flowTime * (1 - 1e-9))
      item.best = i;
  if (remarks) {
    auto diag = op.emitRemark()
                << stringifyCollectiveKind(item.kind) << " of "
                << fmt("%g", bytes) << " bytes over " << n << " devices:";
    for (const flow::CollectivePlan &p : item.plans)
      diag << " " << algorithmName(p) << " "
           << fmt("%.6g", p.flowTime) << " s"
           << (p.flowTime < p.endpointBound * (1 - 1e-9) ? " (beats the "
                                                           "endpoint bound)"
                                                         : "")
           << ";";
    diag << " endpoint bound "
         << fmt("%.6g", item.plans.front().endpointBound)
         << " s; chosen: " << algorithmName(item.plans[item.best]);
  }
  return success();
}

llvm::Expected<flow::FlowSchedule>
ScheduleFlowsPass::solve(DemandsOp op, const PlanNetwork &pn,
                         llvm::ArrayRef<flow::Demand> demands) {
  if (flow::isSingleCommodity(demands))
    return flow::solveSingleCommodity(pn.net, demands);
  // The arc LP has a flow variable per commodity and arc (commodities per
  // source or per destination, whichever is fewer).
  std::set<unsigned> srcs, dsts;
  for (const flow::Demand &d : demands) {
    srcs.insert(d.source);
    dsts.insert(d.destination);
  }
  double variables = static_cast<double>(std::min(srcs.size(), dsts.size())) *
                     static_cast<double>(pn.net.numArcs());
  if (pn.net.numNodes() <= pathLPDevices && variables <= pathLPSize)
    return flow::solveMultiCommodity(pn.net, demands);
  flow::PathLPOptions options;
  flow::PathLPInfo info;
  auto s = flow::solveMultiCommodityPaths(pn.net, demands, options, &info);
  if (!s)
    return s;
  s->method = ScheduleMethod::MultiCommodityPathLP;
  if (remarks)
    op.emitRemark() << "path LP (column generation) for " << demands.size()
                    << " demands on " << pn.net.numNodes() << " devices and "
                    << pn.net.numArcs() << " arcs: " << info.rounds
                    << " rounds, " << info.paths << " paths, makespan "
                    << fmt("%.9g", s->makespan) << " s, certified lower bound "
                    << fmt("%.9g", info.lowerBound) << " s"
                    << (info.converged ? "" : " (gap target not reached)");
  return s;
}

LogicalResult ScheduleFlowsPass::schedule(DemandsOp op, const PlanNetwork &pn,
                                          llvm::ArrayRef<unsigned> reducers) {
  std::vector<flow::Demand> all;
  std::vector<CollectiveItem> items;
  jobs.clear();
  bool ok = true;
  for (DemandOp d : op.getBody().front().getOps<DemandOp>()) {
    if (std::optional<CollectiveKind> kind = collectiveOf(d.getKind())) {
      CollectiveItem item;
      item.op = d;
      item.kind = *kind;
      ok &= succeeded(planCollective(item, pn, reducers));
      items.push_back(std::move(item));
    } else {
      ok &= succeeded(expand(d, pn, all));
    }
  }
  if (!ok)
    return failure();
  std::vector<flow::Demand> demands = flow::mergeDemands(all);
  if (demands.empty() && items.empty())
    return op.emitError() << "demand '" << op.getSymName() << "' moves nothing";

  // The point-to-point demands run together first, during [0, T0].
  std::optional<flow::FlowSchedule> best;
  std::optional<double> directMakespan, moment;
  std::vector<flow::PathTimeline> timeline;
  double chunk = op.getChunkBytes().convertToDouble();
  if (!demands.empty()) {
    auto solved = solve(op, pn, demands);
    if (!solved)
      return op.emitError() << "cannot schedule demand '" << op.getSymName()
                            << "': " << llvm::toString(solved.takeError());
    best = std::move(*solved);
    auto direct = flow::solveDirectPaths(pn.net, demands);
    if (!direct)
      return op.emitError()
             << "direct-path baseline of '" << op.getSymName()
             << "' failed: " << llvm::toString(direct.takeError());
    directMakespan = direct->makespan;
    std::set<unsigned> srcs, dsts;
    for (const flow::Demand &d : demands) {
      srcs.insert(d.source);
      dsts.insert(d.destination);
    }
    bool disjoint =
        llvm::none_of(srcs, [&](unsigned s) { return dsts.count(s); });
    if (disjoint) {
      auto m =
          flow::solveMomentGreedy(pn.net, flow::makeMomentProblem(demands));
      if (!m)
        return op.emitError() << "Moment baseline of '" << op.getSymName()
                              << "' failed: " << llvm::toString(m.takeError());
      moment = m->makespan;
    }
    flow::TimelineOptions topts;
    topts.chunkBytes = chunk;
    auto tl = flow::buildTimeline(*best, topts);
    if (!tl)
      return op.emitError() << "cannot cut demand '" << op.getSymName()
                            << "' into chunks: "
                            << llvm::toString(tl.takeError());
    timeline = std::move(*tl);
  }
  // Then each collective by its fastest algorithm, in declaration order.
  double makespan = best ? best->makespan : 0;
  for (const CollectiveItem &item : items)
    makespan += item.plans[item.best].flowTime;

  OpBuilder b(op);
  auto sched = b.create<ScheduleOp>(
      op.getLoc(), op.getSymNameAttr(), op.getTopologyAttr(),
      b.getF64FloatAttr(makespan),
      ScheduleMethodAttr::get(b.getContext(),
                              best ? best->method : ScheduleMethod::Collective),
      best && best->lowerBound ? b.getF64FloatAttr(*best->lowerBound)
                               : FloatAttr(),
      directMakespan ? b.getF64FloatAttr(*directMakespan) : FloatAttr(),
      moment ? b.getF64FloatAttr(*moment) : FloatAttr(),
      b.getF64FloatAttr(chunk), FloatAttr(), DictionaryAttr(), DictionaryAttr(),
      IntegerAttr());
  Block *body = new Block();
  sched.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  // Where the gather jobs' items live.
  for (const GatherJobPlan &job : jobs) {
    llvm::SmallVector<Attribute> counts, caps;
    for (size_t t = 0; t < job.tiers.size(); ++t) {
      counts.push_back(b.getF64FloatAttr(job.tierItems[t]));
      caps.push_back(b.getF64FloatAttr(job.tierCapacity[t]));
    }
    llvm::SmallVector<NamedAttribute> stored, makespans;
    for (const auto &[device, bytes] : job.deviceBytes)
      stored.push_back(b.getNamedAttr(device, b.getF64FloatAttr(bytes)));
    makespans.push_back(
        b.getNamedAttr("greedy", b.getF64FloatAttr(job.greedy)));
    makespans.push_back(
        b.getNamedAttr("integral", b.getF64FloatAttr(job.integral)));
    makespans.push_back(
        b.getNamedAttr("relaxation", b.getF64FloatAttr(job.relaxation)));
    llvm::SmallVector<StringRef> tiers(job.tiers.begin(), job.tiers.end());
    auto placement = b.create<PlacementOp>(
        op.getLoc(), b.getStringAttr(job.label), b.getStringAttr(job.method),
        b.getI64IntegerAttr(job.items), b.getF64FloatAttr(job.itemBytes),
        b.getStrArrayAttr(tiers), b.getArrayAttr(counts),
        b.getArrayAttr(caps), b.getDictionaryAttr(stored),
        b.getDictionaryAttr(makespans));
    placement->setAttr("proved_optimal", b.getBoolAttr(job.provedOptimal));
    placement->setAttr("classes", b.getI64IntegerAttr(job.classes));
    placement->setAttr("accesses", b.getF64FloatAttr(job.accesses));
  }
  size_t routes = best ? best->routes.size() : 0;
  for (size_t r = 0; r < routes; ++r) {
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
      for (const flow::PathTimeline &pt : timeline)
        if (pt.demand == r && pt.path == p)
          chunks = std::max<int64_t>(1, pt.chunks.size());
      b.create<TransferOp>(
          op.getLoc(), b.getStringAttr(pn.net.nodes[route.demand.source]),
          b.getStringAttr(pn.net.nodes[route.demand.destination]),
          b.getF64FloatAttr(path.bytes), b.getStrArrayAttr(nodes),
          b.getF64FloatAttr(path.bytes / (end - start)),
          b.getF64FloatAttr(start), b.getF64FloatAttr(end),
          b.getI64IntegerAttr(chunks), b.getI64IntegerAttr(r), StringAttr(),
          StringAttr(), StringAttr());
    }
  }
  // The collectives: a plan.collective, then one transfer per path of each
  // phase (a phase repeated r times: r times the bytes over r times the
  // step's window, at the step's rate), phases back to back.
  int64_t demandIndex = static_cast<int64_t>(routes);
  double t = best ? best->makespan : 0;
  auto chunksOf = [&](double bytes) -> int64_t {
    if (!(chunk > 0))
      return 1;
    return std::clamp<int64_t>(
        static_cast<int64_t>(std::ceil(bytes / chunk * (1 - 1e-12))), 1,
        1000000);
  };
  for (size_t i = 0; i < items.size(); ++i) {
    CollectiveItem &item = items[i];
    const flow::CollectivePlan &plan = item.plans[item.best];
    std::string label = (op.getSymName() + "." + llvm::Twine(i)).str();
    llvm::SmallVector<NamedAttribute> times, alphaBeta;
    for (const flow::CollectivePlan &p : item.plans) {
      std::string name = algorithmName(p);
      times.push_back(b.getNamedAttr(name, b.getF64FloatAttr(p.flowTime)));
      alphaBeta.push_back(
          b.getNamedAttr(name, b.getF64FloatAttr(p.alphaBetaTime)));
    }
    llvm::SmallVector<StringRef> group;
    for (unsigned g : item.group)
      group.push_back(pn.net.nodes[g]);
    b.create<CollectiveOp>(
        item.op.getLoc(), b.getStringAttr(label),
        CollectiveKindAttr::get(b.getContext(), item.kind),
        b.getStringAttr(algorithmName(plan)), item.op.getBytesAttr(),
        b.getStrArrayAttr(group), b.getF64FloatAttr(t),
        b.getF64FloatAttr(t + plan.flowTime), b.getDictionaryAttr(times),
        b.getDictionaryAttr(alphaBeta), b.getF64FloatAttr(plan.endpointBound));
    double phaseStart = t;
    for (const flow::CollectivePhase &phase : plan.phases) {
      double reps = static_cast<double>(phase.repeats);
      StringAttr stream = b.getStringAttr(label + "/" + phase.name);
      for (const flow::DemandRoute &route : phase.schedule.routes) {
        bool any = false;
        for (const flow::PathFlow &path : route.paths) {
          if (path.bytes <= 0)
            continue;
          any = true;
          llvm::SmallVector<StringRef> nodes = {
              pn.net.nodes[route.demand.source]};
          for (unsigned a : path.arcs)
            nodes.push_back(pn.net.nodes[pn.net.arcs[a].to]);
          double s0 = path.segments.empty() ? 0 : path.segments.front().start;
          double bytes = reps * path.bytes;
          double start = phaseStart + reps * s0;
          double end = phaseStart + reps * path.finish;
          b.create<TransferOp>(
              item.op.getLoc(),
              b.getStringAttr(pn.net.nodes[route.demand.source]),
              b.getStringAttr(pn.net.nodes[route.demand.destination]),
              b.getF64FloatAttr(bytes), b.getStrArrayAttr(nodes),
              b.getF64FloatAttr(bytes / (end - start)),
              b.getF64FloatAttr(start), b.getF64FloatAttr(end),
              b.getI64IntegerAttr(chunksOf(bytes)),
              b.getI64IntegerAttr(demandIndex), stream, StringAttr(),
              StringAttr());
        }
        if (any)
          ++demandIndex;
      }
      phaseStart += reps * phase.schedule.makespan;
    }
    t += plan.flowTime;
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
  auto graph = demandsTopoGraph(module, demandOps.front(), flat);
  if (failed(graph))
    return signalPassFailure();
  PlanNetwork pn = buildPlanNetwork(*graph);
  this->graph = &*graph;
  std::vector<unsigned> reducers = flow::findReducers(*graph);
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
    ok &= succeeded(schedule(op, pn, reducers));
  }
  this->graph = nullptr;
  if (!ok)
    signalPassFailure();
}
