//===- Pipeline.cpp - Sampling and gather ahead of compute ----------------===//

#include "runtime/src/gnn/Pipeline.h"

#include <chrono>

namespace sluice::rt::gnn {

BatchPipeline::BatchPipeline(size_t count, size_t depth,
                             std::vector<BatchSlot> &slots, Produce produce)
    : count(count), depth(depth), produce(std::move(produce)), slots(slots) {
  slots.resize(depth ? depth : 1);
  if (depth && count)
    producer = std::thread([this] { producerLoop(); });
}

BatchPipeline::~BatchPipeline() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  changed.notify_all();
  if (producer.joinable())
    producer.join();
}

void BatchPipeline::producerLoop() {
  for (size_t i = 0; i < count; ++i) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return stopping || i - released < depth; });
      if (stopping)
        return;
    }
    try {
      produce(i, slots[i % depth]);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      failure = std::current_exception();
      changed.notify_all();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      produced = i + 1;
    }
    changed.notify_all();
  }
}

BatchSlot &BatchPipeline::next(double &waited) {
  waited = 0;
  const size_t i = consumed++;
  if (!depth) {
    produce(i, slots[0]);
    return slots[0];
  }
  auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return produced > i || failure; });
  waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count();
  if (produced <= i && failure)
    std::rethrow_exception(failure);
  return slots[i % depth];
}

void BatchPipeline::release() {
  if (!depth)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++released;
  }
  changed.notify_all();
}

} // namespace sluice::rt::gnn
