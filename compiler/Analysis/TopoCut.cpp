//===- TopoCut.cpp - Max-flow min-cut between device sets -----------------===//
//
// The min cut from a device set A to a device set B: a super source feeds
// every device of A and a super sink drains every device of B, both through
// arcs wider than the whole graph, and Boost.Graph's Boykov-Kolmogorov
// max flow runs on the modeled arcs. The source side of the cut is read off
// the residual graph (everything reachable from the super source), which is
// the same set for every maximum flow, so the reported cut does not depend
// on how the flow was routed. See docs/analysis.md for why Boost.Graph.
//
// Also the pair max-flow of the report's matrix (computeMaxFlowRow): one
// network per source, NICs split into in/out halves joined by their rate.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/TopoAnalysis.h"

#include "compiler/Analysis/BoostMaxFlow.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace sluice;
using namespace sluice::analysis;

namespace {
using FlowEdge = analysis::detail::MaxFlowEdge;
using FlowGraph = analysis::detail::MaxFlowGraph;

std::vector<unsigned> sortedUnique(llvm::ArrayRef<unsigned> devices,
                                   unsigned numDevices) {
  std::vector<unsigned> out(devices.begin(), devices.end());
  for (unsigned d : out) {
    (void)d;
    assert(d < numDevices && "cut device out of range");
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Adds `u -> v` with `capacity` and its zero-capacity reverse.
void addFlowArc(FlowGraph &fg, unsigned u, unsigned v, double capacity) {
  auto cap = boost::get(boost::edge_capacity, fg);
  auto rev = boost::get(boost::edge_reverse, fg);
  FlowEdge e = boost::add_edge(u, v, fg).first;
  FlowEdge r = boost::add_edge(v, u, fg).first;
  cap[e] = capacity;
  cap[r] = 0;
  rev[e] = r;
  rev[r] = e;
}
} // namespace

CutResult analysis::computeMinCut(const TopoGraph &g,
                                  llvm::ArrayRef<unsigned> a,
                                  llvm::ArrayRef<unsigned> b,
                                  llvm::StringRef label) {
  unsigned n = g.devices.size();
  CutResult r;
  r.label = label.str();
  r.sources = sortedUnique(a, n);
  r.sinks = sortedUnique(b, n);
  r.sourceSide.assign(n, false);

  std::vector<bool> inSources(n, false);
  for (unsigned d : r.sources)
    inSources[d] = true;
  // A device in both sets joins source and sink directly: unbounded flow.
  for (unsigned d : r.sinks) {
    if (!inSources[d])
      continue;
    r.capacity = std::numeric_limits<double>::infinity();
    r.sourceSide = inSources;
    return r;
  }

  double total = 0;
  for (const TopoArc &arc : g.arcs)
    if (!arc.measured)
      total += arc.bandwidth;
  // Wider than any cut made of device arcs, so never part of the min cut.
  const double unbounded = 2 * total + 1;

  const unsigned superSource = n, superSink = n + 1;
  FlowGraph fg(n + 2);
  for (const TopoArc &arc : g.arcs)
    if (!arc.measured && arc.from != arc.to && arc.bandwidth > 0)
      addFlowArc(fg, arc.from, arc.to, arc.bandwidth);
  for (unsigned d : r.sources)
    addFlowArc(fg, superSource, d, unbounded);
  for (unsigned d : r.sinks)
    addFlowArc(fg, d, superSink, unbounded);

  boost::boykov_kolmogorov_max_flow(fg, superSource, superSink);

  // Source side: reachable from the super source through positive residual
  // capacity. Out-edge order is insertion order, so this is deterministic.
  auto residual = boost::get(boost::edge_residual_capacity, fg);
  std::vector<bool> seen(n + 2, false);
  std::vector<unsigned> stack = {superSource};
  seen[superSource] = true;
  while (!stack.empty()) {
    unsigned u = stack.back();
    stack.pop_back();
    for (auto [it, end] = boost::out_edges(u, fg); it != end; ++it) {
      unsigned v = boost::target(*it, fg);
      if (seen[v] || !(residual[*it] > 0))
        continue;
      seen[v] = true;
      stack.push_back(v);
    }
  }
  assert(!seen[superSink] && "max flow left an augmenting path");

  for (unsigned v = 0; v < n; ++v)
    r.sourceSide[v] = seen[v];
  for (unsigned i = 0, e = g.arcs.size(); i != e; ++i) {
    const TopoArc &arc = g.arcs[i];
    if (arc.measured || !seen[arc.from] || seen[arc.to])
      continue;
    r.cutArcs.push_back(i);
    r.capacity += arc.bandwidth;
  }
  return r;
}

BisectionResult analysis::computeBisection(const TopoGraph &g,
                                           llvm::ArrayRef<unsigned> devices) {
  std::vector<unsigned> sorted = sortedUnique(devices, g.devices.size());
  size_t half = sorted.size() / 2;
  BisectionResult r;
  r.firstHalf.assign(sorted.begin(), sorted.begin() + half);
  r.secondHalf.assign(sorted.begin() + half, sorted.end());
  r.forward = computeMinCut(g, r.firstHalf, r.secondHalf, "bisection");
  r.backward = computeMinCut(g, r.secondHalf, r.firstHalf, "bisection reverse");
  r.bandwidth = std::min(r.forward.capacity, r.backward.capacity);
  return r;
}

std::vector<double>
analysis::computeMaxFlowRow(const TopoGraph &g, unsigned source,
                            llvm::ArrayRef<unsigned> sinks) {
  unsigned n = g.devices.size();
  assert(source < n && "max-flow source out of range");
  // Device v enters the network at inHalf[v] and leaves it at outHalf[v];
  // the two differ only for a device with a through-rate.
  std::vector<unsigned> inHalf(n), outHalf(n);
  unsigned vertices = n;
  for (unsigned v = 0; v < n; ++v) {
    inHalf[v] = outHalf[v] = v;
    if (g.devices[v].throughRate())
      outHalf[v] = vertices++;
  }
  FlowGraph fg(vertices);
  for (unsigned v = 0; v < n; ++v)
    if (std::optional<double> rate = g.devices[v].throughRate())
      addFlowArc(fg, inHalf[v], outHalf[v], *rate);
  for (const TopoArc &arc : g.arcs)
    if (!arc.measured && arc.from != arc.to && arc.bandwidth > 0)
      addFlowArc(fg, outHalf[arc.from], inHalf[arc.to], arc.bandwidth);

  std::vector<double> flows(sinks.size(), 0);
  for (unsigned i = 0, e = sinks.size(); i != e; ++i) {
    unsigned t = sinks[i];
    assert(t < n && "max-flow sink out of range");
    if (t == source) {
      flows[i] = std::numeric_limits<double>::infinity();
      continue;
    }
    // The source's own rate counts (it starts at its in-half) and so does
    // the sink's (the flow ends at its out-half). Boykov-Kolmogorov resets
    // the residual capacities, so the network is reused.
    flows[i] =
        boost::boykov_kolmogorov_max_flow(fg, inHalf[source], outHalf[t]);
  }
  return flows;
}
