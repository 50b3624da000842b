//===- FlowPaths.cpp - Widest paths, flow decomposition, finishing --------===//
//
// See FlowPaths.h. The widest path is Dijkstra on the label (bottleneck,
// hops): extending a path never raises its bottleneck and always adds a hop,
// so a label is final when its node is settled and the predecessor arcs
// form a tree of simple paths.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowPaths.h"

#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
constexpr unsigned kNone = ~0u;

using Adjacency = std::vector<std::vector<unsigned>>;

Adjacency buildAdjacency(unsigned numNodes, llvm::ArrayRef<WidthArc> arcs) {
  Adjacency out(numNodes);
  for (unsigned a = 0, e = arcs.size(); a != e; ++a)
    out[arcs[a].from].push_back(a);
  return out;
}

std::vector<unsigned> widestPathOver(unsigned numNodes,
                                     llvm::ArrayRef<WidthArc> arcs,
                                     const Adjacency &out, unsigned source,
                                     unsigned sink, double minWidth,
                                     double &bottleneck) {
  bottleneck = 0;
  if (source == sink)
    return {};
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> width(numNodes, 0);
  std::vector<unsigned> hops(numNodes, kNone);
  std::vector<unsigned> pred(numNodes, kNone);
  std::vector<bool> settled(numNodes, false);
  // (bottleneck, hops, node): the best label on top, then the lower node.
  using Label = std::tuple<double, unsigned, unsigned>;
  auto worse = [](const Label &a, const Label &b) {
    if (std::get<0>(a) != std::get<0>(b))
      return std::get<0>(a) < std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b))
      return std::get<1>(a) > std::get<1>(b);
    return std::get<2>(a) > std::get<2>(b);
  };
  std::priority_queue<Label, std::vector<Label>, decltype(worse)> heap(worse);
  width[source] = inf;
  hops[source] = 0;
  heap.push({inf, 0, source});
  while (!heap.empty()) {
    auto [w, h, u] = heap.top();
    heap.pop();
    if (settled[u] || w != width[u] || h != hops[u])
      continue;
    settled[u] = true;
    if (u == sink)
      break;
    for (unsigned a : out[u]) {
      const WidthArc &arc = arcs[a];
      if (!(arc.width > minWidth) || settled[arc.to])
        continue;
      double nw = std::min(w, arc.width);
      unsigned nh = h + 1;
      unsigned v = arc.to;
      if (nw > width[v] || (nw == width[v] && nh < hops[v])) {
        width[v] = nw;
        hops[v] = nh;
        pred[v] = a;
        heap.push({nw, nh, v});
      }
    }
  }
  if (!settled[sink])
    return {};
  std::vector<unsigned> path;
  for (unsigned v = sink; v != source; v = arcs[pred[v]].from)
    path.push_back(pred[v]);
  std::reverse(path.begin(), path.end());
  bottleneck = width[sink];
  return path;
}
} // namespace


llvm::Error detail::checkOptions(const SolveOptions &o) {
  if (!(o.relativeTolerance > 0 && o.relativeTolerance < 1))
    return makeError(
        llvm::formatv("relative tolerance must lie in (0, 1), got {0}",
                      formatNumber(o.relativeTolerance)));
  if (!(o.saturationTolerance >= 0 && o.saturationTolerance < 1))
    return makeError(
        llvm::formatv("saturation tolerance must lie in [0, 1), got {0}",
                      formatNumber(o.saturationTolerance)));
  return llvm::Error::success();
}

std::vector<unsigned> detail::widestPath(unsigned numNodes,
                                         llvm::ArrayRef<WidthArc> arcs,
                                         unsigned source, unsigned sink,
                                         double minWidth, double &bottleneck) {
  return widestPathOver(numNodes, arcs, buildAdjacency(numNodes, arcs), source,
                        sink, minWidth, bottleneck);
}

std::vector<FlowPath> detail::decomposeFlow(unsigned numNodes,
                                            std::vector<WidthArc> arcs,
                                            unsigned source, unsigned sink,
                                            double epsilon) {
  Adjacency out = buildAdjacency(numNodes, arcs);
  std::vector<FlowPath> paths;
  // Each round empties at least the bottleneck arc, so at most |arcs|.
  for (size_t round = 0, e = arcs.size(); round <= e; ++round) {
    double bottleneck = 0;
    std::vector<unsigned> path =
        widestPathOver(numNodes, arcs, out, source, sink, epsilon, bottleneck);
    if (path.empty() || !(bottleneck > epsilon))
      break;
    for (unsigned a : path)
      arcs[a].width = arcs[a].width - bottleneck;
    paths.push_back({std::move(path), bottleneck});
  }
  return paths;
}

void detail::fillArcUsage(const FlowNetwork &net, FlowSchedule &schedule,
                          double saturationTolerance) {
  schedule.arcs.assign(net.numArcs(), ArcUsage());
  schedule.saturatedArcs.clear();
  for (const DemandRoute &r : schedule.routes)
    for (const PathFlow &p : r.paths)
      for (unsigned a : p.arcs)
        schedule.arcs[a].bytes += p.bytes;
  if (!(schedule.makespan > 0))
    return;
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a) {
    ArcUsage &u = schedule.arcs[a];
    u.utilisation = u.bytes / (net.arcs[a].capacity * schedule.makespan);
    u.saturated = u.bytes > 0 && u.utilisation >= 1 - saturationTolerance;
    if (u.saturated)
      schedule.saturatedArcs.push_back(a);
  }
}

namespace {
using PairBytes = std::map<std::pair<unsigned, unsigned>, double>;

/// A pair far below the solver's precision (a byte next to terabytes in
/// one LP) can come out of the decomposition without a path. Such a pair
/// takes the widest path over the capacity the other pairs leave at their
/// makespan (or over plain capacities if none is left); a larger pair
/// without a path is an error.
llvm::Error completePairs(const FlowNetwork &net, const PairBytes &pairBytes,
                          PairPaths &paths) {
  double largest = 0;
  for (const auto &[pair, bytes] : pairBytes)
    largest = std::max(largest, bytes);
  std::vector<std::pair<unsigned, unsigned>> missing;
  std::vector<double> load(net.numArcs(), 0);
  for (const auto &[pair, bytes] : pairBytes) {
    auto it = paths.find(pair);
    double extracted = 0;
    if (it != paths.end())
      for (const FlowPath &p : it->second)
        extracted += p.amount;
    if (!(extracted > 0)) {
      missing.push_back(pair);
      continue;
    }
    for (const FlowPath &p : it->second)
      for (unsigned a : p.arcs)
        load[a] += p.amount / extracted * bytes;
  }
  if (missing.empty())
    return llvm::Error::success();
  double makespan = 0;
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
    makespan = std::max(makespan, load[a] / net.arcs[a].capacity);
  std::vector<WidthArc> spare, full;
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a) {
    const FlowArc &arc = net.arcs[a];
    spare.push_back(
        {arc.from, arc.to, std::max(0.0, arc.capacity * makespan - load[a])});
    full.push_back({arc.from, arc.to, arc.capacity});
  }
  for (const auto &pair : missing) {
    double bytes = pairBytes.at(pair);
    if (bytes > 1e-6 * largest)
      return makeError(llvm::formatv("the decomposed flow has no path from "
                                     "node {0} to node {1}",
                                     pair.first, pair.second));
    double width = 0;
    std::vector<unsigned> path =
        widestPath(net.numNodes(), spare, pair.first, pair.second, 0, width);
    if (path.empty())
      path =
          widestPath(net.numNodes(), full, pair.first, pair.second, 0, width);
    if (path.empty())
      return makeError(llvm::formatv("no path from node {0} to node {1}",
                                     pair.first, pair.second));
    for (unsigned a : path)
      spare[a].width = std::max(0.0, spare[a].width - bytes);
    paths[pair] = {FlowPath{std::move(path), bytes}};
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<FlowSchedule>
detail::finishConstantRate(const FlowNetwork &net,
                           llvm::ArrayRef<Demand> demands, PairPaths paths,
                           ScheduleMethod method, double saturationTolerance) {
  FlowSchedule s;
  s.method = method;
  s.routes.reserve(demands.size());
  // Bytes of every pair over all demands, to split a pair's paths among
  // duplicate demands in proportion.
  PairBytes pairBytes;
  for (const Demand &d : demands)
    if (!d.isLocal() && d.bytes > 0)
      pairBytes[{d.source, d.destination}] += d.bytes;
  if (llvm::Error err = completePairs(net, pairBytes, paths))
    return std::move(err);

  for (unsigned i = 0, e = demands.size(); i != e; ++i) {
    const Demand &d = demands[i];
    DemandRoute route;
    route.demand = d;
    if (!d.isLocal() && d.bytes > 0) {
      auto it = paths.find({d.source, d.destination});
      double extracted = 0;
      if (it != paths.end())
        for (const FlowPath &p : it->second)
          extracted += p.amount;
      assert(extracted > 0 && "completePairs gave every pair a path");
      const std::vector<FlowPath> &pp = it->second;
      double assigned = 0;
      for (size_t k = 0, ke = pp.size(); k != ke; ++k) {
        double bytes = k + 1 == ke ? d.bytes - assigned
                                   : pp[k].amount / extracted * d.bytes;
        bytes = std::min(bytes, d.bytes - assigned);
        if (!(bytes > 0))
          continue;
        assigned += bytes;
        PathFlow p;
        p.arcs = pp[k].arcs;
        p.bytes = bytes;
        route.paths.push_back(std::move(p));
      }
    }
    s.routes.push_back(std::move(route));
  }

  std::vector<double> load(net.numArcs(), 0);
  for (const DemandRoute &r : s.routes)
    for (const PathFlow &p : r.paths)
      for (unsigned a : p.arcs)
        load[a] += p.bytes;
  double makespan = 0;
  for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
    makespan = std::max(makespan, load[a] / net.arcs[a].capacity);

  if (makespan > 0) {
    // Rates are bytes / T; make sure rounding leaves every arc within its
    // capacity at those rates.
    for (unsigned attempt = 0;; ++attempt) {
      std::vector<double> rate(net.numArcs(), 0);
      for (const DemandRoute &r : s.routes)
        for (const PathFlow &p : r.paths)
          for (unsigned a : p.arcs)
            rate[a] += p.bytes / makespan;
      bool fits = true;
      for (unsigned a = 0, e = net.numArcs(); a != e && fits; ++a)
        fits = rate[a] <= net.arcs[a].capacity;
      if (fits)
        break;
      assert(attempt < 64 && "makespan does not converge to a feasible rate");
      makespan = attempt < 8
                     ? std::nextafter(makespan,
                                      std::numeric_limits<double>::infinity())
                     : makespan * (1 + 1e-15);
    }
  }
  s.makespan = makespan;
  for (DemandRoute &r : s.routes) {
    for (PathFlow &p : r.paths) {
      p.rate = p.bytes / makespan;
      p.finish = makespan;
      p.segments = {{0, makespan, p.rate}};
    }
    r.finish = r.paths.empty() ? 0 : makespan;
  }
  fillArcUsage(net, s, saturationTolerance);
  return s;
}
