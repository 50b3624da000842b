//===- Engine.cpp - The walk engine: sluice_walk_run ----------------------===//
//
// Runs a walk kernel (sluice/walk.h) over a graph:
//
//   - the walkers (start rank * walks_per_vertex + k) are cut into chunks;
//     worker threads take chunks in increasing order and the calling thread
//     appends finished chunks to the writer in chunk order, so the output is
//     in walker order whatever the thread count;
//   - inside a chunk, a thread interleaves `walkers_per_thread` walkers.
//     A round advances every walker by one step in three passes: the first
//     Philox block of every walker's step (one batch), stage 0 of every
//     walker (read the current vertex's offsets, prefetched when the walker
//     arrived; run the stop rules; prefetch the edge(s) the draw will
//     touch), then stage 1 of every walker (draw, move, prefetch the offsets
//     of the vertex reached). Memory latency is hidden behind the others;
//   - every random number of a step comes from WalkRng(seed, walker, step)
//     (Philox), so a walk is a pure function of (seed, walker) and of the
//     sampler chosen for each step;
//   - samplers: uniform index (CONSTANT weights), per-vertex alias tables
//     built once (STATIC), rejection against the kernel's upper bound,
//     reservoir (A-ExpJ), or FlexiWalker's cost model per vertex and step.
//
// Files: Engine.cpp (the C API, its checks, the statistics), RunPlan.cpp
// (planning: mode, tables, the loop), ChunkScheduler.cpp (workers, the
// writer ring), GenericWalkers.h and RejectionWalker.h (the loops),
// VertexTables.h (alias tables, bounds, huge-page copies).
//
// See docs/sampling.md ("The walk engine").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/ChunkScheduler.h"

using namespace sluice::walkengine;

namespace {

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

sluice_status_t checkKernel(const sluice_walk_kernel_t *kernel,
                            const void *params, sluice_error_t *error) {
  if (kernel->abi_version != SLUICE_WALK_ABI_VERSION)
    return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                kernelName(kernel) + " was built for walk ABI version " +
                    std::to_string(kernel->abi_version) +
                    ", this runtime has version " +
                    std::to_string(SLUICE_WALK_ABI_VERSION));
  int64_t cls = enumValue(kernel->weight_class);
  if (cls < SLUICE_WALK_WEIGHT_CONSTANT || cls > SLUICE_WALK_WEIGHT_DYNAMIC)
    return invalid(error, kernelName(kernel) + ": unknown weight class " +
                              std::to_string(cls));
  const uint32_t known = SLUICE_WALK_SECOND_ORDER | SLUICE_WALK_MAY_BE_ZERO |
                         SLUICE_WALK_UNBOUNDED | SLUICE_WALK_PURE_WEIGHT;
  if (kernel->flags & ~known)
    return invalid(error, kernelName(kernel) + ": unknown flags " +
                              hex(kernel->flags & ~known));
  if ((kernel->flags & SLUICE_WALK_SECOND_ORDER) &&
      cls != SLUICE_WALK_WEIGHT_DYNAMIC)
    return invalid(error, kernelName(kernel) +
                              ": a second-order weight (SLUICE_WALK_SECOND_"
                              "ORDER) must be classified DYNAMIC");
  if (!kernel->upper_bound && !(kernel->flags & SLUICE_WALK_UNBOUNDED))
    return invalid(error, kernelName(kernel) +
                              " has no upper_bound but is not marked "
                              "SLUICE_WALK_UNBOUNDED");
  if (kernel->num_params && !params)
    return invalid(error, kernelName(kernel) + " takes " +
                              std::to_string(kernel->num_params) +
                              " parameters but params is NULL");
  return SLUICE_STATUS_OK;
}

sluice_status_t runWalks(const sluice_graph_t *graph,
                         const sluice_walk_kernel_t *kernel,
                         const void *params,
                         const sluice_walk_options_t &options,
                         sluice_walk_writer_t *writer,
                         sluice_walk_stats_t *outStats,
                         sluice_error_t *error) {
  RunPlan plan;
  sluice_status_t status =
      planRun(graph, kernel, params, options, writer, plan, error);
  if (status != SLUICE_STATUS_OK)
    return status;

  Progress progress(!options.quiet, options.progress,
                    options.progress_user_data, 1000, 1000,
                    kernelName(kernel));
  ChunkResults results;
  status = walkChunks(plan, writer, progress, results, error);
  if (status != SLUICE_STATUS_OK)
    return status;

  // A kernel fault stops every thread; the one of the smallest walker is
  // reported (with one thread: the first in walker order).
  const KernelFault *first = nullptr;
  std::vector<KernelFault> faults;
  faults.reserve(results.errors.size());
  for (std::exception_ptr &e : results.errors) {
    if (!e)
      continue;
    try {
      std::rethrow_exception(e);
    } catch (const KernelFault &kf) {
      faults.push_back(kf);
    }
  }
  for (const KernelFault &kf : faults)
    if (!first || kf.fault.walker < first->fault.walker)
      first = &kf;
  if (first)
    throw *first;

  ThreadStats total;
  for (const ThreadStats &s : results.stats)
    total.add(s);
  const double seconds = results.seconds;
  char summary[160];
  std::snprintf(summary, sizeof(summary),
                "%llu walks, %llu steps, %.3g steps/s",
                static_cast<unsigned long long>(total.walks),
                static_cast<unsigned long long>(total.steps),
                seconds > 0 ? double(total.steps) / seconds : 0.0);
  progress.finish(summary);
  if (outStats) {
    sluice_walk_stats_t &s = *outStats;
    std::memset(&s, 0, sizeof(s));
    s.walks = total.walks;
    s.steps = total.steps;
    s.seconds = seconds;
    s.rejection_steps = total.rejectionSteps;
    s.reservoir_steps = total.reservoirSteps;
    s.alias_steps = total.aliasSteps;
    s.rejection_trials = total.sampler.rejectionTrials;
    s.bound_violations = total.sampler.boundViolations;
    s.pre_accepted = total.sampler.preAccepted;
    s.edge_set_vertices = plan.edgeSets.vertices();
    s.edge_set_bytes = plan.edgeSets.bytes();
    s.edge_set_seconds = plan.edgeSetSeconds;
    s.cost_ratio = plan.requested == Mode::Auto ? plan.run.costRatio : 0.0;
  }
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

/// The stream of random() (sluice_walk_random): Philox keyed by the seed
/// with its words flipped, so it never overlaps the sampler's stream.
constexpr uint32_t kRandomKeyFlip0 = 0x6a09e667u, kRandomKeyFlip1 = 0xbb67ae85u;

} // namespace

extern "C" SLUICE_API void
sluice_walk_options_init(sluice_walk_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->max_length = 80;
  options->stop_probability = 0;
  options->starts = nullptr;
  options->num_starts = 0;
  options->walks_per_vertex = 1;
  options->seed = 0;
  options->threads = 0;
  options->walkers_per_thread = 0;
  options->sampler = SLUICE_WALK_SAMPLER_AUTO;
  options->cost_ratio = 0;
  options->progress = nullptr;
  options->progress_user_data = nullptr;
  options->quiet = 0;
  options->engine_flags = 0;
}

extern "C" SLUICE_API sluice_status_t sluice_walk_run(
    const sluice_graph_t *graph, const sluice_walk_kernel_t *kernel,
    const void *params, const sluice_walk_options_t *options,
    sluice_walk_writer_t *writer, sluice_walk_stats_t *stats,
    sluice_error_t *error) {
  sluice_error_clear(error);
  if (!graph)
    return invalid(error, "graph is NULL");
  if (!kernel)
    return invalid(error, "kernel is NULL");
  sluice_walk_options_t defaults;
  if (!options) {
    sluice_walk_options_init(&defaults);
    options = &defaults;
  }
  sluice_status_t status = checkKernel(kernel, params, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  const sluice_walk_options_t &o = *options;
  if (o.max_length < 1)
    return invalid(error, "max_length must be at least 1");
  if (o.walks_per_vertex < 1)
    return invalid(error, "walks_per_vertex must be at least 1");
  if (!(o.stop_probability >= 0 && o.stop_probability <= 1))
    return invalid(error, "stop_probability must be in [0, 1], got " +
                              std::to_string(o.stop_probability));
  if (!(o.cost_ratio >= 0) || !std::isfinite(o.cost_ratio))
    return invalid(error,
                   "cost_ratio must be finite and >= 0 (0: calibrate), got " +
                       std::to_string(o.cost_ratio));
  if (o.threads > SLUICE_WALK_MAX_THREADS)
    return invalid(error, "threads must be at most " +
                              std::to_string(SLUICE_WALK_MAX_THREADS) +
                              ", got " + std::to_string(o.threads));
  if (o.walkers_per_thread > kMaxWalkersPerThread)
    return invalid(error, "walkers_per_thread must be at most " +
                              std::to_string(kMaxWalkersPerThread) + ", got " +
                              std::to_string(o.walkers_per_thread));
  constexpr uint32_t kEngineFlags =
      SLUICE_WALK_ENGINE_GENERIC | SLUICE_WALK_ENGINE_NO_PRE_ACCEPT |
      SLUICE_WALK_ENGINE_HUGE_PAGES | SLUICE_WALK_ENGINE_NO_EDGE_SETS |
      SLUICE_WALK_ENGINE_EDGE_SETS;
  if (o.engine_flags & ~kEngineFlags)
    return invalid(error, "engine_flags has unknown bits " +
                              std::to_string(o.engine_flags & ~kEngineFlags));
  if (o.starts == nullptr && o.num_starts != 0 &&
      o.num_starts != sluice_graph_num_vertices(graph))
    return invalid(error, "num_starts is " + std::to_string(o.num_starts) +
                              " but starts is NULL (every vertex)");
  return guarded(error, {}, [&] {
    try {
      return runWalks(graph, kernel, params, o, writer, stats, error);
    } catch (const KernelFault &kf) {
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  faultMessage(kernel, graph, o.walks_per_vertex, o.starts,
                               kf));
    }
  });
}

extern "C" SLUICE_API double sluice_walk_random(const sluice_walk_frame_t *f) {
  if (!f)
    return 0;
  uint64_t draw = 0;
  if (f->random_draws)
    draw = (*f->random_draws)++;
  uint32_t key[2] = {static_cast<uint32_t>(f->seed) ^ kRandomKeyFlip0,
                     static_cast<uint32_t>(f->seed >> 32) ^ kRandomKeyFlip1};
  uint32_t counter[4] = {static_cast<uint32_t>(draw / 2),
                         static_cast<uint32_t>(f->step),
                         static_cast<uint32_t>(f->walker),
                         static_cast<uint32_t>(f->walker >> 32)};
  uint32_t out[4];
  philox4x32_10(counter, key, out);
  unsigned half = static_cast<unsigned>(draw % 2) * 2;
  uint64_t bits = uint64_t(out[half]) << 32 | out[half + 1];
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}
