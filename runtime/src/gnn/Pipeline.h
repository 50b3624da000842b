//===- Pipeline.h - Sampling and gather ahead of compute --------*- C++ -*-===//
//
// Hyperion's overlap of the stages of mini-batch GNN training: a producer
// thread samples and gathers batch i + 1, i + 2, ... into a ring of `depth`
// slots while the trainer computes batch i; the trainer takes the slots in
// order and frees each when done. With depth 0 nothing runs ahead: each
// slot is produced on the trainer's thread when it is asked for. The
// produced batches are the same either way (sampling is keyed by batch).
// The slots belong to the caller, so that a trainer keeps them from one
// epoch to the next: a slot's vectors grow to the largest batch it held and
// are overwritten, not reallocated, by the batches after it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_PIPELINE_H
#define SLUICE_RUNTIME_SRC_GNN_PIPELINE_H

#include "runtime/src/gnn/Model.h"
#include "runtime/src/gnn/Sampler.h"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::rt::gnn {

struct BatchSlot {
  MiniBatch batch;
  Input input;
  double sampleSeconds = 0, gatherSeconds = 0;
};

class BatchPipeline {
public:
  using Produce = std::function<void(size_t index, BatchSlot &slot)>;

  /// Produces batches 0 .. count - 1 with `produce`, up to `depth` ahead,
  /// into `slots` (resized to max(depth, 1); they must outlive the
  /// pipeline). `produce` must overwrite everything a slot held before.
  BatchPipeline(size_t count, size_t depth, std::vector<BatchSlot> &slots,
                Produce produce);
  ~BatchPipeline();
  BatchPipeline(const BatchPipeline &) = delete;
  BatchPipeline &operator=(const BatchPipeline &) = delete;

  /// The next batch in order (blocks until it is produced); rethrows what
  /// the producer threw. `waited` gets the seconds spent blocked.
  BatchSlot &next(double &waited);
  /// Frees the batch next() returned last.
  void release();

private:
  void producerLoop();

  size_t count, depth;
  Produce produce;
  std::vector<BatchSlot> &slots;
  std::mutex mutex;
  std::condition_variable changed;
  size_t produced = 0, consumed = 0, released = 0;
  bool stopping = false;
  std::exception_ptr failure;
  std::thread producer;
};

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_PIPELINE_H
