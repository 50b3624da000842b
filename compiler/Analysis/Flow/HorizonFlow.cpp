//===- HorizonFlow.cpp - Max flow with capacities c_e * T -----------------===//
//
// See HorizonFlow.h. The max flow is Boost.Graph's Boykov-Kolmogorov, as in
// compiler/Analysis/TopoCut.cpp: it is exact about which arcs it empties
// (an augmentation subtracts the bottleneck, leaving that arc at exactly 0),
// so it terminates on floating-point capacities. Later rounds continue from
// the residual graph of the earlier ones by loading the residual capacities
// as the new capacities; the flow on an arc is always its original
// capacity minus its final residual.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/HorizonFlow.h"

#include "compiler/Analysis/BoostMaxFlow.h"

#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
using BoostEdge = analysis::detail::MaxFlowEdge;
using BoostGraph = analysis::detail::MaxFlowGraph;

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Relative slack when comparing a flow value with the target.
constexpr double kReachSlack = 1e-12;
/// Newton steps before falling back to bisection.
constexpr unsigned kMaxNewtonSteps = 64;
} // namespace

struct HorizonFlow::Impl {
  BoostGraph g;
  unsigned superSource = 0, superSink = 0;
  /// Forward edges of the network arcs, supplies and requirements.
  std::vector<BoostEdge> arcEdges, supplyEdges, requirementEdges;
  /// Capacities (scaled) each forward edge started the run with.
  std::vector<double> arcCap, supplyCap, requirementCap;

  explicit Impl(unsigned numNodes) : g(numNodes + 2) {
    superSource = numNodes;
    superSink = numNodes + 1;
  }

  BoostEdge addEdge(unsigned u, unsigned v) {
    auto rev = boost::get(boost::edge_reverse, g);
    BoostEdge e = boost::add_edge(u, v, g).first;
    BoostEdge r = boost::add_edge(v, u, g).first;
    rev[e] = r;
    rev[r] = e;
    return e;
  }

  void setCap(BoostEdge e, double cap) {
    auto capMap = boost::get(boost::edge_capacity, g);
    auto rev = boost::get(boost::edge_reverse, g);
    capMap[e] = cap;
    capMap[rev[e]] = 0;
  }

  double residual(BoostEdge e) const {
    return boost::get(boost::edge_residual_capacity, g)[e];
  }

  /// Boykov-Kolmogorov does not update the reverse residuals of arcs at the
  /// terminals; set them from the forward ones so later rounds see them.
  void fixTerminalReverses() {
    auto capMap = boost::get(boost::edge_capacity, g);
    auto res = boost::get(boost::edge_residual_capacity, g);
    auto rev = boost::get(boost::edge_reverse, g);
    auto fix = [&](BoostEdge e) {
      BoostEdge r = rev[e];
      res[r] = capMap[e] + capMap[r] - res[e];
    };
    for (BoostEdge e : supplyEdges)
      fix(e);
    for (BoostEdge e : requirementEdges)
      fix(e);
  }

  double maxFlow() {
    double value = boost::boykov_kolmogorov_max_flow(g, superSource, superSink);
    fixTerminalReverses();
    return value;
  }

  /// Loads every edge's residual as its capacity, so the next max flow
  /// augments the current flow.
  void continueFromResidual() {
    auto capMap = boost::get(boost::edge_capacity, g);
    auto res = boost::get(boost::edge_residual_capacity, g);
    for (auto [it, end] = boost::edges(g); it != end; ++it)
      capMap[*it] = res[*it];
  }
};

HorizonFlow::HorizonFlow(const FlowNetwork &net, std::vector<Terminal> supplies,
                         std::vector<Terminal> requirements, double target)
    : net(net), supplies(std::move(supplies)),
      requirements(std::move(requirements)), targetBytes(target),
      impl(std::make_unique<Impl>(net.numNodes())) {
  assert(target > 0 && std::isfinite(target) && "target must be positive");
  for (const FlowArc &a : net.arcs)
    impl->arcEdges.push_back(impl->addEdge(a.from, a.to));
  for (const Terminal &t : this->supplies)
    impl->supplyEdges.push_back(impl->addEdge(impl->superSource, t.node));
  for (const Terminal &t : this->requirements)
    impl->requirementEdges.push_back(impl->addEdge(t.node, impl->superSink));
  impl->arcCap.assign(net.numArcs(), 0);
  impl->supplyCap.assign(this->supplies.size(), 0);
  impl->requirementCap.assign(this->requirements.size(), 0);
}

HorizonFlow::~HorizonFlow() = default;

bool HorizonFlow::reaches(double value) const {
  return value >= targetBytes * (1 - kReachSlack);
}

double HorizonFlow::run(double horizon) {
  ++numRuns;
  Impl &m = *impl;
  // Scaled units: bytes / target.
  double finite = 0;
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a) {
    m.arcCap[a] = net.arcs[a].capacity * horizon / targetBytes;
    finite += m.arcCap[a];
  }
  for (const Terminal &t : supplies)
    if (std::isfinite(t.bytes))
      finite += t.bytes / targetBytes;
  for (const Terminal &t : requirements)
    if (std::isfinite(t.bytes))
      finite += t.bytes / targetBytes;
  // Wider than any cut of finite arcs, so never part of a min cut.
  const double unbounded = 2 * (finite + 1);
  auto scaled = [&](double bytes) {
    return std::isfinite(bytes) ? bytes / targetBytes : unbounded;
  };

  unsigned lastPhase = 0;
  for (const Terminal &t : supplies)
    lastPhase = std::max(lastPhase, t.phase);
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
    m.setCap(m.arcEdges[a], m.arcCap[a]);
  for (unsigned j = 0, e = requirements.size(); j != e; ++j) {
    m.requirementCap[j] = scaled(requirements[j].bytes);
    m.setCap(m.requirementEdges[j], m.requirementCap[j]);
  }
  for (unsigned i = 0, e = supplies.size(); i != e; ++i) {
    m.supplyCap[i] = scaled(supplies[i].bytes);
    m.setCap(m.supplyEdges[i], supplies[i].phase == 0 ? m.supplyCap[i] : 0);
  }
  double value = m.maxFlow();
  for (unsigned phase = 1; phase <= lastPhase; ++phase) {
    bool any = false;
    for (const Terminal &t : supplies)
      any |= t.phase == phase;
    if (!any)
      continue;
    m.continueFromResidual();
    auto capMap = boost::get(boost::edge_capacity, m.g);
    for (unsigned i = 0, e = supplies.size(); i != e; ++i)
      if (supplies[i].phase == phase)
        capMap[m.supplyEdges[i]] = m.supplyCap[i];
    value += m.maxFlow();
  }
  return value * targetBytes;
}

FlowCut HorizonFlow::makeCut(const std::vector<bool> &inS) const {
  FlowCut c;
  for (unsigned v = 0, e = net.numNodes(); v != e; ++v)
    if (inS[v])
      c.sourceSide.push_back(v);
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a) {
    const FlowArc &arc = net.arcs[a];
    if (inS[arc.from] && !inS[arc.to]) {
      c.arcs.push_back(a);
      c.capacity += arc.capacity;
    }
  }
  // The cut's terminal part: supplies outside S, requirements inside.
  double fixed = 0;
  for (const Terminal &t : supplies)
    if (!inS[t.node])
      fixed += t.bytes;
  for (const Terminal &t : requirements)
    if (inS[t.node])
      fixed += t.bytes;
  c.bytes = std::isfinite(fixed) ? targetBytes - fixed : -kInf;
  return c;
}

FlowCut HorizonFlow::residualCut() const {
  const Impl &m = *impl;
  unsigned n = net.numNodes();
  std::vector<bool> seen(n + 2, false);
  std::vector<unsigned> stack = {m.superSource};
  seen[m.superSource] = true;
  auto res = boost::get(boost::edge_residual_capacity, m.g);
  while (!stack.empty()) {
    unsigned u = stack.back();
    stack.pop_back();
    for (auto [it, end] = boost::out_edges(u, m.g); it != end; ++it) {
      unsigned v = boost::target(*it, m.g);
      if (seen[v] || v == m.superSink || !(res[*it] > 0))
        continue;
      seen[v] = true;
      stack.push_back(v);
    }
  }
  seen.resize(n);
  return makeCut(seen);
}

std::optional<FlowCut> HorizonFlow::initialCut() const {
  unsigned n = net.numNodes();
  std::optional<FlowCut> best;
  auto consider = [&](const std::vector<bool> &inS) {
    FlowCut c = makeCut(inS);
    if (!(c.bytes > 0) || !(c.capacity > 0))
      return;
    if (!best || c.bound() > best->bound())
      best = std::move(c);
  };
  std::vector<bool> inS(n, false);
  for (const Terminal &t : supplies)
    inS[t.node] = true;
  consider(inS);
  inS.assign(n, true);
  for (const Terminal &t : requirements)
    inS[t.node] = false;
  consider(inS);
  for (unsigned v = 0; v < n; ++v) {
    inS.assign(n, false);
    inS[v] = true;
    consider(inS);
    inS.assign(n, true);
    inS[v] = false;
    consider(inS);
  }
  return best;
}

PairPaths HorizonFlow::decompose() const {
  const Impl &m = *impl;
  unsigned n = net.numNodes(), numArcs = net.numArcs();
  std::vector<WidthArc> arcs;
  arcs.reserve(numArcs + supplies.size() + requirements.size());
  // Flow = starting capacity - final residual, back in bytes.
  auto flowOf = [&](BoostEdge e, double cap) {
    return std::max(0.0, cap - m.residual(e)) * targetBytes;
  };
  for (unsigned a = 0; a != numArcs; ++a)
    arcs.push_back(
        {net.arcs[a].from, net.arcs[a].to, flowOf(m.arcEdges[a], m.arcCap[a])});
  for (unsigned i = 0, e = supplies.size(); i != e; ++i)
    arcs.push_back({m.superSource, supplies[i].node,
                    flowOf(m.supplyEdges[i], m.supplyCap[i])});
  for (unsigned j = 0, e = requirements.size(); j != e; ++j)
    arcs.push_back({requirements[j].node, m.superSink,
                    flowOf(m.requirementEdges[j], m.requirementCap[j])});

  // Below a millionth of a millionth of the smallest terminal, flow is
  // rounding noise; every pair carries at least that terminal's share.
  double smallest = targetBytes;
  for (const Terminal &t : supplies)
    if (t.bytes > 0)
      smallest = std::min(smallest, t.bytes);
  for (const Terminal &t : requirements)
    if (t.bytes > 0)
      smallest = std::min(smallest, t.bytes);
  std::vector<FlowPath> paths = decomposeFlow(
      n + 2, std::move(arcs), m.superSource, m.superSink, 1e-12 * smallest);
  PairPaths out;
  for (FlowPath &p : paths) {
    assert(p.arcs.size() >= 2 && "a path passes a supply and a requirement");
    unsigned s = supplies[p.arcs.front() - numArcs].node;
    unsigned t = requirements[p.arcs.back() - numArcs - supplies.size()].node;
    FlowPath stripped;
    stripped.arcs.assign(p.arcs.begin() + 1, p.arcs.end() - 1);
    stripped.amount = p.amount;
    out[{s, t}].push_back(std::move(stripped));
  }
  return out;
}

namespace {
void keepBest(std::optional<FlowCut> &best, FlowCut c) {
  if (!(c.bytes > 0) || !(c.capacity > 0))
    return;
  if (!best || c.bound() > best->bound())
    best = std::move(c);
}

/// Bisection between an infeasible `lo` and a feasible `hi`, the horizon of
/// the last run; leaves the flow at the returned hi in `hf`.
double bisect(HorizonFlow &hf, double lo, double hi, double relTol,
              std::optional<FlowCut> &best) {
  bool lastRunAtHi = true;
  while (hi - lo > relTol * hi) {
    double mid = lo + (hi - lo) / 2;
    if (!(mid > lo && mid < hi))
      break;
    if (hf.reaches(hf.run(mid))) {
      hi = mid;
      lastRunAtHi = true;
    } else {
      lo = mid;
      keepBest(best, hf.residualCut());
      lastRunAtHi = false;
    }
  }
  if (!lastRunAtHi)
    hf.run(hi);
  return hi;
}
} // namespace

llvm::Expected<HorizonResult> detail::searchHorizon(HorizonFlow &hf,
                                                    HorizonSearch method,
                                                    double relativeTolerance) {
  HorizonResult r;
  r.bindingCut = hf.initialCut();
  double lo = r.bindingCut ? r.bindingCut->bound() : 0;
  if (lo == 0) {
    // No cut needs time: everything can arrive at T = 0 (e.g. all of it is
    // served locally), or the first probe finds a cut that does.
    if (hf.reaches(hf.run(0))) {
      r.horizon = 0;
      return r;
    }
    FlowCut c = hf.residualCut();
    if (!(c.capacity > 0) || !(c.bytes > 0))
      return makeError("the demand cannot be routed: a cut without capacity "
                       "separates it");
    lo = c.bound();
    keepBest(r.bindingCut, std::move(c));
  }

  auto infeasibleAt = [&](double t) -> llvm::Error {
    return makeError(llvm::formatv("the demand cannot be routed: no flow "
                                   "reaches the target at horizon {0} s",
                                   formatNumber(t)));
  };

  if (method == HorizonSearch::Parametric) {
    double t = lo;
    for (unsigned step = 0; step < kMaxNewtonSteps; ++step) {
      if (hf.reaches(hf.run(t))) {
        r.horizon = t;
        return r;
      }
      FlowCut c = hf.residualCut();
      if (!(c.capacity > 0) || !(c.bytes > 0))
        return infeasibleAt(t);
      // The cut's line a + c T meets the target at its bound, which is a
      // lower bound of the optimum; past it, another cut binds.
      double next = c.bound();
      keepBest(r.bindingCut, std::move(c));
      if (!(next > t * (1 + 1e-15)))
        next = t * (1 + relativeTolerance);
      t = next;
    }
    lo = t;
  }

  // Bisection: find a feasible hi by doubling, then halve the gap.
  double hi = lo * 2;
  for (unsigned step = 0;; ++step) {
    if (!std::isfinite(hi) || step > 2000)
      return infeasibleAt(hi);
    if (hf.reaches(hf.run(hi)))
      break;
    lo = hi;
    keepBest(r.bindingCut, hf.residualCut());
    hi *= 2;
  }
  r.horizon = bisect(hf, lo, hi, relativeTolerance, r.bindingCut);
  return r;
}
