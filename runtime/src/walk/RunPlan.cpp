//===- RunPlan.cpp - Planning a walk run: mode, tables, loop --------------===//
//
// See RunPlan.h and docs/sampling.md ("The walk engine").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/RunPlan.h"

#include <unistd.h>

namespace sluice::walkengine {

namespace {

/// The step mode for (kernel, requested sampler), or an error for a sampler
/// that would be unsound for the kernel.
sluice_status_t chooseMode(const sluice_walk_kernel_t *kernel,
                           int64_t sampler, Mode *mode,
                           sluice_error_t *error) {
  auto cls = kernel->weight_class;
  bool unbounded = (kernel->flags & SLUICE_WALK_UNBOUNDED) != 0;
  switch (sampler) {
  case SLUICE_WALK_SAMPLER_AUTO:
    *mode = cls == SLUICE_WALK_WEIGHT_CONSTANT ? Mode::Uniform
            : cls == SLUICE_WALK_WEIGHT_STATIC ? Mode::Alias
            : unbounded                        ? Mode::Reservoir
                                               : Mode::Auto;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_ALIAS:
    if (cls == SLUICE_WALK_WEIGHT_DYNAMIC)
      return invalid(error,
                     "sampler alias needs a static weight, but the weight "
                     "of " +
                         kernelName(kernel) +
                         " is dynamic (it depends on prev, step, state or "
                         "random()); use rejection, reservoir or auto");
    *mode = cls == SLUICE_WALK_WEIGHT_CONSTANT ? Mode::Uniform : Mode::Alias;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_UNIFORM:
    if (cls != SLUICE_WALK_WEIGHT_CONSTANT)
      return invalid(error, "sampler uniform needs a constant weight, but "
                            "the weight of " +
                                kernelName(kernel) +
                                " is not (it depends on the edge or the "
                                "walk); use alias, rejection, reservoir or "
                                "auto");
    *mode = Mode::Uniform;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_REJECTION:
    if (unbounded)
      return invalid(error, "sampler rejection needs an upper bound of the "
                            "weight, but none could be proven for " +
                                kernelName(kernel) +
                                "; use reservoir or auto");
    *mode = Mode::Rejection;
    return SLUICE_STATUS_OK;
  case SLUICE_WALK_SAMPLER_RESERVOIR:
    *mode = Mode::Reservoir;
    return SLUICE_STATUS_OK;
  default:
    return invalid(error, "unknown sampler " + std::to_string(sampler));
  }
}

/// Whether every degree is below 2^32 (the specialised loops keep degrees
/// and indices in 32 bits); a scan only when the graph has 2^32 edges or
/// more.
bool degreesFit32(const Run &run) {
  if (run.offsets[run.numVertices] <= UINT32_MAX)
    return true;
  for (uint64_t v = 0; v < run.numVertices; ++v)
    if (run.offsets[v + 1] - run.offsets[v] > UINT32_MAX)
      return false;
  return true;
}

/// Whether a CONSTANT weight is positive (and the kernel records no fault
/// computing it), so that the uniform loop, which never calls it, takes
/// the same steps as the general loop, which ends a walk at a non-positive
/// weight. Evaluated once, at the first edge of the graph.
bool constantWeightIsPositive(const Run &run) {
  if (run.offsets[run.numVertices] == 0)
    return true; // no step is ever taken
  if (!run.kernel->weight)
    return !run.weights; // the graph's weight would vary
  uint32_t v = 0;
  while (run.offsets[v + 1] == run.offsets[v])
    ++v;
  uint64_t draws = 0;
  sluice_walk_fault_t fault{};
  sluice_walk_frame_t f = run.frame(nullptr, &draws, &fault);
  f.prev = f.cur = v;
  uint64_t edge = run.offsets[v];
  double w = run.edgeWeight(&f, edge);
  return fault.code == 0 && draws == 0 && w > 0;
}

/// The loop for a planned run (docs/sampling.md: the static, uniform
/// and rejection loops and the conditions under which each applies).
Loop chooseLoop(const Run &run, Mode mode, const sluice_walk_options_t &options) {
  const sluice_walk_kernel_t *kernel = run.kernel;
  // DeepWalk-like runs take the specialised alias loop (the same walks),
  // and so do PPR-like ones (a stop probability: the loop's stop coin).
  const bool alias =
      mode == Mode::Alias && !kernel->stop && !kernel->update && !kernel->init;
  // Unweighted DeepWalk-like runs (a CONSTANT weight that is positive)
  // take the same loop with a uniform index and no table, with or without
  // a stop probability.
  const bool uniform = mode == Mode::Uniform && !hasHooks(*kernel) &&
                       degreesFit32(run) &&
                       !(options.engine_flags & SLUICE_WALK_ENGINE_GENERIC) &&
                       constantWeightIsPositive(run);
  // node2vec-like runs take the specialised rejection loop (the same
  // walks), with or without a stop probability (second-order PPR), and
  // with the kernel's init, stop, update and state (metapath) as its
  // hooks; SLUICE_WALK_ENGINE_GENERIC keeps the generic one (tests
  // compare).
  const bool rejection =
      (run.mode == Mode::Rejection || run.mode == Mode::Auto) &&
      degreesFit32(run) && !(options.engine_flags & SLUICE_WALK_ENGINE_GENERIC);
  return alias       ? Loop::Alias
         : uniform   ? Loop::Uniform
         : rejection ? Loop::Rejection
                     : Loop::General;
}

} // namespace

sluice_status_t planRun(const sluice_graph_t *graph,
                        const sluice_walk_kernel_t *kernel,
                        const void *params,
                        const sluice_walk_options_t &options,
                        sluice_walk_writer_t *writer, RunPlan &plan,
                        sluice_error_t *error) {
  Run &run = plan.run;
  run.graph = graph;
  run.kernel = kernel;
  run.params = params;
  run.offsets = sluice_graph_offsets(graph);
  run.targets = sluice_graph_targets(graph);
  run.weights = sluice_graph_weights(graph);
  run.numVertices = sluice_graph_num_vertices(graph);
  run.starts = options.starts;
  uint64_t numStarts = options.starts ? options.num_starts : run.numVertices;
  run.walksPerVertex = options.walks_per_vertex;
  if (numStarts && options.walks_per_vertex > UINT64_MAX / numStarts)
    return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                "num_starts * walks_per_vertex does not fit in 64 bits");
  run.numWalkers = numStarts * options.walks_per_vertex;
  if (options.starts)
    for (uint64_t i = 0; i < numStarts; ++i)
      if (options.starts[i] >= run.numVertices)
        return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                    "start vertex " + std::to_string(options.starts[i]) +
                        " (starts[" + std::to_string(i) +
                        "]) is not in the graph (" +
                        std::to_string(run.numVertices) + " vertices)");
  run.maxLength = options.max_length;
  run.stopProbability = options.stop_probability;
  run.seed = options.seed;
  run.walkersPerThread = options.walkers_per_thread
                             ? options.walkers_per_thread
                             : kDefaultWalkersPerThread;
  if (writer) {
    run.stride = walkWriterLength(writer);
    if (run.stride < run.maxLength)
      return invalid(error, "the writer takes walks of at most " +
                                std::to_string(run.stride) +
                                " vertices, but max_length is " +
                                std::to_string(run.maxLength));
    run.chunkWalkers = std::clamp<uint64_t>(kChunkEntries / run.stride, 1,
                                            kMaxChunkWalkers);
  }
  Mode mode = Mode::Auto; // set by chooseMode on success
  sluice_status_t status =
      chooseMode(kernel, enumValue(options.sampler), &mode, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  run.mode = plan.requested = mode;

  uint32_t threads = options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency());
  // Large graphs, on request: the arrays the run reads, copied onto huge
  // pages (no measurable gain at R-MAT scale 20 on the 2-core VM, and the
  // copy doubles their memory: docs/sampling.md).
  if (options.engine_flags & SLUICE_WALK_ENGINE_HUGE_PAGES)
    plan.huge.adopt(run, graph, mode, threads);
  // Second-order weights ask has_edge(prev, next) at nearly every step:
  // the hubs' neighbour sets answer it without a binary search
  // (docs/sampling.md, "Neighbour sets of the hubs").
  const uint64_t arcs = run.offsets[run.numVertices];
  const bool bigGraph = arcs * sizeof(uint32_t) >= kEdgeSetMinGraphBytes;
  run.prefetchPrevAdjacency =
      (kernel->flags & SLUICE_WALK_SECOND_ORDER) && bigGraph;
  if ((kernel->flags & SLUICE_WALK_SECOND_ORDER) &&
      !(options.engine_flags & SLUICE_WALK_ENGINE_NO_EDGE_SETS) &&
      (bigGraph || (options.engine_flags & SLUICE_WALK_ENGINE_EDGE_SETS))) {
    auto t0 = std::chrono::steady_clock::now();
    // Within an eighth of the machine's memory too: the sets are optional
    // (a vertex without one is searched), and a failed allocation in a
    // host whose new-handler aborts (LLVM's tools) would end the process.
    uint64_t budget = std::max(kEdgeSetMinBytes, kEdgeSetBytesPerArc * arcs);
    long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
      budget = std::min(budget, uint64_t(pages) / 8 * uint64_t(pageSize));
    plan.edgeSets.build(run.numVertices, run.offsets, run.targets, threads,
                        budget);
    if (!plan.edgeSets.empty()) {
      plan.setsView.viewArraysOf(*run.graph);
      plan.setsView.edgeSets = &plan.edgeSets;
      run.graph = &plan.setsView;
      run.edgeSets = &plan.edgeSets;
    }
    plan.edgeSetSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
  }
  if (mode == Mode::Alias) {
    if (!degreesFit32(run))
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                  "alias tables need degrees below 2^32");
    plan.alias.build(run, threads);
    run.alias = plan.alias.entries.data();
  }
  run.costRatio = options.cost_ratio;
  if (mode == Mode::Auto && run.costRatio == 0)
    run.costRatio = calibrate(run);
  std::vector<double> &bounds = plan.bounds;
  std::vector<uint8_t> &boundIndex = plan.boundIndex;
  std::vector<double> &boundPalette = plan.boundPalette;
  if (mode == Mode::Auto || mode == Mode::Rejection) {
    bounds = vertexBounds(run, mode == Mode::Auto, threads);
    run.vertexBound = bounds.data();
    // The cost model chose reservoir at every vertex with an edge: the
    // run is a reservoir run (the same draws, without a table lookup per
    // step).
    bool allReservoir = mode == Mode::Auto;
    for (uint64_t v = 0; allReservoir && v < run.numVertices; ++v)
      allReservoir = bounds[v] < 0 || run.offsets[v + 1] == run.offsets[v];
    if (allReservoir) {
      run.mode = Mode::Reservoir;
      run.vertexBound = nullptr;
      std::vector<double>().swap(bounds);
    } else if (paletteOf(bounds, &boundIndex, &boundPalette)) {
      run.vertexBound = nullptr;
      run.boundIndex = boundIndex.data();
      run.boundPalette = boundPalette.data();
      std::vector<double>().swap(bounds);
    }
  }
  std::vector<float> &lowers = plan.lowers, &lowerPalette = plan.lowerPalette;
  std::vector<uint8_t> &lowerIndex = plan.lowerIndex;
  if ((run.mode == Mode::Auto || run.mode == Mode::Rejection) &&
      (kernel->flags & SLUICE_WALK_PURE_WEIGHT) && kernel->lower_bound &&
      !(options.engine_flags & SLUICE_WALK_ENGINE_NO_PRE_ACCEPT)) {
    lowers = vertexLowers(run, threads);
    if (std::any_of(lowers.begin(), lowers.end(),
                    [](float l) { return l > 0; })) {
      run.vertexLower = lowers.data();
      if (paletteOf(lowers, &lowerIndex, &lowerPalette)) {
        run.vertexLower = nullptr;
        run.lowerIndex = lowerIndex.data();
        run.lowerPalette = lowerPalette.data();
        std::vector<float>().swap(lowers);
      }
    }
  }


  uint64_t numChunks =
      (run.numWalkers + run.chunkWalkers - 1) / run.chunkWalkers;
  plan.threads = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(threads, numChunks)));
  plan.loop = chooseLoop(run, mode, options);
  return SLUICE_STATUS_OK;
}

} // namespace sluice::walkengine
