//===- PathLP.cpp - Column-generation LP for large multi-commodity --------===//
//
// See PathLP.h and docs/flows.md ("Scaling the LP"). GLPK keeps the basis
// between rounds: new path columns enter non-basic at zero and new arc rows
// enter basic, so each re-solve is a warm primal simplex.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/PathLP.h"
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/Glpk.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <tuple>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
constexpr unsigned kNone = ~0u;

/// Shortest-path trees under arc lengths, ties by fewer hops then lower node
/// (and the first arc found). `reverse` grows the tree into `root` along
/// arcs taken backwards.
class PathTrees {
public:
  PathTrees(const FlowNetwork &net, bool reverse) : net(net), reverse(reverse) {
    adj.resize(net.numNodes());
    for (unsigned a = 0, e = net.numArcs(); a != e; ++a)
      adj[reverse ? net.arcs[a].to : net.arcs[a].from].push_back(a);
  }

  /// Fills dist and pred (the tree arc at each node) from `root`; stops once
  /// `targets` (the other ends of the root's pairs) are all settled.
  void run(unsigned root, const std::vector<double> &length,
           llvm::ArrayRef<unsigned> targets) {
    unsigned n = net.numNodes();
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (dist.size() != n) {
      dist.assign(n, inf);
      hops.assign(n, kNone);
      pred.assign(n, kNone);
      done.assign(n, false);
      wanted.assign(n, false);
    }
    for (unsigned v : touched) {
      dist[v] = inf;
      hops[v] = kNone;
      pred[v] = kNone;
      done[v] = false;
      wanted[v] = false;
    }
    touched.clear();
    for (unsigned t : targets)
      touched.push_back(t);
    heap = {};
    unsigned left = 0;
    for (unsigned t : targets)
      if (!wanted[t]) {
        wanted[t] = true;
        ++left;
      }
    touched.push_back(root);
    dist[root] = 0;
    hops[root] = 0;
    heap.push({0, 0, root});
    while (!heap.empty()) {
      auto [d, h, u] = heap.top();
      heap.pop();
      if (done[u] || d != dist[u] || h != hops[u])
        continue;
      done[u] = true;
      if (wanted[u] && --left == 0)
        break;
      for (unsigned a : adj[u]) {
        unsigned v = reverse ? net.arcs[a].from : net.arcs[a].to;
        if (done[v])
          continue;
        double nd = d + length[a];
        unsigned nh = h + 1;
        if (nd < dist[v] || (nd == dist[v] && nh < hops[v])) {
          if (dist[v] == inf)
            touched.push_back(v);
          dist[v] = nd;
          hops[v] = nh;
          pred[v] = a;
          heap.push({nd, nh, v});
        }
      }
    }
  }

  /// The arcs from source to destination of the tree path through `other`
  /// (the non-root end).
  std::vector<unsigned> path(unsigned other) const {
    std::vector<unsigned> arcs;
    unsigned v = other;
    while (pred[v] != kNone) {
      arcs.push_back(pred[v]);
      v = reverse ? net.arcs[pred[v]].to : net.arcs[pred[v]].from;
    }
    if (!reverse)
      std::reverse(arcs.begin(), arcs.end());
    return arcs;
  }

  std::vector<double> dist;

private:
  const FlowNetwork &net;
  bool reverse;
  std::vector<std::vector<unsigned>> adj;
  std::vector<unsigned> hops, pred, touched;
  std::vector<bool> done, wanted;
  using Label = std::tuple<double, unsigned, unsigned>;
  std::priority_queue<Label, std::vector<Label>, std::greater<Label>> heap;
};

struct Pair {
  unsigned source, destination;
  double weight; // bytes / byteUnit
  int row = 0;   // convexity row
  std::set<std::vector<unsigned>> known;
  std::vector<std::pair<int, std::vector<unsigned>>> columns;
};
} // namespace

llvm::Expected<FlowSchedule>
flow::solveMultiCommodityPaths(const FlowNetwork &net,
                               llvm::ArrayRef<Demand> demands,
                               const PathLPOptions &options,
                               PathLPInfo *info) {
  if (!(options.relativeGap >= 0 && options.relativeGap < 1))
    return makeError(llvm::formatv("relative gap must be in [0, 1), got {0}",
                                   formatNumber(options.relativeGap)));
  if (!(options.saturationTolerance >= 0 && options.saturationTolerance < 1))
    return makeError(
        llvm::formatv("saturation tolerance must be in [0, 1), got {0}",
                      formatNumber(options.saturationTolerance)));
  if (options.maxRounds == 0)
    return makeError("the path LP needs at least one pricing round");
  if (llvm::Error err = validateDemands(net, demands))
    return std::move(err);
  std::vector<Demand> merged = mergeDemands(demands);
  PathLPInfo local;
  PathLPInfo &out = info ? *info : local;
  out = PathLPInfo();
  if (merged.empty()) {
    auto s =
        finishConstantRate(net, demands, {}, ScheduleMethod::MultiCommodityLP,
                           options.saturationTolerance);
    if (s)
      s->lowerBound = 0;
    out.converged = true;
    return s;
  }

  unsigned numArcs = net.numArcs();
  double byteUnit = 0, capUnit = 0;
  for (const Demand &d : merged)
    byteUnit = std::max(byteUnit, d.bytes);
  for (const FlowArc &a : net.arcs)
    capUnit = std::max(capUnit, a.capacity);

  // Trees rooted at sources, or at destinations if there are fewer.
  std::map<unsigned, std::vector<unsigned>> bySource, byDestination;
  std::vector<Pair> pairs;
  for (const Demand &d : merged) {
    bySource[d.source].push_back(pairs.size());
    byDestination[d.destination].push_back(pairs.size());
    pairs.push_back({d.source, d.destination, d.bytes / byteUnit, 0, {}, {}});
  }
  bool reverse = byDestination.size() < bySource.size();
  const auto &roots = reverse ? byDestination : bySource;
  PathTrees trees(net, reverse);

  GlpkProb lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), 1);
  glp_set_col_bnds(lp.get(), 1, GLP_LO, 0, 0);
  glp_set_obj_coef(lp.get(), 1, 1);
  for (Pair &p : pairs) {
    p.row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), p.row, GLP_FX, 1, 1);
  }
  std::vector<int> arcRow(numArcs, 0);
  std::vector<int> ind;
  std::vector<double> val;
  auto addPath = [&](Pair &p, std::vector<unsigned> arcs) {
    if (!p.known.insert(arcs).second)
      return false;
    ind.assign(1, 0);
    val.assign(1, 0);
    ind.push_back(p.row);
    val.push_back(1);
    for (unsigned a : arcs) {
      if (!arcRow[a]) {
        int row = glp_add_rows(lp.get(), 1);
        glp_set_row_bnds(lp.get(), row, GLP_UP, 0, 0);
        int tauCol[2] = {0, 1};
        double tauVal[2] = {0, -net.arcs[a].capacity / capUnit};
        glp_set_mat_row(lp.get(), row, 1, tauCol, tauVal);
        arcRow[a] = row;
      }
      ind.push_back(arcRow[a]);
      val.push_back(p.weight);
    }
    int col = glp_add_cols(lp.get(), 1);
    glp_set_col_bnds(lp.get(), col, GLP_LO, 0, 0);
    glp_set_mat_col(lp.get(), col, static_cast<int>(ind.size()) - 1,
                    ind.data(), val.data());
    p.columns.push_back({col, std::move(arcs)});
    ++out.paths;
    return true;
  };

  std::map<unsigned, std::vector<unsigned>> targets;
  for (const auto &[root, members] : roots)
    for (unsigned k : members)
      targets[root].push_back(reverse ? pairs[k].source : pairs[k].destination);

  // Initial columns by multiplicative weights (the Garg-Koenemann /
  // Fleischer update): each warm-up phase routes every pair wholly on its
  // shortest path under lengths (1 / c_e) exp(eps * load_e / (c_e * T1)),
  // where load_e accumulates the phases' bytes and T1 is the first phase's
  // makespan, so later phases avoid the arcs earlier ones loaded and the
  // master starts with spread-out paths instead of one bottleneck.
  std::vector<double> length(numArcs), load(numArcs, 0);
  for (unsigned a = 0; a != numArcs; ++a)
    length[a] = capUnit / net.arcs[a].capacity;
  double firstPhase = 0;
  auto relength = [&](unsigned a) {
    double t = load[a] * capUnit / net.arcs[a].capacity / firstPhase;
    length[a] = capUnit / net.arcs[a].capacity *
                std::exp(std::min(50.0, options.warmupStep * t));
  };
  for (unsigned phase = 0; phase < std::max(1u, options.warmupPhases);
       ++phase) {
    for (const auto &[root, members] : roots) {
      trees.run(root, length, targets[root]);
      for (unsigned k : members) {
        std::vector<unsigned> arcs =
            trees.path(reverse ? pairs[k].source : pairs[k].destination);
        for (unsigned a : arcs) {
          load[a] += pairs[k].weight;
          if (phase > 0)
            relength(a);
        }
        addPath(pairs[k], std::move(arcs));
      }
    }
    if (phase == 0) {
      for (unsigned a = 0; a != numArcs; ++a)
        firstPhase =
            std::max(firstPhase, load[a] * capUnit / net.arcs[a].capacity);
      if (firstPhase <= 0)
        break;
      for (unsigned a = 0; a != numArcs; ++a)
        relength(a);
    }
  }

  glp_smcp parm = glpkSimplexParams();
  int termOut = glp_term_out(GLP_OFF);
  auto solve = [&]() -> llvm::Error {
    int ret = glp_simplex(lp.get(), &parm);
    if (ret != 0) {
      glp_adv_basis(lp.get(), 0);
      ret = glp_simplex(lp.get(), &parm);
    }
    if (ret != 0)
      return makeError(
          llvm::formatv("glpk simplex failed with code {0} (path LP)", ret));
    if (glp_get_status(lp.get()) != GLP_OPT)
      return makeError(llvm::formatv(
          "glpk found no optimal solution of the path LP (status {0})",
          glp_get_status(lp.get())));
    return llvm::Error::success();
  };
  glp_adv_basis(lp.get(), 0);
  double bestBound = 0, master = 0;
  unsigned iterations = 0;
  for (;;) {
    if (llvm::Error err = solve()) {
      glp_term_out(termOut);
      return std::move(err);
    }
    ++out.rounds;
    master = glp_get_col_prim(lp.get(), 1);
    // Pricing: y_e = -dual of the arc row (>= 0), 0 for arcs without a row.
    double capY = 0;
    for (unsigned a = 0; a != numArcs; ++a) {
      double y = arcRow[a] ? std::max(0.0, -glp_get_row_dual(lp.get(), arcRow[a]))
                           : 0.0;
      length[a] = y;
      capY += y * net.arcs[a].capacity / capUnit;
    }
    double weighted = 0;
    std::vector<std::pair<unsigned, std::vector<unsigned>>> entering;
    for (const auto &[root, members] : roots) {
      trees.run(root, length, targets[root]);
      for (unsigned k : members) {
        Pair &p = pairs[k];
        unsigned other = reverse ? p.source : p.destination;
        double d = trees.dist[other];
        weighted += p.weight * d;
        double u = glp_get_row_dual(lp.get(), p.row);
        if (p.weight * d < u - 1e-9 * std::max(1.0, std::fabs(u)))
          entering.push_back({k, trees.path(other)});
      }
    }
    if (capY > 0)
      bestBound = std::max(bestBound, weighted / capY);
    bool close = master - bestBound <= options.relativeGap * master;
    if (close || entering.empty() || out.rounds >= options.maxRounds) {
      out.converged = close || entering.empty();
      break;
    }
    unsigned added = 0;
    for (auto &[k, arcs] : entering)
      added += addPath(pairs[k], std::move(arcs));
    if (!added) {
      out.converged = true;
      break;
    }
  }
  iterations = glp_get_it_cnt(lp.get());
  glp_term_out(termOut);
  // With no improving column the master is optimal: its T is the bound.
  if (out.converged && bestBound < master &&
      master - bestBound > options.relativeGap * master)
    bestBound = master;

  PairPaths paths;
  for (const Pair &p : pairs)
    for (const auto &[col, arcs] : p.columns) {
      double x = glp_get_col_prim(lp.get(), col);
      if (x <= 1e-12)
        continue;
      FlowPath fp;
      fp.arcs = arcs;
      fp.amount = x * p.weight * byteUnit;
      paths[{p.source, p.destination}].push_back(std::move(fp));
    }
  llvm::Expected<FlowSchedule> s = finishConstantRate(
      net, demands, std::move(paths), ScheduleMethod::MultiCommodityLP,
      options.saturationTolerance);
  if (!s)
    return s.takeError();
  out.masterMakespan = master * byteUnit / capUnit;
  out.lowerBound = std::min(bestBound * byteUnit / capUnit, s->makespan);
  s->lowerBound = out.lowerBound;
  s->stats.commodities = pairs.size();
  s->stats.lpRows = glp_get_num_rows(lp.get());
  s->stats.lpColumns = glp_get_num_cols(lp.get());
  s->stats.simplexIterations = iterations;
  return s;
}
