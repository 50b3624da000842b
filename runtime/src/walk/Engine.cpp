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
// See docs/sampling.md ("The walk engine").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/RejectionWalker.h"
#include "runtime/src/walk/VertexTables.h"

using namespace sluice::walkengine;

namespace {

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

sluice_status_t invalid(sluice_error_t *error, const std::string &message) {
  return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {}, message);
}

std::string kernelName(const sluice_walk_kernel_t *kernel) {
  return std::string("walk '") + (kernel->name ? kernel->name : "?") + "'";
}

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

/// Output buffers of one chunk.
struct ChunkBuffer {
  std::vector<uint32_t> rows;
  std::vector<uint32_t> lengths;
  bool ready = false;
};

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

sluice_status_t runWalks(const sluice_graph_t *graph,
                         const sluice_walk_kernel_t *kernel,
                         const void *params,
                         const sluice_walk_options_t &options,
                         sluice_walk_writer_t *writer,
                         sluice_walk_stats_t *outStats,
                         sluice_error_t *error) {
  Run run;
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
  run.mode = mode;

  uint32_t threads = options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency());
  // Large graphs: the arrays the run reads, copied onto huge pages.
  HugeGraph huge;
  if (!(options.engine_flags & SLUICE_WALK_ENGINE_NO_HUGE_PAGES))
    huge.adopt(run, graph, mode, threads);
  AliasTables tables;
  if (mode == Mode::Alias) {
    if (!degreesFit32(run))
      return fail(error, SLUICE_STATUS_UNSUPPORTED, {},
                  "alias tables need degrees below 2^32");
    tables.build(run, threads);
    run.alias = tables.entries.data();
  }
  run.costRatio = options.cost_ratio;
  if (mode == Mode::Auto && run.costRatio == 0)
    run.costRatio = calibrate(run);
  std::vector<double> bounds;
  std::vector<uint8_t> boundIndex;
  std::vector<double> boundPalette;
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
  std::vector<float> lowers, lowerPalette;
  std::vector<uint8_t> lowerIndex;
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
  threads = static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>(threads, numChunks)));
  // Chunk buffers: a ring, so that memory stays bounded while the writer
  // commits chunks in order.
  const uint64_t ringSize = writer ? 2 * uint64_t(threads) + 2 : 0;
  // Estimated before allocating: in a host whose new-handler aborts (LLVM's
  // tools), a failed allocation would end the process instead of returning
  // OUT_OF_MEMORY.
  if (ringSize) {
    long double bytes = (long double)ringSize * run.chunkWalkers *
                        ((long double)run.stride + 1) * sizeof(uint32_t);
    long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    long double memory =
        pages > 0 && pageSize > 0 ? (long double)pages * pageSize : 0;
    if (memory > 0 && bytes > memory / 2)
      return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {},
                  "the output buffers of " + std::to_string(ringSize) +
                      " chunks of walks of up to " +
                      std::to_string(run.stride) + " vertices need " +
                      std::to_string((unsigned long long)(bytes / (1 << 20))) +
                      " MiB, more than half of this machine's " +
                      std::to_string((unsigned long long)(memory / (1 << 20))) +
                      " MiB: lower the walk length or the threads");
  }
  std::vector<ChunkBuffer> ring(ringSize);
  for (ChunkBuffer &c : ring) {
    c.rows.resize(run.chunkWalkers * run.stride);
    c.lengths.resize(run.chunkWalkers);
  }

  std::mutex mutex;
  std::condition_variable changed;
  uint64_t nextChunk = 0, written = 0, walksDone = 0;
  std::atomic<bool> abort{false};
  std::vector<ThreadStats> threadStats(threads);
  std::vector<std::exception_ptr> threadErrors(threads);

  Progress progress(!options.quiet, options.progress,
                    options.progress_user_data, 1000, 1000,
                    kernelName(kernel));
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  // DeepWalk-like runs take the specialised alias loop (the same walks).
  const bool fastAlias = mode == Mode::Alias && !kernel->stop &&
                         !kernel->update && !kernel->init &&
                         run.stopProbability == 0;
  // Unweighted DeepWalk-like runs (a CONSTANT weight that is positive)
  // take the same loop with a uniform index and no table.
  const bool fastUniform = mode == Mode::Uniform && !kernel->stop &&
                           !kernel->update && !kernel->init &&
                           kernel->num_state == 0 &&
                           run.stopProbability == 0 && degreesFit32(run) &&
                           !(options.engine_flags & SLUICE_WALK_ENGINE_GENERIC) &&
                           constantWeightIsPositive(run);
  // node2vec-like runs take the specialised rejection loop (the same
  // walks); SLUICE_WALK_ENGINE_GENERIC keeps the generic one (tests
  // compare).
  const bool fastRejection =
      (run.mode == Mode::Rejection || run.mode == Mode::Auto) &&
      !kernel->stop &&
      !kernel->update && !kernel->init && kernel->num_state == 0 &&
      run.stopProbability == 0 && degreesFit32(run) &&
      !(options.engine_flags & SLUICE_WALK_ENGINE_GENERIC);
  auto work = [&](uint32_t t, auto &walker) {
        for (;;) {
          uint64_t c;
          ChunkBuffer *buffer = nullptr;
          {
            std::unique_lock<std::mutex> lock(mutex);
            if (abort || nextChunk == numChunks)
              break;
            c = nextChunk++;
            if (writer) {
              changed.wait(lock,
                           [&] { return abort || c < written + ringSize; });
              if (abort)
                break;
              buffer = &ring[c % ringSize];
            }
          }
          uint64_t first = c * run.chunkWalkers;
          uint64_t count = std::min(run.chunkWalkers, run.numWalkers - first);
          walker.chunk(first, count, buffer ? buffer->rows.data() : nullptr,
                       buffer ? buffer->lengths.data() : nullptr, abort);
          std::lock_guard<std::mutex> lock(mutex);
          walksDone += count;
          if (buffer)
            buffer->ready = true;
          changed.notify_all();
        }
        threadStats[t] = walker.result();
  };
  for (uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        if (fastAlias) {
          AliasWalker walker(run);
          work(t, walker);
        } else if (fastUniform) {
          UniformWalker walker(run);
          work(t, walker);
        } else if (fastRejection) {
          RejectionWalker walker(run);
          work(t, walker);
        } else {
          Walker walker(run);
          work(t, walker);
        }
      } catch (...) {
        threadErrors[t] = std::current_exception();
        abort = true;
        std::lock_guard<std::mutex> lock(mutex);
        changed.notify_all();
      }
    });

  // The calling thread: progress, and the writer in chunk order.
  for (;;) {
    ChunkBuffer *buffer = nullptr;
    uint64_t count = 0;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait_for(lock, std::chrono::milliseconds(100), [&] {
        return abort || (writer && (written == numChunks ||
                                    ring[written % ringSize].ready)) ||
               (!writer && walksDone == run.numWalkers);
      });
      progress.update("walking", walksDone, run.numWalkers, "walks");
      if (abort)
        break;
      if (!writer) {
        if (walksDone == run.numWalkers)
          break;
        continue;
      }
      if (written == numChunks)
        break;
      if (!ring[written % ringSize].ready)
        continue;
      buffer = &ring[written % ringSize];
      count = std::min(run.chunkWalkers,
                       run.numWalkers - written * run.chunkWalkers);
    }
    status = sluice_walk_writer_append(writer, buffer->rows.data(),
                                       buffer->lengths.data(), count, error);
    std::lock_guard<std::mutex> lock(mutex);
    if (status != SLUICE_STATUS_OK) {
      abort = true;
      changed.notify_all();
      break;
    }
    buffer->ready = false;
    ++written;
    changed.notify_all();
  }
  for (std::thread &th : pool)
    th.join();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (status != SLUICE_STATUS_OK)
    return status;
  // A kernel fault stops every thread; the one of the smallest walker is
  // reported (with one thread: the first in walker order).
  const KernelFault *first = nullptr;
  std::vector<KernelFault> faults;
  faults.reserve(threads);
  for (std::exception_ptr &e : threadErrors) {
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
  for (const ThreadStats &s : threadStats)
    total.add(s);
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
    s.cost_ratio = mode == Mode::Auto ? run.costRatio : 0.0;
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
      SLUICE_WALK_ENGINE_NO_HUGE_PAGES;
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
