//===- HorizonFlow.h - Max flow with capacities c_e * T ---------*- C++ -*-===//
//
// Internal to SluiceFlow: the single-commodity engine behind
// solveSingleCommodity and solveMomentGreedy. A super-source feeds the
// supply nodes (each through an arc of its supply, possibly unbounded), the
// network arcs carry at most c_e * T bytes over a horizon T, and the
// requirement nodes drain into a super-sink (each through an arc of its
// requirement). The smallest T whose max flow reaches the target is the
// minimum makespan; every s-t cut S proves T >= (bytes that must leave S) /
// (bandwidth out of S). Boost.Graph's Boykov-Kolmogorov max flow runs on
// numbers scaled by the target, so they stay near 1.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_FLOW_HORIZONFLOW_H
#define SLUICE_COMPILER_ANALYSIS_FLOW_HORIZONFLOW_H

#include "compiler/Analysis/Flow/FlowPaths.h"
#include "compiler/Analysis/Flow/FlowSolvers.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <vector>

namespace sluice::flow::detail {

/// A supply or requirement node.
struct Terminal {
  unsigned node = 0;
  /// Bytes; +infinity for unbounded.
  double bytes = 0;
  /// Supplies only: the round of the max flow that connects this supply
  /// (round 0 first, each later round augments the previous flow).
  unsigned phase = 0;
};

class HorizonFlow {
public:
  /// `supplies` and `requirements` name distinct nodes each; `target` > 0
  /// is the flow that must arrive.
  HorizonFlow(const FlowNetwork &net, std::vector<Terminal> supplies,
              std::vector<Terminal> requirements, double target);
  ~HorizonFlow();
  HorizonFlow(const HorizonFlow &) = delete;
  HorizonFlow &operator=(const HorizonFlow &) = delete;

  /// Max flow (in bytes) at horizon `horizon` seconds, round by round.
  double run(double horizon);
  /// Whether a flow value reaches the target (relative slack 1e-12 for
  /// rounding).
  bool reaches(double value) const;
  /// The cut of the last run: S = the real nodes reachable from the
  /// super-source in the residual graph.
  FlowCut residualCut() const;
  /// The cut S | V \ S for a node set, with the bytes that must cross it
  /// (-infinity if an unbounded supply lies outside S or an unbounded
  /// requirement inside).
  FlowCut makeCut(const std::vector<bool> &inS) const;
  /// The best bound among the cuts S = {v}, V \ {v}, the supply nodes, and
  /// all but the requirement nodes; nullopt if none is positive.
  std::optional<FlowCut> initialCut() const;
  /// The flow of the last run split into paths per (supply node,
  /// requirement node) pair, amounts in bytes.
  PairPaths decompose() const;
  double target() const { return targetBytes; }
  unsigned runs() const { return numRuns; }

private:
  struct Impl;
  const FlowNetwork &net;
  std::vector<Terminal> supplies;
  std::vector<Terminal> requirements;
  double targetBytes;
  unsigned numRuns = 0;
  std::unique_ptr<Impl> impl;
};

/// The outcome of a horizon search: the last run is the feasible flow at
/// `horizon`.
struct HorizonResult {
  double horizon = 0;
  /// The cut with the largest bound seen (proves the lower bound).
  std::optional<FlowCut> bindingCut;
};

/// Finds the smallest horizon whose max flow reaches the target, by
/// Newton's method on the cuts (falling back to bisection if it stalls) or
/// by bisection down to `relativeTolerance`. Leaves the flow of the
/// returned horizon in `hf`.
llvm::Expected<HorizonResult>
searchHorizon(HorizonFlow &hf, HorizonSearch method, double relativeTolerance);

} // namespace sluice::flow::detail

#endif // SLUICE_COMPILER_ANALYSIS_FLOW_HORIZONFLOW_H
