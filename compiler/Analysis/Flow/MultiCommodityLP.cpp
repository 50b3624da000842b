//===- MultiCommodityLP.cpp - Min makespan of arbitrary demands -----------===//
//
// The linear program (see docs/flows.md):
//   minimise   T
//   subject to out_k(v) - in_k(v) = supply_k(v) - requirement_k(v)
//                                        for every commodity k and node v,
//              sum_k f[k][e] <= c_e * T  for every arc e,
//              f[k][e] >= 0.
// A commodity is the demands of one source, of one destination, or one
// (source, destination) pair. Each commodity only gets variables for the
// arcs that lie on some path from its supplies to its requirements (and,
// with a single source or sink, not for arcs into that source or out of
// that sink, which could only carry cycles). Bytes
// are scaled by the largest demand and capacities by the widest arc, so the
// coefficients GLPK sees are near 1. The optimal flows are split into paths
// per commodity and the makespan recomputed from the routed bytes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/Glpk.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
struct Commodity {
  /// (node, bytes), ascending node.
  std::vector<std::pair<unsigned, double>> supplies;
  std::vector<std::pair<unsigned, double>> requirements;
  double total = 0;
};

CommodityGrouping resolveGrouping(CommodityGrouping g,
                                  llvm::ArrayRef<Demand> merged) {
  if (g != CommodityGrouping::Auto)
    return g;
  std::map<unsigned, bool> sources, destinations;
  for (const Demand &d : merged) {
    sources[d.source] = true;
    destinations[d.destination] = true;
  }
  return destinations.size() < sources.size()
             ? CommodityGrouping::PerDestination
             : CommodityGrouping::PerSource;
}

/// Commodities in ascending order of their key (source, destination or
/// pair); `merged` is sorted by (source, destination).
std::vector<Commodity> groupCommodities(llvm::ArrayRef<Demand> merged,
                                        CommodityGrouping g) {
  std::map<std::pair<unsigned, unsigned>, std::map<unsigned, double>> sup, req;
  for (const Demand &d : merged) {
    std::pair<unsigned, unsigned> key;
    switch (g) {
    case CommodityGrouping::PerSource:
      key = {d.source, 0};
      break;
    case CommodityGrouping::PerDestination:
      key = {d.destination, 0};
      break;
    case CommodityGrouping::PerDemand:
      key = {d.source, d.destination};
      break;
    case CommodityGrouping::Auto:
      llvm_unreachable("grouping resolved before use");
    }
    sup[key][d.source] += d.bytes;
    req[key][d.destination] += d.bytes;
  }
  std::vector<Commodity> out;
  for (const auto &[key, s] : sup) {
    Commodity c;
    c.supplies.assign(s.begin(), s.end());
    const std::map<unsigned, double> &r = req[key];
    c.requirements.assign(r.begin(), r.end());
    for (const auto &[node, bytes] : c.supplies)
      c.total += bytes;
    out.push_back(std::move(c));
  }
  return out;
}

/// Nodes reachable from `starts` along arcs (forward) or against them.
std::vector<bool> reach(const FlowNetwork &net,
                        const std::vector<std::pair<unsigned, double>> &starts,
                        bool forward) {
  unsigned n = net.numNodes();
  std::vector<std::vector<unsigned>> adj(n);
  for (const FlowArc &a : net.arcs) {
    if (forward)
      adj[a.from].push_back(a.to);
    else
      adj[a.to].push_back(a.from);
  }
  std::vector<bool> seen(n, false);
  std::vector<unsigned> stack;
  for (const auto &[node, bytes] : starts)
    if (!seen[node]) {
      seen[node] = true;
      stack.push_back(node);
    }
  while (!stack.empty()) {
    unsigned u = stack.back();
    stack.pop_back();
    for (unsigned v : adj[u])
      if (!seen[v]) {
        seen[v] = true;
        stack.push_back(v);
      }
  }
  return seen;
}

} // namespace

llvm::Expected<FlowSchedule>
flow::solveMultiCommodity(const FlowNetwork &net,
                          llvm::ArrayRef<Demand> demands,
                          const SolveOptions &options) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = validateDemands(net, demands))
    return std::move(err);
  std::vector<Demand> merged = mergeDemands(demands);
  if (merged.empty()) {
    auto s =
        finishConstantRate(net, demands, {}, ScheduleMethod::MultiCommodityLP,
                           options.saturationTolerance);
    if (s)
      s->lowerBound = 0;
    return s;
  }
  std::vector<Commodity> commodities =
      groupCommodities(merged, resolveGrouping(options.grouping, merged));

  unsigned n = net.numNodes(), numArcs = net.numArcs();
  double byteUnit = 0, capUnit = 0;
  for (const Demand &d : merged)
    byteUnit = std::max(byteUnit, d.bytes);
  for (const FlowArc &a : net.arcs)
    capUnit = std::max(capUnit, a.capacity);

  // Column 1 is the scaled horizon tau = T * capUnit / byteUnit; then one
  // column per (commodity, useful arc). GLPK indices start at 1.
  GlpkProb lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_cols(lp.get(), 1);
  glp_set_col_bnds(lp.get(), 1, GLP_LO, 0, 0);
  glp_set_obj_coef(lp.get(), 1, 1);

  std::vector<int> ia = {0}, ja = {0};
  std::vector<double> ar = {0};
  auto addEntry = [&](int row, int col, double v) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  // column of (k, e), 0 if the arc is useless to k.
  std::vector<std::vector<int>> column(commodities.size(),
                                       std::vector<int>(numArcs, 0));
  std::vector<std::vector<int>> arcUsers(numArcs);
  for (unsigned k = 0, ke = commodities.size(); k != ke; ++k) {
    const Commodity &c = commodities[k];
    std::vector<bool> fwd = reach(net, c.supplies, true);
    std::vector<bool> bwd = reach(net, c.requirements, false);
    // With one supply node, flow into it only closes cycles; likewise out
    // of a single requirement node.
    std::optional<unsigned> onlySupply, onlyRequirement;
    if (c.supplies.size() == 1)
      onlySupply = c.supplies.front().first;
    if (c.requirements.size() == 1)
      onlyRequirement = c.requirements.front().first;
    for (unsigned e = 0; e != numArcs; ++e) {
      const FlowArc &a = net.arcs[e];
      if (!fwd[a.from] || !bwd[a.to] || a.to == onlySupply ||
          a.from == onlyRequirement)
        continue;
      int col = glp_add_cols(lp.get(), 1);
      glp_set_col_bnds(lp.get(), col, GLP_LO, 0, 0);
      column[k][e] = col;
      arcUsers[e].push_back(col);
    }
    // Conservation rows over the nodes between supplies and requirements.
    std::vector<double> rhs(n, 0);
    for (const auto &[node, bytes] : c.supplies)
      rhs[node] += bytes / byteUnit;
    for (const auto &[node, bytes] : c.requirements)
      rhs[node] -= bytes / byteUnit;
    std::vector<int> rowOf(n, 0);
    for (unsigned v = 0; v != n; ++v) {
      if (!fwd[v] || !bwd[v])
        continue;
      int row = glp_add_rows(lp.get(), 1);
      glp_set_row_bnds(lp.get(), row, GLP_FX, rhs[v], rhs[v]);
      rowOf[v] = row;
    }
    for (unsigned e = 0; e != numArcs; ++e) {
      int col = column[k][e];
      if (!col)
        continue;
      addEntry(rowOf[net.arcs[e].from], col, 1);
      addEntry(rowOf[net.arcs[e].to], col, -1);
    }
  }
  // Capacity rows: sum_k f[k][e] - (c_e / capUnit) tau <= 0.
  for (unsigned e = 0; e != numArcs; ++e) {
    if (arcUsers[e].empty())
      continue;
    int row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, GLP_UP, 0, 0);
    for (int col : arcUsers[e])
      addEntry(row, col, 1);
    addEntry(row, 1, -net.arcs[e].capacity / capUnit);
  }
  int nonzeros = static_cast<int>(ia.size()) - 1;
  glp_load_matrix(lp.get(), nonzeros, ia.data(), ja.data(), ar.data());

  int ret = runGlpkSimplex(lp.get(), options.exactLP);
  if (ret != 0)
    return makeError(llvm::formatv("glpk {0}simplex failed with code {1}",
                                   options.exactLP ? "exact " : "", ret));
  int status = glp_get_status(lp.get());
  if (status != GLP_OPT)
    return makeError(
        llvm::formatv("glpk found no optimal solution (status {0})", status));

  double lpMakespan = glp_get_col_prim(lp.get(), 1) * byteUnit / capUnit;

  // Paths per commodity; pairs are distinct across commodities.
  PairPaths paths;
  for (unsigned k = 0, ke = commodities.size(); k != ke; ++k) {
    const Commodity &c = commodities[k];
    const unsigned superSource = n, superSink = n + 1;
    std::vector<WidthArc> arcs;
    arcs.reserve(numArcs + c.supplies.size() + c.requirements.size());
    for (unsigned e = 0; e != numArcs; ++e) {
      int col = column[k][e];
      double f = col ? glp_get_col_prim(lp.get(), col) * byteUnit : 0;
      arcs.push_back({net.arcs[e].from, net.arcs[e].to, std::max(0.0, f)});
    }
    for (const auto &[node, bytes] : c.supplies)
      arcs.push_back({superSource, node, bytes});
    for (const auto &[node, bytes] : c.requirements)
      arcs.push_back({node, superSink, bytes});
    // Flow below 1e-10 of the commodity's smallest demand is LP noise.
    double smallest = c.total;
    for (const auto &[node, bytes] : c.requirements)
      smallest = std::min(smallest, bytes);
    for (const auto &[node, bytes] : c.supplies)
      smallest = std::min(smallest, bytes);
    std::vector<FlowPath> kPaths = decomposeFlow(
        n + 2, std::move(arcs), superSource, superSink, 1e-10 * smallest);
    for (FlowPath &p : kPaths) {
      unsigned s = c.supplies[p.arcs.front() - numArcs].first;
      unsigned t =
          c.requirements[p.arcs.back() - numArcs - c.supplies.size()].first;
      FlowPath stripped;
      stripped.arcs.assign(p.arcs.begin() + 1, p.arcs.end() - 1);
      stripped.amount = p.amount;
      paths[{s, t}].push_back(std::move(stripped));
    }
  }

  llvm::Expected<FlowSchedule> s = finishConstantRate(
      net, demands, std::move(paths), ScheduleMethod::MultiCommodityLP,
      options.saturationTolerance);
  if (!s)
    return s.takeError();
  s->lowerBound = lpMakespan;
  s->stats.commodities = commodities.size();
  s->stats.lpRows = glp_get_num_rows(lp.get());
  s->stats.lpColumns = glp_get_num_cols(lp.get());
  s->stats.lpNonzeros = nonzeros;
  s->stats.simplexIterations = glp_get_it_cnt(lp.get());
  return s;
}
