//===- Placement.cpp - Data placement for gathers -------------------------===//
//
// The greedy by access density and the joint place-and-route LP (GLPK). See
// Placement.h and docs/flows.md, "Data placement".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Placement.h"
#include "compiler/Analysis/Flow/Glpk.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "placement: " + msg);
}

bool finiteNonNeg(double v) { return std::isfinite(v) && v >= 0; }

/// Relative slack on tier capacities (the LP's bound tolerance).
constexpr double kCapacitySlack = 1e-7;

double classBytes(const PlacementClass &c) {
  return c.bytesPerItem * c.itemCount;
}

/// Solves the joint LP; returns items[c][t].
llvm::Expected<std::vector<std::vector<double>>>
solveJointLP(const FlowNetwork &net, const PlacementProblem &p) {
  unsigned numC = p.classes.size(), numT = p.tiers.size(),
           numD = p.destinations.size(), n = net.numNodes(),
           numArcs = net.numArcs();
  double byteUnit = 0, capUnit = 0, storUnit = 0;
  for (const PlacementClass &c : p.classes) {
    for (double a : c.accesses)
      byteUnit = std::max(byteUnit, a * c.bytesPerItem);
    storUnit = std::max(storUnit, classBytes(c));
  }
  for (const FlowArc &a : net.arcs)
    capUnit = std::max(capUnit, a.capacity);
  if (byteUnit <= 0)
    byteUnit = 1;
  if (capUnit <= 0)
    capUnit = 1;
  if (storUnit <= 0)
    storUnit = 1;

  GlpkProb lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  // Column 1: tau = T * capUnit / byteUnit.
  glp_add_cols(lp.get(), 1);
  glp_set_col_bnds(lp.get(), 1, GLP_LO, 0, 0);
  glp_set_obj_coef(lp.get(), 1, 1);
  // x[c][t] in [0, 1].
  int xBase = glp_add_cols(lp.get(), static_cast<int>(numC * numT));
  for (unsigned i = 0; i != numC * numT; ++i)
    glp_set_col_bnds(lp.get(), xBase + static_cast<int>(i), GLP_DB, 0, 1);
  auto xCol = [&](unsigned c, unsigned t) {
    return xBase + static_cast<int>(c * numT + t);
  };
  // f[d][e] >= 0, in byteUnit.
  int fBase = 0;
  if (numD * numArcs > 0) {
    fBase = glp_add_cols(lp.get(), static_cast<int>(numD * numArcs));
    for (unsigned i = 0; i != numD * numArcs; ++i)
      glp_set_col_bnds(lp.get(), fBase + static_cast<int>(i), GLP_LO, 0, 0);
  }
  auto fCol = [&](unsigned d, unsigned e) {
    return fBase + static_cast<int>(d * numArcs + e);
  };

  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  auto put = [&](int row, int col, double v) {
    if (v == 0)
      return;
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };

  // Every class is placed whole.
  for (unsigned c = 0; c != numC; ++c) {
    int row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, GLP_FX, 1, 1);
    for (unsigned t = 0; t != numT; ++t)
      put(row, xCol(c, t), 1);
  }
  // Tier capacities.
  for (unsigned t = 0; t != numT; ++t) {
    int row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, GLP_UP, 0,
                     p.tiers[t].capacityBytes / storUnit);
    for (unsigned c = 0; c != numC; ++c)
      put(row, xCol(c, t), classBytes(p.classes[c]) / storUnit);
  }
  // Conservation of commodity d at every node but d: out - in = supply(x).
  // The destination's own share (if it is a tier device) is read locally.
  std::vector<std::vector<unsigned>> outArcs(n), inArcs(n);
  for (unsigned e = 0; e != numArcs; ++e) {
    outArcs[net.arcs[e].from].push_back(e);
    inArcs[net.arcs[e].to].push_back(e);
  }
  for (unsigned d = 0; d != numD; ++d) {
    unsigned sink = p.destinations[d];
    std::vector<std::vector<double>> coef(n,
                                          std::vector<double>(numC * numT, 0));
    for (unsigned t = 0; t != numT; ++t) {
      const PlacementTier &tier = p.tiers[t];
      double share = 1.0 / static_cast<double>(tier.devices.size());
      for (unsigned v : tier.devices)
        for (unsigned c = 0; c != numC; ++c) {
          const PlacementClass &cl = p.classes[c];
          coef[v][c * numT + t] +=
              cl.accesses[d] * cl.bytesPerItem * share / byteUnit;
        }
    }
    for (unsigned v = 0; v != n; ++v) {
      if (v == sink)
        continue;
      int row = glp_add_rows(lp.get(), 1);
      glp_set_row_bnds(lp.get(), row, GLP_FX, 0, 0);
      for (unsigned e : outArcs[v])
        put(row, fCol(d, e), 1);
      for (unsigned e : inArcs[v])
        put(row, fCol(d, e), -1);
      for (unsigned i = 0; i != numC * numT; ++i)
        put(row, xBase + static_cast<int>(i), -coef[v][i]);
    }
  }
  // Arc capacities over the horizon.
  for (unsigned e = 0; e != numArcs; ++e) {
    int row = glp_add_rows(lp.get(), 1);
    glp_set_row_bnds(lp.get(), row, GLP_UP, 0, 0);
    for (unsigned d = 0; d != numD; ++d)
      put(row, fCol(d, e), 1);
    put(row, 1, -net.arcs[e].capacity / capUnit);
  }
  glp_load_matrix(lp.get(), static_cast<int>(ia.size()) - 1, ia.data(),
                  ja.data(), ar.data());

  int ret = runGlpkSimplex(lp.get(), /*exact=*/false);
  if (ret != 0)
    return makeError(llvm::formatv("glpk simplex failed with code {0}", ret));
  int status = glp_get_status(lp.get());
  if (status != GLP_OPT)
    return makeError(
        llvm::formatv("glpk found no optimal solution (status {0})", status));

  // Clamp, renormalise each class to 1, and pull any capacity overshoot
  // within the LP's tolerance back by renormalisation only.
  std::vector<std::vector<double>> items(numC, std::vector<double>(numT, 0));
  for (unsigned c = 0; c != numC; ++c) {
    double sum = 0;
    for (unsigned t = 0; t != numT; ++t) {
      double x = std::clamp(glp_get_col_prim(lp.get(), xCol(c, t)), 0.0, 1.0);
      if (x < 1e-12)
        x = 0;
      items[c][t] = x;
      sum += x;
    }
    if (sum <= 0)
      return makeError(llvm::formatv("LP placed nothing of class {0}", c));
    for (unsigned t = 0; t != numT; ++t)
      items[c][t] = items[c][t] / sum * p.classes[c].itemCount;
  }
  return items;
}

} // namespace

llvm::Error flow::validatePlacement(const FlowNetwork &net,
                                    const PlacementProblem &p) {
  if (llvm::Error err = validateNetwork(net))
    return err;
  for (unsigned d : p.destinations)
    if (d >= net.numNodes())
      return makeError(llvm::formatv("destination {0} is not a node", d));
  if (p.tiers.empty() && !p.classes.empty())
    return makeError("no tiers");
  double totalCap = 0, totalBytes = 0;
  for (unsigned t = 0, te = p.tiers.size(); t != te; ++t) {
    const PlacementTier &tier = p.tiers[t];
    if (tier.devices.empty())
      return makeError(llvm::formatv("tier {0} has no devices", t));
    for (unsigned v : tier.devices)
      if (v >= net.numNodes())
        return makeError(
            llvm::formatv("tier {0} names device {1}, not a node", t, v));
    if (!finiteNonNeg(tier.capacityBytes))
      return makeError(llvm::formatv("tier {0} has a bad capacity", t));
    totalCap += tier.capacityBytes;
  }
  for (unsigned c = 0, ce = p.classes.size(); c != ce; ++c) {
    const PlacementClass &cl = p.classes[c];
    if (!std::isfinite(cl.bytesPerItem) || cl.bytesPerItem <= 0 ||
        !std::isfinite(cl.itemCount) || cl.itemCount <= 0)
      return makeError(llvm::formatv(
          "class {0} needs positive finite bytesPerItem and itemCount", c));
    if (cl.accesses.size() != p.destinations.size())
      return makeError(llvm::formatv(
          "class {0} has {1} access counts for {2} destinations", c,
          cl.accesses.size(), p.destinations.size()));
    for (double a : cl.accesses)
      if (!finiteNonNeg(a))
        return makeError(llvm::formatv("class {0} has a bad access count", c));
    totalBytes += classBytes(cl);
  }
  if (totalBytes > totalCap * (1 + kCapacitySlack))
    return makeError(llvm::formatv("{0} bytes do not fit in {1} bytes of tiers",
                                   totalBytes, totalCap));
  return llvm::Error::success();
}

GatherSpec
flow::placementGather(const PlacementProblem &p,
                      const std::vector<std::vector<double>> &items) {
  GatherSpec spec;
  spec.destinations = p.destinations;
  spec.placement = TierPlacement::Striped;
  for (const PlacementTier &t : p.tiers)
    spec.tiers.push_back({t.name, t.devices});
  for (unsigned c = 0, ce = p.classes.size(); c != ce; ++c) {
    const PlacementClass &cl = p.classes[c];
    for (unsigned t = 0, te = p.tiers.size(); t != te; ++t) {
      double count = c < items.size() && t < items[c].size() ? items[c][t] : 0;
      if (count <= 0)
        continue;
      GatherItem item;
      item.bytes = cl.bytesPerItem;
      item.tier = t;
      double frac = count / cl.itemCount;
      for (double a : cl.accesses)
        item.accesses.push_back(a * frac);
      spec.items.push_back(std::move(item));
    }
  }
  return spec;
}

llvm::Expected<PlacementResult>
flow::evaluatePlacement(const FlowNetwork &net, const PlacementProblem &p,
                        const std::vector<std::vector<double>> &items,
                        PlacementMethod method, const SolveOptions &options) {
  if (llvm::Error err = validatePlacement(net, p))
    return std::move(err);
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  if (items.size() != numC)
    return makeError("placement has the wrong number of classes");
  PlacementResult r;
  r.tierBytes.assign(numT, 0);
  for (unsigned c = 0; c != numC; ++c) {
    if (items[c].size() != numT)
      return makeError(
          llvm::formatv("placement of class {0} has the wrong tier count", c));
    double sum = 0;
    for (unsigned t = 0; t != numT; ++t) {
      if (!finiteNonNeg(items[c][t]))
        return makeError(llvm::formatv("bad item count for class {0}", c));
      sum += items[c][t];
      r.tierBytes[t] += items[c][t] * p.classes[c].bytesPerItem;
    }
    if (std::fabs(sum - p.classes[c].itemCount) >
        1e-9 * p.classes[c].itemCount)
      return makeError(
          llvm::formatv("class {0} places {1} of {2} items", c, sum,
                        p.classes[c].itemCount));
  }
  for (unsigned t = 0; t != numT; ++t)
    if (r.tierBytes[t] >
        p.tiers[t].capacityBytes * (1 + kCapacitySlack))
      return makeError(llvm::formatv("tier {0} holds {1} bytes over its {2}",
                                     t, r.tierBytes[t],
                                     p.tiers[t].capacityBytes));
  auto demands = buildGatherDemands(net, placementGather(p, items));
  if (!demands)
    return demands.takeError();
  auto s = solveMinMakespan(net, *demands, options);
  if (!s)
    return s.takeError();
  r.items = items;
  r.demands = std::move(*demands);
  r.schedule = std::move(*s);
  r.makespan = r.schedule.makespan;
  r.method = method;
  return r;
}

llvm::Expected<PlacementResult>
flow::placeGreedyByDensity(const FlowNetwork &net, const PlacementProblem &p,
                           const SolveOptions &options) {
  if (llvm::Error err = validatePlacement(net, p))
    return std::move(err);
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  std::vector<double> density(numC);
  for (unsigned c = 0; c != numC; ++c) {
    const PlacementClass &cl = p.classes[c];
    density[c] = std::accumulate(cl.accesses.begin(), cl.accesses.end(), 0.0) /
                 classBytes(cl);
  }
  std::vector<unsigned> order(numC);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return density[a] > density[b];
  });
  std::vector<double> left(numT);
  for (unsigned t = 0; t != numT; ++t)
    left[t] = p.tiers[t].capacityBytes;
  std::vector<std::vector<double>> items(numC, std::vector<double>(numT, 0));
  for (unsigned c : order) {
    const PlacementClass &cl = p.classes[c];
    double rest = cl.itemCount;
    unsigned last = 0;
    for (unsigned t = 0; t != numT && rest > 0; ++t) {
      double fit = std::min(rest, left[t] / cl.bytesPerItem);
      if (fit <= 0)
        continue;
      items[c][t] += fit;
      left[t] -= fit * cl.bytesPerItem;
      rest -= fit;
      last = t;
    }
    // Rounding leftovers (the total was validated to fit) go to the last
    // tier used.
    if (rest > 0)
      items[c][last] += rest;
  }
  return evaluatePlacement(net, p, items, PlacementMethod::GreedyDensity,
                           options);
}

llvm::Expected<PlacementResult>
flow::placeForMakespan(const FlowNetwork &net, const PlacementProblem &p,
                       const SolveOptions &options) {
  if (llvm::Error err = validatePlacement(net, p))
    return std::move(err);
  auto greedy = placeGreedyByDensity(net, p, options);
  auto lpItems = solveJointLP(net, p);
  std::optional<PlacementResult> lp;
  if (lpItems) {
    auto r = evaluatePlacement(net, p, *lpItems, PlacementMethod::JointLP,
                               options);
    if (r)
      lp = std::move(*r);
    else
      llvm::consumeError(r.takeError());
  } else {
    llvm::consumeError(lpItems.takeError());
  }
  if (!greedy) {
    if (lp)
      return std::move(*lp);
    return greedy.takeError();
  }
  if (lp && lp->makespan < greedy->makespan)
    return std::move(*lp);
  return greedy;
}
