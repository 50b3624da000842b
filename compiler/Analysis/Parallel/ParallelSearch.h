//===- ParallelSearch.h - Choosing a 3D-parallel plan -----------*- C++ -*-===//
//
// The search of the parallel planner, over plain structs:
//
//  1. configurations: every (tp, pp, dp) with tp x pp x dp = N, tp inside a
//     host and dividing the heads, pp dividing the layers; for a mixture of
//     experts every expert-parallel ep dividing dp and the experts (others
//     are skipped, not errors); every micro-batch
//     size dividing batch / dp (up to maxMicroBatch), interleaved virtual
//     stages, recomputation (none, selective, full), sequence parallelism
//     (tp > 1) and ZeRO stage (with dp > 1: 0 and 1 with pipelining; 2 and
//     3, DeepSpeed, without). Shape and memory are checked first (the memory
//     estimate needs no placement); the survivors are ranked by a lower bound
//     (the compute of the 1F1B critical path without communication) and
//     evaluated in that order under Megatron-LM's default placement, stopping
//     when the bound reaches the best time found (branch and bound: the result
//     equals exhaustive enumeration, which exhaustiveBest() does and the tests
//     compare);
//  2. placement: for the best `placementCandidates` configurations, the
//     assignment of ranks to GPUs: a permutation of the hosts onto node ranks
//     and, per host, of its GPUs onto local ranks (what torchrun's node_rank
//     and CUDA_VISIBLE_DEVICES express), enumerated exactly when there are at
//     most `exactPlacementLimit` of them, else simulated annealing (swaps of
//     two hosts or of two GPUs of one host, fixed seed). Skipped when every
//     intra-host pair and every inter-host pair has the same bandwidth (every
//     placement costs the same).
//
// When no configuration fits, the plan names the binding constraint of the
// configuration that came closest (the least memory over the GPU's), with
// numbers.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELSEARCH_H
#define SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELSEARCH_H

#include "compiler/Analysis/Parallel/ParallelModel.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::parallel {

struct SearchOptions {
  ModelOptions model;
  int64_t maxMicroBatch = 16;
  int64_t maxVirtualStages = 4;
  /// Configurations that get a placement search.
  int64_t placementCandidates = 2;
  /// Enumerate placements exactly up to this many.
  int64_t exactPlacementLimit = 5040;
  /// Simulated annealing: proposals per candidate, and the seed.
  int64_t annealIterations = 3000;
  /// ... at most this many divided by the GPUs (each proposal is costed in
  /// O(GPUs)): 2000 proposals at 3072 GPUs, so planning stays near a second.
  int64_t annealBudget = 6000000;
  uint64_t seed = 1;
  /// Search placements at all (false: Megatron-LM's default order).
  bool searchPlacement = true;
};

/// The outcome of a placement search for one configuration.
struct PlacementResult {
  Placement placement;
  double time = 0;        ///< iteration time with `placement`
  double defaultTime = 0; ///< with Megatron-LM's default order
  enum class Method {
    Default,
    Uniform,
    Exact,
    Annealing
  } method = Method::Default;
  int64_t evaluated = 0; ///< placements costed
  double gain() const { return time > 0 ? defaultTime / time : 1.0; }
};
llvm::StringRef placementMethodName(PlacementResult::Method m);

/// The chosen configuration with another expert-parallel degree.
struct EpAlternative {
  int64_t ep = 1;
  Estimate estimate; ///< with the chosen placement; may be rejected
};

struct ParallelPlan {
  bool feasible = false;
  /// When infeasible: the binding constraint with numbers.
  std::string infeasibleReason;
  Constraint binding = Constraint::None;
  ParallelConfig config;
  Estimate estimate;        ///< with `placement`
  Estimate defaultEstimate; ///< with Megatron-LM's default order
  PlacementResult placement;
  /// Configurations in the space, rejected per constraint, and costed.
  int64_t configurations = 0;
  std::array<int64_t, 4> rejected{}; ///< by Constraint
  int64_t evaluated = 0;
  /// The runners-up under the default order (best first, at most 5).
  std::vector<std::pair<ParallelConfig, double>> runnersUp;
  /// Mixtures of experts: the chosen configuration with each ep dividing
  /// dp and the experts (the chosen one included), increasing ep.
  std::vector<EpAlternative> epAlternatives;
};

/// Every configuration of the search space (shape not yet checked).
std::vector<ParallelConfig> enumerateConfigs(const TrainJob &job,
                                             const ParallelCluster &cluster,
                                             const SearchOptions &opts = {});

/// The best feasible configuration under the default placement by plain
/// enumeration (the oracle of the tests; ties: first in enumeration order).
std::optional<std::pair<ParallelConfig, double>>
exhaustiveBest(const TrainJob &job, const ParallelCluster &cluster,
               const SearchOptions &opts = {});

/// Number of placements of the cluster: H! x (g!)^H, saturating at
/// INT64_MAX.
int64_t placementCount(const ParallelCluster &cluster);

/// The placement of host permutation `hostOfNode` (node rank -> host) and
/// per-host GPU orders `localOrder[h]` (local rank -> local GPU).
Placement makePlacement(const ParallelCluster &cluster,
                        const std::vector<int64_t> &hostOfNode,
                        const std::vector<std::vector<int64_t>> &localOrder);

/// Every placement costed (requires placementCount <= limit).
PlacementResult exactPlacement(const TrainJob &job,
                               const ParallelCluster &cluster,
                               const ParallelConfig &c,
                               const SearchOptions &opts = {});
/// Simulated annealing from the default order.
PlacementResult annealPlacement(const TrainJob &job,
                                const ParallelCluster &cluster,
                                const ParallelConfig &c,
                                const SearchOptions &opts = {});
/// Exact, annealing, or the default when the links are uniform.
PlacementResult searchPlacement(const TrainJob &job,
                                const ParallelCluster &cluster,
                                const ParallelConfig &c,
                                const SearchOptions &opts = {});

/// Plans `job` on `cluster`. Errors only for invalid inputs; a job that
/// fits nowhere returns a plan with feasible = false.
llvm::Expected<ParallelPlan> planParallel(const TrainJob &job,
                                          const ParallelCluster &cluster,
                                          const SearchOptions &opts = {});

} // namespace sluice::parallel

#endif // SLUICE_COMPILER_ANALYSIS_PARALLEL_PARALLELSEARCH_H
