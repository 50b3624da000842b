//===- Placement.cpp - Data placement for gathers -------------------------===//
//
// The greedy by access density and the joint place-and-route LP (GLPK). See
// Placement.h and docs/flows.md, "Data placement".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/Placement.h"
#include "compiler/Analysis/Flow/PlacementLP.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <memory>
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
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  PlacementLP built = buildPlacementLP(net, p, /*integral=*/false);
  GlpkProb &lp = built.lp;

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
      double x = std::clamp(glp_get_col_prim(lp.get(), built.placeCol(c, t)), 0.0, 1.0);
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
  std::vector<unsigned> order = densityOrder(p);
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
