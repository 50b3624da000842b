//===- PlanFlow.cpp - Between plan IR and the flow library ----------------===//
#include "dialects/Plan/Transforms/PlanFlow.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace sluice;
using namespace sluice::plan;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

PlanNetwork plan::buildPlanNetwork(const analysis::TopoGraph &graph) {
  flow::FlowNetwork raw = flow::buildNetwork(graph);
  PlanNetwork pn;
  pn.net.nodes = raw.nodes;
  for (const flow::FlowArc &a : raw.arcs) {
    auto [it, inserted] =
        pn.arcOf.try_emplace({a.from, a.to}, pn.net.numArcs());
    if (inserted)
      pn.net.arcs.push_back(a);
    else
      pn.net.arcs[it->second].capacity += a.capacity;
  }
  return pn;
}

namespace {
struct PatternSegment {
  llvm::StringRef name;
  enum { None, One, All, Range } kind = None;
  int64_t lo = 0, hi = 0;
};
} // namespace

/// Splits "a[1].b[*]" into segments; dots inside brackets do not split.
static bool splitPath(llvm::StringRef path,
                      llvm::SmallVectorImpl<llvm::StringRef> &out) {
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '.' && depth == 0)) {
      if (i == start)
        return false;
      out.push_back(path.slice(start, i));
      start = i + 1;
    } else if (path[i] == '[') {
      ++depth;
    } else if (path[i] == ']') {
      --depth;
    }
  }
  return depth == 0;
}

static bool parseSegment(llvm::StringRef text, PatternSegment &seg) {
  size_t open = text.find('[');
  seg.name = text.take_front(open);
  if (seg.name.empty())
    return false;
  if (open == llvm::StringRef::npos) {
    seg.kind = PatternSegment::None;
    return true;
  }
  if (!text.ends_with("]"))
    return false;
  llvm::StringRef index = text.slice(open + 1, text.size() - 1).trim();
  if (index == "*") {
    seg.kind = PatternSegment::All;
    return true;
  }
  auto [lo, hi] = index.split("..");
  if (lo.trim().getAsInteger(10, seg.lo))
    return false;
  if (index.contains("..")) {
    if (hi.trim().getAsInteger(10, seg.hi))
      return false;
    seg.kind = PatternSegment::Range;
  } else {
    seg.hi = seg.lo + 1;
    seg.kind = PatternSegment::One;
  }
  return true;
}

llvm::Expected<std::vector<unsigned>>
plan::matchDevices(const flow::FlowNetwork &net, llvm::StringRef pattern) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::SmallVector<PatternSegment> segs;
  if (!splitPath(pattern, parts))
    return makeError("malformed device pattern '" + pattern + "'");
  for (llvm::StringRef p : parts) {
    PatternSegment s;
    if (!parseSegment(p, s))
      return makeError("malformed device pattern '" + pattern + "'");
    segs.push_back(s);
  }
  std::vector<unsigned> out;
  for (unsigned n = 0; n < net.numNodes(); ++n) {
    llvm::SmallVector<llvm::StringRef> nameParts;
    if (!splitPath(net.nodes[n], nameParts) || nameParts.size() != segs.size())
      continue;
    bool ok = true;
    for (size_t i = 0; i < segs.size() && ok; ++i) {
      PatternSegment d;
      if (!parseSegment(nameParts[i], d) || d.name != segs[i].name) {
        ok = false;
        continue;
      }
      switch (segs[i].kind) {
      case PatternSegment::None:
        ok = d.kind == PatternSegment::None;
        break;
      case PatternSegment::All:
        ok = d.kind == PatternSegment::One;
        break;
      case PatternSegment::One:
      case PatternSegment::Range:
        ok = d.kind == PatternSegment::One && d.lo >= segs[i].lo &&
             d.lo < segs[i].hi;
        break;
      }
    }
    if (ok)
      out.push_back(n);
  }
  return out;
}

llvm::Expected<flow::FlowSchedule> plan::scheduleFromIR(ScheduleOp op,
                                                        const PlanNetwork &pn) {
  const flow::FlowNetwork &net = pn.net;
  flow::FlowSchedule s;
  std::optional<ScheduleMethod> method = op.getMethod();
  if (!method)
    return makeError("schedule '" + op.getSymName() + "' has no method");
  s.method = *method;
  s.makespan = op.getMakespan().convertToDouble();
  if (auto lb = op.getLowerBound())
    s.lowerBound = lb->convertToDouble();
  std::map<int64_t, size_t> routeOf;
  for (TransferOp t : op.getBody().front().getOps<TransferOp>()) {
    auto src = net.findNode(t.getSource());
    auto dst = net.findNode(t.getDestination());
    if (!src || !dst)
      return makeError("transfer " + t.getSource() + " -> " +
                       t.getDestination() +
                       " names a device not in the "
                       "topology");
    auto [it, inserted] = routeOf.try_emplace(t.getDemand(), s.routes.size());
    if (inserted) {
      flow::DemandRoute r;
      r.demand.source = *src;
      r.demand.destination = *dst;
      s.routes.push_back(r);
    }
    flow::DemandRoute &route = s.routes[it->second];
    if (route.demand.source != *src || route.demand.destination != *dst)
      return makeError(llvm::formatv(
          "transfers of demand {0} have different endpoints", t.getDemand()));
    flow::PathFlow p;
    unsigned prev = *src;
    for (mlir::Attribute a : t.getPath().getValue().drop_front()) {
      auto node = net.findNode(llvm::cast<mlir::StringAttr>(a).getValue());
      if (!node)
        return makeError("path device '" +
                         llvm::cast<mlir::StringAttr>(a).getValue() +
                         "' is not in the topology");
      auto arc = pn.arcOf.find({prev, *node});
      if (arc == pn.arcOf.end())
        return makeError("no link from '" + net.nodes[prev] + "' to '" +
                         net.nodes[*node] + "'");
      p.arcs.push_back(arc->second);
      prev = *node;
    }
    p.bytes = t.getBytes().convertToDouble();
    p.finish = t.getEnd().convertToDouble();
    // A transfer that starts later (a collective's phase) idles before:
    // the segments cover [0, finish], the rate is the average since 0.
    double start = t.getStart().convertToDouble();
    if (start > 0)
      p.segments.push_back({0, start, 0});
    p.segments.push_back({start, p.finish, t.getRate().convertToDouble()});
    p.rate = p.finish > 0 ? p.bytes / p.finish : t.getRate().convertToDouble();
    route.demand.bytes += p.bytes;
    route.finish = std::max(route.finish, p.finish);
    route.paths.push_back(std::move(p));
  }
  s.arcs.assign(net.numArcs(), flow::ArcUsage());
  for (const flow::DemandRoute &r : s.routes)
    for (const flow::PathFlow &p : r.paths)
      for (unsigned a : p.arcs)
        s.arcs[a].bytes += p.bytes;
  for (unsigned a = 0; a < net.numArcs(); ++a) {
    flow::ArcUsage &u = s.arcs[a];
    if (s.makespan > 0)
      u.utilisation = u.bytes / (net.arcs[a].capacity * s.makespan);
    u.saturated = u.bytes > 0 && u.utilisation >= 1 - 1e-6;
    if (u.saturated)
      s.saturatedArcs.push_back(a);
  }
  return s;
}

mlir::FailureOr<analysis::TopoGraph>
sluice::plan::demandsTopoGraph(mlir::ModuleOp module, DemandsOp first,
                               topo::TopologyOp &flat) {
  flat = findFlatTopology(module);
  if (!flat) {
    first.emitError() << "demand '" << first.getSymName()
                      << "' needs a flat topology; run topo-flatten first";
    return mlir::failure();
  }
  return extractTopoGraph(module);
}
