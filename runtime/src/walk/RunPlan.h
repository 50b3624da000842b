//===- RunPlan.h - Planning a walk run: mode, tables, loop -----*- C++ -*-===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("The walk engine"). Planning turns the checked
// arguments of a run into a Run (what every worker reads) and the tables
// it points into: the step mode, huge-page copies of a large graph, alias
// tables, per-vertex bounds and lower bounds, the cost ratio, the thread
// count and the loop that walks the chunks. Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_RUNPLAN_H
#define SLUICE_RUNTIME_WALK_RUNPLAN_H

#include "runtime/src/walk/VertexTables.h"

#include "runtime/src/GraphImpl.h"

namespace sluice::walkengine {

/// The loop that walks a run's chunks: a specialised one where it applies
/// (the same walks as the general one), else the general one.
enum class Loop {
  General,   // Walker: any kernel, any mode
  Alias,     // AliasWalker: DeepWalk on alias tables
  Uniform,   // UniformWalker: unweighted DeepWalk
  Rejection, // RejectionWalker: node2vec-like, rejection or auto
};

/// The memory budget of the hubs' neighbour sets: this many bytes per arc
/// of the graph (twice its targets array), or kEdgeSetMinBytes if more;
/// never more than an eighth of the machine's memory (RunPlan.cpp).
constexpr uint64_t kEdgeSetBytesPerArc = 8;
constexpr uint64_t kEdgeSetMinBytes = uint64_t(1) << 20;
/// The sets are built for graphs whose targets array is this large or
/// larger (SLUICE_WALK_ENGINE_EDGE_SETS: for any graph). On a smaller one
/// the binary search reads lines that mostly stay in cache and the sets
/// only add to the memory a step touches: node2vec on soc-Slashdot0902
/// (4 MiB of targets) took about 17% more CPU time with them, on rmat18
/// (29 MiB) it walked about 1.9x as fast (docs/sampling.md).
constexpr uint64_t kEdgeSetMinGraphBytes = uint64_t(16) << 20;

/// A planned run: the Run and everything it points into.
struct RunPlan {
  Run run;
  /// The mode chooseMode picked (run.mode becomes Reservoir when the cost
  /// model chose reservoir at every vertex).
  Mode requested = Mode::Auto;
  /// Worker threads (at most one per chunk).
  uint32_t threads = 1;
  Loop loop = Loop::General;

  HugeGraph huge;
  /// Second-order kernels: the hubs' neighbour sets and the graph view
  /// that has them (run.graph then points at it).
  rt::EdgeSets edgeSets;
  sluice_graph_t setsView;
  double edgeSetSeconds = 0;
  AliasTables alias;
  std::vector<double> bounds, boundPalette;
  std::vector<uint8_t> boundIndex, lowerIndex;
  std::vector<float> lowers, lowerPalette;
};

/// Plans a run of `kernel` over `graph` with checked `options` (and
/// `writer`, whose width sets the chunk size); an error status for what
/// the checks of sluice_walk_run cannot see (a start vertex out of range,
/// an unsound sampler, a writer too narrow).
sluice_status_t planRun(const sluice_graph_t *graph,
                        const sluice_walk_kernel_t *kernel,
                        const void *params,
                        const sluice_walk_options_t &options,
                        sluice_walk_writer_t *writer, RunPlan &plan,
                        sluice_error_t *error);

} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_RUNPLAN_H
