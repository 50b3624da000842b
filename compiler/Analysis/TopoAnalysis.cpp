//===- TopoAnalysis.cpp - Connectivity, paths and totals ------------------===//
//
// Device selection, weakly connected components, BFS hop counts, the
// max-bottleneck (widest path) Dijkstra, the pair matrix, per-kind totals and
// the all-in-one driver. The min-cut analyses live in TopoCut.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/TopoAnalysis.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <algorithm>
#include <cassert>
#include <deque>
#include <queue>
#include <tuple>

using namespace sluice;
using namespace sluice::analysis;

namespace {
/// Modeled out-arcs of each device in compressed rows, in arc-index order.
struct OutArcs {
  std::vector<unsigned> begin; ///< V + 1 offsets into `arcs`.
  std::vector<unsigned> arcs;  ///< Arc indices.

  explicit OutArcs(const TopoGraph &g) {
    unsigned n = g.devices.size();
    begin.assign(n + 1, 0);
    for (const TopoArc &a : g.arcs)
      if (!a.measured)
        ++begin[a.from + 1];
    for (unsigned v = 0; v < n; ++v)
      begin[v + 1] += begin[v];
    arcs.resize(begin[n]);
    std::vector<unsigned> fill(begin.begin(), begin.end() - 1);
    for (unsigned i = 0, e = g.arcs.size(); i != e; ++i)
      if (!g.arcs[i].measured)
        arcs[fill[g.arcs[i].from]++] = i;
  }

  llvm::ArrayRef<unsigned> of(unsigned v) const {
    return llvm::ArrayRef<unsigned>(arcs).slice(begin[v],
                                                begin[v + 1] - begin[v]);
  }
};

std::vector<unsigned> hopCounts(const TopoGraph &g, const OutArcs &out,
                                unsigned source) {
  std::vector<unsigned> hops(g.devices.size(), kUnreachable);
  std::deque<unsigned> queue;
  hops[source] = 0;
  queue.push_back(source);
  while (!queue.empty()) {
    unsigned u = queue.front();
    queue.pop_front();
    for (unsigned ai : out.of(u)) {
      unsigned v = g.arcs[ai].to;
      if (hops[v] != kUnreachable)
        continue;
      hops[v] = hops[u] + 1;
      queue.push_back(v);
    }
  }
  return hops;
}

/// A tentative widest-path label; `better` is the search order.
struct Label {
  double bandwidth;
  double latency;
  unsigned hops;

  bool better(const Label &o) const {
    return std::make_tuple(-bandwidth, latency, hops) <
           std::make_tuple(-o.bandwidth, o.latency, o.hops);
  }
  bool operator==(const Label &o) const {
    return bandwidth == o.bandwidth && latency == o.latency && hops == o.hops;
  }
};

WidestPathTree widestPaths(const TopoGraph &g, const OutArcs &out,
                           unsigned source) {
  unsigned n = g.devices.size();
  assert(source < n && "widest-path source out of range");
  WidestPathTree t;
  t.source = source;
  t.bandwidth.assign(n, 0);
  t.latency.assign(n, 0);
  t.pathHops.assign(n, kUnreachable);
  t.predArc.assign(n, kUnreachable);
  t.latencyKnown.assign(n, false);
  // A NIC's line rate bounds every path through, from or to it.
  std::vector<double> rate(n, std::numeric_limits<double>::infinity());
  for (unsigned v = 0; v < n; ++v)
    if (std::optional<double> r = g.devices[v].throughRate())
      rate[v] = *r;
  std::vector<unsigned> settleOrder;

  std::vector<Label> label(n, Label{0, 0, kUnreachable});
  std::vector<bool> settled(n, false);
  struct Entry {
    Label label;
    unsigned vertex;
  };
  // priority_queue pops the greatest: "less" means "popped later".
  auto later = [](const Entry &a, const Entry &b) {
    if (b.label.better(a.label))
      return true;
    if (a.label.better(b.label))
      return false;
    return a.vertex > b.vertex;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> queue(later);

  label[source] = Label{std::numeric_limits<double>::infinity(), 0, 0};
  queue.push({label[source], source});
  while (!queue.empty()) {
    Entry e = queue.top();
    queue.pop();
    unsigned u = e.vertex;
    if (settled[u] || !(e.label == label[u]))
      continue;
    settled[u] = true;
    settleOrder.push_back(u);
    for (unsigned ai : out.of(u)) {
      const TopoArc &a = g.arcs[ai];
      unsigned v = a.to;
      if (settled[v])
        continue;
      double width =
          std::min({label[u].bandwidth, a.bandwidth, rate[u], rate[v]});
      Label cand{width, label[u].latency + a.latency, label[u].hops + 1};
      if (label[v].hops != kUnreachable && !cand.better(label[v]))
        continue;
      label[v] = cand;
      t.predArc[v] = ai;
      queue.push({cand, v});
    }
  }

  // A settled device's predecessor was settled before it.
  for (unsigned v : settleOrder)
    t.latencyKnown[v] =
        v == source || (t.latencyKnown[g.arcs[t.predArc[v]].from] &&
                        g.arcs[t.predArc[v]].latencyKnown);
  for (unsigned v = 0; v < n; ++v) {
    if (label[v].hops == kUnreachable)
      continue;
    t.bandwidth[v] = label[v].bandwidth;
    t.latency[v] = label[v].latency;
    t.pathHops[v] = label[v].hops;
  }
  return t;
}
} // namespace

//===----------------------------------------------------------------------===//
// Device selection
//===----------------------------------------------------------------------===//

std::vector<unsigned> analysis::devicesOfKind(const TopoGraph &g,
                                              llvm::StringRef kind) {
  std::vector<unsigned> out;
  for (unsigned i = 0, e = g.devices.size(); i != e; ++i)
    if (g.devices[i].kind == kind)
      out.push_back(i);
  return out;
}

std::vector<unsigned> analysis::devicesInGroup(const TopoGraph &g,
                                               llvm::StringRef group) {
  std::vector<unsigned> out;
  for (unsigned i = 0, e = g.devices.size(); i != e; ++i)
    if (g.devices[i].group == group)
      out.push_back(i);
  return out;
}

std::vector<unsigned> analysis::devicesUnder(const TopoGraph &g,
                                             llvm::StringRef prefix) {
  std::vector<unsigned> out;
  for (unsigned i = 0, e = g.devices.size(); i != e; ++i) {
    llvm::StringRef name = g.devices[i].name;
    if (!name.starts_with(prefix))
      continue;
    llvm::StringRef rest = name.drop_front(prefix.size());
    if (rest.empty() || rest.front() == '.' || rest.front() == '[')
      out.push_back(i);
  }
  return out;
}

std::optional<std::vector<unsigned>>
analysis::selectDevices(const TopoGraph &g, llvm::StringRef selector) {
  if (selector == "all") {
    std::vector<unsigned> out(g.devices.size());
    for (unsigned i = 0, e = out.size(); i != e; ++i)
      out[i] = i;
    return out;
  }
  auto [form, arg] = selector.split(':');
  if (arg.empty() && !selector.contains(':'))
    return std::nullopt;
  if (form == "kind")
    return devicesOfKind(g, arg);
  if (form == "group")
    return devicesInGroup(g, arg);
  if (form == "under")
    return devicesUnder(g, arg);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Connectivity
//===----------------------------------------------------------------------===//

Components analysis::computeComponents(const TopoGraph &g) {
  unsigned n = g.devices.size();
  // Undirected adjacency of the modeled arcs.
  std::vector<std::vector<unsigned>> adj(n);
  for (const TopoArc &a : g.arcs) {
    if (a.measured)
      continue;
    adj[a.from].push_back(a.to);
    adj[a.to].push_back(a.from);
  }
  Components c;
  c.componentOf.assign(n, kUnreachable);
  for (unsigned root = 0; root < n; ++root) {
    if (c.componentOf[root] != kUnreachable)
      continue;
    unsigned id = c.members.size();
    std::vector<unsigned> members;
    std::vector<unsigned> stack = {root};
    c.componentOf[root] = id;
    while (!stack.empty()) {
      unsigned u = stack.back();
      stack.pop_back();
      members.push_back(u);
      for (unsigned v : adj[u]) {
        if (c.componentOf[v] != kUnreachable)
          continue;
        c.componentOf[v] = id;
        stack.push_back(v);
      }
    }
    std::sort(members.begin(), members.end());
    c.members.push_back(std::move(members));
  }
  return c;
}

std::vector<unsigned> analysis::computeHopCounts(const TopoGraph &g,
                                                 unsigned source) {
  assert(source < g.devices.size() && "hop-count source out of range");
  return hopCounts(g, OutArcs(g), source);
}

std::vector<bool> analysis::computeReachable(const TopoGraph &g,
                                             unsigned source) {
  std::vector<unsigned> hops = computeHopCounts(g, source);
  std::vector<bool> out(hops.size());
  for (unsigned i = 0, e = hops.size(); i != e; ++i)
    out[i] = hops[i] != kUnreachable;
  return out;
}

//===----------------------------------------------------------------------===//
// Widest paths
//===----------------------------------------------------------------------===//

std::vector<unsigned> WidestPathTree::pathTo(const TopoGraph &g,
                                             unsigned v) const {
  std::vector<unsigned> path;
  if (!reachable(v))
    return path;
  path.resize(pathHops[v]);
  // Walk the predecessor arcs back from `v`; the kept path has exactly
  // pathHops[v] arcs.
  for (unsigned i = pathHops[v]; i > 0; --i) {
    unsigned ai = predArc[v];
    assert(ai != kUnreachable && "broken widest-path predecessor chain");
    path[i - 1] = ai;
    v = g.arcs[ai].from;
  }
  assert(v == source && "widest-path predecessor chain misses the source");
  return path;
}

WidestPathTree analysis::computeWidestPaths(const TopoGraph &g,
                                            unsigned source) {
  return widestPaths(g, OutArcs(g), source);
}

bool PairMatrix::hasAttained() const {
  return std::any_of(cells.begin(), cells.end(), [](const PairMetrics &m) {
    return m.attained.has_value();
  });
}

PairMatrix analysis::computePairMatrix(const TopoGraph &g,
                                       llvm::ArrayRef<unsigned> devices,
                                       bool maxFlow) {
  for (unsigned d : devices) {
    (void)d;
    assert(d < g.devices.size() && "pair-matrix device out of range");
  }
  OutArcs out(g);
  // Measured arcs by ordered pair; a later arc overrides an earlier one.
  llvm::DenseMap<std::pair<unsigned, unsigned>, double> measured;
  for (const TopoArc &a : g.arcs)
    if (a.measured)
      measured[{a.from, a.to}] = a.bandwidth;

  PairMatrix m;
  m.devices.assign(devices.begin(), devices.end());
  unsigned n = devices.size();
  m.cells.resize(static_cast<size_t>(n) * n);
  m.hasMaxFlow = maxFlow;
  for (unsigned r = 0; r < n; ++r) {
    unsigned src = devices[r];
    WidestPathTree tree = widestPaths(g, out, src);
    std::vector<unsigned> hops = hopCounts(g, out, src);
    std::vector<double> flows;
    if (maxFlow)
      flows = computeMaxFlowRow(g, src, devices);
    for (unsigned c = 0; c < n; ++c) {
      unsigned dst = devices[c];
      PairMetrics &cell = m.cells[static_cast<size_t>(r) * n + c];
      cell.reachable = tree.reachable(dst);
      cell.bandwidth = tree.bandwidth[dst];
      cell.latency = tree.latency[dst];
      cell.latencyKnown = tree.latencyKnown[dst];
      if (maxFlow)
        cell.maxFlow = flows[c];
      cell.pathHops = tree.pathHops[dst];
      cell.hops = hops[dst];
      auto it = measured.find({src, dst});
      if (it != measured.end())
        cell.attained = it->second;
    }
  }
  return m;
}

//===----------------------------------------------------------------------===//
// Totals
//===----------------------------------------------------------------------===//

GraphTotals analysis::computeTotals(const TopoGraph &g) {
  GraphTotals t;
  t.devices = g.devices.size();
  t.links = g.numLinks();
  t.modeledArcs = g.numModeledArcs();
  t.measuredArcs = g.numMeasuredArcs();

  // Position of each kind in t.kinds (lookups only; order is first seen).
  llvm::StringMap<unsigned> kindIndex;
  std::vector<unsigned> kindOf(g.devices.size());
  for (unsigned i = 0, e = g.devices.size(); i != e; ++i) {
    const TopoDevice &d = g.devices[i];
    auto [it, inserted] = kindIndex.try_emplace(d.kind, t.kinds.size());
    if (inserted) {
      t.kinds.emplace_back();
      t.kinds.back().kind = d.kind;
    }
    kindOf[i] = it->second;
    KindTotals &k = t.kinds[it->second];
    ++k.count;
    for (const QuantityProp &q : d.quantities) {
      // Clock rates and latencies do not add up across devices.
      if (q.dim == Dim::frequency() || q.dim == Dim::time())
        continue;
      auto qt = std::find_if(k.quantities.begin(), k.quantities.end(),
                             [&](const QuantityTotal &x) {
                               return x.name == q.name && x.dim == q.dim;
                             });
      if (qt == k.quantities.end()) {
        k.quantities.push_back({q.name, q.dim, 0, 0});
        qt = k.quantities.end() - 1;
      }
      qt->value += q.value;
      ++qt->count;
    }
    for (const IntProp &p : d.ints) {
      auto it2 =
          std::find_if(k.ints.begin(), k.ints.end(),
                       [&](const IntTotal &x) { return x.name == p.name; });
      if (it2 == k.ints.end()) {
        k.ints.push_back({p.name, 0, 0});
        it2 = k.ints.end() - 1;
      }
      it2->value += p.value;
      ++it2->count;
    }
  }

  for (const TopoArc &a : g.arcs) {
    if (a.measured)
      continue;
    t.arcBandwidth += a.bandwidth;
    KindTotals &from = t.kinds[kindOf[a.from]];
    ++from.arcsOut;
    from.egressBandwidth += a.bandwidth;
    KindTotals &to = t.kinds[kindOf[a.to]];
    ++to.arcsIn;
    to.ingressBandwidth += a.bandwidth;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Everything at once
//===----------------------------------------------------------------------===//

TopoAnalysisResult analysis::analyzeTopology(const TopoGraph &g,
                                             const TopoAnalysisOptions &opts) {
  TopoAnalysisResult r;
  r.matrixKind = opts.matrixKind;
  r.components = computeComponents(g);
  r.totals = computeTotals(g);
  std::vector<unsigned> subset = opts.matrixKind.empty()
                                     ? *selectDevices(g, "all")
                                     : devicesOfKind(g, opts.matrixKind);
  bool maxFlow = false;
  switch (opts.maxFlow) {
  case TopoAnalysisOptions::MaxFlow::Always:
    maxFlow = true;
    break;
  case TopoAnalysisOptions::MaxFlow::Never:
    r.maxFlowSkipped = "not requested";
    break;
  case TopoAnalysisOptions::MaxFlow::Auto:
    maxFlow = subset.size() <= kMaxFlowMatrixDevices;
    if (!maxFlow)
      r.maxFlowSkipped = std::to_string(subset.size()) + " devices > " +
                         std::to_string(kMaxFlowMatrixDevices) +
                         "; select fewer with --matrix-kind or force with "
                         "--max-flow=always";
    break;
  }
  if (subset.empty())
    r.maxFlowSkipped.clear();
  r.matrix = computePairMatrix(g, subset, maxFlow);
  if (opts.bisection && subset.size() >= 2)
    r.bisection = computeBisection(g, subset);
  for (const CutRequest &req : opts.cuts)
    r.cuts.push_back(computeMinCut(g, req.sources, req.sinks, req.label));
  return r;
}
