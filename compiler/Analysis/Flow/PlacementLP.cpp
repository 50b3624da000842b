//===- PlacementLP.cpp - The shared place-and-route LP --------------------===//
//
// See PlacementLP.h and docs/flows.md, "Data placement".
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/PlacementLP.h"
#include <algorithm>
#include <numeric>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

PlacementLP detail::buildPlacementLP(const FlowNetwork &net,
                                     const PlacementProblem &p,
                                     bool integral) {
  unsigned numC = p.classes.size(), numT = p.tiers.size(),
           numD = p.destinations.size(), n = net.numNodes(),
           numArcs = net.numArcs();
  double byteUnit = 0, capUnit = 0, storUnit = 0;
  for (const PlacementClass &c : p.classes) {
    for (double a : c.accesses)
      byteUnit = std::max(byteUnit, a * c.bytesPerItem);
    storUnit = std::max(storUnit, c.bytesPerItem * c.itemCount);
  }
  for (const FlowArc &a : net.arcs)
    capUnit = std::max(capUnit, a.capacity);
  if (byteUnit <= 0)
    byteUnit = 1;
  if (capUnit <= 0)
    capUnit = 1;
  if (storUnit <= 0)
    storUnit = 1;

  PlacementLP out;
  out.byteUnit = byteUnit;
  out.capUnit = capUnit;
  out.numTiers = numT;
  out.lp.reset(glp_create_prob());
  glp_prob *lp = out.lp.get();
  glp_set_obj_dir(lp, GLP_MIN);
  // Column 1: tau = T * capUnit / byteUnit.
  glp_add_cols(lp, 1);
  glp_set_col_bnds(lp, 1, GLP_LO, 0, 0);
  glp_set_obj_coef(lp, 1, 1);
  // x[c][t] in [0, 1], or y[c][t] whole in [0, itemCount_c].
  out.placeBase = glp_add_cols(lp, static_cast<int>(numC * numT));
  for (unsigned c = 0; c != numC; ++c)
    for (unsigned t = 0; t != numT; ++t) {
      if (integral)
        glp_set_col_kind(lp, out.placeCol(c, t), GLP_IV);
      glp_set_col_bnds(lp, out.placeCol(c, t), GLP_DB, 0,
                       integral ? p.classes[c].itemCount : 1);
    }
  // f[d][e] >= 0, in byteUnit.
  int fBase = 0;
  if (numD * numArcs > 0) {
    fBase = glp_add_cols(lp, static_cast<int>(numD * numArcs));
    for (unsigned i = 0; i != numD * numArcs; ++i)
      glp_set_col_bnds(lp, fBase + static_cast<int>(i), GLP_LO, 0, 0);
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
    double whole = integral ? p.classes[c].itemCount : 1;
    int row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, row, GLP_FX, whole, whole);
    for (unsigned t = 0; t != numT; ++t)
      put(row, out.placeCol(c, t), 1);
  }
  // Tier capacities (a column unit is one item, or the whole class).
  for (unsigned t = 0; t != numT; ++t) {
    int row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, row, GLP_UP, 0, p.tiers[t].capacityBytes / storUnit);
    for (unsigned c = 0; c != numC; ++c) {
      const PlacementClass &cl = p.classes[c];
      put(row, out.placeCol(c, t),
          (integral ? cl.bytesPerItem : cl.bytesPerItem * cl.itemCount) /
              storUnit);
    }
  }
  // Conservation of commodity d at every node but d: out - in = supply.
  // The destination's own share (if it is a tier device) is read locally.
  std::vector<std::vector<unsigned>> outArcs(n), inArcs(n);
  for (unsigned e = 0; e != numArcs; ++e) {
    outArcs[net.arcs[e].from].push_back(e);
    inArcs[net.arcs[e].to].push_back(e);
  }
  for (unsigned d = 0; d != numD; ++d) {
    unsigned sink = p.destinations[d];
    // Bytes node v supplies to d per column unit of class c on tier t.
    std::vector<std::vector<double>> coef(n,
                                          std::vector<double>(numC * numT, 0));
    for (unsigned t = 0; t != numT; ++t) {
      const PlacementTier &tier = p.tiers[t];
      double share = 1.0 / static_cast<double>(tier.devices.size());
      for (unsigned v : tier.devices)
        for (unsigned c = 0; c != numC; ++c) {
          const PlacementClass &cl = p.classes[c];
          double bytes = cl.accesses[d] * cl.bytesPerItem * share;
          if (integral)
            bytes /= cl.itemCount;
          coef[v][c * numT + t] += bytes / byteUnit;
        }
    }
    for (unsigned v = 0; v != n; ++v) {
      if (v == sink)
        continue;
      int row = glp_add_rows(lp, 1);
      glp_set_row_bnds(lp, row, GLP_FX, 0, 0);
      for (unsigned e : outArcs[v])
        put(row, fCol(d, e), 1);
      for (unsigned e : inArcs[v])
        put(row, fCol(d, e), -1);
      for (unsigned i = 0; i != numC * numT; ++i)
        put(row, out.placeBase + static_cast<int>(i), -coef[v][i]);
    }
  }
  // Arc capacities over the horizon.
  for (unsigned e = 0; e != numArcs; ++e) {
    int row = glp_add_rows(lp, 1);
    glp_set_row_bnds(lp, row, GLP_UP, 0, 0);
    for (unsigned d = 0; d != numD; ++d)
      put(row, fCol(d, e), 1);
    put(row, 1, -net.arcs[e].capacity / capUnit);
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(),
                  ar.data());
  return out;
}

std::vector<unsigned> detail::densityOrder(const PlacementProblem &p) {
  unsigned numC = p.classes.size();
  std::vector<double> density(numC);
  for (unsigned c = 0; c != numC; ++c) {
    const PlacementClass &cl = p.classes[c];
    density[c] = std::accumulate(cl.accesses.begin(), cl.accesses.end(), 0.0) /
                 (cl.bytesPerItem * cl.itemCount);
  }
  std::vector<unsigned> order(numC);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return density[a] > density[b];
  });
  return order;
}
