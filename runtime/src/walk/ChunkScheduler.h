//===- ChunkScheduler.h - Walking a planned run's chunks -------*- C++ -*-===//
//
// Part of the walk engine (Engine.cpp: sluice_walk_run); see
// docs/sampling.md ("Threads and interleaving"). Worker threads take the
// chunks of a planned run in increasing order and walk each with the
// plan's loop; the calling thread reports progress and appends finished
// chunks to the writer in chunk order from a ring of 2 * threads + 2
// buffers (workers wait when it is full), so the output is in walker
// order whatever the thread count. Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WALK_CHUNKSCHEDULER_H
#define SLUICE_RUNTIME_WALK_CHUNKSCHEDULER_H

#include "runtime/src/walk/RunPlan.h"

#include <exception>

namespace sluice::walkengine {

/// What the workers left: wall time of the walking, per-thread counters and
/// the exception each thread stopped with (a KernelFault, or none).
struct ChunkResults {
  double seconds = 0;
  std::vector<ThreadStats> stats;
  std::vector<std::exception_ptr> errors;
};

/// Walks every chunk of `plan`; the writer's error, if an append failed
/// (the workers stop), else OK (faults are in `out.errors`).
sluice_status_t walkChunks(const RunPlan &plan, sluice_walk_writer_t *writer,
                           Progress &progress, ChunkResults &out,
                           sluice_error_t *error);

} // namespace sluice::walkengine

#endif // SLUICE_RUNTIME_WALK_CHUNKSCHEDULER_H
