//===- HostExecutor.cpp - Flow schedules over rate-limited host channels --===//
//
// The host backend of sluice_flow_execute. The calling thread releases the
// chunks at their release times (scaled by the time scale) into the queue of
// the first link of their path; one thread per link in use serves its queue
// in arrival order. Serving a chunk takes bytes / (capacity / time scale)
// wall seconds on a virtual clock (the link starts the chunk when both the
// link and the chunk are ready), which the thread waits out before it
// copies the chunk to the next node: into a fresh staging buffer at an
// intermediate node, into the destination's region on the last hop
// (store-and-forward). The virtual clock never runs ahead of the wall clock,
// so no link carries more than capacity x elapsed time, and a late wake-up
// does not pile up.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/flow/FlowPlan.h"
#include "runtime/src/Error.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

using namespace sluice::rt;
using namespace sluice::rt::flow;

namespace {

using Clock = std::chrono::steady_clock;

/// A chunk on its way: which chunk, the hop it is waiting for, when it is
/// ready (wall seconds since the start), and its bytes once they left the
/// source.
struct InFlight {
  const ChunkPlan *chunk = nullptr;
  uint32_t hop = 0;
  double ready = 0;
  std::unique_ptr<uint8_t[]> data;
};

struct LinkQueue {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<InFlight> items;
  bool closing = false;
};

class HostRun {
public:
  HostRun(const Plan &p, const sluice_flow_options_t &o, const Regions &r,
          RunState &st)
      : plan(p), s(*p.schedule), options(o), regions(r), state(st),
        queues(s.num_links) {}

  sluice_status_t run(sluice_error_t *error);

private:
  void push(uint32_t link, InFlight item);
  void serve(uint32_t link);
  void hop(uint32_t link, InFlight &item);
  void deliver(InFlight &item, const uint8_t *data);
  void finishOne();
  void sleepUntil(double wallSeconds) {
    std::this_thread::sleep_until(
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(wallSeconds)));
  }
  double now() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  const Plan &plan;
  const sluice_flow_schedule_t &s;
  const sluice_flow_options_t &options;
  const Regions &regions;
  RunState &state;
  std::vector<LinkQueue> queues;
  /// Per link: its virtual clock (wall seconds when it is next free); each
  /// entry is touched only by its link's thread.
  std::vector<double> linkFree;
  Clock::time_point start;

  std::mutex doneMutex;
  std::condition_variable doneCv;
  uint64_t remaining = 0;
  std::atomic<uint64_t> hops{0};
  std::mutex failMutex;
  std::string failure;
};

void HostRun::push(uint32_t link, InFlight item) {
  LinkQueue &q = queues[link];
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    q.items.push_back(std::move(item));
  }
  q.cv.notify_one();
}

void HostRun::finishOne() {
  std::lock_guard<std::mutex> lock(doneMutex);
  if (--remaining == 0)
    doneCv.notify_all();
}

void HostRun::deliver(InFlight &item, const uint8_t *data) {
  const ChunkPlan &c = *item.chunk;
  const sluice_flow_transfer_t &t = s.transfers[c.transfer];
  uint8_t *dst = regions[t.destination];
  uint64_t at = t.destination_offset + c.offset;
  uint64_t slot = plan.chunkBase[c.transfer] + c.index;
  int copies = 1;
  if (isFaulty(options, c.transfer, c.index)) {
    switch (options.fault.kind) {
    case SLUICE_FLOW_FAULT_DROP:
      copies = 0;
      break;
    case SLUICE_FLOW_FAULT_DUPLICATE:
      copies = 2;
      break;
    case SLUICE_FLOW_FAULT_MISPLACE: {
      // One byte further on, cut at the end of the region.
      uint64_t size = s.devices[t.destination].memory_bytes;
      uint64_t n = at + 1 < size ? std::min(c.bytes, size - at - 1) : 0;
      if (n)
        std::memmove(dst + at + 1, data, n);
      copies = 0;
      state.deliveries[slot].fetch_add(1);
      break;
    }
    default:
      break;
    }
  }
  for (int k = 0; k < copies; ++k) {
    std::memcpy(dst + at, data, c.bytes);
    state.deliveries[slot].fetch_add(1);
  }
  if (copies && options.fault.kind == SLUICE_FLOW_FAULT_CORRUPT &&
      isFaulty(options, c.transfer, c.index))
    dst[at + c.bytes / 2] ^= 0x5A;
  if (copies || options.fault.kind == SLUICE_FLOW_FAULT_MISPLACE)
    state.deliveredAt[slot] = now();
}

void HostRun::hop(uint32_t link, InFlight &item) {
  const ChunkPlan &c = *item.chunk;
  const sluice_flow_transfer_t &t = s.transfers[c.transfer];
  double wallRate = s.links[link].capacity / options.time_scale;
  // The link's virtual clock, owned by this thread.
  double &freeAt = linkFree[link];
  double begin = std::max(item.ready, freeAt);
  double end = begin + static_cast<double>(c.bytes) / wallRate;
  freeAt = end;
  item.ready = end;
  if (end > now())
    sleepUntil(end);
  hops.fetch_add(1, std::memory_order_relaxed);
  const uint8_t *from = item.data ? item.data.get()
                                  : regions[t.source] + t.source_offset + c.offset;
  bool last = item.hop + 1 == t.path_length;
  if (last) {
    deliver(item, from);
    finishOne();
    return;
  }
  // Store at the next node, then queue for the next link.
  std::unique_ptr<uint8_t[]> staged(new uint8_t[c.bytes]);
  std::memcpy(staged.get(), from, c.bytes);
  item.data = std::move(staged);
  ++item.hop;
  push(t.path[item.hop], std::move(item));
}

void HostRun::serve(uint32_t link) {
  LinkQueue &q = queues[link];
  for (;;) {
    InFlight item;
    {
      std::unique_lock<std::mutex> lock(q.mutex);
      q.cv.wait(lock, [&] { return q.closing || !q.items.empty(); });
      if (q.items.empty())
        return;
      item = std::move(q.items.front());
      q.items.pop_front();
    }
    try {
      hop(link, item);
    } catch (const std::exception &e) {
      {
        std::lock_guard<std::mutex> lock(failMutex);
        if (failure.empty())
          failure = std::string("link ") + std::to_string(link) + ": " + e.what();
      }
      // The chunk is lost; the checks will say so.
      finishOne();
    }
  }
}

} // namespace

sluice_status_t HostRun::run(sluice_error_t *error) {
  std::vector<bool> used(s.num_links, false);
  for (uint32_t i = 0; i < s.num_transfers; ++i)
    if (s.transfers[i].bytes)
      for (uint32_t h = 0; h < s.transfers[i].path_length; ++h)
        used[s.transfers[i].path[h]] = true;
  linkFree.assign(s.num_links, 0.0);
  remaining = plan.chunks.size();
  std::vector<std::thread> threads;
  auto closeAll = [&] {
    for (LinkQueue &q : queues) {
      {
        std::lock_guard<std::mutex> lock(q.mutex);
        q.closing = true;
      }
      q.cv.notify_all();
    }
    for (std::thread &th : threads)
      th.join();
  };
  try {
    for (uint32_t l = 0; l < s.num_links; ++l)
      if (used[l])
        threads.emplace_back([this, l] { serve(l); });
  } catch (const std::system_error &e) {
    closeAll();
    return fail(error, SLUICE_STATUS_INTERNAL, {},
                std::string("cannot start a link thread: ") + e.what());
  }
  start = Clock::now();
  for (const ChunkPlan &c : plan.chunks) {
    double release = c.release * options.time_scale;
    if (release > now())
      sleepUntil(release);
    InFlight item;
    item.chunk = &c;
    item.ready = release;
    push(s.transfers[c.transfer].path[0], std::move(item));
  }
  {
    std::unique_lock<std::mutex> lock(doneMutex);
    doneCv.wait(lock, [&] { return remaining == 0; });
  }
  state.wallSeconds = now();
  closeAll();
  state.chunkHops = hops.load();
  if (!failure.empty())
    return fail(error, SLUICE_STATUS_OUT_OF_MEMORY, {}, failure);
  return SLUICE_STATUS_OK;
}

sluice_status_t flow::runHost(const Plan &plan,
                              const sluice_flow_options_t &options,
                              const Regions &regions, RunState &state,
                              sluice_error_t *error) {
  HostRun run(plan, options, regions, state);
  return run.run(error);
}
