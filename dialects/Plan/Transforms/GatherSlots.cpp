//===- GatherSlots.cpp - Slot recommendation for a gather demand ----------===//
#include "dialects/Plan/Transforms/GatherSlots.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

using namespace sluice;
using namespace sluice::plan;

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<GatherSlots>
plan::recommendGatherSlots(const PlanNetwork &pn,
                           const analysis::TopoGraph &graph,
                           llvm::ArrayRef<unsigned> sources,
                           llvm::ArrayRef<unsigned> destinations,
                           double bytes) {
  const flow::FlowNetwork &net = pn.net;
  // Neighbours of every node (either direction).
  std::vector<std::set<unsigned>> nbr(net.numNodes());
  for (const flow::FlowArc &a : net.arcs) {
    nbr[a.from].insert(a.to);
    nbr[a.to].insert(a.from);
  }
  std::set<unsigned> endpoints(sources.begin(), sources.end());
  endpoints.insert(destinations.begin(), destinations.end());
  // Movable: a gather endpoint with one neighbour that is not an endpoint.
  auto leaf = [&](unsigned v) {
    return nbr[v].size() == 1 && !endpoints.count(*nbr[v].begin());
  };
  std::string destKind = graph.devices[destinations.front()].kind;
  for (unsigned d : destinations) {
    if (!leaf(d))
      return fail("'" + net.nodes[d] + "' is attached by " +
                  llvm::Twine(nbr[d].size()) +
                  " links, not one slot; slot recommendation needs every "
                  "destination in a slot");
    if (graph.devices[d].kind != destKind)
      return fail("the destinations are of kinds '" + destKind + "' and '" +
                  graph.devices[d].kind + "'; slot recommendation needs one");
  }
  std::vector<unsigned> movable;
  std::vector<unsigned> fixedSources;
  for (unsigned s : sources) {
    if (llvm::is_contained(destinations, s))
      continue; // read locally
    if (leaf(s)) {
      if (graph.devices[s].kind == destKind)
        return fail("source '" + net.nodes[s] + "' has the destinations' "
                    "kind '" + destKind + "'");
      movable.push_back(s);
    } else {
      fixedSources.push_back(s);
    }
  }
  movable.insert(movable.end(), destinations.begin(), destinations.end());

  GatherSlots out;
  flow::SlotProblem &p = out.problem;
  std::vector<int> fabricIndex(net.numNodes(), -1);
  std::vector<bool> isMovable(net.numNodes(), false);
  for (unsigned m : movable)
    isMovable[m] = true;
  for (unsigned v = 0; v < net.numNodes(); ++v)
    if (!isMovable[v])
      fabricIndex[v] = static_cast<int>(p.fabric.addNode(net.nodes[v]));
  for (const flow::FlowArc &a : net.arcs)
    if (!isMovable[a.from] && !isMovable[a.to])
      p.fabric.addArc(fabricIndex[a.from], fabricIndex[a.to], a.capacity,
                      a.topoArc);
  for (unsigned m : movable) {
    unsigned w = *nbr[m].begin();
    // The slot runs at the slower direction of the device's link.
    double bw = 0;
    auto up = pn.arcOf.find({m, w}), down = pn.arcOf.find({w, m});
    if (up != pn.arcOf.end())
      bw = net.arcs[up->second].capacity;
    if (down != pn.arcOf.end())
      bw = bw > 0 ? std::min(bw, net.arcs[down->second].capacity)
                  : net.arcs[down->second].capacity;
    flow::Slot slot;
    slot.name = "slot of " + net.nodes[m];
    slot.attach = static_cast<unsigned>(fabricIndex[w]);
    slot.bandwidth = bw;
    // Any device fits any slot; the link runs at min(slot, device), the
    // device's own limit being the link it has now (an x4 SSD stays x4 in
    // an x16 slot, a GPU in an x4 slot drops to x4).
    p.slots.push_back(slot);
    p.devices.push_back({net.nodes[m], graph.devices[m].kind, bw});
    p.current.push_back(static_cast<unsigned>(p.current.size()));
    out.deviceNode.push_back(m);
  }
  double perPair = bytes / static_cast<double>(sources.size());
  std::set<std::string> sourceKinds;
  for (unsigned s : movable)
    if (!llvm::is_contained(destinations, s))
      sourceKinds.insert(graph.devices[s].kind);
  for (const std::string &k : sourceKinds)
    p.traffic.push_back({k, std::nullopt, destKind, perPair});
  for (unsigned s : fixedSources)
    p.traffic.push_back({"", static_cast<unsigned>(fabricIndex[s]), destKind,
                         perPair});
  if (llvm::Error err = flow::validateSlotProblem(p))
    return std::move(err);
  auto rec = flow::recommendSlots(p);
  if (!rec)
    return rec.takeError();
  out.recommendation = std::move(*rec);
  return out;
}

std::string plan::describeGatherSlots(const GatherSlots &g) {
  const flow::SlotRecommendation &r = g.recommendation;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << g.problem.devices.size() << " devices in " << g.problem.slots.size()
     << " slots, " << r.evaluated << " assignments evaluated"
     << (r.exhaustive ? " (all up to symmetry)" : " (local search)") << ": ";
  if (r.current)
    os << "current " << llvm::format("%.6g", r.current->makespan) << " s, ";
  os << "recommended " << llvm::format("%.6g", r.best.makespan) << " s";
  if (r.current && r.best.makespan > 0)
    os << " (" << llvm::format("%.3g", r.current->makespan / r.best.makespan)
       << "x)";
  unsigned moves = 0;
  for (size_t i = 0; i < r.best.slotOf.size(); ++i) {
    unsigned slot = r.best.slotOf[i];
    if (r.current && r.current->slotOf[i] == slot)
      continue;
    os << (moves == 0 ? "; moves: " : ", ");
    if (++moves > 8) {
      os << "...";
      break;
    }
    os << g.problem.devices[i].name << " -> " << g.problem.slots[slot].name;
  }
  if (moves == 0)
    os << "; the current assignment is optimal";
  return text;
}
