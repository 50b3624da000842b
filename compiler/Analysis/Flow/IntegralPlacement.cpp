//===- IntegralPlacement.cpp - Whole-item placement for gathers -----------===//
//
// See IntegralPlacement.h. The MIP is the joint LP of Placement.cpp with the
// placement fractions x[c][t] replaced by integer item counts y[c][t] in
// [0, itemCount_c] (x = y / itemCount_c).
//
//===----------------------------------------------------------------------===//
#include "compiler/Analysis/Flow/IntegralPlacement.h"
#include "compiler/Analysis/Flow/PlacementLP.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <optional>

using namespace sluice;
using namespace sluice::flow;
using namespace sluice::flow::detail;

namespace {
llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "integral placement: " + msg);
}

struct MipResult {
  std::vector<std::vector<double>> items;
  bool optimal = false;
  double relaxation = 0;
  double objective = 0;
};

llvm::Expected<MipResult> solveMIP(const FlowNetwork &net,
                                   const PlacementProblem &p,
                                   const IntegralPlacementOptions &options) {
  unsigned numC = p.classes.size(), numT = p.tiers.size();
  PlacementLP built = buildPlacementLP(net, p, /*integral=*/true);
  GlpkProb &lp = built.lp;
  double byteUnit = built.byteUnit, capUnit = built.capUnit;

  int ret = runGlpkSimplex(lp.get(), /*exact=*/false);
  if (ret != 0)
    return makeError(llvm::formatv("glpk simplex failed with code {0}", ret));
  if (glp_get_status(lp.get()) != GLP_OPT)
    return makeError(llvm::formatv(
        "the LP relaxation has no optimum (glpk status {0})",
        glp_get_status(lp.get())));
  MipResult r;
  r.relaxation = glp_get_obj_val(lp.get()) * byteUnit / capUnit;

  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;
  parm.mip_gap = options.mipGap;
  parm.tol_int = 1e-7;
  parm.tm_lim = static_cast<int>(
      std::min(options.timeLimitSeconds * 1000.0, 2147483647.0));
  int termOut = glp_term_out(GLP_OFF);
  ret = glp_intopt(lp.get(), &parm);
  glp_term_out(termOut);
  int status = glp_mip_status(lp.get());
  if ((ret != 0 && ret != GLP_ETMLIM && ret != GLP_EMIPGAP) ||
      (status != GLP_OPT && status != GLP_FEAS))
    return makeError(llvm::formatv(
        "branch and bound found no whole-item placement (glpk code {0}, "
        "status {1})",
        ret, status));
  r.optimal = ret == 0 && status == GLP_OPT;
  r.objective = glp_mip_obj_val(lp.get()) * byteUnit / capUnit;
  r.items.assign(numC, std::vector<double>(numT, 0));
  for (unsigned c = 0; c != numC; ++c) {
    double sum = 0;
    unsigned largest = 0;
    for (unsigned t = 0; t != numT; ++t) {
      double y = std::max(0.0, std::round(glp_mip_col_val(lp.get(), built.placeCol(c, t))));
      r.items[c][t] = y;
      sum += y;
      if (y > r.items[c][largest])
        largest = t;
    }
    // Rounding cannot change a sum of integers by more than the tolerance,
    // but make it exact.
    r.items[c][largest] += p.classes[c].itemCount - sum;
    if (r.items[c][largest] < 0)
      return makeError(llvm::formatv("rounding broke class {0}", c));
  }
  return r;
}
} // namespace

llvm::Error flow::validateIntegralPlacement(const FlowNetwork &net,
                                            const PlacementProblem &p) {
  if (llvm::Error err = validatePlacement(net, p))
    return err;
  for (unsigned c = 0, e = p.classes.size(); c != e; ++c)
    if (p.classes[c].itemCount != std::floor(p.classes[c].itemCount) ||
        p.classes[c].itemCount > 1e12)
      return makeError(llvm::formatv(
          "class {0} has {1} items; whole-item placement needs a whole count",
          c, p.classes[c].itemCount));
  return llvm::Error::success();
}

llvm::Expected<PlacementResult>
flow::placeGreedyWhole(const FlowNetwork &net, const PlacementProblem &p,
                       const SolveOptions &options) {
  if (llvm::Error err = validateIntegralPlacement(net, p))
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
    for (unsigned t = 0; t != numT && rest > 0; ++t) {
      double fit =
          std::min(rest, std::floor(left[t] / cl.bytesPerItem * (1 + 1e-12)));
      if (fit <= 0)
        continue;
      items[c][t] = fit;
      left[t] = std::max(0.0, left[t] - fit * cl.bytesPerItem);
      rest -= fit;
    }
    if (rest > 0)
      return makeError(llvm::formatv(
          "the greedy cannot fit {0} whole items of class {1}", rest, c));
  }
  return evaluatePlacement(net, p, items, PlacementMethod::GreedyWhole,
                           options);
}

llvm::Expected<PlacementResult>
flow::placeIntegral(const FlowNetwork &net, const PlacementProblem &p,
                    const IntegralPlacementOptions &options,
                    IntegralPlacementInfo *info) {
  if (llvm::Error err = validateIntegralPlacement(net, p))
    return std::move(err);
  if (!(options.timeLimitSeconds > 0) || !(options.mipGap >= 0) ||
      !std::isfinite(options.mipGap))
    return makeError("the time limit must be positive and the MIP gap "
                     "finite and non-negative");
  IntegralPlacementInfo local;
  IntegralPlacementInfo &out = info ? *info : local;
  out = IntegralPlacementInfo();
  auto greedy = placeGreedyWhole(net, p, options.solve);
  std::optional<PlacementResult> mip;
  auto solved = solveMIP(net, p, options);
  if (!solved) {
    if (greedy) {
      llvm::consumeError(solved.takeError());
      return greedy;
    }
    llvm::consumeError(greedy.takeError());
    return solved.takeError();
  }
  out.provedOptimal = solved->optimal;
  out.relaxationBound = solved->relaxation;
  out.mipMakespan = solved->objective;
  auto r = evaluatePlacement(net, p, solved->items,
                             PlacementMethod::IntegralMIP, options.solve);
  if (!r) {
    if (greedy) {
      llvm::consumeError(r.takeError());
      return greedy;
    }
    llvm::consumeError(greedy.takeError());
    return r.takeError();
  }
  if (!greedy) {
    llvm::consumeError(greedy.takeError());
    return r;
  }
  if (r->makespan < greedy->makespan)
    return r;
  return greedy;
}
