//===- ChunkScheduler.cpp - Walking a planned run's chunks ----------------===//
//
// See ChunkScheduler.h and docs/sampling.md ("Threads and interleaving").
//
//===----------------------------------------------------------------------===//
#include "runtime/src/walk/ChunkScheduler.h"

#include "runtime/src/walk/GenericWalkers.h"
#include "runtime/src/walk/RejectionWalker.h"

namespace sluice::walkengine {

namespace {

/// Output buffers of one chunk, not zeroed: a walker writes every entry
/// the writer reads (a walk's vertices up to its length, and the length),
/// so a buffer's pages are touched first by the thread that walks into it,
/// and a ring larger than the run's output (a small graph) costs only
/// address space. Zeroing the ring (6 chunks of 8 MiB at 2 threads) took
/// 8% of a whole `sluicec --run` on luxembourg_osm (perf, memset).
struct ChunkBuffer {
  std::unique_ptr<uint32_t[]> rows;
  std::unique_ptr<uint32_t[]> lengths;
  bool ready = false;
};

/// A walk loop's type, as a value (runChunks picks one per run).
template <class W> struct LoopOf { using type = W; };

} // namespace

sluice_status_t walkChunks(const RunPlan &plan, sluice_walk_writer_t *writer,
                           Progress &progress, ChunkResults &out,
                           sluice_error_t *error) {
  const Run &run = plan.run;
  const Loop loop = plan.loop;
  const uint32_t threads = plan.threads;
  const uint64_t numChunks =
      (run.numWalkers + run.chunkWalkers - 1) / run.chunkWalkers;
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
    c.rows.reset(new uint32_t[run.chunkWalkers * run.stride]);
    c.lengths.reset(new uint32_t[run.chunkWalkers]);
  }

  std::mutex mutex;
  std::condition_variable changed;
  uint64_t nextChunk = 0, written = 0, walksDone = 0;
  std::atomic<bool> abort{false};
  std::vector<ThreadStats> &threadStats = out.stats;
  std::vector<std::exception_ptr> &threadErrors = out.errors;
  threadStats.assign(threads, ThreadStats());
  threadErrors.assign(threads, nullptr);
  sluice_status_t status = SLUICE_STATUS_OK;

  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
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
          walker.chunk(first, count, buffer ? buffer->rows.get() : nullptr,
                       buffer ? buffer->lengths.get() : nullptr, abort);
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
        // The loop, with the stop coin as a policy where the run has a
        // stop probability, and the rejection loop's kernel hooks (init,
        // stop, update, state) where the kernel has any.
        const bool coin = run.stopProbability > 0;
        const bool hooks = hasHooks(*run.kernel);
        auto walkWith = [&](auto loopType) {
          typename decltype(loopType)::type walker(run);
          work(t, walker);
        };
        switch (loop) {
        case Loop::Alias:
          coin ? walkWith(LoopOf<AliasStopWalker>())
               : walkWith(LoopOf<AliasWalker>());
          break;
        case Loop::Uniform:
          coin ? walkWith(LoopOf<UniformStopWalker>())
               : walkWith(LoopOf<UniformWalker>());
          break;
        case Loop::Rejection:
          if (hooks)
            coin ? walkWith(LoopOf<RejectionWalker<true, true>>())
                 : walkWith(LoopOf<RejectionWalker<false, true>>());
          else
            coin ? walkWith(LoopOf<RejectionWalker<true>>())
                 : walkWith(LoopOf<RejectionWalker<false>>());
          break;
        case Loop::General:
          walkWith(LoopOf<Walker>());
          break;
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
    status = sluice_walk_writer_append(writer, buffer->rows.get(),
                                       buffer->lengths.get(), count, error);
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
  out.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  return status;
}

} // namespace sluice::walkengine
